import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { filler, makeTranscript, type TurnSpec } from './testing/make';
import { step } from './testing/steps';
import { blockFate, projectTranscript } from './project';
import { autoStages, parseAutoOptions } from './pipeline';
import { modelTokensOf, modelViewOf } from './budget';
import { importBytes } from '../formats/import';
import { lookupModel } from '../tokens/catalog';
import { transcriptTotals } from '../tokens/totals';
import { corpusFiles } from '../../tests/corpus';

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

/** Numbers in notes read 13,962. */
const fmt = (n: number) => n.toLocaleString('en-US');

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
    // (3 % is reached by the free reducers since retention runs with per-tool lifespans: 2 % is not.)
    const p = projectTranscript(log, [auto(Math.floor(total * 0.02), { summarize: false }, 1)]);
    expect(p.messages.some((m) => m.synthetic === 'notice')).toBe(true);
    expect(p.tokens.after.total).toBeLessThanOrEqual(Math.floor(total * 0.02));
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
    // (The tail narrows first — 2 turns of a 1,000-token budget are too much — and auto then leaves the log alone.)
    expect(short.report.flatMap((r) => r.notes).some((x) => x.includes('min_turns'))).toBe(true);
    expect(short.tokens.after.total).toBe(short.tokens.start!.total);
  });
  it("tail 'turns': keeps keep_last turns byte-identical and reports when they alone exceed the budget", () => {
    const p = projectTranscript(log, [{ ...auto(50, {}, 3), tail: 'turns' }]);
    for (const m of p.messages.filter((x) => x.turn >= log.turnCount - 3)) expect(m.blocks).toBe(log.messages.find((s) => s.id === m.sourceId)!.blocks);
    expect(p.report.at(-1)!.notes[0]).toContain('keep_last');
  });
  it('by default, when keep_last turns exceed the budget, protects the last model calls and the prompts of those turns instead', () => {
    const budget = 2000;
    const strict = projectTranscript(log, [{ ...auto(budget, {}, 3), tail: 'turns' }]);
    expect(strict.tokens.after.total).toBeGreaterThan(budget);
    const p = projectTranscript(log, [auto(budget, {}, 3)]);
    expect(p.report.flatMap((r) => r.notes).find((x) => x.includes('protected the last'))).toMatch(/keep_last 3 turn\(s\) and what else the step may not touch exceed the budget of 2,000: protected the last \d model call\(s\)/);
    expect(p.tokens.after.total).toBeLessThanOrEqual(budget);
    // The prompts of the protected turns and the last model call stay byte-identical.
    const kept = new Map(p.messages.filter((m) => m.sourceId).map((m) => [m.sourceId!, m]));
    for (const m of log.messages.filter((x) => x.turn >= log.turnCount - 3 && x.role === 'user' && x.blocks.some((b) => b.kind === 'text'))) expect(kept.get(m.id)?.blocks).toBe(m.blocks);
    const last = log.messages.at(-1)!;
    expect(kept.get(last.id)?.blocks).toBe(last.blocks);
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
        const f = blockFate(p, b.id);
        expect(f.kind === 'kept' || f.kind === 'summarized' || (f.kind === 'removed' && f.by === 'emergency'), JSON.stringify(f)).toBe(true);
      }
    expect(p.tokens.after.total).toBeLessThanOrEqual(Math.floor(total * 0.3));
  });
});

// ---------------------------------------------------------------------------------------------
// RFD 036 summarize_threshold on a real session (slopometry: Claude Opus 4.5, 200k window).

