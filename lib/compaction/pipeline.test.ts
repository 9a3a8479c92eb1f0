import { describe, expect, it } from 'vitest';
import { filler, makeTranscript, type TurnSpec } from './testing/make';
import { step } from './testing/steps';
import { projectTranscript } from './project';
import { autoStages } from './pipeline';

const turns: TurnSpec[] = Array.from({ length: 15 }, (_, i) => ({
  user: `step ${i}: edit src/f${i}.ts`,
  reasoning: `thinking ${i} `.repeat(30),
  tools: [
    { name: 'Read', input: { file_path: `/r/src/f${i}.ts` }, output: filler(400, `f${i}`) },
    { name: 'Bash', input: { command: `npm test -- t${i}` }, output: filler(1200, `test${i}`) },
  ],
  answer: `done ${i}`,
}));
const log = makeTranscript([...turns, { user: 'wrap up', answer: 'ok' }], { system: 'sys', tools: [{ name: 'Read' }, { name: 'Bash' }, { name: 'Unused', description: filler(200) }] });
const total = projectTranscript(log, []).tokens.after.total;
const auto = (budget: number, options: Record<string, unknown> = {}, keepLast = 2) => step([{ id: 'auto', options }], { keepLast, budget, id: 'auto' });

describe('auto pipeline', () => {
  it('runs cheap reducers first and stops as soon as the budget holds', () => {
    const p = projectTranscript(log, [auto(total - 500)]);
    expect(p.tokens.after.total).toBeLessThanOrEqual(total - 500);
    expect(p.report.map((r) => r.reducer)).toEqual(['strip-reasoning']);
  });
  it('reaches deeper stages for tighter budgets, summarizes only when free reducers are not enough', () => {
    const mid = projectTranscript(log, [auto(Math.floor(total * 0.4))]);
    expect(mid.tokens.after.total).toBeLessThanOrEqual(Math.floor(total * 0.4));
    expect(mid.report.some((r) => r.reducer === 'summarize')).toBe(false);
    const tight = projectTranscript(log, [auto(Math.floor(total * 0.04), { skip: ['tool-hints', 'strip-tool-results'] }, 1)]);
    expect(tight.tokens.after.total).toBeLessThanOrEqual(Math.floor(total * 0.04));
    expect(tight.report.some((r) => r.reducer === 'summarize' && r.events > 0)).toBe(true);
  });
  it('falls back to emergency when summarizing is off and still over', () => {
    const p = projectTranscript(log, [auto(Math.floor(total * 0.03), { summarize: false }, 1)]);
    expect(p.messages.some((m) => m.synthetic === 'notice')).toBe(true);
    expect(p.tokens.after.total).toBeLessThanOrEqual(Math.floor(total * 0.03));
  });
  it('is idempotent once under budget, and a no-op below the trigger or under min_turns', () => {
    const b = Math.floor(total * 0.3);
    const once = projectTranscript(log, [auto(b, { threshold: 0.8, overheadReserve: 0.1 })]);
    const twice = projectTranscript(log, [auto(b, { threshold: 0.8, overheadReserve: 0.1 }), { ...auto(b, { threshold: 0.8, overheadReserve: 0.1 }), id: 'again' }]);
    expect(twice.messages).toEqual(once.messages);
    expect(twice.tokens.after.total).toBe(once.tokens.after.total);
    expect(once.tokens.after.total).toBeLessThanOrEqual(Math.floor(b * 0.8));
    const noop = projectTranscript(log, [auto(total * 2)]);
    expect(noop.tokens.after.total).toBe(noop.tokens.start!.total);
    const short = projectTranscript(log, [auto(1000, { minTurns: 50 })]);
    expect(short.report[0].notes[0]).toContain('min_turns');
  });
  it('keeps keep_last turns byte-identical and reports when they alone exceed the budget', () => {
    const p = projectTranscript(log, [auto(50, {}, 3)]);
    for (const m of p.messages.filter((x) => x.turn >= log.turnCount - 3)) expect(m.blocks).toBe(log.messages.find((s) => s.id === m.sourceId)!.blocks);
    expect(p.report.at(-1)!.notes[0]).toContain('keep_last');
  });
  it('lists its stages in order and honours skip', () => {
    expect(autoStages().map((s) => s.id)).toEqual(['strip-reasoning', 'dedup-tools', 'tool-retention', 'truncate-tool-results', 'tool-hints', 'strip-tool-results', 'strip-attachments', 'prune-tools', 'summarize', 'emergency']);
    expect(autoStages({ skip: ['prune-tools'], summarize: false }).map((s) => s.id)).not.toContain('prune-tools');
  });
  it('conservative: content-only edits (no pruned schema, no stripped arguments, no removed pair)', () => {
    const p = projectTranscript(log, [auto(Math.floor(total * 0.3), { conservative: true, hints: { Read: { request: 'strip', response: 'remove' } } }, 1)]);
    expect(p.tools).toBe(log.tools);
    for (const m of log.messages)
      for (const b of m.blocks) {
        if (b.kind !== 'tool_call') continue;
        const f = p.fates[b.id];
        expect(f.kind === 'kept' || f.kind === 'summarized' || (f.kind === 'removed' && f.by === 'emergency'), JSON.stringify(f)).toBe(true);
      }
    expect(p.tokens.after.total).toBeLessThanOrEqual(Math.floor(total * 0.3));
  });
});
