/**
 * Issue 30: messages an emergency drop took out with a summary are not "summarized". The notice
 * written for the agent names every turn and message of the summary's span, and their fates say
 * removed (the export dialog's "N of them summarized" counts fates).
 */
import { describe, expect, it } from 'vitest';
import { makeTranscript } from '../testing/make';
import { step } from '../testing/steps';
import { projectTranscript } from '../project';
import { historyLeftOut } from '../../engine/compaction';

const log = makeTranscript(
  Array.from({ length: 40 }, (_, i) => ({ user: `Do step ${i}.`, tools: [{ name: 'Bash', input: { command: `echo ${i}` }, output: `out ${i}\n`.repeat(40) }], answer: `Done ${i}.` })),
  { format: 'openai-chat' },
);

describe('emergency after a summary (issue 30)', () => {
  it('the notice counts the turns and messages of a dropped summary, and their fates say removed', () => {
    const p = projectTranscript(log, [step(['summarize', { id: 'emergency', options: { keepN: 0, dropUserMessages: true } }], { range: { kind: 'turns', from: 5, to: 30 }, keepLast: 0 })]);
    const notice = p.messages.find((m) => m.synthetic === 'notice');
    expect(notice).toBeDefined();
    expect(p.messages.some((m) => m.synthetic === 'summary')).toBe(false);
    const inRange = log.messages.filter((m) => m.turn >= 5 && m.turn <= 30);
    const text = (notice!.blocks[0] as { text: string }).text;
    expect(text).toContain(`turns 6–31, ${inRange.length} messages`);
    for (const m of inRange) for (const b of m.blocks) expect(p.fates[b.id]?.kind, b.id).toBe('removed');
    const left = historyLeftOut(log, p, false);
    expect(left.summarized).toBe(0);
    expect(left.removed).toBe(inRange.length);
  });
});