describe('auto with summarize_threshold (real Claude Code session)', () => {
  const file = corpusFiles('claude-code').find((f) => f.includes('slopometry'))!;
  const real = importBytes(path.basename(file), new Uint8Array(fs.readFileSync(file))).transcript;
  const window = lookupModel(real.model)!.contextWindow;
  const budget = Math.floor(transcriptTotals(real).total * 0.05);
  const run = (options: Record<string, unknown>) => projectTranscript(real, [step([{ id: 'auto', options }], { keepLast: 1, budget, id: 'auto' })]);
  // Where the free reducers alone get to: the context the threshold is compared with.
  const free = run({ summarize: false, emergency: false });
  const afterFree = free.tokens.after.total;
  // As the model sees it (issue 28): the file's tokens with the invisible overhead and the calibration factor.
  const view = modelViewOf(real);
  const sent = modelTokensOf(afterFree, view);
  const ratio = sent / window;

  it('the setting: the free reducers alone do not reach the budget, and leave a context of a few % of the window', () => {
    expect(window).toBe(200_000);
    expect(afterFree).toBeGreaterThan(budget);
    expect(ratio).toBeGreaterThan(0.05);
    expect(ratio).toBeLessThan(0.5);
  });

  it('without a threshold: unchanged — summarize (then emergency if needed) reaches the budget', () => {
    const p = run({});
    expect(p.tokens.after.total).toBeLessThanOrEqual(budget);
    expect(p.report.some((r) => r.reducer === 'summarize' && r.events > 0)).toBe(true);
    expect(p.report.flatMap((r) => r.notes).join('\n')).not.toContain('summarize_threshold');
  });

  it("a selection's 'why not' is true: Auto 50 % on turns 5–9 blames the unselected turns 10–14, not keep_last", () => {
    // The Plan panel's "50 %" of the model's view (what the model last saw: after the source's compaction).
    const start = projectTranscript(real, [step(['strip-reasoning'], { keepLast: 0, range: { kind: 'turns', from: real.turnCount, to: real.turnCount } })]).tokens.start!.total;
    const target = Math.round(start * 0.5);
    const p = projectTranscript(real, [step([{ id: 'auto', options: {} }], { keepLast: 1, budget: target, id: 'auto', range: { kind: 'turns', from: 4, to: 8 } })]);
    expect(p.tokens.after.total).toBeGreaterThan(target);
    const last = p.report.filter((r) => r.reducer === 'auto').flatMap((r) => r.notes).at(-1)!;
    expect(last).toMatch(new RegExp(`^still ${fmt(p.tokens.after.total)} tokens > target ${fmt(target)}: the target is for the whole context, and what this step may not edit alone exceeds it: turns 10–${real.turnCount} after the range \\(not selected\\) \\(([\\d,]+)\\)`));
    expect(last).not.toMatch(/keep_last/);
    // The part named is the tokens of the unselected turns, as the projection counts them.
    const unselected = p.messages.filter((m) => !m.sidechain && m.turn > 8).reduce((n, m) => n + m.blocks.reduce((k, b) => k + b.tokens, 0), 0);
    expect(last).toContain(`(${fmt(unselected)})`);
    expect(unselected).toBeGreaterThan(target);
  });

  it('below the threshold: auto stops after the free reducers (no summary, no emergency) and says why', () => {
    const p = run({ summarizeThreshold: 0.5 });
    expect(p.messages).toEqual(free.messages);
    expect(p.tokens.after.total).toBe(afterFree);
    expect(p.messages.some((m) => m.synthetic)).toBe(false);
    expect(p.report.some((r) => r.reducer === 'summarize' || r.reducer === 'emergency')).toBe(false);
    const notes = p.report.filter((r) => r.reducer === 'auto').flatMap((r) => r.notes);
    expect(notes).toEqual([
      `summarize skipped: context ${Math.floor(ratio * 100)} % of the window (${fmt(sent)} sent for ${fmt(afterFree)} in the file, with ${fmt(view.overhead)} overhead, ×${view.factor.toFixed(2)} calibration of ${fmt(window)} tokens, Claude Opus 4.5), below summarize_threshold 50 %`,
      `still ${fmt(afterFree)} tokens > target ${fmt(budget)}: auto stopped after the free reducers (below summarize_threshold)`,
    ]);
  });

  it('above the threshold: summarize runs as without one, and the report says the threshold was passed', () => {
    const threshold = Math.floor(ratio * 100) / 100 - 0.01; // just under where the context is
    const p = run({ summarizeThreshold: threshold });
    const plain = run({});
    expect(p.messages).toEqual(plain.messages);
    expect(p.tokens.after.total).toBe(plain.tokens.after.total);
    expect(p.report.find((r) => r.reducer === 'auto')!.notes[0]).toMatch(new RegExp(`^summarize runs: context ${Math.floor(ratio * 100)} % of the window .*above summarize_threshold ${Math.round(threshold * 1000) / 10} %$`));
  });

  it('the window is the plan\'s when given (contextWindow), else the budget stands for an unknown model', () => {
    // A plan targeting a model whose window the context already fills past half: summarize runs.
    const small = run({ summarizeThreshold: 0.5, contextWindow: Math.floor(sent / 0.6) });
    expect(small.report.some((r) => r.reducer === 'summarize' && r.events > 0)).toBe(true);
    expect(small.report.find((r) => r.reducer === 'auto')!.notes[0]).toMatch(/^summarize runs: context 60 % of the window \([\d,]+ sent for [\d,]+ in the file, with [\d,]+ overhead, ×[\d.]+ calibration of [\d,]+ tokens, the plan\), above summarize_threshold 50 %$/);
    // No model in the catalog: the budget is the window (the free reducers leave more than it: summarize runs).
    const unknown = projectTranscript({ ...real, model: 'in-house-model' }, [step([{ id: 'auto', options: { summarizeThreshold: 0.5 } }], { keepLast: 1, budget, id: 'auto' })]);
    expect(unknown.report.find((r) => r.reducer === 'auto')!.notes[0]).toContain('the budget (model not in the catalog)');
    expect(unknown.report.some((r) => r.reducer === 'summarize')).toBe(true);
  });

  it('parses the option (a fraction in (0, 1]) and leaves it out when not given', () => {
    expect(parseAutoOptions({ summarizeThreshold: 0.5, contextWindow: 128_000 })).toMatchObject({ summarizeThreshold: 0.5, contextWindow: 128_000 });
    expect('summarizeThreshold' in parseAutoOptions({})).toBe(false);
    expect('summarizeThreshold' in parseAutoOptions({ summarizeThreshold: 3 })).toBe(false);
    expect('summarizeThreshold' in parseAutoOptions({ summarizeThreshold: '0.5' })).toBe(false);
  });
});

