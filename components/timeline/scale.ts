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

/** Which turn index a pointer x falls on, or -1. */
export function turnAtX(x: number, left: number, plotWidth: number, count: number): number {
  if (count === 0 || x < left || x > left + plotWidth) return -1;
  return Math.min(count - 1, Math.max(0, Math.floor(((x - left) / plotWidth) * count)));
}
