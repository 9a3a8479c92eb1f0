'use client';

import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { Timeline, TimelineTurn } from '@/lib/engine/timeline';
import { KIND_STYLE, STACK_ORDER, type DrawnKind } from '../ui/kinds';
import { formatTokens } from '../ui/format';
import { useIsDark } from '../ui/ThemeToggle';
import { drawBaseAxes, drawBaseStrip, drawOverlay, geometry, HEIGHT, PAD, planBase, prepareCanvas, stripEdges } from './draw';
import { FrameQueue, type FramePiece } from './frame-queue';
import { indexOfTurn, indexRangeOfTurns, packTimeline, viewMax } from './packed';
import { CONTEXT_DEFINITION } from '../ui/context-label';
import { fullView, panView, turnAtXInView, yAxisFor, zoomView, type TurnView, type YScaleMode } from './scale';
import { OverviewStrip } from './OverviewStrip';
import { drawCompactionFrame, scaleWithLines, type BudgetLines, type CompareCurves, type PolicyCurve } from './compaction-layer';
import type { PreviewSummary } from '@/lib/engine/preview';

/** What the compaction work adds to the chart (components/timeline/compaction-layer.ts). */
export interface TimelineCompaction {
  /** A preview (draft step) or the shown version's projection; null = the log as imported. */
  preview: PreviewSummary | null;
  lines: BudgetLines;
  compare: CompareCurves | null;
  /** Replayed policies drawn over the bars (issue 14: the Policies menu above the chart). */
  policies?: readonly PolicyCurve[];
}

const NO_COMPACTION: TimelineCompaction = { preview: null, lines: {}, compare: null };
const NO_HITS: readonly number[] = [];

function kindValue(t: TimelineTurn, kind: DrawnKind, overhead: number): number {
  return kind === 'overhead' ? overhead : t.context[kind];
}

/** Whether a canvas already has its bitmap for `width` CSS px at this device pixel ratio (prepareCanvas would not resize it). */
function canvasSized(c: HTMLCanvasElement, width: number, height = HEIGHT): boolean {
  const dpr = window.devicePixelRatio || 1;
  return c.width === Math.round(width * dpr) && c.height === Math.round(height * dpr);
}

/** Width of a strip of the base layer painted in one frame (CSS px; ~5 strips across a 1,280 px page). */
const BASE_STRIP_PX = 256;

/** Zoom step of one wheel notch (deltaY 100) and of the +/− keys. */
const ZOOM_PER_NOTCH = 1.25;
/** Quiet time after the last shift+arrow before the extended selection goes to the page. */
const KEY_COMMIT_MS = 250;
/** A press-and-release that moved less than this is a click, not a drag. */
const CLICK_SLOP_PX = 3;

type Gesture =
  | { kind: 'select'; from: number; to: number; startX: number; moved: boolean }
  | { kind: 'pan'; startX: number; startView: TurnView };

/**
 * The context timeline on a canvas (STYLE.md §11: thousands of turns must not be thousands of DOM
 * nodes): one stacked bar per turn (the context sent at the end of that turn, by budget kind), the
 * context window (solid red), the recorded context size from usage (thin line), the source's own
 * compactions as teal bands, and the selected turn range.
 *
 * Built for 100k turns: the series is packed into typed arrays once; drawing is culled to the
 * visible window and bounded by the pixel width; hit tests are arithmetic on the view plus a
 * binary search; bars (base canvas) and selection/hover (overlay canvas) repaint separately, at
 * most once per animation frame. Wheel zooms around the pointer, shift-drag pans, drag selects,
 * ←/→ move the cursor, shift+←/→ extend the selection, +/− zoom.
 */
