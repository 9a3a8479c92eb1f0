'use client';

import { useVirtualizer } from '@tanstack/react-virtual';
import { forwardRef, memo, useCallback, useContext, useImperativeHandle, useMemo, useRef } from 'react';
import type { Message } from '@/lib/model/types';
import type { TimelineTurn } from '@/lib/engine/timeline';
import { formatTokens } from '../ui/format';
import { BlockView } from './BlockView';
import { SearchContext } from './context';
import { buildRows, estimateRowHeight, rowOfTurn, type Row } from './rows';

/** Inspect's threshold: below it the plain DOM keeps the browser's own find (Ctrl+F) working. */
export const VIRTUALIZE_ABOVE = 200;
/**
 * Above this many rows, rows keep their estimated height (content beyond it is clipped) instead of
 * being measured: each measurement makes the virtualizer recompute the offsets of every row after
 * it, which at 300k rows (a 100k-turn transcript) is a 50–150 ms task on every scroll frame.
 */
export const FIXED_HEIGHTS_ABOVE = 20_000;

export interface MessageListHandle {
  scrollToTurn(turn: number): void;
  /** Scroll a row (by key, e.g. a search hit) into view. */
  scrollToKey(key: string): void;
}

const ROLE_LABEL: Record<Message['role'], string> = { system: 'System', user: 'User', assistant: 'Assistant', tool: 'Tool' };
const ROLE_COLOR: Record<Message['role'], string> = {
  system: 'text-slate-600 dark:text-slate-300',
  user: 'text-blue-700 dark:text-blue-400',
  assistant: 'text-emerald-700 dark:text-emerald-400',
  tool: 'text-orange-700 dark:text-orange-400',
};

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
          <span className="tabular-nums text-neutral-500">context {formatTokens(info.contextTotal)}</span>
          {info.recorded !== undefined && <span className="tabular-nums text-neutral-500">recorded {formatTokens(info.recorded)}</span>}
          {info.toolCalls > 0 && <span className="text-neutral-500">{info.toolCalls} tool calls</span>}
        </>
      )}
    </div>
  );
});

const MessageRow = memo(function MessageRow({ row }: { row: Extract<Row, { kind: 'message' }> }) {
  const m = row.message;
  const hidden = new Set(row.hiddenResultIds);
  const tokens = m.blocks.reduce((s, b) => s + b.tokens, 0);
  const hit = useContext(SearchContext).activeKey === row.key;
  return (
    <article
      data-testid="message"
      data-index={m.index}
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

function RowView({ row, activeTurn }: { row: Row; activeTurn: number | null }) {
  return row.kind === 'turn' ? <TurnHeader turn={row.turn} info={row.info} active={row.turn === activeTurn} /> : <MessageRow row={row} />;
}

/**
 * The message list: turns as groups, tool results under their calls. Virtualized above
 * VIRTUALIZE_ABOVE rows with measured (dynamic) heights, plain DOM below.
 */
export const MessageList = forwardRef<MessageListHandle, { messages: readonly Message[]; turns: readonly TimelineTurn[]; activeTurn: number | null }>(function MessageList(
  { messages, turns, activeTurn },
  ref,
) {
  const scroller = useRef<HTMLDivElement>(null);
  const rows = useMemo(() => buildRows(messages, turns), [messages, turns]);
  const virtual = rows.length > VIRTUALIZE_ABOVE;
  const fixedHeights = rows.length > FIXED_HEIGHTS_ABOVE;
  // Stable callbacks: the virtualizer recomputes every row's offset (O(rows)) whenever they change
  // identity, which at 300k rows is a long task on every re-render (cursor moves, selection).
  const estimateSize = useCallback((i: number) => (rows[i] ? estimateRowHeight(rows[i]) : 120), [rows]);
  const getItemKey = useCallback((i: number) => rows[i].key, [rows]);
  const getScrollElement = useCallback(() => scroller.current, []);
  const virtualizer = useVirtualizer({
    count: virtual ? rows.length : 0,
    getScrollElement,
    estimateSize,
    // Fewer rows mounted per scroll jump in very long lists (each mount is work in the scroll frame).
    overscan: fixedHeights ? 2 : 6,
    getItemKey,
  });

  useImperativeHandle(
    ref,
    () => ({
      scrollToTurn(turn: number) {
        const index = rowOfTurn(rows, turn);
        if (index < 0) return;
        if (virtual) virtualizer.scrollToIndex(index, { align: 'start' });
        else {
          const el = scroller.current?.querySelector<HTMLElement>(`#turn-${turn}`);
          if (el && scroller.current) scroller.current.scrollTop = el.offsetTop;
        }
      },
      scrollToKey(key: string) {
        const index = rows.findIndex((r) => r.key === key);
        if (index < 0) return;
        if (virtual) virtualizer.scrollToIndex(index, { align: 'center' });
        else {
          const el = scroller.current?.querySelector<HTMLElement>(`[data-row-key="${CSS.escape(key)}"]`);
          el?.scrollIntoView({ block: 'center' });
        }
      },
    }),
    [rows, virtual, virtualizer],
  );

  return (
    <div
      ref={scroller}
      className="relative h-full overflow-y-auto"
      data-testid="message-list"
      data-virtual={virtual ? 'yes' : 'no'}
      data-fixed-heights={fixedHeights ? 'yes' : 'no'}
      data-rows={rows.length}
    >
      {virtual ? (
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((item) => (
            <div
              key={item.key}
              data-index={item.index}
              ref={fixedHeights ? undefined : virtualizer.measureElement}
              style={{ position: 'absolute', top: 0, left: 0, right: 0, transform: `translateY(${item.start}px)`, ...(fixedHeights && { height: item.size, overflow: 'hidden' }) }}
            >
              <RowView row={rows[item.index]} activeTurn={activeTurn} />
            </div>
          ))}
        </div>
      ) : (
        rows.map((row) => (
          <div key={row.key} data-row-key={row.key}>
            <RowView row={row} activeTurn={activeTurn} />
          </div>
        ))
      )}
    </div>
  );
});
