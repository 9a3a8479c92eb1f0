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

/**
 * The call axis: one bar per model call. Picked by itself when a log has fewer than
 * CALL_AXIS_MAX_TURNS turns and more calls than turns (an agent run: one prompt, hundreds of
 * calls, one or two bars on the turn axis); `axis=turns|calls` in the URL overrides it.
 */
export const CALL_AXIS_MAX_TURNS = 8;

export function autoAxis(turns: number, calls: number): 'turns' | 'calls' {
  return calls > turns && turns < CALL_AXIS_MAX_TURNS ? 'calls' : 'turns';
}

/** `sel=c12-40` (1-based model calls) → 0-based inclusive range, clamped; a turn selection (`sel=3-5`) is not one. */
export function parseCallSelection(sel: string | null, calls: number): [number, number] | null {
  const m = sel ? /^c(\d+)-(\d+)$/.exec(sel) : null;
  if (!m) return null;
  const a = Math.max(1, Math.min(Number(m[1]), Number(m[2])));
  const b = Math.min(calls, Math.max(Number(m[1]), Number(m[2])));
  return a <= b ? [a - 1, b - 1] : null;
}

/** The URL form of a selection on an axis. */
export function formatSelection(range: readonly [number, number], axis: 'turns' | 'calls'): string {
  return `${axis === 'calls' ? 'c' : ''}${range[0] + 1}-${range[1] + 1}`;
}

/** Position in `bars` (ordered, each [firstMessage, endMessage)) holding log message `index`, or −1. */
export function barOfMessage(bars: readonly { firstMessage: number; endMessage: number }[], index: number): number {
  let lo = 0;
  let hi = bars.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (bars[mid].endMessage <= index) lo = mid + 1;
    else hi = mid;
  }
  return lo < bars.length && bars[lo].firstMessage <= index ? lo : -1;
}