describe('auto on a small selection whose target is out of reach (real Claude Code session)', () => {
  // The UX audit's case: turns 4–6 of a session selected, Auto to half the context. What lies
  // outside the selection alone exceeds the target, so no drop inside it can reach it.
  const file = corpusFiles('claude-code').find((f) => f.includes('vibecodingtracker_claude_code_v1.0.95'))!;
  const real = importBytes(path.basename(file), new Uint8Array(fs.readFileSync(file))).transcript;
  const whole = projectTranscript(real, []).tokens.after.total;
  const range = { kind: 'turns' as const, from: 3, to: 5 };
  const p = projectTranscript(real, [step([{ id: 'auto' }], { keepLast: 1, budget: Math.floor(whole / 2), range, id: 'auto' })]);
  const inRange = (turn: number) => turn >= range.from && turn <= range.to;

  it('emergency does not run: the user messages of the range survive, and the report says why', () => {
    const users = real.messages.filter((m) => inRange(m.turn) && m.role === 'user' && m.blocks.some((b) => b.kind === 'text' && b.text.trim() !== ''));
    expect(users.length).toBeGreaterThan(0);
    const kept = new Set(p.messages.map((m) => m.sourceId));
    for (const u of users) expect(kept.has(u.id), `user message ${u.index} of turn ${u.turn + 1}`).toBe(true);
    expect(p.messages.some((m) => m.synthetic === 'notice')).toBe(false);
    const notes = p.report.flatMap((r) => r.notes).join('\n');
    expect(notes).toMatch(/not run: even dropping the whole range leaves [\d,]+ tokens > target/);
  });
});

// ---------------------------------------------------------------------------------------------
// Issue 28: seed 004's pipeline (free reducers always, the sliding window as a stage, an injection
// reserve, a safety margin on estimated counts).