export function TimelineChart({
  timeline,
  cursorTurn,
  selection,
  onSelectTurn,
  onCursorChange,
  onSelectRange,
  compaction = NO_COMPACTION,
  hitTurns = NO_HITS,
  activeHitTurn = null,
  unit = 'turn',
}: {
  timeline: Timeline;
  /** What a bar is: a turn, or a model call (the call axis; `turn` numbers are then call indexes). */
  unit?: 'turn' | 'call';
  cursorTurn: number | null;
  /** Selected turns [from, to], 0-based inclusive. */
  selection: [number, number] | null;
  onSelectTurn: (turn: number) => void;
  onCursorChange: (turn: number) => void;
  /** Drag across bars selects a turn range (the input of a compaction step). */
  onSelectRange?: (range: [number, number]) => void;
  /** Preview fates, budget lines, compared versions (memoize it: it repaints its layer). */
  compaction?: TimelineCompaction;
  /** Turns holding search hits (ascending, memoized), and the current hit's turn. */
  hitTurns?: readonly number[];
  activeHitTurn?: number | null;
}) {
  const wrap = useRef<HTMLDivElement>(null);
  const base = useRef<HTMLCanvasElement>(null);
  const overlay = useRef<HTMLCanvasElement>(null);
  const [width, setWidth] = useState(0);
  const [hover, setHover] = useState<{ index: number; x: number; y: number } | null>(null);
  /** Bar indices of a drag in progress: where it started and where the pointer is. */
  const [drag, setDrag] = useState<{ from: number; to: number } | null>(null);
  const dark = useIsDark();
  const { turns, overhead } = timeline;
  const n = turns.length;
  // Keyed on the series, not the timeline object: the page rebuilds that object when the model (and
  // so the window line) changes, and packing 100k turns again would be a 20 ms task for nothing.
  const packed = useMemo(() => packTimeline({ turns, overhead }), [turns, overhead]);
  const layer = useRef<HTMLCanvasElement>(null);
  const [view, setView] = useState<TurnView>(() => fullView(n));
  const [yMode, setYMode] = useState<YScaleMode>('auto');
  const fitTop = useMemo(() => (yMode === 'fit' ? viewMax(packed, view) : 0), [yMode, packed, view]);
  const lastScale = useRef<{ max: number; windowOnScale: boolean } | null>(null);
  const scale = useMemo(() => {
    const s = yAxisFor(yMode, timeline.maxContext, fitTop, timeline.contextWindow);
    const withLines = yMode === 'fit' ? s : { ...s, max: scaleWithLines(timeline.maxContext, s.max, compaction.lines, timeline.overhead) };
    // A policy that never compacts can outgrow every bar: its curve stays on the chart.
    let top = 0;
    for (const pc of compaction.policies ?? []) for (const v of pc.values) if (v > top) top = v;
    const next = top * 1.05 > withLines.max ? { ...withLines, max: top * 1.05 } : withLines;
    // The same scale keeps its identity, so the base layer (every bar) is not redrawn for nothing
    // (switching the model moves the window line, drawn on the compaction layer).
    const prev = lastScale.current;
    if (prev && prev.max === next.max && prev.windowOnScale === next.windowOnScale) return prev;
    return (lastScale.current = next);
  }, [yMode, fitTop, timeline.maxContext, timeline.contextWindow, timeline.overhead, compaction.lines, compaction.policies]);
  // A new series (another transcript, a new version) starts zoomed out.
  useEffect(() => setView(fullView(n)), [n]);
  const geo = useMemo(() => geometry(width, view), [width, view]);
  const geoRef = useRef(geo);
  geoRef.current = geo;
  const gesture = useRef<Gesture | null>(null);

  useEffect(() => {
    const el = wrap.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setWidth(el.clientWidth));
    ro.observe(el);
    setWidth(el.clientWidth);
    return () => ro.disconnect();
  }, []);

  // The canvases are painted a piece per frame (frame-queue.ts): the base layer a strip of the plot
  // at a time, the compaction layer and the overview a frame each; the overlay every frame.
  const queue = useMemo(() => new FrameQueue(['overlay', 'layer', 'base', 'overview']), []);
  useEffect(() => () => queue.dispose(), [queue]);

  // Base layer: repainted when the data, the view, the size or the theme change; strip by strip.
  useEffect(() => {
    const c = base.current;
    if (!c || width === 0) return;
    const plan = planBase(geo, { packed, bands: timeline.bands, scale, dark });
    const edges = stripEdges(geo, BASE_STRIP_PX);
    // Sizing a canvas allocates its bitmap (~27 ms CPU at 1,280 px, traced): a piece of its own.
    const pieces: FramePiece[] = canvasSized(c, width) ? [] : [{ run: () => void prepareCanvas(c, width, HEIGHT, false) }];
    for (let i = 0; i + 1 < edges.length; i++)
      pieces.push({
        run: () => {
          const g = prepareCanvas(c, width, HEIGHT, false);
          if (g) drawBaseStrip(g, plan, edges[i], edges[i + 1]);
        },
      });
    pieces.push({
      light: true,
      run: () => {
        const g = prepareCanvas(c, width, HEIGHT, false);
        if (g) drawBaseAxes(g, plan);
      },
    });
    queue.schedule('base', pieces);
  }, [queue, packed, timeline.bands, geo, width, scale, dark]);

  // Compaction layer: preview fates, budget lines, compared curves. Drawn a frame after the one
  // that shows the React commit bringing it: a preview's arrival also re-renders the list's fates
  // and the Plan's numbers, and the two in one frame made one task of 55–86 ms CPU at 3,000 turns
  // (e2e/preview-speed.spec.ts on CI); in two frames each stays well under 50 ms.
  useEffect(() => {
    const c = layer.current;
    if (!c || width === 0) return;
    // Said on the canvas until it is drawn (what a test waits for before it reads the pixels).
    c.dataset.pending = '1';
    const frame = requestAnimationFrame(() =>
      queue.schedule(
        'layer',
        [
          {
            run: () => {
              const g = prepareCanvas(c, width);
              if (!g) return;
              // The window line after the preview's ghost bars (issue 30: it vanished under them), the lines' names last.
              drawCompactionFrame(g, geo, { packed, scale, overhead, dark, preview: compaction.preview, lines: compaction.lines, compare: compaction.compare, policies: compaction.policies }, scale, timeline.contextWindow);
            },
          },
        ],
        () => delete c.dataset.pending,
      ),
    );
    return () => cancelAnimationFrame(frame);
  }, [queue, packed, geo, width, scale, overhead, dark, compaction, timeline.contextWindow]);

  // The selection lives with the parent (in the URL), which catches up asynchronously: selections
  // requested here show at once and stay until the parent reports them back, so a burst of
  // shift+arrow presses extends from the latest one, not from a stale URL.
  const selectionKey = selection ? `${selection[0]}-${selection[1]}` : '';
  const [shownKey, setShownKey] = useState(selectionKey);
  const pendingKeys = useRef<string[]>([]);
  useEffect(() => {
    const queue = pendingKeys.current;
    const at = queue.indexOf(selectionKey);
    if (at >= 0) {
      queue.splice(0, at + 1);
      if (queue.length > 0) return;
    } else queue.length = 0;
    setShownKey(selectionKey);
  }, [selectionKey]);
  const shownSelection = useMemo((): [number, number] | null => {
    const m = /^(\d+)-(\d+)$/.exec(shownKey);
    return m ? [Number(m[1]), Number(m[2])] : null;
  }, [shownKey]);
  const requestSelection = useCallback(
    (range: [number, number]) => {
      const key = `${range[0]}-${range[1]}`;
      pendingKeys.current.push(key);
      setShownKey(key);
      onSelectRange?.(range);
    },
    [onSelectRange],
  );
  const keyCommit = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(
    () => () => {
      if (keyCommit.current) clearTimeout(keyCommit.current);
    },
    [],
  );
  const selectionIndexes = useMemo(() => (shownSelection ? indexRangeOfTurns(packed, shownSelection[0], shownSelection[1]) : null), [packed, shownSelection]);
  const cursorIndex = cursorTurn === null ? -1 : indexOfTurn(packed, cursorTurn);
  const hitBars = useMemo(() => {
    const bars: number[] = [];
    for (const t of hitTurns) {
      const i = indexOfTurn(packed, t);
      if (i >= 0) bars.push(i);
    }
    return Int32Array.from(bars);
  }, [packed, hitTurns]);
  const activeHitBar = activeHitTurn === null ? null : indexOfTurn(packed, activeHitTurn);

  // Overlay: selection (or the drag in progress), hover, cursor. Cheap; every frame it is asked for.
  useEffect(() => {
    const c = overlay.current;
    if (!c || width === 0) return;
    queue.schedule('overlay', [
      {
        // Light once its canvas is sized (the first draw allocates it: a heavy piece then).
        light: canvasSized(c, width),
        run: () => {
          const g = prepareCanvas(c, width);
          if (!g) return;
          const shown: [number, number] | null = drag && drag.from !== drag.to ? [Math.min(drag.from, drag.to), Math.max(drag.from, drag.to)] : selectionIndexes;
          drawOverlay(g, geo, { selection: shown, hover: hover?.index ?? null, cursor: cursorIndex >= 0 ? cursorIndex : null, hits: hitBars, activeHit: activeHitBar !== null && activeHitBar >= 0 ? activeHitBar : null, dark });
        },
      },
    ]);
  }, [queue, geo, width, drag, selectionIndexes, hover, cursorIndex, hitBars, activeHitBar, dark]);

  /** Bar index under a client x (clamped to the plot: drags may leave it), or -1 without bars. */
  const pick = useCallback(
    (clientX: number): number => {
      const rect = base.current?.getBoundingClientRect();
      if (!rect || n === 0) return -1;
      const g = geoRef.current;
      return turnAtXInView(clientX - rect.left, PAD.left, g.plotW, g.view);
    },
    [n],
  );
  const inPlot = (clientX: number): boolean => {
    const rect = base.current?.getBoundingClientRect();
    if (!rect) return false;
    const x = clientX - rect.left;
    return x >= PAD.left && x <= PAD.left + geoRef.current.plotW;
  };

  // Wheel zoom needs a non-passive listener (React's onWheel cannot preventDefault the page scroll).
  useEffect(() => {
    const c = overlay.current;
    if (!c) return;
    const onWheel = (e: WheelEvent) => {
      if (n === 0 || e.deltaY === 0) return;
      e.preventDefault();
      const rect = c.getBoundingClientRect();
      const g = geoRef.current;
      const at = Math.min(1, Math.max(0, (e.clientX - rect.left - PAD.left) / g.plotW));
      const factor = Math.pow(ZOOM_PER_NOTCH, Math.max(-5, Math.min(5, e.deltaY / 100)));
      setView((v) => zoomView(v, factor, at, n));
    };
    c.addEventListener('wheel', onWheel, { passive: false });
    return () => c.removeEventListener('wheel', onWheel);
  }, [n]);

  // Drags follow the pointer outside the canvas until the button is released.
  const onWindowMove = useCallback(
    (e: MouseEvent) => {
      const g = gesture.current;
      if (!g) return;
      if (g.kind === 'pan') {
        const geoNow = geoRef.current;
        setView(panView(g.startView, -Math.round((e.clientX - g.startX) / geoNow.slot), n));
        return;
      }
      if (Math.abs(e.clientX - g.startX) >= CLICK_SLOP_PX) g.moved = true;
      const i = pick(e.clientX);
      if (i >= 0 && i !== g.to) {
        g.to = i;
        setDrag({ from: g.from, to: i });
      }
    },
    [n, pick],
  );
  const onWindowUp = useCallback(
    (e: MouseEvent) => {
      const g = gesture.current;
      gesture.current = null;
      window.removeEventListener('mousemove', onWindowMove);
      window.removeEventListener('mouseup', onWindowUp);
      setDrag(null);
      if (!g || g.kind === 'pan') return;
      const i = pick(e.clientX);
      if (i < 0) return;
      // A drag that ends in the bar it started in selects that turn (an agent run is one or two
      // bars: a drag inside one used to select nothing, silently).
      if (g.moved && onSelectRange) requestSelection([turns[Math.min(g.from, i)].turn, turns[Math.max(g.from, i)].turn]);
      else if (!g.moved && inPlot(e.clientX)) onSelectTurn(turns[i].turn);
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [onWindowMove, pick, onSelectRange, requestSelection, onSelectTurn, turns],
  );
  useEffect(
    () => () => {
      window.removeEventListener('mousemove', onWindowMove);
      window.removeEventListener('mouseup', onWindowUp);
    },
    [onWindowMove, onWindowUp],
  );

  const onKeyDown = (e: React.KeyboardEvent) => {
    if (n === 0) return;
    if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') {
      e.preventDefault();
      const dir = e.key === 'ArrowRight' ? 1 : -1;
      if (e.shiftKey && onSelectRange) {
        // Extend (or shrink) the selection at its end; without one, start it at the cursor.
        const [a, b] = selectionIndexes ?? [Math.max(0, cursorIndex), Math.max(0, cursorIndex)];
        const end = Math.min(n - 1, Math.max(a, b + dir));
        const range: [number, number] = [turns[a].turn, turns[end].turn];
        // Shown at once; handed to the page (URL, preview, list scroll) when the key burst ends:
        // each hand-over re-renders the page and re-previews, too much for every auto-repeat.
        setShownKey(`${range[0]}-${range[1]}`);
        if (keyCommit.current) clearTimeout(keyCommit.current);
        keyCommit.current = setTimeout(() => {
          keyCommit.current = null;
          requestSelection(range);
          onCursorChange(range[1]);
        }, KEY_COMMIT_MS);
        if (end < view.start || end > view.end) setView((v) => panView(v, end < v.start ? end - v.start : end - v.end, n));
        return;
      }
      const next = Math.min(n - 1, Math.max(0, (cursorIndex < 0 ? 0 : cursorIndex) + dir));
      onCursorChange(turns[next].turn);
      if (next < view.start || next > view.end) setView((v) => panView(v, next < v.start ? next - v.start : next - v.end, n));
    } else if (e.key === 'Enter' && cursorIndex >= 0) onSelectTurn(turns[cursorIndex].turn);
    else if (e.key === '+' || e.key === '=' || e.key === '-') {
      e.preventDefault();
      const at = cursorIndex >= view.start && cursorIndex <= view.end ? (cursorIndex - view.start) / (view.end - view.start + 1) : 0.5;
      setView((v) => zoomView(v, e.key === '-' ? ZOOM_PER_NOTCH : 1 / ZOOM_PER_NOTCH, at, n));
    } else if (e.key === '0') setView(fullView(n));
  };

  const hovered = hover ? turns[hover.index] : undefined;

  return (
    <div
      ref={wrap}
      className="relative w-full select-none"
      data-testid="timeline"
      data-turns={n}
      data-unit={unit}
      data-policies={(compaction.policies ?? []).map((p) => p.id).join(',')}
      data-policy-points={(compaction.policies ?? []).map((p) => p.values.reduce((k, v) => k + (v >= 0 ? 1 : 0), 0)).join(',')}
      data-policy-fired={(compaction.policies ?? []).map((p) => p.fired.reduce((k, v) => k + v, 0)).join(',')}
      data-hit-turns={hitBars.length}
      data-view={n > 0 ? `${view.start}-${view.end}` : ''}
      data-selection={shownKey}
      tabIndex={0}
      role="group"
      aria-label={`Context timeline: ${n} ${unit}s. Left and right arrows move between ${unit}s, Enter shows the ${unit}'s messages. Drag across bars to select a range of ${unit}s; shift with arrows extends it. Wheel or + and − zoom, shift-drag pans, 0 shows all.`}
      onKeyDown={onKeyDown}
    >
      <canvas ref={base} style={{ width: '100%', height: HEIGHT }} className="block" aria-hidden="true" />
      <canvas ref={layer} style={{ width: '100%', height: HEIGHT }} className="pointer-events-none absolute left-0 top-0 block" aria-hidden="true" />
      <canvas
        ref={overlay}
        data-testid="timeline-canvas"
        style={{ width: '100%', height: HEIGHT }}
        className="absolute left-0 top-0 block cursor-crosshair"
        onMouseDown={(e) => {
          if (e.button !== 0 || n === 0) return;
          setHover(null);
          if (e.shiftKey) gesture.current = { kind: 'pan', startX: e.clientX, startView: view };
          else {
            if (!inPlot(e.clientX)) return;
            const i = pick(e.clientX);
            gesture.current = { kind: 'select', from: i, to: i, startX: e.clientX, moved: false };
            setDrag({ from: i, to: i });
          }
          window.addEventListener('mousemove', onWindowMove);
          window.addEventListener('mouseup', onWindowUp);
        }}
        onMouseMove={(e) => {
          if (gesture.current) return;
          const i = inPlot(e.clientX) ? pick(e.clientX) : -1;
          if (i < 0) {
            if (hover) setHover(null);
            return;
          }
          const rect = wrap.current!.getBoundingClientRect();
          setHover({ index: i, x: e.clientX - rect.left, y: e.clientY - rect.top });
        }}
        onMouseLeave={() => setHover(null)}
        onDoubleClick={(e) => {
          // Select the whole compaction span under the pointer: a source compaction or one of ours.
          if (!onSelectRange || !inPlot(e.clientX)) return;
          const i = pick(e.clientX);
          if (i < 0) return;
          const turn = turns[i].turn;
          // Bands come in bar units; our summaries' spans are turns (used on the turn axis only).
          const spans: Array<[number, number]> = [
            ...timeline.bands.flatMap((b) => (b.coversTurns ? [b.coversTurns] : [])),
            ...(unit === 'turn' ? compaction.preview?.summaries.map((s) => s.span) ?? [] : []),
          ];
          const span = spans.find(([a, b]) => turn >= a && turn <= b);
          if (span) requestSelection(span);
        }}
      />
      {n > 1 && <OverviewStrip packed={packed} view={view} onView={setView} width={width} dark={dark} queue={queue} />}
      <YScaleToggle mode={yMode} onMode={setYMode} windowOnScale={scale.windowOnScale} />
      {hovered && hover && <HoverCard turn={hovered} overhead={overhead} x={hover.x} containerWidth={width} change={compactionChange(compaction.preview, hovered.turn)} unit={unit} />}
    </div>
  );
}

