'use client';

import { useQuery } from '@tanstack/react-query';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useDeferredValue, useMemo, useRef, useState } from 'react';
import type { AgentId, SessionEntry, SessionList } from '@/lib/sessions/contract';
import { Button } from '../ui/Button';
import { FormatBadge } from '../ui/FormatBadge';
import { formatBytes, formatShortDate, formatTokens } from '../ui/format';
import { baseName, listSessions, probeApi } from './api';
import { AGENT_LABEL, projectsOf, sessionRows, type SessionFilter, type SessionRow } from './tree';

const ROW_HEIGHT = 56;
const MAX_LIST_HEIGHT = ROW_HEIGHT * 9;
/** Agent (and model), project, first prompt, when, tokens, size, compactions, open. */
const GRID = 'grid grid-cols-[10.5rem_11rem_minmax(10rem,1fr)_8.5rem_4.5rem_4.5rem_6rem_4rem] items-center gap-x-3';

const input = 'rounded-md border border-neutral-300 bg-white px-2 py-1 text-sm dark:border-neutral-700 dark:bg-neutral-900';

/**
 * "Your sessions": the agents' sessions on this machine, listed by the local API without an
 * upload. Shown only when the API answers with this tab's secret; the static build shows nothing.
 */
export function SessionsSection({ onOpen, busy }: { onOpen: (entry: SessionEntry) => void; busy: boolean }) {
  const health = useQuery({ queryKey: ['api-health'], queryFn: ({ signal }) => probeApi(signal), retry: false, staleTime: Infinity });
  const list = useQuery({ queryKey: ['sessions'], queryFn: ({ signal }) => listSessions(signal), enabled: health.data === true, retry: false, refetchOnWindowFocus: true });

  if (health.isPending || health.data === false) return null;
  if (health.isError) {
    return (
      <p className="rounded-lg border border-neutral-200 px-4 py-2 text-sm text-neutral-600 dark:border-neutral-800 dark:text-neutral-400" data-testid="sessions-unavailable">
        Your agents&apos; sessions cannot be listed: the local server did not answer ({health.error.message}). Start it again with <code className="font-mono">contextscope open</code> and use the address it prints.
      </p>
    );
  }
  return (
    <section aria-labelledby="sessions-title" className="space-y-2" data-testid="sessions">
      <div className="flex items-baseline gap-2">
        <h2 id="sessions-title" className="text-base font-semibold">
          Your sessions {list.data && <span className="font-normal text-neutral-500" data-testid="sessions-count">({formatTokens(list.data.sessions.length)})</span>}
        </h2>
        <span className="text-xs text-neutral-500">found on this machine by the local server, read in place — opening one imports a copy; the file is never changed</span>
        <div className="flex-1" />
        <Button variant="ghost" className="!px-2 !py-0.5 text-xs" onClick={() => void list.refetch()} disabled={list.isFetching} data-testid="sessions-refresh">
          {list.isFetching ? 'Refreshing…' : 'Refresh'}
        </Button>
      </div>
      {list.isPending ? (
        <div className="h-40 animate-pulse rounded-lg bg-neutral-100 dark:bg-neutral-900" aria-label="Listing your sessions" />
      ) : list.isError ? (
        <p role="alert" className="rounded-lg border border-red-300 bg-red-50 px-4 py-2 text-sm text-red-800 dark:border-red-900 dark:bg-red-950/40 dark:text-red-300">
          Could not list your sessions: {list.error.message}
        </p>
      ) : (
        <SessionsTable data={list.data} onOpen={onOpen} busy={busy} />
      )}
    </section>
  );
}

