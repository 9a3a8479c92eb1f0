/** strip-attachments, prune-tools, sliding-window, emergency, classify-tangents. */
import { describe, expect, it } from 'vitest';
import { filler, makeTranscript, type TurnSpec } from '../testing/make';
import { step } from '../testing/steps';
import { projectTranscript } from '../project';
import { validatePairing } from '../../model/pairing';

const turns: TurnSpec[] = Array.from({ length: 10 }, (_, i) => ({
  user: `instruction ${i}`,
  tools: [{ name: 'bash', input: { command: `cmd ${i}` }, output: filler(60, `o${i}`) }],
  answer: `answer ${i}`,
}));
const log = makeTranscript(turns, { system: 'system prompt', tools: [{ name: 'bash' }, { name: 'unused', description: filler(100) }] });

describe('strip-attachments', () => {
  it('removes attachments, leaving a placeholder where nothing else is left', () => {
    const withAtt = makeTranscript([
      { user: 'see image', attachment: { mediaType: 'image/png', name: 'shot.png', bytes: 50_000 }, answer: 'seen' },
      { user: 'next', answer: 'ok' },
    ]);
    const p = projectTranscript(withAtt, [step(['strip-attachments'], { keepLast: 1 })]);
    expect(p.messages[0].blocks.map((b) => b.kind)).toEqual(['text']);
    expect(p.tokens.after.byKind.attachment).toBe(0);
    expect(p.report[0].events).toBe(1);
  });
});

describe('prune-tools', () => {
  it('drops schemas no call used', () => {
    const p = projectTranscript(log, [step(['prune-tools'])]);
    expect(p.tools.map((t) => t.name)).toEqual(['bash']);
    expect(p.tokens.after.tools).toBe(log.tools[0].tokens);
    expect(p.report[0].notes[0]).toContain('unused');
  });
});

describe('sliding-window', () => {
  it('keeps the newest N turns of the range whole, system prompt stays', () => {
    const p = projectTranscript(log, [step([{ id: 'sliding-window', options: { maxTurns: 3 } }], { keepLast: 2 })]);
    const userTurns = p.messages.filter((m) => m.role === 'user' && m.blocks[0].kind === 'text').map((m) => m.turn);
    expect(userTurns).toEqual([6, 7, 8, 9, 10]);
    expect(p.messages[0].role).toBe('system');
    expect(validatePairing(p.messages)).toEqual([]);
  });
  it('token cap on the dialogue', () => {
    const p = projectTranscript(log, [step([{ id: 'sliding-window', options: { maxTokens: 300 } }], { keepLast: 1 })]);
    const kept = p.messages.filter((m) => m.turn >= 1 && m.turn <= 9).reduce((n, m) => n + m.blocks.reduce((s, b) => s + b.tokens, 0), 0);
    expect(kept).toBeLessThanOrEqual(300);
    expect(kept).toBeGreaterThan(0);
  });
});

describe('emergency', () => {
  it('drops all but keep_n messages of the range with a notice, no model call, split-safe', () => {
    const p = projectTranscript(log, [step([{ id: 'emergency', options: { keepN: 3, dropUserMessages: true } }], { keepLast: 1 })]);
    const notice = p.messages.find((m) => m.synthetic === 'notice')!;
    expect(notice.blocks[0].kind === 'text' && notice.blocks[0].text).toContain('dropped to fit the context window');
    expect(p.messages[0].role).toBe('system');
    expect(p.messages[1]).toBe(notice);
    expect(validatePairing(p.messages)).toEqual([]);
    // kept part never starts on a tool result
    expect(p.messages[2].blocks.some((b) => b.kind === 'tool_result')).toBe(false);
  });
  it('with untilFits shrinks keep_n until the budget holds', () => {
    const protectedTokens = projectTranscript(log, []).messages.filter((m) => m.turn === 10 || m.role === 'system').reduce((n, m) => n + m.blocks.reduce((s, b) => s + b.tokens, 0), 0);
    const budget = protectedTokens + log.tools.reduce((n, t) => n + t.tokens, 0) + 120;
    const p = projectTranscript(log, [step([{ id: 'emergency', options: { keepN: 6, untilFits: true, dropUserMessages: true } }], { keepLast: 1, budget })]);
    expect(p.tokens.after.total).toBeLessThanOrEqual(budget);
  });
});

describe('classify-tangents', () => {
  it('removes chosen turns whole and refuses protected ones', () => {
    const p = projectTranscript(log, [step([{ id: 'classify-tangents', options: { turns: [3, 4, 10] } }], { keepLast: 1 })]);
    expect(p.messages.some((m) => m.turn === 3 || m.turn === 4)).toBe(false);
    expect(p.messages.some((m) => m.turn === 10)).toBe(true);
    expect(p.report[0].notes.join(' ')).toContain('refused turn(s) 10');
  });
});

describe('emergency after a summary', () => {
  it('drops raw messages before an earlier summary: the summary survives longest', () => {
    const p = projectTranscript(log, [step(['summarize'], { keepLast: 6 }), step([{ id: 'emergency', options: { keepN: 2, dropUserMessages: true } }], { keepLast: 1, range: { kind: 'turns', from: 0, to: 10 } })]);
    expect(p.messages.filter((m) => m.synthetic === 'summary')).toHaveLength(1);
    expect(p.messages.filter((m) => m.synthetic === 'notice')).toHaveLength(1);
    expect(validatePairing(p.messages)).toEqual([]);
  });
});
