import { describe, expect, it } from 'vitest';
import { lookupModel } from '../tokens/catalog';
import { filler, makeTranscript } from './testing/make';
import { simulate } from '../simulate/calls';
import { autoPolicy, replayPolicyById } from '../simulate/policies/replay';
import { clearAtLeast, decideEarly, estimateCallsToCome, judgeCompaction, netUsd, pricingOf } from './cache-pays';

const opus = pricingOf(lookupModel('claude-opus-4-5')!);
const M = 1_000_000;

describe('the catalog prices the rule', () => {
  it("Anthropic: reads 0.1×, writes 1.25× input (2× with the 1-hour cache), the model's minimum", () => {
    expect(opus).toMatchObject({ read: 0.5 / M, write: 6.25 / M, input: 5 / M, ttlMs: 300_000, minTokens: 4096 });
    expect(pricingOf(lookupModel('claude-opus-4-5')!, '1h')).toMatchObject({ write: 10 / M, ttlMs: 3_600_000 });
    expect(pricingOf(lookupModel('claude-sonnet-4-5')!).minTokens).toBe(1024);
  });
  it('OpenAI and Google bill the uncached part as input; a model without a cache reads nothing cheaper', () => {
    expect(pricingOf(lookupModel('gpt-5')!)).toMatchObject({ read: 0.125 / M, write: 1.25 / M, minTokens: 1024, ttlMs: 3_600_000 });
    expect(pricingOf(lookupModel('gemini-2.5-pro')!)).toMatchObject({ write: 1.25 / M, minTokens: 2048 });
    const llama = pricingOf(lookupModel('llama-3.3-70b')!);
    expect(llama.ttlMs).toBe(0);
    // No cache: nothing to break, the first call already saves.
    expect(judgeCompaction({ before: 50_000, after: 20_000, stablePrefix: 0, callUsd: 0 }, llama).breakEvenCalls).toBe(1);
  });
});

describe('judgeCompaction: cost now, saving per call, break-even', () => {
  // 100k → 40k with 30k of it still cached: the next call writes 10k (6.25) instead of reading them (0.5).
  const c = { before: 100_000, after: 40_000, stablePrefix: 30_000, callUsd: 0 };
  it('pays after two calls: the rewrite costs $0.0275 more on the next call, each call saves $0.03', () => {
    const v = judgeCompaction(c, opus);
    expect(v.removed).toBe(60_000);
    expect(v.rewrite).toBe(10_000);
    expect(v.costUsd).toBeCloseTo(30_000 * 0.5e-6 + 10_000 * 6.25e-6 - 100_000 * 0.5e-6, 9);
    expect(v.perCallUsd).toBeCloseTo(60_000 * 0.5e-6, 9);
    expect(v.breakEvenCalls).toBe(2);
    expect(netUsd(c, opus, 1)).toBeLessThan(0);
    expect(netUsd(c, opus, 2)).toBeGreaterThan(0);
  });
  it('a compaction that rewrites the whole prefix needs more calls; a summarizer call adds its price', () => {
    const whole = { ...c, stablePrefix: 0 };
    // 40k written (0.25) against 100k read (0.05): 0.20 more, 0.03 saved a call → 1 + ⌈6.67⌉ = 8.
    expect(judgeCompaction(whole, opus).breakEvenCalls).toBe(8);
    expect(judgeCompaction({ ...whole, callUsd: 0.3 }, opus).breakEvenCalls).toBe(18);
  });
  it('when the cache has expired anyway the rewrite is free: it pays on the next call', () => {
    expect(judgeCompaction({ ...c, stablePrefix: 0, cacheAlive: false }, opus).breakEvenCalls).toBe(1);
  });
  it('a compaction that takes nothing out never pays', () => {
    expect(judgeCompaction({ before: 50_000, after: 50_000, stablePrefix: 10_000, callUsd: 0 }, opus).breakEvenCalls).toBe(Infinity);
  });
});

