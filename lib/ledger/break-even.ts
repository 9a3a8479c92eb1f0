/**
 * Break-even of one compaction (issue 26; shared with the Replay's break-even, issue 29): after
 * how many model calls does what the smaller context saves repay what the compaction cost?
 *
 * Pure: numbers in, a number out. The model, stated once so that every place that shows a
 * break-even means the same thing:
 *  - up front, the compaction pays its own call (`compactionUsd`: the summarizer's prompt and
 *    output; 0 for a compaction that calls no model) and the first call after it pays for a new
 *    prompt prefix: `firstCallUsd` (that call's input side — uncached input, cache reads and the
 *    cache write it caused) instead of `withoutFirstUsd` (the same call without the compaction:
 *    the old context read from the cache, i.e. `tokensBefore` at the cached-read price);
 *  - every later call sends `tokensBefore − tokensAfter` fewer tokens, all of them ones the
 *    provider would have served from its cache: each saves that many tokens at the cached-read
 *    price (`savedPerCallUsd`). Growth after the compaction is the same with or without it, so
 *    it cancels out.
 * The compaction breaks even at the first call n ≥ 1 (counting the first call after it) where
 * `firstCallUsd − withoutFirstUsd + compactionUsd − (n − 1) × savedPerCallUsd ≤ 0`; `'never'`
 * when that call is beyond `callsAfter` (the calls the session made after the compaction), and
 * `null` when it cannot be priced.
 */

export interface BreakEvenInput {
  /** The compaction call itself (0 when no model was called). */
  compactionUsd: number;
  /** The first call after the compaction, input side (uncached input + cache read + cache write). */
  firstCallUsd: number;
  /** What the first call's input side would have cost without the compaction. */
  withoutFirstUsd: number;
  /** What each later call saves. */
  savedPerCallUsd: number;
  /** Calls the session made after the compaction (the first one included); Infinity = open-ended. */
  callsAfter: number;
}

export type BreakEven = number | 'never';

/** Calls after the compaction until it has paid for itself (1 = the first call already did), or 'never' within `callsAfter`. */
export function breakEvenCalls(i: BreakEvenInput): BreakEven | null {
  const vals = [i.compactionUsd, i.firstCallUsd, i.withoutFirstUsd, i.savedPerCallUsd];
  if (vals.some((v) => !Number.isFinite(v))) return null;
  const upfront = i.compactionUsd + i.firstCallUsd - i.withoutFirstUsd;
  // A tolerance of a millionth of a cent: float sums of prices are not exact.
  const EPS = 1e-8;
  let n: number;
  if (upfront <= EPS) n = 1;
  else if (i.savedPerCallUsd <= 0) return 'never';
  else n = 1 + Math.ceil((upfront - EPS) / i.savedPerCallUsd);
  return n <= i.callsAfter ? n : 'never';
}

/** USD per million tokens, as the model catalog holds them (lib/tokens/catalog.ts). */
export interface Price {
  input: number;
  cachedRead: number;
  cacheWrite: number;
  output: number;
}

/** The input side of a call in USD: uncached input, cache read and cache write (no output). */
export function inputSideUsd(price: Price, u: { input: number; cacheRead: number; cacheWrite: number }): number {
  return (u.input * price.input + u.cacheRead * price.cachedRead + u.cacheWrite * price.cacheWrite) / 1_000_000;
}

/**
 * The usual case, from token counts: the first call after the compaction (its recorded or
 * modelled split), the context before and after, and the compaction call's cost.
 */
export function compactionBreakEven(args: {
  price: Price;
  tokensBefore: number;
  tokensAfter: number;
  firstCall: { input: number; cacheRead: number; cacheWrite: number };
  compactionUsd: number;
  callsAfter: number;
}): BreakEven | null {
  const { price } = args;
  return breakEvenCalls({
    compactionUsd: args.compactionUsd,
    firstCallUsd: inputSideUsd(price, args.firstCall),
    withoutFirstUsd: (args.tokensBefore * price.cachedRead) / 1_000_000,
    savedPerCallUsd: (Math.max(0, args.tokensBefore - args.tokensAfter) * price.cachedRead) / 1_000_000,
    callsAfter: args.callsAfter,
  });
}
