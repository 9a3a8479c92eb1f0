'use client';

import { useQuery } from '@tanstack/react-query';
import { getBridge } from '@/lib/engine/client';
import { KIND_STYLE } from '../ui/kinds';
import { formatTokens } from '../ui/format';
import { EmptyState } from './EmptyState';
import { useListReady } from '../inspector/useListReady';

/** Per-tool token breakdown: calls (amber) and results (orange), widest first. */
export function ToolsTab({ id, schemas, toolCalls }: { id: string; schemas: Array<{ name: string; tokens: number }>; toolCalls?: number }) {
  const listReady = useListReady(id);
  const stats = useQuery({ queryKey: ['tool-stats', id], queryFn: ({ signal }) => getBridge().toolStats(signal, id), staleTime: Infinity, enabled: listReady });
  if (stats.isPending) return <div className="h-40 animate-pulse rounded bg-neutral-100 dark:bg-neutral-900" aria-label="Loading tool statistics" />;
  if (stats.isError) return <p role="alert" className="text-xs text-red-700">Could not count tool tokens: {(stats.error as Error).message}</p>;
  if (stats.data.length === 0) return <EmptyState title="No tool calls">This transcript has no tool calls or results.</EmptyState>;
  const max = Math.max(1, ...stats.data.map((t) => t.callTokens + t.resultTokens));
  const total = stats.data.reduce((s, t) => s + t.callTokens + t.resultTokens, 0);
  // The log's count (Info, the turn headers) includes calls made in side chains (subagents, rewound
  // branches); they never entered this conversation's context, so they are not listed here.
  const listed = stats.data.reduce((s, t) => s + t.calls, 0);
  const elsewhere = toolCalls !== undefined ? toolCalls - listed : 0;
  return (
    <div className="space-y-3 text-xs" data-testid="tools">
      <div className="flex items-center gap-3 text-[11px] text-neutral-500">
        <span className="flex items-center gap-1">
          <span className="inline-block h-2 w-2 rounded-sm" style={{ background: KIND_STYLE.tool_call.color }} /> calls
        </span>
        <span className="flex items-center gap-1">
          <span className="inline-block h-2 w-2 rounded-sm" style={{ background: KIND_STYLE.tool_result.color }} /> results
        </span>
        <span className="ml-auto tabular-nums">{formatTokens(total)} tokens in tool traffic</span>
      </div>
      {elsewhere > 0 && (
        <p className="text-[11px] text-neutral-500" data-testid="tools-sidechain">
          {listed} of the log&apos;s {toolCalls} tool calls. The other {elsewhere} were made in side chains (subagents, rewound branches): they never entered this conversation&apos;s context.
        </p>
      )}
      <ul className="space-y-1.5">
        {stats.data.map((t) => (
          <li key={t.name} data-testid="tool-stat" data-tool={t.name}>
            <div className="flex items-baseline gap-2">
              <span className="min-w-0 flex-1 truncate font-mono" title={t.name}>
                {t.name}
              </span>
              <span className="tabular-nums text-neutral-500">
                {t.calls} call{t.calls === 1 ? '' : 's'}
                {t.errors > 0 && <span className="text-red-600"> · {t.errors} err</span>}
              </span>
              <span className="w-16 text-right tabular-nums">{formatTokens(t.callTokens + t.resultTokens)}</span>
            </div>
            <div className="mt-0.5 flex h-2 rounded-sm bg-neutral-100 dark:bg-neutral-800" title={`calls ${formatTokens(t.callTokens)} · results ${formatTokens(t.resultTokens)}`}>
              <span style={{ width: `${(t.callTokens / max) * 100}%`, background: KIND_STYLE.tool_call.color }} />
              <span style={{ width: `${(t.resultTokens / max) * 100}%`, background: KIND_STYLE.tool_result.color }} />
            </div>
          </li>
        ))}
      </ul>
      {schemas.length > 0 && (
        <section>
          <h3 className="mb-1 text-[11px] font-semibold uppercase tracking-wide text-neutral-500">Tool schemas sent with every request ({schemas.length})</h3>
          <ul className="space-y-0.5 tabular-nums">
            {schemas.map((s) => (
              <li key={s.name} className="flex justify-between gap-2">
                <span className="truncate font-mono">{s.name}</span>
                <span>{formatTokens(s.tokens)}</span>
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}
