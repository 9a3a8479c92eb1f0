'use client';

import { useEffect, useMemo, useRef, useState } from 'react';
import type { Timeline, TimelineTurn } from '@/lib/engine/timeline';
import { KIND_STYLE, STACK_ORDER, type DrawnKind } from '../ui/kinds';
import { formatCompact, formatTokens } from '../ui/format';
import { useIsDark } from '../ui/ThemeToggle';
import { niceStep, turnAtX, yAxisMax } from './scale';

const HEIGHT = 210;
const PAD = { left: 52, right: 14, top: 14, bottom: 22 };

function kindValue(t: TimelineTurn, kind: DrawnKind, overhead: number): number {
  return kind === 'overhead' ? overhead : t.context[kind];
}

/**
 * The context timeline on a canvas (STYLE.md §11: thousands of turns must not be thousands of DOM
 * nodes): one stacked bar per turn (the context sent at the end of that turn, by budget kind), the
 * context window (solid red), the recorded context size from usage (thin line), the source's own
 * compactions as teal bands, and the selected turn range.
 */
export function TimelineChart({
  timeline,
  cursorTurn,
  selection,
  onSelectTurn,
  onCursorChange,
}: {
  timeline: Timeline;
  cursorTurn: number | null;
  selection: [number, number] | null;
  onSelectTurn: (turn: number) => void;
  onCursorChange: (turn: number) => void;
}) {
  const wrap = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const [width, setWidth] = useState(0);
  const [hover, setHover] = useState<{ index: number; x: number; y: number } | null>(null);
  const dark = useIsDark();
  const { turns, overhead } = timeline;
  const n = turns.length;
  const scale = useMemo(() => yAxisMax(timeline.maxContext, timeline.contextWindow), [timeline]);

  useEffect(() => {
    const el = wrap.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setWidth(el.clientWidth));
    ro.observe(el);
    setWidth(el.clientWidth);
    return () => ro.disconnect();
  }, []);

  useEffect(() => {
    const c = canvas.current;
    if (!c || width === 0) return;
    const dpr = window.devicePixelRatio || 1;
    c.width = Math.round(width * dpr);
    c.height = Math.round(HEIGHT * dpr);
    const g = c.getContext('2d');
    if (!g) return;
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, width, HEIGHT);

    const plotW = Math.max(1, width - PAD.left - PAD.right);
    const plotH = HEIGHT - PAD.top - PAD.bottom;
    const slot = n > 0 ? plotW / n : plotW;
    const barW = slot >= 4 ? Math.max(1, slot * 0.78) : Math.max(0.5, slot);
    const xOf = (i: number) => PAD.left + i * slot;
    const yOf = (v: number) => PAD.top + plotH - (v / scale.max) * plotH;
    const ink = dark ? '#e5e5e5' : '#171717';
    const muted = dark ? '#737373' : '#737373';
    const grid = dark ? 'rgba(255,255,255,0.07)' : 'rgba(0,0,0,0.07)';

    // Grid and y labels.
    g.font = '10px ui-sans-serif, system-ui, sans-serif';
    g.textBaseline = 'middle';
    g.textAlign = 'right';
    const step = niceStep(scale.max);
    for (let v = 0; v <= scale.max; v += step) {
      const y = Math.round(yOf(v)) + 0.5;
      g.strokeStyle = grid;
      g.lineWidth = 1;
      g.beginPath();
      g.moveTo(PAD.left, y);
      g.lineTo(PAD.left + plotW, y);
      g.stroke();
      g.fillStyle = muted;
      g.fillText(formatCompact(v), PAD.left - 6, y);
    }

    // Compaction bands the source recorded: the span it removed, and where the summary sits.
    for (const band of timeline.bands) {
      if (band.coversTurns) {
        const [a, b] = band.coversTurns;
        g.fillStyle = dark ? 'rgba(20,184,166,0.10)' : 'rgba(20,184,166,0.10)';
        g.fillRect(xOf(a), PAD.top, (b - a + 1) * slot, plotH);
      }
      const x = Math.round(xOf(band.atTurn)) + 0.5;
      g.strokeStyle = KIND_STYLE.summary.color;
      g.lineWidth = 2;
      g.beginPath();
      g.moveTo(x, PAD.top);
      g.lineTo(x, PAD.top + plotH);
      g.stroke();
      g.fillStyle = KIND_STYLE.summary.color;
      g.textAlign = 'left';
      g.textBaseline = 'top';
      g.fillText(`compacted${band.trigger ? ` (${band.trigger})` : ''}`, x + 3, PAD.top + 2);
    }

    // Selection.
    if (selection) {
      const [a, b] = selection;
      g.fillStyle = dark ? 'rgba(59,130,246,0.18)' : 'rgba(59,130,246,0.13)';
      g.fillRect(xOf(a), PAD.top, (b - a + 1) * slot, plotH);
    }

    // Stacked bars.
    for (let i = 0; i < n; i++) {
      const t = turns[i];
      let acc = 0;
      const x = xOf(i) + (slot - barW) / 2;
      for (const kind of STACK_ORDER) {
        const v = kindValue(t, kind, overhead);
        if (v <= 0) continue;
        const y0 = yOf(acc);
        const y1 = yOf(acc + v);
        g.fillStyle = KIND_STYLE[kind].color;
        g.fillRect(x, y1, barW, Math.max(0.5, y0 - y1));
        acc += v;
      }
      if (i === hover?.index || t.turn === cursorTurn) {
        g.fillStyle = dark ? 'rgba(255,255,255,0.18)' : 'rgba(0,0,0,0.10)';
        g.fillRect(xOf(i), PAD.top, slot, plotH);
      }
    }

    // Context window: solid red.
    if (timeline.contextWindow && scale.windowOnScale) {
      const y = Math.round(yOf(timeline.contextWindow)) + 0.5;
      g.strokeStyle = '#dc2626';
      g.lineWidth = 1.5;
      g.beginPath();
      g.moveTo(PAD.left, y);
      g.lineTo(PAD.left + plotW, y);
      g.stroke();
      g.fillStyle = '#dc2626';
      g.textAlign = 'right';
      g.textBaseline = 'bottom';
      g.fillText(`context window ${formatTokens(timeline.contextWindow)}`, PAD.left + plotW, y - 2);
    } else if (timeline.contextWindow) {
      g.fillStyle = '#dc2626';
      g.textAlign = 'right';
      g.textBaseline = 'top';
      g.fillText(`context window ${formatTokens(timeline.contextWindow)} ↑ (off scale)`, PAD.left + plotW, 1);
    }

    // Recorded context size from usage: a thin line in the ink colour, dots where a turn has one.
    const pts = turns.map((t, i) => (t.recorded === undefined ? null : { x: xOf(i) + slot / 2, y: yOf(t.recorded) }));
    g.strokeStyle = ink;
    g.lineWidth = 1;
    g.beginPath();
    let started = false;
    for (const p of pts) {
      if (!p) continue;
      if (!started) g.moveTo(p.x, p.y);
      else g.lineTo(p.x, p.y);
      started = true;
    }
    g.stroke();
    g.fillStyle = ink;
    if (slot >= 5) for (const p of pts) if (p) g.fillRect(p.x - 1.5, p.y - 1.5, 3, 3);

    // X labels: turn numbers, spaced to stay legible.
    g.fillStyle = muted;
    g.textAlign = 'center';
    g.textBaseline = 'top';
    const every = Math.max(1, Math.ceil(44 / slot));
    const nice = niceStep(every, 1);
    for (let i = 0; i < n; i += Math.max(1, Math.ceil(nice))) g.fillText(String(turns[i].turn + 1), xOf(i) + slot / 2, PAD.top + plotH + 5);
  }, [timeline, turns, overhead, n, width, dark, scale, hover, cursorTurn, selection]);

  const pick = (clientX: number): number => {
    const rect = canvas.current?.getBoundingClientRect();
    if (!rect) return -1;
    return turnAtX(clientX - rect.left, PAD.left, Math.max(1, width - PAD.left - PAD.right), n);
  };

  const hovered = hover ? turns[hover.index] : undefined;
  const cursorIndex = cursorTurn === null ? -1 : turns.findIndex((t) => t.turn === cursorTurn);

  return (
    <div
      ref={wrap}
      className="relative w-full select-none"
      data-testid="timeline"
      data-turns={n}
      tabIndex={0}
      role="group"
      aria-label={`Context timeline: ${n} turns. Left and right arrows move between turns, Enter shows the turn's messages.`}
      onKeyDown={(e) => {
        if (n === 0) return;
        if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') {
          e.preventDefault();
          const next = Math.min(n - 1, Math.max(0, (cursorIndex < 0 ? 0 : cursorIndex) + (e.key === 'ArrowRight' ? 1 : -1)));
          onCursorChange(turns[next].turn);
        } else if (e.key === 'Enter' && cursorIndex >= 0) onSelectTurn(turns[cursorIndex].turn);
      }}
    >
      <canvas
        ref={canvas}
        style={{ width: '100%', height: HEIGHT }}
        className="block cursor-pointer"
        onMouseMove={(e) => {
          const i = pick(e.clientX);
          const rect = wrap.current!.getBoundingClientRect();
          setHover(i < 0 ? null : { index: i, x: e.clientX - rect.left, y: e.clientY - rect.top });
        }}
        onMouseLeave={() => setHover(null)}
        onClick={(e) => {
          const i = pick(e.clientX);
          if (i >= 0) onSelectTurn(turns[i].turn);
        }}
      />
      {hovered && hover && <HoverCard turn={hovered} overhead={overhead} x={hover.x} containerWidth={width} />}
    </div>
  );
}

