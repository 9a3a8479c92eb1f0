import { describe, expect, it } from 'vitest';
import { filler, makeTranscript, type TurnSpec } from '../testing/make';
import { step } from '../testing/steps';
import { projectTranscript } from '../project';
import { validatePairing } from '../../model/pairing';
import type { SummaryKey } from '../types';

const turns: TurnSpec[] = Array.from({ length: 12 }, (_, i) => ({
  user: `Please fix bug ${i} in src/mod${i}.ts`,
  tools: [{ name: 'read_file', input: { path: `src/mod${i}.ts` }, output: filler(150, `m${i}`) }],
  answer: `Fixed bug ${i}.`,
}));
const log = makeTranscript(turns, { system: 'sys' });

describe('summarize', () => {
  it('replaces the window with ONE synthetic summary at the front and lists a summary request', () => {
    const p = projectTranscript(log, [step(['summarize'], { keepLast: 2 })]);
    const summaries = p.messages.filter((m) => m.synthetic === 'summary');
    expect(summaries).toHaveLength(1);
    expect(p.messages[0].role).toBe('system');
    expect(p.messages[1]).toBe(summaries[0]);
    expect(summaries[0].span).toEqual([1, 10]);
    const text = summaries[0].blocks[0].kind === 'summary' ? summaries[0].blocks[0].text : '';
    expect(text).toContain('src/mod3.ts');
    expect(p.summaries).toHaveLength(1);
    expect(p.summaryRequests!.length).toBeGreaterThan(0);
    expect(p.summaryRequests![0].key.id).toMatch(/\|1-10\|/);
    expect(p.fates[log.messages[1].blocks[0].id]).toMatchObject({ kind: 'summarized', summaryId: summaries[0].blocks[0].id });
    // the tail is untouched
    expect(p.messages.slice(-3).every((m) => m.sourceId && m.blocks === log.messages.find((s) => s.id === m.sourceId)!.blocks)).toBe(true);
  });

  it('with untilFits summarizes only the overflow, oldest chunks first, each feeding the next', () => {
    const total = projectTranscript(log, []).tokens.after.total;
    const budget = Math.floor(total * 0.6);
    const p = projectTranscript(log, [step([{ id: 'summarize', options: { untilFits: true, chunkTurns: 2 } }], { keepLast: 1, budget })]);
    expect(p.tokens.after.total).toBeLessThanOrEqual(budget);
    const s = p.messages.find((m) => m.synthetic === 'summary')!;
    expect(s.span![0]).toBe(1);
    expect(s.span![1]).toBeLessThan(11);
    const reqs = p.summaryRequests!;
    expect(reqs.length).toBeGreaterThan(1);
    expect(reqs[1].previousSummary).toBeDefined();
    expect(reqs.map((r) => r.span[0])).toEqual(reqs.map(() => 1));
  });

  it('reads stored summaries by key and then asks for nothing', () => {
    const first = projectTranscript(log, [step(['summarize'], { keepLast: 2, id: 'fixed' })]);
    const stored = new Map(first.summaryRequests!.map((r) => [r.key.id, 'LLM SUMMARY: fixed bugs 0-9 in src/mod*.ts']));
    const p = projectTranscript(log, [step(['summarize'], { keepLast: 2, id: 'fixed' })], { summaries: (k: SummaryKey) => stored.get(k.id) });
    const s = p.messages.find((m) => m.synthetic === 'summary')!;
    expect(s.blocks[0].kind === 'summary' && s.blocks[0].text).toBe('LLM SUMMARY: fixed bugs 0-9 in src/mod*.ts');
    expect(p.summaryRequests).toEqual([]);
    expect(p.summaries[0].producer).toBe('structured');
  });

  it('a failed (empty) summary falls back to emergency, or leaves the range, and says why', () => {
    const failing = () => '';
    const p = projectTranscript(log, [step(['summarize'], { keepLast: 2 })], { summaries: failing });
    expect(p.messages.some((m) => m.synthetic === 'notice')).toBe(true);
    expect(p.report[0].notes[0]).toContain('fell back to emergency');
    expect(validatePairing(p.messages)).toEqual([]);
    const left = projectTranscript(log, [step([{ id: 'summarize', options: { onFailure: 'leave' } }], { keepLast: 2 })], { summaries: failing });
    expect(left.messages).toHaveLength(log.messages.length);
    expect(left.report[0].notes[0]).toContain('left as it is');
  });

  it('a second summarize step folds the first summary in: one summary at the front', () => {
    const p = projectTranscript(log, [step(['summarize'], { keepLast: 6 }), step(['summarize'], { keepLast: 2 })]);
    const summaries = p.messages.filter((m) => m.synthetic === 'summary');
    expect(summaries).toHaveLength(1);
    expect(summaries[0].span).toEqual([7, 10]);
    expect(p.report[1].notes).toContain('folded the previous summary in');
  });
});
