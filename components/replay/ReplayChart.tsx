'use client';

import { memo, useEffect, useRef, useState } from 'react';
import type { ReplaySeries, ReplayView } from '@/lib/engine/replay';
import { formatCompact, formatTokens } from '../ui/format';
import { policyColor } from './colors';

const HEIGHT = 300;
const PAD = { left: 52, right: 12, top: 14, bottom: 26 };

/** Points of one series for a plot `w` pixels wide: every call, or min/max per pixel column when there are more. */
export function decimate(values: Float64Array, w: number): Array<[number, number]> {
  const n = values.length;
  if (n <= w * 2) return Array.from(values, (v, i) => [i, v] as [number, number]);
  const out: Array<[number, number]> = [];
  const per = n / w;
  for (let c = 0; c < w; c++) {
    const a = Math.floor(c * per);
    const b = Math.min(n, Math.floor((c + 1) * per));
    let lo = a;
    let hi = a;
    for (let i = a; i < b; i++) {
      if (values[i] < values[lo]) lo = i;
      if (values[i] > values[hi]) hi = i;
    }
    if (lo <= hi) out.push([lo, values[lo]], [hi, values[hi]]);
    else out.push([hi, values[hi]], [lo, values[lo]]);
  }
  return out;
}

/** A compaction's break-even in words, against the calls the session made after it (the one it preceded included). */
export function breakEvenText(breakEven: number | undefined, callsAfter: number, unpaid: boolean): string {
  if (breakEven === undefined || breakEven === 0) return 'break-even not priced';
  const be = Number.isFinite(breakEven) ? `break-even after ${breakEven} call${breakEven === 1 ? '' : 's'}` : 'no break-even (it saved nothing a call)';
  return unpaid ? `${be}, the session made ${callsAfter} after it: never paid back` : `${be} of the ${callsAfter} made after it: paid back`;
}

/**
 * x = the session's model calls (main chain), y = tokens each call sends under a policy. The
 * window is a red line (labelled off-scale when the curves stay far under it); compactions are
 * dots (hollow with a red edge when they never paid back the cache they broke), calls that lost
 * the cache are crosses. Plain SVG: a few policies × a few thousand points.
 */
export function ReplayChart({ view, series }: { view: ReplayView; series: ReplaySeries[] }) {
  const box = useRef<HTMLDivElement>(null);
  // Unknown until the box is measured: the chart is drawn at its width only (issue 31: drawn first
  // at a guessed 900 px, then again at the real width, the page's arrival was 3 tasks of 40–65 ms
  // CPU at 2,000 turns).
  const [width, setWidth] = useState<number | null>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const ro = new ResizeObserver(([e]) => setWidth(Math.max(320, Math.floor(e.contentRect.width))));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  // The curves are drawn one a task (each memoized): six curves of 4,000 calls with their
  // compaction dots, drawn in one React render, were one task of 95 ms CPU at 2,000 turns.
  const [drawn, setDrawn] = useState({ width: 0, count: 0 });
  const count = drawn.width === width ? drawn.count : 0;
  useEffect(() => {
    if (width === null || count >= series.length) return;
    const timer = setTimeout(() => setDrawn({ width, count: count + 1 }), 0);
    return () => clearTimeout(timer);
  }, [width, count, series.length]);
  const calls = view.callTurns.length;
  if (width === null) return <div ref={box} className="w-full" style={{ height: HEIGHT }} data-testid="replay-chart" data-calls={calls} data-drawn="no" />;
  const plotW = width - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  let peak = 0;
  for (const s of series) for (const v of s.prompts) peak = Math.max(peak, v);
  const win = view.model.contextWindow;
  // Fit to the data; the window joins the scale when it is within reach of the curves.
  const yMax = Math.max(1, peak, win <= peak * 1.6 ? win : 0) * 1.06;
  const { x, y } = scales(calls, plotW, plotH, yMax);
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => f * yMax);
  const xTicks = calls > 1 ? [0, Math.floor((calls - 1) / 2), calls - 1] : [0];
  return (
    <div ref={box} className="w-full" data-testid="replay-chart" data-calls={calls} data-drawn={count >= series.length ? 'yes' : 'no'}>
      {calls === 0 ? (
        <p className="py-8 text-center text-sm text-neutral-500">This transcript has no model call to replay.</p>
      ) : (
        <svg width={width} height={HEIGHT} role="img" aria-label={`Context per call for ${series.map((s) => s.label).join(', ') || 'no policy'}`}>
          {ticks.map((t) => (
            <g key={t}>
              <line x1={PAD.left} x2={width - PAD.right} y1={y(t)} y2={y(t)} className="stroke-neutral-200 dark:stroke-neutral-800" />
              <text x={PAD.left - 6} y={y(t) + 3} textAnchor="end" className="fill-neutral-500 text-[10px] tabular-nums">
                {formatCompact(t)}
              </text>
            </g>
          ))}
          {xTicks.map((i) => (
            <text key={i} x={x(i)} y={HEIGHT - 8} textAnchor={i === 0 && calls > 1 ? 'start' : i === calls - 1 && calls > 1 ? 'end' : 'middle'} className="fill-neutral-500 text-[10px] tabular-nums">
              call {i + 1}
            </text>
          ))}
          {win <= yMax ? (
            <g data-testid="replay-window">
              <line x1={PAD.left} x2={width - PAD.right} y1={y(win)} y2={y(win)} stroke="#dc2626" strokeDasharray="5 3" />
              <text x={width - PAD.right} y={y(win) - 4} textAnchor="end" className="fill-red-600 text-[10px]">
                window {formatTokens(win)}
              </text>
            </g>
          ) : (
            <text x={width - PAD.right} y={PAD.top - 3} textAnchor="end" className="fill-red-600 text-[10px]" data-testid="replay-window">
              window {formatTokens(win)} ↑ (off scale)
            </text>
          )}
          {series.slice(0, count).map((s) => (
            <SeriesMarks key={s.id} s={s} callTurns={view.callTurns} plotW={plotW} plotH={plotH} yMax={yMax} />
          ))}
        </svg>
      )}
    </div>
  );
}