describe('decideEarly: compact only when it pays and clears enough', () => {
  const whole = { before: 100_000, after: 40_000, stablePrefix: 0, callUsd: 0 };
  it('declines with what it would cost more, over the calls to come', () => {
    const d = decideEarly(whole, opus, 5, 10_000);
    expect(d.compact).toBe(false);
    // 0.20 more now, 4 × 0.03 saved after: $0.08 more.
    expect(d.netUsd).toBeCloseTo(-0.08, 9);
    expect(d.reason).toMatch(/^not compacted: it would cost \$0\.08 more than it saves over ~5 calls/);
    expect(d.reason).toContain('breaks even after 8 calls');
  });
  it('compacts when enough calls are to come', () => {
    const d = decideEarly(whole, opus, 20, 10_000);
    expect(d.compact).toBe(true);
    expect(d.reason).toMatch(/^compacted: expected to save \$0\.37 over ~20 calls/);
  });
  it('never for less than clear_at_least', () => {
    const d = decideEarly({ ...whole, after: 95_000 }, opus, 1000, 13_600);
    expect(d.compact).toBe(false);
    expect(d.reason).toContain('under the 13,600 a compaction must clear');
  });
  it('clear_at_least is 5 % of the input budget, at least the minimum cacheable size', () => {
    expect(clearAtLeast(opus, 136_000)).toBe(6_800);
    expect(clearAtLeast(opus, 40_000)).toBe(4096);
  });
  it('the calls to come are the calls made so far (at least one)', () => {
    expect(estimateCallsToCome(0)).toBe(1);
    expect(estimateCallsToCome(40)).toBe(40);
  });
});

describe('the replay on synthetic call sequences', () => {
  const none = replayPolicyById('none')!;
  const auto = autoPolicy();
  const forcedOnly = { ...autoPolicy(), id: 'forced-only', early: undefined };

  it('pays: a long session of stale reads — Auto compacts early, before the window forces it, and costs less than doing nothing', () => {
    // 60 turns, each reads a new 2.5k-token file: reads older than 5 turns expire (tool-retention).
    const log = makeTranscript(
      Array.from({ length: 60 }, (_, i) => ({ user: `task ${i}`, tools: [{ name: 'Read', input: { file_path: `/src/f${i}.ts` }, output: filler(2500, `f${i}`) }], answer: `done ${i}` })),
      { model: 'claude-sonnet-4-5' },
    );
    const sim = simulate(log, [none, auto, forcedOnly]);
    const [n, a, f] = sim.results;
    const early = a.calls.filter((c) => c.compaction?.why === 'pays');
    expect(early.length).toBeGreaterThan(0);
    expect(a.calls.some((c) => c.compaction?.why === 'window')).toBe(false);
    for (const c of early) expect(c.compaction!.removed).toBeGreaterThanOrEqual(6_800);
    expect(a.totals.usd).toBeLessThan(n.totals.usd);
    expect(a.totals.usd).toBeLessThan(f.totals.usd);
    expect(a.totals.compactionsNotPaidBack).toBe(0);
    expect(a.totals.callsOverWindow).toBe(0);
    expect(a.totals.userMessagesLost).toBe(0);
  });

  it('does not pay: a short session re-reading a big file — Auto declines, says by how much, and bills exactly No policy', () => {
    // The same 20k-token file read twice: dedup could take the first read out, but the prompt after
    // it must be written again and only a few calls have been made (~as many to come).
    const big = filler(20_000, 'big');
    const log = makeTranscript(
      [
        { user: 'read it', tools: [{ name: 'Read', input: { file_path: '/src/big.ts' }, output: big }], answer: 'read' },
        { user: 'again', tools: [{ name: 'Read', input: { file_path: '/src/big.ts' }, output: big }], answer: 'read again' },
        { user: 'now fix it', answer: 'fixed' },
      ],
      { model: 'claude-sonnet-4-5' },
    );
    const sim = simulate(log, [none, auto]);
    const [n, a] = sim.results;
    expect(a.totals.compactions).toBe(0);
    const declined = a.calls.filter((c) => c.declined);
    expect(declined.length).toBeGreaterThan(0);
    expect(declined.some((c) => /would cost \$[\d.]+ more than it saves/.test(c.declined!.reason) && c.declined!.netUsd < 0)).toBe(true);
    expect(a.totals.usd).toBe(n.totals.usd);
  });
});
