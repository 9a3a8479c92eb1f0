'use client';

import type { PreviewSummary } from '@/lib/engine/preview';
import { formatTokens } from '../ui/format';
import { formatDelta, formatPctMagnitude } from '../plan/numbers';
import { FATE_STYLE, fateSwatchStyle } from '../timeline/patterns';
import { EmptyState } from './EmptyState';
import { reducerLabel } from '../ui/reducer-labels';

/** Tokens saved per reducer (one bar each), fates by kind, the cache-stable prefix. */
export function ReportTab({ preview }: { preview: PreviewSummary | null }) {
  if (!preview) return <EmptyState title="No compaction to report yet">Select turns on the timeline or change the plan: the report follows the preview.</EmptyState>;
  // The auto pipeline's own entries carry its decisions (why it stopped, why summaries were skipped,
  // why the target is out of reach): shown as text, not as reducers that changed nothing.
  const decisions = preview.reducers.filter((r) => r.reducer === 'auto').flatMap((r) => r.notes);
  const reducers = preview.reducers.filter((r) => r.reducer !== 'auto');
  const lines = reducers.filter((r) => r.events > 0 || r.saved !== 0);
  const idle = reducers.filter((r) => !(r.events > 0 || r.saved !== 0));
  const maxSaved = Math.max(1, ...lines.map((r) => Math.abs(r.saved)));
  const { before, after } = preview.tokens.context;
  // A failed summary: what the step did instead (emergency / range left) and the producer's reason,
  // shown in full whatever the line above keeps (a step left as it is has no line of its own).
  const fallbacks = preview.reducers.filter((r) => r.reducer === 'summarize').flatMap((r) => r.notes.filter((n) => / failed: |fell back to emergency|range left as it is/.test(n)));
  return (
    <div className="space-y-4 text-xs" data-testid="report">
      <section>
        <h3 className="mb-1 text-[11px] font-semibold uppercase tracking-wide text-neutral-500">Context</h3>
        <p className="tabular-nums">
          <span className="text-base font-semibold">{formatTokens(before)}</span> → <span className="text-base font-semibold text-teal-700 dark:text-teal-400">{formatTokens(after)}</span>{' '}
          <span className="text-neutral-500">{formatDelta(after - before, before)}</span>
        </p>
        <p className="mt-0.5 text-neutral-500 tabular-nums" title="Leading tokens identical to the uncompacted context: a provider's prompt cache still hits them">
          cache-stable prefix {formatTokens(preview.cacheStablePrefix)} tokens ({before > 0 ? formatPctMagnitude((preview.cacheStablePrefix / before) * 100) : 0} %)
        </p>
      </section>
      <section>
        <h3 className="mb-1 text-[11px] font-semibold uppercase tracking-wide text-neutral-500">Saved per reducer</h3>
        {lines.length === 0 ? (
          <p className="text-neutral-500">No reducer changed anything.</p>
        ) : (
          <table className="w-full tabular-nums">
            <tbody>
              {lines.map((r, i) => (
                <tr key={`${r.stepId}-${r.reducer}-${i}`} className="align-top" data-testid="report-row" data-reducer={r.reducer}>
                  <td className="w-[38%] py-1 pr-2" title={r.reducer}>
                    {reducerLabel(r.reducer)}
                  </td>
                  <td className="py-1">
                    <div className="flex items-center gap-2">
                      <div className="h-2 flex-1 rounded-sm bg-neutral-100 dark:bg-neutral-800">
                        <div className="h-2 rounded-sm bg-teal-500" style={{ width: `${(Math.max(0, r.saved) / maxSaved) * 100}%` }} />
                      </div>
                      <span className="w-16 text-right">{r.saved > 0 ? `−${formatTokens(r.saved)}` : r.saved < 0 ? `+${formatTokens(-r.saved)}` : '0'}</span>
                    </div>
                    <p className="text-[11px] text-neutral-500">
                      {r.events} block{r.events === 1 ? '' : 's'}
                      {r.notes.length > 0 && ` · ${r.notes.slice(0, 2).join('; ')}`}
                    </p>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {idle.length > 0 && (
          <p className="mt-1 text-[11px] text-neutral-500" title={idle.flatMap((r) => r.notes).join('\n')}>
            No change from {idle.map((r) => reducerLabel(r.reducer)).join(', ')}.
          </p>
        )}
      </section>
      {decisions.length > 0 && (
        <section data-testid="pipeline-notes">
          <h3 className="mb-1 text-[11px] font-semibold uppercase tracking-wide text-neutral-500">Auto</h3>
          <ul className="list-disc space-y-0.5 pl-4 text-neutral-700 dark:text-neutral-300">
            {decisions.map((n, i) => (
              <li key={i}>{n}</li>
            ))}
          </ul>
        </section>
      )}
      {fallbacks.length > 0 && (
        <section data-testid="summary-fallback">
          <h3 className="mb-1 text-[11px] font-semibold uppercase tracking-wide text-neutral-500">Summary failed</h3>
          <ul className="space-y-0.5 text-amber-800 dark:text-amber-300">
            {fallbacks.map((n, i) => (
              <li key={i}>{n}</li>
            ))}
          </ul>
        </section>
      )}
      <section>
        <h3 className="mb-1 text-[11px] font-semibold uppercase tracking-wide text-neutral-500">Blocks by fate</h3>
        <ul className="grid grid-cols-2 gap-x-3 gap-y-1 tabular-nums">
          {(['kept', 'stubbed', 'truncated', 'removed', 'deduped', 'summarized'] as const).map((f) => (
            <li key={f} className="flex items-center gap-1.5">
              <span className="inline-block h-3 w-3 text-neutral-600 dark:text-neutral-300" style={fateSwatchStyle(f)} aria-hidden="true" />
              <span>{FATE_STYLE[f].label}</span>
              <span className="ml-auto">{formatTokens(preview.fateCounts[f])}</span>
            </li>
          ))}
        </ul>
      </section>
      {preview.summaries.length > 0 && (
        <section>
          <h3 className="mb-1 text-[11px] font-semibold uppercase tracking-wide text-neutral-500">Summaries</h3>
          <ul className="space-y-0.5 tabular-nums">
            {preview.summaries.map((s) => (
              <li key={s.id} className="border-l-2 border-teal-500 pl-2">
                turns {s.span[0] + 1}–{s.span[1] + 1} · {formatTokens(s.tokens)} tokens · {s.producer}
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}