describe('issue 28: seed 004 in auto', () => {
  const log = makeTranscript(turns);
  const total = transcriptTotals(log).total;
  const results = (p: ReturnType<typeof projectTranscript>) => p.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_result');
  const expired = (p: ReturnType<typeof projectTranscript>) => results(p).filter((b) => b.kind === 'tool_result' && b.content.startsWith('[result expired]')).length;

  it('the free reducers always run: retention expires old results even when the context is far under the budget', () => {
    const under = projectTranscript(log, [step([{ id: 'auto', options: { freeAlways: true, retentionTurns: 5 } }], { keepLast: 1, budget: total * 2 })]);
    expect(expired(under)).toBeGreaterThan(10);
    expect(under.report.flatMap((r) => r.notes).join('\n')).toMatch(/≤ trigger .*nothing to do|nothing to do/);
    // Without it (our Auto's default), under the budget nothing is touched.
    expect(expired(projectTranscript(log, [step([{ id: 'auto', options: {} }], { keepLast: 1, budget: total * 2 })]))).toBe(0);
  });

  it('the sliding window is a stage of the pipeline, before summaries', () => {
    const stages = autoStages({ windowTurns: 4 }).map((s) => s.id);
    expect(stages.indexOf('sliding-window')).toBe(stages.indexOf('summarize') - 1);
    expect(autoStages({}).map((s) => s.id)).not.toContain('sliding-window');
    // The free reducers cannot reach this budget; the window's cap (4 turns) does before a summary is needed.
    const p = projectTranscript(log, [step([{ id: 'auto', options: { windowTurns: 4, skip: ['truncate-tool-results', 'strip-tool-results', 'tool-hints', 'tool-retention'] } }], { keepLast: 1, budget: Math.floor(total * 0.4) })]);
    const reducers = p.report.map((r) => r.reducer);
    expect(reducers).toContain('sliding-window');
    expect(reducers.indexOf('sliding-window')).toBeLessThan(reducers.includes('summarize') ? reducers.indexOf('summarize') : Infinity);
    expect(new Set(p.messages.filter((m) => !m.synthetic && m.role === 'user').map((m) => m.turn)).size).toBeLessThanOrEqual(5);
  });

  it('an injection reserve: auto reduces to budget − reserve', () => {
    const budget = Math.floor(total * 0.5);
    const reserve = Math.floor(total * 0.1);
    const p = projectTranscript(log, [step([{ id: 'auto', options: { injectionReserve: reserve } }], { keepLast: 1, budget })]);
    expect(p.tokens.after.total).toBeLessThanOrEqual(budget - reserve);
    expect(p.report.flatMap((r) => r.notes).join('\n')).toContain(`aims at ${(budget - reserve).toLocaleString('en-US')} = target ${budget.toLocaleString('en-US')} − ${reserve.toLocaleString('en-US')} injection reserve`);
    // Without it, auto stops as soon as the budget itself holds: above budget − reserve.
    expect(projectTranscript(log, [step([{ id: 'auto', options: {} }], { keepLast: 1, budget })]).tokens.after.total).toBeGreaterThan(budget - reserve);
  });

  it('a safety margin on estimated counts: the calibration error of the recorded usage (real session)', () => {
    const file = corpusFiles('claude-code').find((f) => f.includes('vibecodingtracker'))!;
    const real = importBytes(path.basename(file), new Uint8Array(fs.readFileSync(file))).transcript;
    const view = modelViewOf(real);
    expect(view.error).toBeGreaterThan(0.01);
    const budget = Math.floor(transcriptTotals(real).total * 0.6);
    const p = projectTranscript(real, [step([{ id: 'auto', options: { safetyMargin: 'calibration' } }], { keepLast: 1, budget })]);
    const aim = Math.floor(budget * (1 - Math.min(0.25, view.error!)));
    expect(p.report.flatMap((r) => r.notes).join('\n')).toMatch(/aims at [\d,]+ = target [\d,]+ − [\d.]+ % safety margin \(the calibration error of the recorded usage\)/);
    expect(p.tokens.after.total).toBeLessThanOrEqual(aim);
  });
});
