/** Axis arithmetic for the timeline canvas (pure; unit-tested). */

/** A "nice" step (1, 2, 2.5, 5 × 10^k) so that about `target` ticks cover `max`. */
export function niceStep(max: number, target = 4): number {
  if (max <= 0) return 1;
  const raw = max / target;
  const pow = Math.pow(10, Math.floor(Math.log10(raw)));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * pow >= raw) return m * pow;
  return 10 * pow;
}

/**
 * The y-axis top. The context window is worth showing as a line when contexts get anywhere near it;
 * when they never pass a quarter of it, scaling to the window would flatten every bar, so the
 * scale follows the data and the window is labelled "off scale" instead.
 */
export function yAxisMax(maxContext: number, contextWindow: number | undefined): { max: number; windowOnScale: boolean } {
  const dataTop = Math.max(1, maxContext) * 1.1;
  if (contextWindow && contextWindow <= maxContext * 4) return { max: Math.max(dataTop, contextWindow * 1.05), windowOnScale: true };
  return { max: dataTop, windowOnScale: false };
}

/**
 * The y-axis the user picked: `auto` (the rule above, over the whole timeline), `fit` (the largest
 * context among the turns in view: zoom onto a part and it fills the height) or `window` (the
 * model's whole window). Off scale, the window is still named at the top ("↑ (off scale)").
 */
export type YScaleMode = 'auto' | 'fit' | 'window';

export function yAxisFor(mode: YScaleMode, maxContext: number, viewMax: number, contextWindow: number | undefined): { max: number; windowOnScale: boolean } {
  if (mode === 'auto') return yAxisMax(maxContext, contextWindow);
  if (mode === 'window' && contextWindow) return { max: Math.max(Math.max(1, maxContext) * 1.1, contextWindow * 1.05), windowOnScale: true };
  const max = Math.max(1, mode === 'fit' ? viewMax : maxContext) * 1.1;
  return { max, windowOnScale: contextWindow !== undefined && contextWindow <= max };
}

/** Which turn index a pointer x falls on, or -1. */
export function turnAtX(x: number, left: number, plotWidth: number, count: number): number {
  if (count === 0 || x < left || x > left + plotWidth) return -1;
  return Math.min(count - 1, Math.max(0, Math.floor(((x - left) / plotWidth) * count)));
}

/** The visible window of the timeline: turn indexes `start`..`end`, inclusive. */
export interface TurnView {
  start: number;
  end: number;
}

/** Fewest turns a zoomed view shows (or all of them when there are fewer). */
export const MIN_VIEW_TURNS = 8;

export function fullView(count: number): TurnView {
  return { start: 0, end: Math.max(0, count - 1) };
}

/** Which turn index a pointer x falls on within `view`, clamped to the view (drags leave the plot). */
export function turnAtXInView(x: number, left: number, plotWidth: number, view: TurnView): number {
  const span = view.end - view.start + 1;
  const f = Math.min(1, Math.max(0, (x - left) / plotWidth));
  return Math.min(view.end, view.start + Math.floor(f * span));
}

function clampView(start: number, span: number, count: number): TurnView {
  const s = Math.min(Math.max(0, Math.round(start)), Math.max(0, count - span));
  return { start: s, end: s + span - 1 };
}

/**
 * Zoom by `factor` (< 1 zooms in) keeping the turn under the pointer (at fraction `at` of the plot)
 * where it is, as maps and profilers do.
 */
export function zoomView(view: TurnView, factor: number, at: number, count: number): TurnView {
  const span = view.end - view.start + 1;
  const next = Math.min(count, Math.max(Math.min(count, MIN_VIEW_TURNS), Math.round(span * factor)));
  if (next === span) return view;
  const anchor = view.start + at * span;
  return clampView(anchor - at * next, next, count);
}

/** Move the window by `turns` (positive: later turns), keeping its width. */
export function panView(view: TurnView, turns: number, count: number): TurnView {
  return clampView(view.start + turns, view.end - view.start + 1, count);
}

/** Index of the first element of a sorted array that is ≥ `value` (binary search: O(log n) hit tests). */
export function lowerBound(sorted: ArrayLike<number>, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