function HoverCard({ turn, overhead, x, containerWidth }: { turn: TimelineTurn; overhead: number; x: number; containerWidth: number }) {
  const rows = STACK_ORDER.map((k) => ({ k, v: kindValue(turn, k, overhead), added: k === 'overhead' ? 0 : turn.added[k] })).filter((r) => r.v > 0 || r.added > 0);
  const left = Math.min(Math.max(8, x + 14), Math.max(8, containerWidth - 300));
  return (
    <div
      data-testid="timeline-hover"
      className="pointer-events-none absolute top-2 z-20 w-72 rounded-lg border border-neutral-200 bg-white/95 p-3 text-xs shadow-xl backdrop-blur dark:border-neutral-700 dark:bg-neutral-900/95"
      style={{ left }}
    >
      <div className="flex items-baseline justify-between">
        <span className="font-semibold">Turn {turn.turn + 1}</span>
        <span className="tabular-nums text-neutral-500">
          messages {turn.firstMessage + 1}–{turn.endMessage}
        </span>
      </div>
      {turn.preview && <p className="mt-1 line-clamp-2 text-neutral-600 dark:text-neutral-400">{turn.preview}</p>}
      <table className="mt-2 w-full tabular-nums">
        <thead>
          <tr className="text-neutral-500">
            <th className="text-left font-normal">in context</th>
            <th className="text-right font-normal">tokens</th>
            <th className="text-right font-normal">this turn</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.k}>
              <td className="py-px">
                <span className="mr-1.5 inline-block h-2 w-2 rounded-sm align-middle" style={{ backgroundColor: KIND_STYLE[r.k].color }} />
                {KIND_STYLE[r.k].label}
              </td>
              <td className="text-right">{formatTokens(r.v)}</td>
              <td className="text-right text-neutral-500">{r.added ? `+${formatTokens(r.added)}` : ''}</td>
            </tr>
          ))}
          <tr className="border-t border-neutral-200 font-semibold dark:border-neutral-700">
            <td className="pt-1">Estimated context</td>
            <td className="pt-1 text-right">{formatTokens(turn.contextTotal + overhead)}</td>
            <td className="pt-1 text-right text-neutral-500">+{formatTokens(turn.addedTotal)}</td>
          </tr>
          {turn.recorded !== undefined && (
            <tr>
              <td>Recorded (usage)</td>
              <td className="text-right">{formatTokens(turn.recorded)}</td>
              <td />
            </tr>
          )}
        </tbody>
      </table>
      <p className="mt-1.5 text-neutral-500">
        {turn.calls > 0 ? `${turn.calls} model call${turn.calls === 1 ? '' : 's'} · ` : ''}
        {turn.toolCalls} tool call{turn.toolCalls === 1 ? '' : 's'} · click to show
      </p>
    </div>
  );
}