/** The y-axis scale: auto, fit to the turns in view, or the whole window (under the overview strip, right). */
function YScaleToggle({ mode, onMode, windowOnScale }: { mode: YScaleMode; onMode: (m: YScaleMode) => void; windowOnScale: boolean }) {
  // Not "auto": the Plan panel's strategy radio is "Auto", and one accessible name must not stand for two controls.
  const label: Record<YScaleMode, string> = { auto: 'default', fit: 'fit to data', window: 'window' };
  return (
    <div role="radiogroup" aria-label="Y-axis scale" className="ml-auto mt-0.5 flex w-fit items-center rounded border border-neutral-300 text-[10px] dark:border-neutral-700" data-testid="y-scale" data-mode={mode} data-window-on-scale={windowOnScale}>
      <span className="px-1.5 text-neutral-500">y-axis</span>
      {(['auto', 'fit', 'window'] as const).map((m) => (
        <button
          key={m}
          type="button"
          role="radio"
          aria-checked={mode === m}
          onClick={() => onMode(m)}
          onMouseDown={(e) => e.stopPropagation()}
          title={m === 'fit' ? 'Scale the y-axis to the largest context among the turns in view' : m === 'window' ? "Scale the y-axis to the model's context window" : 'The window when contexts come near it, else the data'}
          className={`px-1.5 py-px ${mode === m ? 'bg-neutral-800 text-white dark:bg-neutral-200 dark:text-neutral-900' : 'text-neutral-600 dark:text-neutral-300'}`}
        >
          {label[m]}
        </button>
      ))}
    </div>
  );
}

