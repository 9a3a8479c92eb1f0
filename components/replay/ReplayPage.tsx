'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter, useSearchParams } from 'next/navigation';
import { useMemo, useState } from 'react';
import { getBridge } from '@/lib/engine/client';
import type { ReplaySeries, ReplayView } from '@/lib/engine/replay';
import { userMessage } from '@/lib/errors';
import { REPLAY_COLUMNS, replayCsv, type ReplayRow } from '@/lib/simulate/table';
import { MODEL_CATALOG } from '@/lib/tokens/catalog';
import { AppHeader } from '../ui/AppHeader';
import { Button } from '../ui/Button';
import { downloadBytes } from '../ui/download';
import { formatTokens } from '../ui/format';
import { ReplayChart } from './ReplayChart';
import { policyColor } from './colors';
import { REPLAY_PARTS, REPLAY_POLICY_LIST } from './policy-list';

const ORDER = new Map(REPLAY_POLICY_LIST.map((p, i) => [p.id, i]));
/** The table's order (REPLAY_POLICIES'), whatever the order the parts came in. */
const inOrder = (v: ReplayView): ReplayView => ({ ...v, series: [...v.series].sort((a, b) => (ORDER.get(a.id) ?? 99) - (ORDER.get(b.id) ?? 99)) });

/** Shown on the chart when the page opens: the baselines, our Auto and the three agents. */
export const DEFAULT_SHOWN = ['recorded', 'none', 'contextscope-auto', 'claude-code', 'codex', 'gemini-cli'];

const select = 'rounded-md border border-neutral-300 bg-white px-1.5 py-1 text-xs dark:border-neutral-700 dark:bg-neutral-900';

function cell(row: ReplayRow, key: keyof ReplayRow, priced = true): string {
  const v = row[key];
  // A model without a price has no cost: "no price", never "$0.0000" (issue 30).
  if (key === 'usd' || key === 'compactionUsd') return priced ? `$${(v as number).toFixed(4)}` : 'no price';
  if (key === 'cacheHitPct') return `${(v as number).toFixed(1)} %`;
  return typeof v === 'number' ? formatTokens(v) : String(v);
}

/**
 * /replay?id=…&m=… — every policy replayed on this session call by call (lib/simulate/calls.ts):
 * the context each call would have sent, where each policy fired and broke the cache, and a
 * table of what each would have cost and lost (the CLI's `simulate` prints the same rows).
 */