/** Pixel positions: x of call i, y of a token count. */
function scales(calls: number, plotW: number, plotH: number, yMax: number) {
  return {
    x: (i: number) => PAD.left + (calls <= 1 ? plotW / 2 : (i / (calls - 1)) * plotW),
    y: (v: number) => PAD.top + plotH - (v / yMax) * plotH,
  };
}

/** One policy's curve, its compactions and its cache losses (re-drawn only when its scale or data change). */
const SeriesMarks = memo(function SeriesMarks({ s, callTurns, plotW, plotH, yMax }: { s: ReplaySeries; callTurns: ReplayView['callTurns']; plotW: number; plotH: number; yMax: number }) {
  const calls = callTurns.length;
  const { x, y } = scales(calls, plotW, plotH, yMax);
  const pts = decimate(s.prompts, plotW);
  const color = policyColor(s.id);
  return (
    <g data-testid="replay-series" data-policy={s.id}>
      <polyline fill="none" stroke={color} strokeWidth={1.5} strokeLinejoin="round" points={pts.map(([i, v]) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ')} />
      {Array.from(s.fired).map((f, i) =>
        f ? (
          // A compaction that never paid back the cache it broke: a hollow ring with a red edge.
          <circle key={`f${i}`} cx={x(i)} cy={y(s.prompts[i])} r={s.unpaid?.[i] ? 4.5 : 3.5} fill={s.unpaid?.[i] ? 'white' : color} stroke={s.unpaid?.[i] ? '#dc2626' : 'white'} strokeWidth={s.unpaid?.[i] ? 2 : 1} data-testid="replay-firing" data-paid={s.unpaid?.[i] ? 'false' : 'true'}>
            <title>{`${s.label}: compacted before call ${i + 1} (turn ${callTurns[i] + 1}), ${formatTokens(s.prompts[i])} tokens sent; ${breakEvenText(s.breakEven?.[i], calls - i, !!s.unpaid?.[i])}`}</title>
          </circle>
        ) : null,
      )}
      {Array.from(s.broken).map((b, i) =>
        b && !s.fired[i] ? (
          <path key={`b${i}`} d={`M${x(i) - 3},${y(s.prompts[i]) - 3}l6,6m0,-6l-6,6`} stroke={color} strokeWidth={1.2}>
            <title>{`${s.label}: call ${i + 1} lost the cached prefix (the gap since the previous call outlived the cache)`}</title>
          </path>
        ) : null,
      )}
    </g>
  );
});
