import { describe, expect, it } from 'vitest';
import { breakEvenCalls, compactionBreakEven, inputSideUsd } from './break-even';

const OPUS = { input: 5, cachedRead: 0.5, cacheWrite: 6.25, output: 25 };

describe('break-even of a compaction', () => {
  it('counts the calls until the savings repay the compaction call and the rewritten cache', () => {
    // Up front 0.30 $, each later call saves 0.10 $: the first call pays nothing back, then 3 calls do.
    expect(breakEvenCalls({ compactionUsd: 0.2, firstCallUsd: 0.15, withoutFirstUsd: 0.05, savedPerCallUsd: 0.1, callsAfter: 10 })).toBe(4);
    // Exactly repaid counts as repaid.
    expect(breakEvenCalls({ compactionUsd: 0.1, firstCallUsd: 0, withoutFirstUsd: 0, savedPerCallUsd: 0.05, callsAfter: 10 })).toBe(3);
    // A first call already cheaper than re-reading the old context: repaid at once.
    expect(breakEvenCalls({ compactionUsd: 0, firstCallUsd: 0.01, withoutFirstUsd: 0.05, savedPerCallUsd: 0.1, callsAfter: 1 })).toBe(1);
  });

  it('says never when the session ends first or nothing is saved, and null when unpriced', () => {
    expect(breakEvenCalls({ compactionUsd: 0.2, firstCallUsd: 0.15, withoutFirstUsd: 0.05, savedPerCallUsd: 0.1, callsAfter: 3 })).toBe('never');
    expect(breakEvenCalls({ compactionUsd: 0.2, firstCallUsd: 0, withoutFirstUsd: 0, savedPerCallUsd: 0, callsAfter: Infinity })).toBe('never');
    expect(breakEvenCalls({ compactionUsd: NaN, firstCallUsd: 0, withoutFirstUsd: 0, savedPerCallUsd: 0, callsAfter: 1 })).toBeNull();
  });

  it('from token counts: slopometry\'s figures at Opus 4.5 prices', () => {
    const firstCall = { input: 10, cacheRead: 18286, cacheWrite: 16371 };
    expect(inputSideUsd(OPUS, firstCall)).toBeCloseTo((10 * 5 + 18286 * 0.5 + 16371 * 6.25) / 1e6, 12);
    // Up front: 0.155 + 0.1115 − 0.0777 = 0.1888 $; saved per call: 120,650 × 0.5 / 1e6 = 0.0603 $ → 1 + ⌈3.13⌉ = 5.
    expect(compactionBreakEven({ price: OPUS, tokensBefore: 155317, tokensAfter: 34667, firstCall, compactionUsd: 0.155, callsAfter: 87 })).toBe(5);
    expect(compactionBreakEven({ price: OPUS, tokensBefore: 155317, tokensAfter: 34667, firstCall, compactionUsd: 0.155, callsAfter: 4 })).toBe('never');
    // A compaction that did not shrink the context never pays back.
    expect(compactionBreakEven({ price: OPUS, tokensBefore: 1000, tokensAfter: 1200, firstCall: { input: 0, cacheRead: 0, cacheWrite: 1200 }, compactionUsd: 0, callsAfter: Infinity })).toBe('never');
  });
});