function SessionsTable({ data, onOpen, busy }: { data: SessionList; onOpen: (entry: SessionEntry) => void; busy: boolean }) {
  const [filter, setFilter] = useState<SessionFilter>({ agent: '', project: '', text: '' });
  const deferred = useDeferredValue(filter);
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const rows = useMemo(() => sessionRows(data.sessions, deferred, expanded), [data.sessions, deferred, expanded]);
  const projects = useMemo(() => projectsOf(data.sessions), [data.sessions]);
  const agents = useMemo(() => {
    const counts = new Map<AgentId, number>();
    for (const e of data.sessions) counts.set(e.agent, (counts.get(e.agent) ?? 0) + 1);
    return counts;
  }, [data.sessions]);
  const toggle = useCallback((path: string) => {
    setExpanded((s) => {
      const next = new Set(s);
      if (next.has(path)) next.delete(path);
      else next.add(path);
      return next;
    });
  }, []);

  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 8 });
  const height = Math.min(Math.max(rows.length, 1) * ROW_HEIGHT, MAX_LIST_HEIGHT);

  if (data.sessions.length === 0) {
    return (
      <div className="rounded-lg border border-neutral-200 px-4 py-4 text-sm text-neutral-600 dark:border-neutral-800 dark:text-neutral-400" data-testid="sessions-empty">
        <p>No sessions found. Looked in:</p>
        <Roots data={data} />
      </div>
    );
  }

  return (
    <div className="rounded-lg border border-neutral-200 dark:border-neutral-800">
      <div className="flex flex-wrap items-center gap-2 border-b border-neutral-200 px-3 py-2 dark:border-neutral-800">
        <label className="flex items-center gap-1 text-xs text-neutral-500">
          Agent
          <select className={input} value={filter.agent} onChange={(e) => setFilter((f) => ({ ...f, agent: e.target.value as AgentId | '' }))} data-testid="sessions-agent" aria-label="Agent">
            <option value="">All ({formatTokens(data.sessions.length)})</option>
            {(Object.keys(AGENT_LABEL) as AgentId[])
              .filter((a) => agents.has(a))
              .map((a) => (
                <option key={a} value={a}>
                  {AGENT_LABEL[a]} ({formatTokens(agents.get(a) ?? 0)})
                </option>
              ))}
          </select>
        </label>
        <label className="flex items-center gap-1 text-xs text-neutral-500">
          Project
          <select className={`${input} max-w-[16rem]`} value={filter.project} onChange={(e) => setFilter((f) => ({ ...f, project: e.target.value }))} data-testid="sessions-project" aria-label="Project">
            <option value="">All projects ({formatTokens(projects.length)})</option>
            {projects.map((p) => (
              <option key={p.cwd} value={p.cwd}>
                {p.cwd} ({p.count})
              </option>
            ))}
          </select>
        </label>
        <input
          type="search"
          className={`${input} min-w-[14rem] flex-1`}
          placeholder="Filter by prompt, folder, id or model"
          value={filter.text}
          onChange={(e) => setFilter((f) => ({ ...f, text: e.target.value }))}
          aria-label="Filter sessions"
          data-testid="sessions-filter"
        />
        <span className="text-xs tabular-nums text-neutral-500" data-testid="sessions-shown" aria-live="polite">
          {rows.length === data.sessions.length ? '' : `${formatTokens(rows.length)} shown`}
        </span>
      </div>
      <div className={`${GRID} border-b border-neutral-200 bg-neutral-50 px-3 py-1.5 text-xs uppercase tracking-wide text-neutral-500 dark:border-neutral-800 dark:bg-neutral-900 dark:text-neutral-400`} role="row">
        <span role="columnheader">Agent · model</span>
        <span role="columnheader">Project</span>
        <span role="columnheader">First prompt</span>
        <span role="columnheader">Updated · started</span>
        <span role="columnheader" className="text-right" title="The context at the last recorded model call (input + cache read + cache write)">
          Tokens
        </span>
        <span role="columnheader" className="text-right">
          Size
        </span>
        <span role="columnheader" className="text-right" title="Compactions the agent itself made in this session">
          Compactions
        </span>
        <span role="columnheader">
          <span className="sr-only">Open</span>
        </span>
      </div>
      {rows.length === 0 ? (
        <p className="px-3 py-6 text-center text-sm text-neutral-500" data-testid="sessions-none-match">
          No session matches these filters.
        </p>
      ) : (
        <div ref={scroller} className="overflow-y-auto" style={{ height }} data-testid="sessions-scroller" role="rowgroup">
          <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
            {virtualizer.getVirtualItems().map((v) => (
              <SessionRowView key={rows[v.index].entry.path} row={rows[v.index]} top={v.start} onOpen={onOpen} onToggle={toggle} busy={busy} />
            ))}
          </div>
        </div>
      )}
      <details className="border-t border-neutral-200 px-3 py-1.5 text-xs text-neutral-500 dark:border-neutral-800">
        <summary className="cursor-pointer select-none">
          Where these come from{data.skipped && data.skipped.length > 0 && ` · ${data.skipped.length} file${data.skipped.length === 1 ? '' : 's'} could not be read`}
        </summary>
        <Roots data={data} />
      </details>
    </div>
  );
}

function Roots({ data }: { data: SessionList }) {
  return (
    <ul className="mt-1 space-y-0.5 font-mono text-[11px]" data-testid="sessions-roots">
      {data.roots.map((r) => (
        <li key={`${r.agent}:${r.dir}`}>
          {AGENT_LABEL[r.agent]}: {r.dir} {r.exists ? '' : <span className="font-sans text-neutral-400">(not found)</span>}
        </li>
      ))}
      {(data.skipped ?? []).slice(0, 20).map((s) => (
        <li key={s.path} className="text-amber-700 dark:text-amber-400">
          skipped {s.path}: {s.reason}
        </li>
      ))}
    </ul>
  );
}