export function TimelineLegend({ timeline }: { timeline: Timeline }) {
  const present = new Set<DrawnKind>();
  for (const t of timeline.turns) for (const k of STACK_ORDER) if (k !== 'overhead' && t.context[k] > 0) present.add(k);
  if (timeline.overhead > 0) present.add('overhead');
  const hasRecorded = timeline.turns.some((t) => t.recorded !== undefined);
  return (
    <ul className="flex flex-wrap items-center gap-x-3 gap-y-1 text-[11px] text-neutral-600 dark:text-neutral-400" aria-label="Legend">
      {STACK_ORDER.filter((k) => present.has(k)).map((k) => (
        <li key={k} className="flex items-center gap-1">
          <span className="inline-block h-2.5 w-2.5 rounded-sm" style={{ backgroundColor: KIND_STYLE[k].color }} aria-hidden="true" />
          {KIND_STYLE[k].label}
        </li>
      ))}
      {timeline.contextWindow !== undefined && (
        <li className="flex items-center gap-1">
          <span className="inline-block h-0.5 w-4 bg-red-600" aria-hidden="true" /> Context window
        </li>
      )}
      {hasRecorded && (
        <li className="flex items-center gap-1">
          <span className="inline-block h-px w-4 bg-neutral-900 dark:bg-neutral-200" aria-hidden="true" /> Recorded context (usage)
        </li>
      )}
      {timeline.bands.length > 0 && (
        <li className="flex items-center gap-1">
          <span className="inline-block h-2.5 w-1 bg-teal-500" aria-hidden="true" /> Source compaction
        </li>
      )}
    </ul>
  );
}
