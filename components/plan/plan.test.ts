import { describe, expect, it } from 'vitest';
import { cacheDecision, defaultPlan, planFromConfig, planReducers, planToDraft, setHint, shortToolName, targetReference, type PlanState } from './plan';
import { formatDelta, formatUsd } from './numbers';

describe('plan → draft step', () => {
  it('auto over the selection with the target budget and keep-last', () => {
    const plan = { ...defaultPlan(10_000), keepLast: 2 };
    const d = planToDraft(plan, 's1', [3, 9])!;
    expect(d.id).toBe('s1');
    expect(d.range).toEqual({ kind: 'turns', from: 3, to: 9 });
    expect(d.budget).toBe(5000);
    expect(d.keepLast).toBe(2);
    expect(d.reducers).toEqual([{ id: 'auto', options: { summarize: true } }]);
  });

  it("auto's summarize threshold (percent of the model's window) goes to the pipeline with that window; 0 or summaries off = none", () => {
    const plan = { ...defaultPlan(10_000), summarizeAbovePct: 50 };
    expect(planToDraft(plan, 's1', null, 200_000)!.reducers).toEqual([{ id: 'auto', options: { summarize: true, summarizeThreshold: 0.5, contextWindow: 200_000 } }]);
    // Without a known model the pipeline falls back to the transcript's.
    expect(planToDraft(plan, 's1', null)!.reducers[0].options).toEqual({ summarize: true, summarizeThreshold: 0.5 });
    expect(planToDraft({ ...plan, summarizeAbovePct: 0 }, 's1', null, 200_000)!.reducers[0].options).toEqual({ summarize: true });
    expect(planToDraft({ ...plan, autoSummarize: false }, 's1', null, 200_000)!.reducers[0].options).toEqual({ summarize: false });
    // A JP TOML summarize_threshold lands in the field the panel shows, not in the hidden extras.
    const imported = planFromConfig(defaultPlan(1000), { source: 'jp-toml', strategies: [{ id: 'auto' }], hints: {}, auto: { summarizeThreshold: 0.4 } as never, warnings: [] });
    expect(imported.summarizeAbovePct).toBe(40);
    expect(imported.autoExtra).toEqual({});
  });

  it('hand-picked reducers carry their knobs and the per-tool hints; none picked = no step', () => {
    let plan: PlanState = { ...defaultPlan(1000), mode: 'manual' };
    plan = { ...plan, manual: { 'truncate-tool-results': { enabled: true, knobs: { cap: 500 } }, 'strip-reasoning': { enabled: true, knobs: {} } } };
    plan = setHint(plan, 'Bash', { response: 'remove' });
    const d = planToDraft(plan, 's2', null)!;
    expect(d.range).toEqual({ kind: 'all-but-last', n: 0 });
    expect(d.budget).toBeUndefined();
    expect(d.reducers.map((r) => r.id)).toEqual(['strip-reasoning', 'truncate-tool-results']);
    expect(d.reducers[1].options).toEqual({ cap: 500, hints: { Bash: { response: 'remove' } } });
    expect(planToDraft({ ...plan, manual: {} }, 's3', null)).toBeNull();
  });

  it('an imported config sets mode, keep-last and hints', () => {
    const p = planFromConfig(defaultPlan(1000), {
      source: 'jp-toml',
      strategies: [{ id: 'strip-tool-results' }, { id: 'dedup-tools' }],
      keepLast: 3,
      hints: { fs_read_file: { response: 'strip' } },
      auto: {},
      warnings: [],
    });
    expect(p.mode).toBe('manual');
    expect(p.keepLast).toBe(3);
    expect(p.manual['dedup-tools']?.enabled).toBe(true);
    expect(p.hints.fs_read_file).toEqual({ response: 'strip' });
    expect(p.source).toBe('JP TOML');
  });

  it('formats deltas and costs', () => {
    const plain = (s: string) => s.replace(/\u00a0/g, ' ');
    expect(plain(formatDelta(-12_400, 32_632))).toBe('−12,400 · −38 %');
    expect(plain(formatDelta(50, 1000))).toBe('+50 · +5.0 %');
    // Issue 13: 1,037,808 → 4,213 is −99.6 %, not "−100 %"; only an exact 100 % reads 100.
    expect(plain(formatDelta(4_213 - 1_037_808, 1_037_808))).toBe('−1,033,595 · −99.6 %');
    expect(plain(formatDelta(-1_000, 1_000))).toBe('−1,000 · −100 %');
    expect(plain(formatDelta(-999_999, 1_000_000))).toBe('−999,999 · −>99.9 %');
    expect(plain(formatDelta(1, 1_000_000))).toBe('+1 · +<0.1 %');
    // The % stays on the number's line: the spaces inside the delta do not break.
    expect(formatDelta(-12_400, 32_632)).not.toMatch(/ /);
    expect(formatUsd(1.5)).toBe('$1.50');
    expect(formatUsd(-0.0042)).toBe('−$0.0042');
  });
});

describe('the Auto target says what it refers to', () => {
  it("is the whole context's size; with a selection it says what compacting the selection alone can reach (slopometry turns 5–9)", () => {
    expect(targetReference(34_928, 69_856, null)).toEqual({ text: 'Target 34,928 tokens for the whole context = 50 % of its 69,856.', unreachable: false });
    const r = targetReference(34_928, 69_856, { label: 'Turns 5–9', tokens: 12_421 });
    expect(r.unreachable).toBe(true);
    expect(r.text).toBe('Target 34,928 tokens for the whole context = 50 % of its 69,856. Turns 5–9 hold 12,421: even emptied, the context stays at 57,435 (the turns outside the selection are not touched).');
    expect(targetReference(60_000, 69_856, { label: 'Turns 5–9', tokens: 12_421 })).toEqual({ text: 'Target 60,000 tokens for the whole context = 85.9 % of its 69,856: Turns 5–9 (12,421) must lose 9,856.', unreachable: false });
  });
});

describe('shortToolName', () => {
  it('drops the MCP prefix and keeps server and tool apart; other names are unchanged', () => {
    expect(shortToolName('mcp__context7__get-library-docs')).toBe('context7 · get-library-docs');
    expect(shortToolName('mcp__context7__resolve-library-id')).toBe('context7 · resolve-library-id');
    expect(shortToolName('mcp__my_server__do__thing')).toBe('my_server · do__thing');
    expect(shortToolName('Bash')).toBe('Bash');
  });
});

describe("Auto's cache check in the Plan panel", () => {
  it('reads the decision from the preview notes, with its numbers; no check, no line', () => {
    expect(cacheDecision(['strip-reasoning: no reasoning in range', 'auto: cache check: not compacted: it would cost $0.08 more than it saves over ~5 calls (…)'])).toEqual({ compacted: false, text: 'not compacted: it would cost $0.08 more than it saves over ~5 calls (…)' });
    expect(cacheDecision(['cache check: compacted: expected to save $0.37 over ~20 calls'])?.compacted).toBe(true);
    expect(cacheDecision(['auto: 1,000 tokens ≤ trigger 2,000: nothing to do'])).toBeNull();
  });
  it('Auto asks for the check only when the box is ticked', () => {
    const plan = defaultPlan(10_000);
    expect(planReducers(plan)[0].options).not.toHaveProperty('cacheAware');
    expect(planReducers({ ...plan, cacheAware: true })[0].options).toMatchObject({ cacheAware: true });
  });
});
