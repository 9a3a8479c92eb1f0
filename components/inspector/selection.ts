/**
 * The inspector's turn selection: `sel=a-b` in the URL (1-based, as the user reads turns) and its
 * token total, answered from prefix sums so a new selection costs two binary searches, not a pass
 * over every turn (100k turns: the pass alone was ~15 ms of the hand-over task on a slow CPU).
 */

/** `sel=a-b` (1-based turns, as the user reads them) → 0-based inclusive range, clamped to the transcript. */
export function parseSelection(sel: string | null, turns: number): [number, number] | null {
  const m = sel ? /^(\d+)-(\d+)$/.exec(sel) : null;
  if (!m) return null;
  const a = Math.max(1, Math.min(Number(m[1]), Number(m[2])));
  const b = Math.min(turns, Math.max(Number(m[1]), Number(m[2])));
  return a <= b ? [a - 1, b - 1] : null;
}

/** prefix[i] = added tokens of turns[0 … i−1]; `turns` are ordered by turn index (gaps allowed). */
export function prefixOfAdded(turns: readonly { addedTotal: number }[]): Float64Array {
  const prefix = new Float64Array(turns.length + 1);
  for (let i = 0; i < turns.length; i++) prefix[i + 1] = prefix[i] + turns[i].addedTotal;
  return prefix;
}

/** First position in `turns` whose turn index is ≥ `turn`. */
export function lowerBound(turns: readonly { turn: number }[], turn: number): number {
  let lo = 0;
  let hi = turns.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (turns[mid].turn < turn) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Added tokens of the turns in [from, to] (inclusive). */
export function tokensInRange(turns: readonly { turn: number }[], prefix: Float64Array, [from, to]: readonly [number, number]): number {
  return prefix[lowerBound(turns, to + 1)] - prefix[lowerBound(turns, from)];
}