function lineageText(e: SessionEntry): string {
  const l = e.derivedFrom;
  if (!l) return '';
  const parts = ['fork'];
  if (l.version) parts.push(`of “${l.version}”`);
  if (l.steps?.length) parts.push(`${l.steps.length} step${l.steps.length === 1 ? '' : 's'}`);
  if (l.budget) parts.push(`budget ${formatTokens(l.budget)}`);
  return parts.join(' · ');
}

function SessionRowView({ row, top, onOpen, onToggle, busy }: { row: SessionRow; top: number; onOpen: (entry: SessionEntry) => void; onToggle: (path: string) => void; busy: boolean }) {
  const e = row.entry;
  const folder = e.cwd ? baseName(e.cwd.replace(/[\\/]+$/, '')) || e.cwd : '';
  const childLabel = row.kind === 'subagent' ? 'sub-agent' : row.kind === 'fork' ? lineageText(e) : '';
  return (
    <div
      role="row"
      data-testid="session-row"
      data-agent={e.agent}
      data-path={e.path}
      data-kind={row.kind}
      className={`${GRID} absolute left-0 right-0 border-b border-neutral-100 px-3 text-sm hover:bg-neutral-50 dark:border-neutral-900 dark:hover:bg-neutral-900/60 ${row.depth > 0 ? 'bg-neutral-50/60 dark:bg-neutral-900/30' : ''}`}
      style={{ top, height: ROW_HEIGHT }}
    >
      <span role="cell" className="min-w-0 text-xs">
        <FormatBadge format={e.agent === 'folder' ? (e.format ?? 'folder') : e.agent} label={AGENT_LABEL[e.agent]} />
        <span className="mt-0.5 block truncate font-mono text-[11px] text-neutral-500" title={e.model} data-testid="session-model">
          {e.model ?? '—'}
        </span>
      </span>
      <span role="cell" className="min-w-0" style={{ paddingLeft: row.depth * 12 }} title={e.cwd ?? e.path}>
        <span className="block truncate font-medium">
          {row.depth > 0 && <span className="text-neutral-400">↳ </span>}
          {folder || <span className="text-neutral-400">—</span>}
        </span>
        <span className="block truncate font-mono text-[11px] text-neutral-500">{childLabel || e.cwd || baseName(e.path)}</span>
      </span>
      <span role="cell" className="min-w-0">
        <span className="block truncate" title={e.firstPrompt} data-testid="session-prompt">
          {e.firstPrompt ?? <span className="text-neutral-400">no prompt recorded</span>}
        </span>
        <span className="block truncate font-mono text-[11px] text-neutral-500">
          {row.children > 0 && (
            <button
              type="button"
              className="mr-2 font-sans text-blue-700 hover:underline dark:text-blue-400"
              onClick={() => onToggle(e.path)}
              aria-expanded={row.expanded}
              data-testid="session-children"
            >
              {row.expanded ? '▾' : '▸'} {row.children} under it
            </button>
          )}
          <span title={e.path}>{e.sessionId}</span>
        </span>
      </span>
      <span role="cell" className="min-w-0 whitespace-nowrap text-xs tabular-nums">
        <span className="block" title={e.updatedAt}>
          {formatShortDate(e.updatedAt)}
        </span>
        <span className="block text-neutral-500" title={e.startedAt}>
          {e.startedAt ? formatShortDate(e.startedAt) : '—'}
        </span>
      </span>
      <span role="cell" className="text-right tabular-nums" data-testid="session-tokens">
        {e.tokens !== undefined ? formatTokens(e.tokens) : <span className="text-neutral-400">—</span>}
      </span>
      <span role="cell" className="whitespace-nowrap text-right text-xs tabular-nums">
        {formatBytes(e.bytes)}
      </span>
      <span
        role="cell"
        className={`text-right tabular-nums ${e.compactions ? '' : 'text-neutral-400'}`}
        data-testid="session-compactions"
        title={e.scanned === 'head-tail' ? 'Counted in the first and last part of this large file: at least this many' : 'Compactions the agent itself made'}
      >
        {e.scanned === 'head-tail' && e.compactions > 0 ? '≥' : ''}
        {e.compactions}
      </span>
      <span role="cell" className="text-right">
        <Button className="!px-2 !py-1 text-xs" onClick={() => onOpen(e)} disabled={busy} data-testid="open-session" aria-label={`Open ${AGENT_LABEL[e.agent]} session ${e.sessionId}`}>
          Open
        </Button>
      </span>
    </div>
  );
}
