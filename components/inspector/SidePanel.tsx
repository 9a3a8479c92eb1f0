'use client';

import type { InspectorData } from '@/lib/engine/api';
import { BUDGET_KINDS } from '@/lib/tokens/totals';
import { KIND_STYLE } from '../ui/kinds';
import { formatPercent, formatTokens } from '../ui/format';
import { LOG_DEFINITION } from '../ui/context-label';

/** Below this, the overhead reads as estimate error rather than a hidden system prompt or schemas. */
export const SMALL_OVERHEAD = 200;

const formatErr = (e: number) => `${(e * 100).toFixed(e < 0.1 ? 1 : 0)} %`;

/** How the import counted: exact for OpenAI's models (on how many threads), chars/4 elsewhere. */
export function countingLabel(c: NonNullable<InspectorData['meta']['counting']>): string {
  if (c.tokenizer === 'chars4') return "Estimated as characters ÷ 4 (this model's tokenizer is not available offline)";
  return `Counted exactly (${c.tokenizer}${c.threads > 1 ? `, on ${c.threads} threads` : ''})`;
}

/** Totals of the whole transcript: tokens by kind, recorded usage, tool schemas, import warnings. */
export function SidePanel({ data }: { data: InspectorData }) {
  const { meta, timeline, warnings, tools } = data;
  const total = meta.tokens.total;
  const kinds = BUDGET_KINDS.filter((k) => meta.tokens.byKind[k] > 0);
  const u = meta.usage;
  return (
    <aside className="h-full space-y-5 overflow-y-auto border-l border-neutral-200 p-4 text-sm dark:border-neutral-800" data-testid="side-panel" aria-label="Transcript totals">
      <section>
        <h2 className="mb-2 text-xs font-semibold uppercase tracking-wide text-neutral-500" title={LOG_DEFINITION}>
          Tokens in the log
        </h2>
        <p className="text-2xl font-semibold tabular-nums" data-testid="token-total" data-tokens={total}>
          {formatTokens(total)}
        </p>
        <p className="text-xs text-neutral-500">
          {formatTokens(meta.messages)} messages · {formatTokens(meta.turns)} turns · {formatTokens(meta.toolCalls)} tool calls
        </p>
        {meta.counting && (
          <p className="text-xs text-neutral-500" data-testid="counting" data-tokenizer={meta.counting.tokenizer} data-threads={meta.counting.threads}>
            {countingLabel(meta.counting)}
          </p>
        )}
        <div className="mt-3 flex h-2 overflow-hidden rounded" aria-hidden="true">
          {kinds.map((k) => (
            <span key={k} style={{ width: `${(meta.tokens.byKind[k] / Math.max(1, total)) * 100}%`, backgroundColor: KIND_STYLE[k].color }} />
          ))}
        </div>
        <table className="mt-2 w-full text-xs tabular-nums">
          <tbody>
            {kinds.map((k) => (
              <tr key={k}>
                <td className="py-0.5">
                  <span className="mr-1.5 inline-block h-2 w-2 rounded-sm" style={{ backgroundColor: KIND_STYLE[k].color }} />
                  {KIND_STYLE[k].label}
                </td>
                <td className="text-right">{formatTokens(meta.tokens.byKind[k])}</td>
                <td className="w-12 text-right text-neutral-500">{formatPercent(meta.tokens.byKind[k], total)}</td>
              </tr>
            ))}
            {timeline.overhead > 0 && (
              <tr>
                <td className="py-0.5">
                  <span className="mr-1.5 inline-block h-2 w-2 rounded-sm" style={{ backgroundColor: KIND_STYLE.overhead.color }} />
                  Invisible overhead
                </td>
                <td className="text-right">{formatTokens(timeline.overhead)}</td>
                <td className="w-12 text-right text-neutral-500">per call</td>
              </tr>
            )}
          </tbody>
        </table>
        {timeline.overhead > 0 && (
          <p className="mt-1 text-[11px] leading-snug text-neutral-500">
            The first call recorded {formatTokens(timeline.overhead)} more input tokens than the file shows
            {timeline.overhead < SMALL_OVERHEAD ? ': a difference this small is more likely our tokenizer estimate than missing content (message framing, a different tokenizer).' : ': system prompt and tool schemas the format does not store, and message framing.'}
          </p>
        )}
      </section>

      {u && (
        <section data-testid="recorded-usage" data-calls={u.calls}>
          <h2 className="mb-2 text-xs font-semibold uppercase tracking-wide text-neutral-500">Recorded usage</h2>
          <table className="w-full text-xs tabular-nums">
            <tbody>
              <tr>
                <td>Model calls</td>
                <td className="text-right">{formatTokens(u.calls)}</td>
              </tr>
              <tr>
                <td>Input (uncached)</td>
                <td className="text-right">{formatTokens(u.input)}</td>
              </tr>
              <tr>
                <td>Cache read</td>
                <td className="text-right">{formatTokens(u.cacheRead)}</td>
              </tr>
              <tr>
                <td>Cache write</td>
                <td className="text-right">{formatTokens(u.cacheWrite)}</td>
              </tr>
              <tr>
                <td>Output</td>
                <td className="text-right">{formatTokens(u.output)}</td>
              </tr>
              <tr className="border-t border-neutral-200 dark:border-neutral-800">
                <td className="pt-1">Largest context</td>
                <td className="pt-1 text-right">{formatTokens(u.maxContext)}</td>
              </tr>
              <tr>
                <td>Last context</td>
                <td className="text-right">{formatTokens(u.lastContext)}</td>
              </tr>
              {timeline.calibration && (
                <>
                  <tr className="border-t border-neutral-200 dark:border-neutral-800" data-testid="calibration-factor" data-factor={timeline.calibration.factor}>
                    <td className="pt-1" title="sven's EMA (α 0.2, clamped 0.5–3) of recorded ÷ (estimate + overhead) over the recorded calls">Calibration factor</td>
                    <td className="pt-1 text-right">× {timeline.calibration.factor.toFixed(2)}</td>
                  </tr>
                  <tr data-testid="calibration-error" data-raw={timeline.calibration.rawError} data-error={timeline.calibration.error}>
                    <td title="Mean |estimate − recorded| ÷ recorded over the recorded calls: the file alone, then with the overhead and the factor known before each call">Estimate vs recorded</td>
                    <td className="text-right">
                      {formatErr(timeline.calibration.rawError)} → {formatErr(timeline.calibration.error)}
                    </td>
                  </tr>
                </>
              )}
            </tbody>
          </table>
          {timeline.calibration && (
            <p className="mt-1 text-[11px] leading-snug text-neutral-500">
              Budgets and triggers count what the model is sent: (estimate + {formatTokens(timeline.calibration.overhead)} overhead) × {timeline.calibration.factor.toFixed(2)}. Estimate vs recorded is the mean error over {formatTokens(timeline.calibration.calls)} call(s), the file alone → calibrated.
            </p>
          )}
        </section>
      )}

      {timeline.bands.length > 0 && (
        <section>
          <h2 className="mb-2 text-xs font-semibold uppercase tracking-wide text-neutral-500">Compactions in the source</h2>
          <ul className="space-y-1 text-xs" data-testid="source-compactions">
            {timeline.bands.map((b) => (
              <li key={b.markerId} className="border-l-2 border-teal-500 pl-2" data-testid="source-compaction">
                Turn {b.atTurn + 1}: {b.trigger ?? 'compaction'}
                {b.tokensBefore !== undefined && <span className="tabular-nums"> · {formatTokens(b.tokensBefore)} tokens before</span>}
              </li>
            ))}
          </ul>
        </section>
      )}

      {tools.length > 0 && (
        <section>
          <h2 className="mb-2 text-xs font-semibold uppercase tracking-wide text-neutral-500">Tool schemas ({tools.length})</h2>
          <ul className="space-y-0.5 text-xs tabular-nums">
            {tools.map((t) => (
              <li key={t.name} className="flex justify-between gap-2">
                <span className="truncate font-mono">{t.name}</span>
                <span>{formatTokens(t.tokens)}</span>
              </li>
            ))}
          </ul>
        </section>
      )}

      {warnings.length > 0 && (
        <section>
          <h2 className="mb-2 text-xs font-semibold uppercase tracking-wide text-neutral-500">Import warnings ({warnings.length})</h2>
          <ul className="space-y-1 text-xs text-amber-800 dark:text-amber-300" data-testid="import-warnings">
            {warnings.slice(0, 50).map((w, i) => (
              <li key={i}>
                {w.line !== undefined && <span className="font-mono">line {w.line}: </span>}
                {w.message}
              </li>
            ))}
          </ul>
        </section>
      )}
    </aside>
  );
}
