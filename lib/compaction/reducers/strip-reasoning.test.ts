import { describe, expect, it } from 'vitest';
import { makeTranscript } from '../testing/make';
import { step } from '../testing/steps';
import { projectTranscript } from '../project';

describe('strip-reasoning', () => {
  const log = makeTranscript([
    { user: 'a', reasoning: 'plain thoughts '.repeat(20), answer: 'x' },
    { user: 'b', reasoning: 'signed thoughts '.repeat(20), signed: true, tools: [{ name: 'Bash', input: { command: 'ls' }, output: 'a.ts' }], answer: 'y' },
    { user: 'c', reasoning: 'recent thoughts', answer: 'z' },
  ]);
  it('removes reasoning (signed whole) outside keep_last and says so', () => {
    const p = projectTranscript(log, [step(['strip-reasoning'], { keepLast: 1 })]);
    const kinds = p.messages.flatMap((m) => m.blocks.map((b) => `${m.turn}:${b.kind}`));
    expect(kinds.filter((k) => k.endsWith('reasoning'))).toEqual(['2:reasoning']);
    expect(p.report[0].events).toBe(2);
    expect(p.report[0].notes[0]).toContain('1 signed/encrypted');
    expect(Object.values(p.fates).filter((f) => f.kind === 'removed')).toHaveLength(2);
    expect(p.tokens.after.byKind.reasoning).toBe(log.messages.at(-1)!.blocks[0].tokens);
  });
  it('with untilFits stops as soon as the budget holds', () => {
    const total = projectTranscript(log, []).tokens.after.total;
    const p = projectTranscript(log, [step([{ id: 'strip-reasoning', options: { untilFits: true } }], { keepLast: 1, budget: total - 5 })]);
    expect(p.report[0].events).toBe(1);
  });
});