export function ReplayPage() {
  const params = useSearchParams();
  const router = useRouter();
  const id = params.get('id') ?? '';
  const model = params.get('m') ?? undefined;
  // The provider's default lifetime unless the URL picks one (Anthropic 5 min, OpenAI 1 h): as the CLI.
  const ttlParam = params.get('ttl');
  const ttl: '5m' | '1h' | undefined = ttlParam === '1h' || ttlParam === '5m' ? ttlParam : undefined;
  const [shown, setShown] = useState<Set<string>>(() => new Set(DEFAULT_SHOWN));
  const [sort, setSort] = useState<{ key: keyof ReplayRow; desc: boolean } | null>(null);

  // The policies done so far, shown while the others replay; the whole view replaces them when the last part is in.
  const replayKey = `${id}|${model ?? ''}|${ttl ?? ''}`;
  const [part, setPart] = useState<{ key: string; view: ReplayView } | null>(null);
  const q = useQuery({
    queryKey: ['replay', id, model ?? '', ttl ?? ''],
    queryFn: async ({ signal }) => inOrder(await getBridge().replayInParts(signal, id, REPLAY_PARTS, { ...(model && { model }), ...(ttl && { cacheTtl: ttl }) }, (v) => setPart({ key: replayKey, view: inOrder(v) }))),
    enabled: id !== '',
    retry: false,
    staleTime: Infinity,
  });
  const view = q.data ?? (q.isPending && part?.key === replayKey ? part.view : undefined);
  const complete = q.data !== undefined;
  const setParam = (k: string, v: string | null) => {
    const next = new URLSearchParams(params.toString());
    if (v === null) next.delete(k);
    else next.set(k, v);
    router.replace(`/replay?${next.toString()}`, { scroll: false });
  };

  const rows = useMemo(() => {
    const list = (view?.series ?? []).map((s) => s.row);
    if (!sort) return list;
    const dir = sort.desc ? -1 : 1;
    return [...list].sort((a, b) => {
      const x = a[sort.key];
      const y = b[sort.key];
      return (typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y))) * dir;
    });
  }, [view, sort]);
  const cheapestWithin = useMemo(() => {
    // Only once every policy is in: a partial table has no cheapest.
    if (!complete) return undefined;
    const ok = (view?.series ?? []).filter((s) => s.row.callsOverWindow === 0);
    return ok.length ? ok.reduce((a, b) => (b.row.usd < a.row.usd ? b : a)).id : undefined;
  }, [view, complete]);
  const series = useMemo(() => (view?.series ?? []).filter((s) => shown.has(s.id)), [view, shown]);
  const toggle = (pid: string) =>
    setShown((prev) => {
      const next = new Set(prev);
      if (next.has(pid)) next.delete(pid);
      else next.add(pid);
      return next;
    });

  return (
    <div className="flex min-h-screen flex-col">
      <AppHeader>
        <div className="flex items-center gap-3 text-sm">
          <Link href={`/inspect?id=${encodeURIComponent(id)}`} className="rounded px-2 py-1 text-neutral-600 hover:bg-neutral-100 dark:text-neutral-300 dark:hover:bg-neutral-800" data-testid="back-to-inspector">
            ← Inspector
          </Link>
          {view && (
            <h1 className="truncate font-semibold" data-testid="replay-title">
              Replay · {view.title}
            </h1>
          )}
        </div>
      </AppHeader>
      <main className="mx-auto flex w-full max-w-[1400px] flex-1 flex-col gap-4 p-4" data-testid="replay">
        {id === '' && <p className="text-sm text-neutral-500">No transcript: open one from the library.</p>}
        {q.isPending && id !== '' && <ReplayProgress done={view?.series.length ?? 0} total={REPLAY_POLICY_LIST.length} />}
        {q.isError && (
          <p className="rounded border border-red-300 bg-red-50 p-3 text-sm text-red-800 dark:border-red-900 dark:bg-red-950/40 dark:text-red-300" role="alert">
            The replay failed: {userMessage(q.error)}
          </p>
        )}
        {view && (
          <>
            <Summary view={view} model={model} ttl={ttl} onModel={(m) => setParam('m', m || null)} onTtl={(t) => setParam('ttl', t)} />
            {view.warnings.length > 0 && (
              <ul className="space-y-1 rounded border border-amber-300 bg-amber-50 px-3 py-2 text-xs text-amber-900 dark:border-amber-900 dark:bg-amber-950/40 dark:text-amber-200" role="note" data-testid="replay-warnings">
                {view.warnings.map((w) => (
                  <li key={w} data-testid="replay-warning">
                    {w}
                  </li>
                ))}
              </ul>
            )}
            <section className="rounded-lg border border-neutral-200 p-3 dark:border-neutral-800" aria-label="Context per call">
              <div className="mb-2 flex items-baseline justify-between gap-4">
                <h2 className="text-sm font-semibold">Context each call sends, by policy</h2>
                <p className="text-xs text-neutral-500">● compaction · <span className="text-red-600">○</span> a compaction that never paid back the cache it broke (its tooltip gives the break-even) · ✕ cache lost (TTL ran out, or the compaction rewrote the prefix) · tick the policies in the table to draw them</p>
              </div>
              {/* Drawn once, when every policy is in: a draw per finished part would redo every curve (the scale moves) each time. */}
              {complete ? (
                <ReplayChart view={view} series={series} />
              ) : (
                <div className="flex w-full items-center justify-center text-xs text-neutral-500" style={{ height: 300 }} data-testid="replay-chart-pending">
                  The chart is drawn when every policy is replayed.
                </div>
              )}
            </section>
            <section className="rounded-lg border border-neutral-200 dark:border-neutral-800" aria-label="Policies">
              <div className="flex items-center justify-between gap-3 border-b border-neutral-200 px-3 py-2 dark:border-neutral-800">
                <h2 className="text-sm font-semibold">What each policy would have cost and forgotten</h2>
                <Button
                  data-testid="replay-csv"
                  disabled={!complete}
                  onClick={() => downloadBytes(new TextEncoder().encode(replayCsv(rows)), `${view.title.replace(/[^\w.-]+/g, '_').slice(0, 60) || 'session'}.replay.csv`, 'text/csv')}
                >
                  Download CSV
                </Button>
              </div>
              <div className="overflow-x-auto">
                <table className="w-full text-[11px] tabular-nums" data-testid="replay-table" data-complete={complete}>
                  <thead className="bg-neutral-50 text-neutral-600 dark:bg-neutral-900 dark:text-neutral-400">
                    <tr>
                      <th className="w-8 px-2 py-1.5" scope="col">
                        <span className="sr-only">Draw</span>
                      </th>
                      {REPLAY_COLUMNS.map((c) => (
                        <th key={c.key} scope="col" className={`px-1 py-1.5 font-medium leading-tight ${c.key === 'label' ? 'text-left' : 'text-right'}`} aria-sort={sort?.key === c.key ? (sort.desc ? 'descending' : 'ascending') : 'none'}>
                          <button type="button" className="hover:underline" onClick={() => setSort((s) => (s?.key === c.key ? { key: c.key, desc: !s.desc } : { key: c.key, desc: false }))} data-testid={`sort-${c.key}`} title={c.short ? c.label : undefined}>
                            {c.short ?? c.label}
                            {sort?.key === c.key ? (sort.desc ? ' ↓' : ' ↑') : ''}
                          </button>
                        </th>
                      ))}
                    </tr>
                  </thead>
                  <tbody>
                    {rows.map((r) => (
                      <tr key={r.policy} className="border-t border-neutral-100 dark:border-neutral-800/60" data-testid="replay-row" data-policy={r.policy} data-usd={view.model.priced ? r.usd : undefined}>
                        <td className="px-2 py-1">
                          <input type="checkbox" checked={shown.has(r.policy)} onChange={() => toggle(r.policy)} aria-label={`Draw ${r.label}`} style={{ accentColor: policyColor(r.policy) }} data-testid="replay-toggle" />
                        </td>
                        {REPLAY_COLUMNS.map((c) => (
                          <td
                            key={c.key}
                            className={`px-1 py-1 ${c.key === 'label' ? 'min-w-[8rem] text-left' : 'whitespace-nowrap text-right'} ${c.key === 'callsOverWindow' && r.callsOverWindow > 0 ? 'font-medium text-red-700 dark:text-red-400' : ''}`}
                            data-col={c.key}
                          >
                            {c.key === 'label' ? (
                              // The dot stays beside the name's first line when the name wraps (issue 30).
                              <span className="flex items-start gap-x-1.5">
                                <span className="mt-[0.3em] inline-block h-2.5 w-2.5 shrink-0 rounded-sm" style={{ background: policyColor(r.policy) }} aria-hidden="true" data-testid="replay-dot" />
                                <span className="min-w-0">
                                  {r.label}
                                  {r.policy === cheapestWithin && (
                                    <span className="ml-1.5 inline-block rounded bg-emerald-100 px-1 text-[10px] text-emerald-800 dark:bg-emerald-950 dark:text-emerald-300" data-testid="cheapest" title="The cheapest policy whose every call fits the window">
                                      cheapest in window
                                    </span>
                                  )}
                                </span>
                              </span>
                            ) : (
                              cell(r, c.key, view.model.priced)
                            )}
                          </td>
                        ))}
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </section>
            <Notes series={view.series} />
          </>
        )}
      </main>
    </div>
  );
}

function Summary({ view, model, ttl, onModel, onTtl }: { view: ReplayView; model?: string; ttl?: '5m' | '1h'; onModel: (m: string) => void; onTtl: (t: '5m' | '1h') => void }) {
  const m = view.model;
  const err = view.recordedError;
  return (
    <section className="flex flex-wrap items-center gap-x-6 gap-y-2 text-xs text-neutral-600 dark:text-neutral-400" data-testid="replay-summary">
      <label className="flex items-center gap-1.5">
        Model
        <select className={select} value={model ?? m.id ?? ''} onChange={(e) => onModel(e.target.value)} aria-label="Model" data-testid="replay-model">
          {!m.id && <option value="">unknown ({formatTokens(m.contextWindow)} window assumed)</option>}
          {MODEL_CATALOG.map((x) => (
            <option key={x.id} value={x.id}>
              {x.label}
            </option>
          ))}
        </select>
      </label>
      <span>
        window <b className="tabular-nums text-neutral-800 dark:text-neutral-200">{formatTokens(m.contextWindow)}</b>
      </span>
      <span>
        cache <b className="text-neutral-800 dark:text-neutral-200">{view.cache.provider}</b>
        {view.cache.provider !== 'none' && ` (min ${formatTokens(view.cache.minTokens)} tokens)`}
      </span>
      {view.cache.provider !== 'none' && (
        <label className="flex items-center gap-1.5">
          cache lifetime
          <select className={select} value={ttl ?? (view.cache.ttlMs >= 3_600_000 ? '1h' : '5m')} onChange={(e) => onTtl(e.target.value as '5m' | '1h')} aria-label="Cache lifetime" data-testid="replay-ttl">
            <option value="5m">5 min</option>
            <option value="1h">1 hour</option>
          </select>
        </label>
      )}
      <span title="Our estimate × this factor + the overhead the file does not hold = what the model was sent (recorded usage)">
        calibration ×{view.calibration.factor.toFixed(2)}, overhead {formatTokens(view.calibration.overhead)}
      </span>
      {view.recorded && err !== null ? (
        <span data-testid="replay-recorded">
          recorded bill <b className="tabular-nums text-neutral-800 dark:text-neutral-200">${view.recorded.usd.toFixed(4)}</b>; the “as recorded” replay is {err >= 0 ? '+' : '−'}
          {Math.abs(err * 100).toFixed(1)} % from it
          {view.cacheFit && view.cacheFit.hitScale !== 1 && (
            <span title="The provider served this share of the cache hits our model predicts on this session (best-effort caches); every policy's hits are scaled by it">
              {' '}
              (cache hits ×{view.cacheFit.hitScale.toFixed(2)}, as recorded; the cache model alone: {view.cacheFit.rawError >= 0 ? '+' : '−'}
              {Math.abs(view.cacheFit.rawError * 100).toFixed(1)} %)
            </span>
          )}
        </span>
      ) : view.usageIgnored ? (
        <span className="text-amber-700 dark:text-amber-400" data-testid="replay-usage-ignored">recorded usage implausible: sizes are our counts</span>
      ) : (
        <span>no recorded usage: sizes are estimates</span>
      )}
      {!m.priced && <span className="text-amber-700 dark:text-amber-400">no price for this model: pick one to see costs</span>}
      <StoredNote series={view.series} />
    </section>
  );
}

/**
 * Every row read back from this browser's storage (an earlier visit replayed them; the log and the
 * engine's code are the same): when that replay ran. Nothing when any policy replayed now.
 */
function StoredNote({ series }: { series: ReplaySeries[] }) {
  if (series.length === 0 || series.some((s) => !s.storedAt)) return null;
  const at = series.reduce((a, s) => (s.storedAt! < a ? s.storedAt! : a), series[0].storedAt!);
  const when = new Date(at).toLocaleString('en-US', { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
  return (
    <span data-testid="replay-stored" data-stored-at={at} title="A log never changes, so its replay is kept in this browser's storage until the log is deleted or Contextscope's engine changes">
      stored replay of {when}: read back, not replayed again
    </span>
  );
}

function Notes({ series }: { series: ReplaySeries[] }) {
  return (
    <details className="text-xs text-neutral-600 dark:text-neutral-400">
      <summary className="cursor-pointer select-none font-medium">How each policy is emulated, and where it differs from the real thing</summary>
      <ul className="mt-2 list-disc space-y-1 pl-5">
        {series.map((s) => (
          <li key={s.id}>
            <b className="text-neutral-800 dark:text-neutral-200">{s.label}</b>: {s.note ?? 'its trigger and plan as the inspector draws them'}
          </li>
        ))}
      </ul>
    </details>
  );
}

/**
 * The replay's progress: how many policies are in, as a bar that moves only when a part arrives.
 * Not an endless pulse: an animation makes the compositor draw every frame for as long as it runs
 * (on a machine without GPU compositing that is CPU the replay itself wants; DESIGN-NOTES, session 21).
 */
function ReplayProgress({ done, total }: { done: number; total: number }) {
  return (
    <div className="flex items-center gap-3 text-sm text-neutral-500" data-testid="replay-loading">
      <span>
        Replaying every policy call by call… {done} of {total} done
      </span>
      <span className="h-1.5 w-40 overflow-hidden rounded-full bg-neutral-200 dark:bg-neutral-800" role="progressbar" aria-label="Policies replayed" aria-valuemin={0} aria-valuemax={total} aria-valuenow={done}>
        <span className="block h-full rounded-full bg-blue-500" style={{ width: `${(100 * done) / Math.max(1, total)}%` }} />
      </span>
    </div>
  );
}