/** How the previewed compaction changes the context at the end of `turn` (null without a preview). */
function compactionChange(preview: PreviewSummary | null, turn: number): number | null {
  if (!preview || turn >= preview.turns) return null;
  const K = preview.kinds.length;
  let d = 0;
  for (let k = 0; k < K; k++) d += preview.delta[turn * K + k];
  return d;
}

function HoverCard({ turn, overhead, x, containerWidth, change = null, unit = 'turn' }: { turn: TimelineTurn; overhead: number; x: number; containerWidth: number; change?: number | null; unit?: 'turn' | 'call' }) {
  const rows = STACK_ORDER.map((k) => ({ k, v: kindValue(turn, k, overhead), added: k === 'overhead' ? 0 : turn.added[k] })).filter((r) => r.v > 0 || r.added > 0);
  const left = Math.min(Math.max(8, x + 14), Math.max(8, containerWidth - 300));
  return (
    <div
      data-testid="timeline-hover"
      className="pointer-events-none absolute top-2 z-20 w-72 rounded-lg border border-neutral-200 bg-white/95 p-3 text-xs shadow-xl backdrop-blur dark:border-neutral-700 dark:bg-neutral-900/95"
      style={{ left }}
    >
      <div className="flex items-baseline justify-between">
        <span className="font-semibold">{unit === 'call' ? `Call ${turn.turn + 1}${turn.ofTurn !== undefined ? ` · turn ${turn.ofTurn + 1}` : ''}` : `Turn ${turn.turn + 1}`}</span>
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
            <th className="text-right font-normal">this {unit}</th>
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
            <td className="pt-1" title={CONTEXT_DEFINITION}>
              Context{overhead > 0 && <span className="font-normal text-neutral-500"> (file + overhead)</span>}
            </td>
            <td className="pt-1 text-right">{formatTokens(turn.contextTotal + overhead)}</td>
            <td className="pt-1 text-right text-neutral-500">+{formatTokens(turn.addedTotal)}</td>
          </tr>
          {change !== null && change !== 0 && (
            <tr className="font-semibold text-teal-700 dark:text-teal-400" data-testid="hover-after">
              <td>After compaction</td>
              <td className="text-right">{formatTokens(turn.contextTotal + overhead + change)}</td>
              <td className="text-right">{change < 0 ? `−${formatTokens(-change)}` : `+${formatTokens(change)}`}</td>
            </tr>
          )}
          {turn.recorded !== undefined && (
            <tr data-testid="hover-recorded" data-tokens={turn.recorded}>
              <td>Recorded (usage)</td>
              <td className="text-right">{formatTokens(turn.recorded)}</td>
              <td className="text-right text-neutral-500">{formatDeltaPct(turn.recorded, turn.contextTotal + overhead)}</td>
            </tr>
          )}
          {turn.recordedSplit &&
            (
              [
                ['uncached input', turn.recordedSplit.uncached],
                ['cache read', turn.recordedSplit.cacheRead],
                ['cache write', turn.recordedSplit.cacheWrite],
              ] as const
            ).map(([label, n]) => (
              <tr key={label} className="text-neutral-500" data-testid="hover-cache" data-part={label} data-tokens={n}>
                <td className="pl-3">{label}</td>
                <td className="text-right">{formatTokens(n)}</td>
                <td className="text-right">{turn.recorded ? `${Math.round((n / turn.recorded) * 100)} %` : ''}</td>
              </tr>
            ))}
        </tbody>
      </table>
      <p className="mt-1.5 text-neutral-500">
        {turn.calls > 0 ? `${turn.calls} model call${turn.calls === 1 ? '' : 's'} · ` : ''}
        {turn.toolCalls} tool call{turn.toolCalls === 1 ? '' : 's'} · click to show
      </p>
    </div>
  );
}

/** How far the recorded size is from our estimate, as the hover card's third column ("+4 %"). */
function formatDeltaPct(recorded: number, estimate: number): string {
  if (estimate <= 0) return '';
  const pct = Math.round(((recorded - estimate) / estimate) * 100);
  return pct === 0 ? '±0 %' : `${pct > 0 ? '+' : '−'}${Math.abs(pct)} %`;
}
