'use client';

import { forwardRef, memo, startTransition, useCallback, useContext, useEffect, useImperativeHandle, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { flushSync } from 'react-dom';
import type { Message } from '@/lib/model/types';
import type { TimelineTurn } from '@/lib/engine/timeline';
import { rowOfTurn, type Row, type RowIndex } from '@/lib/engine/rows';
import { formatTokens } from '../ui/format';
import { BlockView } from './BlockView';
import { PinToggle } from './PinToggle';
import { OverheadContext, SearchContext } from './context';
import { CONTEXT_DEFINITION, contextParts } from '../ui/context-label';
import { useRowWindow, type RowWindow } from './useRowWindow';

/** Inspect's threshold: below it the plain DOM keeps the browser's own find (Ctrl+F) working. */
export const VIRTUALIZE_ABOVE = 200;
/**
 * Above this many rows, a row measured slightly shorter than its estimate keeps the estimate (a gap
 * under it of < SHRINK_SLACK_PX) rather than move every row below it; up to it, every row takes
 * its measured height. Either way the list is FixedList: the offsets in one typed array, summed
 * again once per frame of measurements. TanStack Virtual measured up to here until session 19: each
 * measured row made it rebuild the offsets of every row after it, and a drag on the timeline (the
 * list scrolled to the selection, a screenful of new rows measured) made tasks of 28–37 ms CPU at
 * 2,000 turns under the profiler, 45–56 ms in the app bench, with a flushSync render in the scroll
 * event. At 300k rows (a 100k-turn transcript) it was 50–150 ms on every scroll frame.
 */
export const FIXED_HEIGHTS_ABOVE = 20_000;

export interface MessageListHandle {
  scrollToTurn(turn: number): void;
  /** Scroll a row (e.g. a search hit) into the middle of the view. */
  scrollToRow(index: number): void;
}

type Align = 'start' | 'center';
/** What each of the three list layouts does for the handle. */
interface LayoutHandle {
  scrollToRow(index: number, align: Align): void;
}

const ROLE_LABEL: Record<Message['role'], string> = { system: 'System', user: 'User', assistant: 'Assistant', tool: 'Tool' };
const ROLE_COLOR: Record<Message['role'], string> = {
  system: 'text-slate-600 dark:text-slate-300',
  user: 'text-blue-700 dark:text-blue-400',
  assistant: 'text-emerald-700 dark:text-emerald-400',
  tool: 'text-orange-700 dark:text-orange-400',
};

/** "context 29,785 = 7,766 in the file + 22,019 overhead": the one definition (components/ui/context-label.ts). */
function TurnContext({ fromFile }: { fromFile: number }) {
  const c = contextParts(fromFile, useContext(OverheadContext));
  return (
    <span className="tabular-nums text-neutral-500" title={CONTEXT_DEFINITION} data-testid="turn-context" data-context={c.total}>
      {c.text}
    </span>
  );
}

const TurnHeader = memo(function TurnHeader({ turn, info, active }: { turn: number; info?: TimelineTurn; active: boolean }) {
  return (
    <div
      id={`turn-${turn}`}
      data-testid="turn-header"
      data-turn={turn}
      className={`sticky top-0 z-10 flex items-baseline gap-3 border-b border-t px-4 py-1.5 text-xs backdrop-blur ${
        active ? 'border-blue-300 bg-blue-50/95 dark:border-blue-800 dark:bg-blue-950/80' : 'border-neutral-200 bg-neutral-50/95 dark:border-neutral-800 dark:bg-neutral-900/95'
      }`}
    >
      <span className="font-semibold">Turn {turn + 1}</span>
      {info && (
        <>
          <span className="tabular-nums text-neutral-500">+{formatTokens(info.addedTotal)} tokens</span>
          <TurnContext fromFile={info.contextTotal} />
          {info.recorded !== undefined && <span className="tabular-nums text-neutral-500">recorded {formatTokens(info.recorded)}</span>}
          {info.toolCalls > 0 && <span className="text-neutral-500">{info.toolCalls} tool calls</span>}
        </>
      )}
    </div>
  );
});

const MessageRow = memo(function MessageRow({ row, index }: { row: Extract<Row, { kind: 'message' }>; index: number }) {
  const m = row.message;
  const hidden = new Set(row.hiddenResultIds);
  const tokens = m.blocks.reduce((s, b) => s + b.tokens, 0);
  const hit = useContext(SearchContext).activeRow === index;
  const article = useRef<HTMLElement>(null);
  // The list brings the hit's row to the middle; in a tall row the marked text may still be off
  // screen. Once the list has stopped scrolling (the virtualizer settles its scroll over a few
  // frames), bring the first mark itself into view.
  useEffect(() => {
    if (!hit) return;
    let frame = 0;
    let lastTop = Number.NaN;
    let still = 0;
    let frames = 0;
    const tick = () => {
      const mark = article.current?.querySelector('[data-testid=search-mark]');
      const list = article.current?.closest('[data-testid=message-list]');
      if (!mark || !list || ++frames > 120) return;
      still = list.scrollTop === lastTop ? still + 1 : 0;
      lastTop = list.scrollTop;
      if (still < 3) {
        frame = requestAnimationFrame(tick);
        return;
      }
      const m = mark.getBoundingClientRect();
      const l = list.getBoundingClientRect();
      if (m.top < l.top || m.bottom > l.bottom) mark.scrollIntoView({ block: 'center' });
    };
    frame = requestAnimationFrame(tick);
    return () => cancelAnimationFrame(frame);
  }, [hit]);
  return (
    <article
      ref={article}
      data-testid="message"
      data-index={m.index}
      data-message-id={m.id}
      data-role={m.role}
      data-search-hit={hit ? 'active' : undefined}
      className={`px-4 py-2.5 ${m.meta || m.sidechain ? 'opacity-70' : ''} ${hit ? 'bg-yellow-50 outline outline-2 -outline-offset-2 outline-yellow-400 dark:bg-yellow-950/20' : ''}`}
    >
      <header className="mb-1 flex items-center gap-2 text-xs">
        <span className={`font-semibold ${ROLE_COLOR[m.role]}`}>{ROLE_LABEL[m.role]}</span>
        {m.meta && <span className="rounded bg-neutral-200 px-1 text-[10px] dark:bg-neutral-800">injected</span>}
        {m.sidechain && <span className="rounded bg-neutral-200 px-1 text-[10px] dark:bg-neutral-800">side chain</span>}
        {m.model && <span className="font-mono text-[10px] text-neutral-500">{m.model}</span>}
        <span className="ml-auto tabular-nums text-neutral-500">
          #{m.index + 1} · {formatTokens(tokens)} tok{m.time ? ` · ${new Date(m.time).toLocaleTimeString()}` : ''}
        </span>
        {m.role !== 'system' && <PinToggle pin={{ kind: 'message', messageId: m.id, label: `${ROLE_LABEL[m.role]} message #${m.index + 1} (turn ${m.turn + 1})` }} what={`${ROLE_LABEL[m.role].toLowerCase()} message #${m.index + 1}`} />}
      </header>
      <div className="space-y-1.5">
        {m.blocks
          .filter((b) => !hidden.has(b.id))
          .map((b) => (
            <BlockView key={b.id} role={m.role} block={b} results={row.results} />
          ))}
      </div>
    </article>
  );
});

function RowView({ rows, index, activeTurn }: { rows: RowWindow; index: number; activeTurn: number | null }) {
  const row = rows.row(index);
  if (!row) {
    const error = rows.error(index);
    return error ? (
      <p role="alert" className="px-4 py-2 text-xs text-red-700 dark:text-red-400" data-testid="row-error">
        Could not load this part of the list: {error.message}
      </p>
    ) : (
      <div className="mx-4 my-2 h-[calc(100%-1rem)] min-h-6 animate-pulse rounded bg-neutral-100 dark:bg-neutral-900" data-testid="row-loading" aria-label="Loading" />
    );
  }
  return row.kind === 'turn' ? <TurnHeader turn={row.turn} info={row.info} active={row.turn === activeTurn} /> : <MessageRow row={row} index={index} />;
}

interface LayoutProps {
  index: RowIndex;
  rows: RowWindow;
  activeTurn: number | null;
}

/**
 * The message list: turns as groups, tool results under their calls. The rows live in the worker
 * and come a window at a time (useRowWindow); the page holds only the RowIndex. Three layouts by
 * size: plain DOM up to VIRTUALIZE_ABOVE rows (the browser's find works), then FixedList: measured
 * heights up to FIXED_HEIGHTS_ABOVE, and estimated heights that only grow beyond.
 */
export const MessageList = forwardRef<MessageListHandle, { id: string; index: RowIndex; activeTurn: number | null }>(function MessageList({ id, index, activeTurn }, ref) {
  const rows = useRowWindow(id, index.count);
  const layout = useRef<LayoutHandle>(null);
  useImperativeHandle(
    ref,
    () => ({
      scrollToTurn(turn: number) {
        const at = rowOfTurn(index, turn);
        if (at >= 0) layout.current?.scrollToRow(at, 'start');
      },
      scrollToRow(at: number) {
        if (at >= 0 && at < index.count) layout.current?.scrollToRow(at, 'center');
      },
    }),
    [index],
  );
  const props = { index, rows, activeTurn };
  if (index.count <= VIRTUALIZE_ABOVE) return <PlainList ref={layout} {...props} />;
  return <FixedList ref={layout} {...props} />;
});

function listAttrs(index: RowIndex, virtual: 'yes' | 'no', fixed: 'yes' | 'no') {
  return { className: 'relative h-full overflow-y-auto', 'data-testid': 'message-list', 'data-virtual': virtual, 'data-fixed-heights': fixed, 'data-rows': index.count };
}

/** Every row in the DOM (short transcripts). */
const PlainList = forwardRef<LayoutHandle, LayoutProps>(function PlainList({ index, rows, activeTurn }, ref) {
  const scroller = useRef<HTMLDivElement>(null);
  const { want } = rows;
  useEffect(() => want(0, index.count), [want, index.count]);
  useImperativeHandle(ref, () => ({
    scrollToRow(at, align) {
      const el = scroller.current?.querySelector<HTMLElement>(`[data-row="${at}"]`);
      if (!el || !scroller.current) return;
      if (align === 'start') scroller.current.scrollTop = el.offsetTop;
      else el.scrollIntoView({ block: 'center' });
    },
  }));
  const items = [];
  for (let i = 0; i < index.count; i++)
    items.push(
      <div key={i} data-row={i}>
        <RowView rows={rows} index={i} activeTurn={activeTurn} />
      </div>,
    );
  return (
    <div ref={scroller} {...listAttrs(index, 'no', 'no')}>
      {items}
    </div>
  );
});

/** Rows mounted beyond the screen on each side in the fixed layout. */
const FIXED_OVERSCAN = 3;
/** A measured row this much shorter than its estimate gets its height (a smaller gap stays). */
const SHRINK_SLACK_PX = 48;

/** First i with offsets[i] > y (offsets ascending). */
function upperBound(offsets: Float64Array, y: number): number {
  let lo = 0;
  let hi = offsets.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (offsets[mid] <= y) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Lists of more than VIRTUALIZE_ABOVE rows. The index's offsets (prefix sums of the estimated heights, made in the worker)
 * make finding the rows on screen a binary search, and nothing is built per row: TanStack's
 * measurements (an object per row) were 170 ms at 300k rows. A mounted row whose content is taller
 * or shorter than its estimate (a long message, a result opened with "show all") gets its measured
 * height: the offsets are summed again in one typed-array pass (~1 ms at 300k rows) once per frame
 * of measurements, and rows starting above the screen shift the scroll position by as much, so
 * what is on screen does not move.
 */
const FixedList = forwardRef<LayoutHandle, LayoutProps>(function FixedList({ index, rows, activeTurn }, ref) {
  const scroller = useRef<HTMLDivElement>(null);
  // Up to FIXED_HEIGHTS_ABOVE rows a row takes its measured height exactly (one pass over ≤ 20k
  // offsets is ~0.1 ms); beyond, a slightly too tall row keeps its estimate.
  const fixedHeights = index.count > FIXED_HEIGHTS_ABOVE;
  const slackRef = useRef(0);
  slackRef.current = fixedHeights ? SHRINK_SLACK_PX : 2;
  const [measuredLayout, setLayout] = useState<{ index: RowIndex; offsets: Float64Array; heights: ArrayLike<number> } | null>(null);
  // The estimates until a row is measured; a new index (another transcript) starts from its own.
  const layout = measuredLayout?.index === index ? measuredLayout : { index, offsets: index.offsets, heights: index.height };
  const layoutRef = useRef(layout);
  layoutRef.current = layout;
  const { offsets, heights } = layout;
  const [range, setRange] = useState<[number, number]>([0, -1]);
  const rangeRef = useRef(range);
  rangeRef.current = range;

  /** The rows on screen plus the overscan; re-rendered only when the scroll leaves the mounted ones. */
  const sync = useCallback(
    (force: boolean) => {
      const el = scroller.current;
      if (!el) return;
      const at = layoutRef.current.offsets;
      const top = el.scrollTop;
      const bottom = top + el.clientHeight;
      const a = Math.max(0, upperBound(at, top) - 1);
      const b = Math.min(index.count - 1, upperBound(at, bottom) - 1);
      const [ra, rb] = rangeRef.current;
      if (!force && a >= ra && b <= rb) return;
      const next: [number, number] = [Math.max(0, a - FIXED_OVERSCAN), Math.min(index.count - 1, b + FIXED_OVERSCAN)];
      rangeRef.current = next;
      // A scroll that overlaps the mounted rows renders in the scroll event, before the frame is
      // painted: no blank strip while scrolling. A jump (nothing in common: a click on the timeline,
      // a search hit, the scrollbar dragged far) lands on rows still loading from the worker anyway;
      // it renders as a transition, in slices that yield to the frame, instead of one long task that
      // would also flush every other pending update and effect of the page (flushSync does).
      if (next[0] > rb || next[1] < ra) startTransition(() => setRange(next));
      else flushSync(() => setRange(next));
    },
    [index.count],
  );
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    queueMicrotask(() => sync(true));
    const onScroll = () => sync(false);
    el.addEventListener('scroll', onScroll, { passive: true });
    const resize = new ResizeObserver(() => sync(true));
    resize.observe(el);
    return () => {
      el.removeEventListener('scroll', onScroll);
      resize.disconnect();
    };
  }, [sync]);

  // Measured heights of mounted rows, applied once per frame: new offsets, and the scroll position
  // moved by what changed in rows starting above the screen.
  const measured = useRef(new Map<number, number>());
  const shift = useRef(0);
  // The measured layout's arrays, this list's own: copied from the index's estimates once, then
  // updated in place. A copy of both per frame of measurements (Float64Array.from of every row) was
  // a task of 40–55 ms CPU per scroll step at 100,000 turns (e2e/long.spec.ts).
  const owned = useRef<{ index: RowIndex; offsets: Float64Array; heights: Float64Array } | null>(null);
  const observer = useMemo(() => {
    if (typeof ResizeObserver === 'undefined') return null;
    let frame = 0;
    const apply = () => {
      frame = 0;
      const el = scroller.current;
      const changes = measured.current;
      measured.current = new Map();
      const cur = layoutRef.current;
      const top = el?.scrollTop ?? 0;
      let delta = 0;
      let own = owned.current;
      // (Keyed by the index only: a second frame before the list rendered again still builds on the first's.)
      if (!own || own.index !== cur.index) own = { index: cur.index, offsets: Float64Array.from(cur.offsets), heights: Float64Array.from(cur.heights) };
      const heightsNow = own.heights;
      let first = Infinity;
      const slack = slackRef.current;
      for (const [i, h] of changes) {
        // Grow a clipped row; shrink only a clearly too tall one (a small gap is not worth moving
        // every row below it on each frame of a scroll).
        if (i >= heightsNow.length || !(h > heightsNow[i] + 2 || h < heightsNow[i] - slack)) continue;
        // A row starting above the screen keeps its bottom where it is: what is on screen of it (and
        // below it) stays put, e.g. the "show less" just clicked at the end of a tall result.
        if (cur.offsets[i] < top) delta += h - heightsNow[i];
        heightsNow[i] = h;
        first = Math.min(first, i);
      }
      if (first === Infinity) return;
      const next = own.offsets;
      for (let i = first; i < heightsNow.length; i++) next[i + 1] = next[i] + heightsNow[i];
      shift.current += delta;
      owned.current = own;
      // A new layout object (the list renders again), over the same arrays.
      setLayout({ index: cur.index, offsets: next, heights: heightsNow });
    };
    return new ResizeObserver((entries) => {
      for (const e of entries) {
        const i = Number((e.target as HTMLElement).dataset.row);
        const h = Math.max(1, Math.ceil(e.borderBoxSize?.[0]?.blockSize ?? (e.target as HTMLElement).offsetHeight));
        if (Number.isInteger(i)) measured.current.set(i, h);
      }
      if (!frame) frame = requestAnimationFrame(apply);
    });
  }, []);
  useEffect(() => () => observer?.disconnect(), [observer]);
  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && shift.current !== 0) el.scrollTop += shift.current;
    shift.current = 0;
    // Rows that shrank may leave room for more on screen.
    queueMicrotask(() => sync(false));
  }, [measuredLayout, sync]);
  const measure = useCallback(
    (node: HTMLDivElement | null) => {
      if (!node || !observer) return;
      observer.observe(node);
      return () => observer.unobserve(node);
    },
    [observer],
  );

  useImperativeHandle(
    ref,
    () => ({
      scrollToRow(at, align) {
        const el = scroller.current;
        if (!el) return;
        const { offsets: o, heights: h } = layoutRef.current;
        el.scrollTop = align === 'start' ? o[at] : o[at] - (el.clientHeight - h[at]) / 2;
      },
    }),
    [],
  );
  const [first, last] = range;
  const { want } = rows;
  useEffect(() => want(first, last + 1), [want, first, last]);
  const items = [];
  for (let i = first; i <= last; i++)
    items.push(
      <div key={i} data-index={i} style={{ position: 'absolute', top: 0, left: 0, right: 0, transform: `translateY(${offsets[i]}px)`, height: heights[i], overflow: 'clip' }}>
        {rows.row(i) ? (
          // Measured once loaded (a placeholder keeps the estimate).
          <div ref={measure} data-row={i}>
            <RowView rows={rows} index={i} activeTurn={activeTurn} />
          </div>
        ) : (
          <div data-row={i} className="h-full">
            <RowView rows={rows} index={i} activeTurn={activeTurn} />
          </div>
        )}
      </div>,
    );
  return (
    <div ref={scroller} {...listAttrs(index, 'yes', fixedHeights ? 'yes' : 'no')}>
      <div style={{ height: offsets[index.count], position: 'relative' }}>{items}</div>
    </div>
  );
});
