'use client';

import { useQuery } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { getBridge } from '@/lib/engine/client';
import { userMessage } from '@/lib/errors';
import type { Census, CensusProgress, CensusRow } from '@/lib/ledger/census';
import { cacheWriteText, CATEGORY_LIST } from '@/lib/ledger/labels';
import { apiToken, listSessions, probeApi } from '../sessions/api';
import { Button } from '../ui/Button';
import { formatTokens } from '../ui/format';

type Scope = 'sessions' | 'transcripts';

/** The figures as `contextscope census` prints them (lib/ledger/census.ts renderCensus): one reading in both places. */
export const censusRatio = (x: number | null) => (x === null ? '–' : x.toFixed(2));
export const censusPercent = (x: number | null) => (x === null ? '–' : `${(x * 100).toFixed(0)} %`);

const CATEGORY_TITLE: Record<(typeof CATEGORY_LIST)[number], string> = {
  instructions: 'Instructions: the messages the user typed',
  paths: 'Paths: the files tools touched (a file name counts as kept)',
  commands: 'Commands: the shell commands run',
  errors: 'Errors: the error lines',
  figures: 'Figures: test and measurement figures in tool output',
};

type Run = { state: 'running'; scope: Scope; progress: CensusProgress | null } | { state: 'done'; scope: Scope; census: Census } | { state: 'cancelled'; scope: Scope; progress: CensusProgress | null } | { state: 'failed'; scope: Scope; error: string };

/**
 * The compaction census (issue 26 §3): per agent, how many compactions the agents made, the median
 * after/before ratio, the median survival of each category and the cache writes they caused —
 * over "Your sessions" (the files the local server lists, fetched by the engine's worker) or over
 * the imported transcripts. It runs in its own worker with a progress bar and a Cancel that stops
 * that worker only; the page stays usable meanwhile.
 */
export function CensusSection({ transcripts }: { transcripts: number }) {
  const health = useQuery({ queryKey: ['api-health'], queryFn: ({ signal }) => probeApi(signal), retry: false, staleTime: Infinity });
  const api = health.data === true;
  const list = useQuery({ queryKey: ['sessions'], queryFn: ({ signal }) => listSessions(signal), enabled: api, retry: false, refetchOnWindowFocus: true });
  const sessions = list.data?.sessions.length ?? 0;
  const [scope, setScope] = useState<Scope | null>(null);
  const chosen: Scope = scope ?? (api && sessions > 0 ? 'sessions' : 'transcripts');
  const [run, setRun] = useState<Run | null>(null);
  const abort = useRef<AbortController | null>(null);
  useEffect(() => () => abort.current?.abort(), []);

  const start = useCallback(() => {
    abort.current?.abort();
    const controller = new AbortController();
    abort.current = controller;
    const s = chosen;
    setRun({ state: 'running', scope: s, progress: null });
    // Progress comes per session: the bar is redrawn at most once a frame. The reports come on the
    // Comlink proxy's MessagePort and the answer on the worker's own: the browser does not keep the
    // order between two ports (Chromium delivered a worker's answer before its last reports in 29
    // of 30 runs: scripts/port-order.mjs), so a report can come after the answer. Once this run
    // has ended (answered, failed, cancelled) or another has started, a report changes nothing: it
    // used to turn the table back into a running bar at "1,000 / 1,000" that nothing ended (CI,
    // session 19).
    let ended = false;
    const current = () => !ended && abort.current === controller && !controller.signal.aborted;
    let latest: CensusProgress | null = null;
    let frame = 0;
    const onProgress = (p: CensusProgress) => {
      if (!current()) return;
      latest = p;
      if (frame) return;
      frame = requestAnimationFrame(() => {
        frame = 0;
        if (current()) setRun({ state: 'running', scope: s, progress: latest });
      });
    };
    const end = () => {
      ended = true;
      cancelAnimationFrame(frame);
      frame = 0;
    };
    const token = apiToken();
    const job =
      s === 'sessions' && list.data && token
        ? getBridge().sessionsCensus(
            controller.signal,
            list.data.sessions.map((e) => ({ path: e.path, agent: e.agent, ...(e.format && { format: e.format }) })),
            { origin: window.location.origin, token },
            onProgress,
          )
        : getBridge().libraryCensus(controller.signal, onProgress);
    job.then(
      (census) => {
        end();
        if (abort.current === controller) setRun({ state: 'done', scope: s, census });
      },
      (e: unknown) => {
        end();
        if (abort.current !== controller) return;
        if (controller.signal.aborted) setRun({ state: 'cancelled', scope: s, progress: latest });
        else setRun({ state: 'failed', scope: s, error: userMessage(e) });
      },
    );
  }, [chosen, list.data]);

  // Cancel ends the bar itself: it never relies on the call's rejection coming back (a call whose
  // answer was lost, or already settled while the bar still showed, would leave it running).
  const cancel = () => {
    abort.current?.abort();
    setRun((r) => (r?.state === 'running' ? { state: 'cancelled', scope: r.scope, progress: r.progress } : r));
  };

  if (!api && transcripts === 0) return null;
  const running = run?.state === 'running';
  const noun = (n: number, one: string) => `${formatTokens(n)} ${one}${n === 1 ? '' : 's'}`;
  return (
    <section aria-labelledby="census-title" className="space-y-2" data-testid="census">
      <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
        <h2 id="census-title" className="text-base font-semibold">
          Compactions across sessions
        </h2>
        <span className="text-xs text-neutral-500">per agent: how often it compacted, how much it kept of each kind of item, and the cache writes that followed — the table `contextscope census` prints</span>
      </div>
      <div className="flex flex-wrap items-center gap-3 text-sm">
        <fieldset className="flex flex-wrap items-center gap-3" disabled={running}>
          <legend className="sr-only">Which sessions</legend>
          {api && (
            <label className="flex items-center gap-1.5">
              <input type="radio" name="census-scope" value="sessions" checked={chosen === 'sessions'} onChange={() => setScope('sessions')} data-testid="census-scope-sessions" />
              Your sessions {list.data ? <span className="text-neutral-500">({noun(sessions, 'file')} on this machine)</span> : <span className="text-neutral-500">(listing…)</span>}
            </label>
          )}
          <label className="flex items-center gap-1.5">
            <input type="radio" name="census-scope" value="transcripts" checked={chosen === 'transcripts'} onChange={() => setScope('transcripts')} data-testid="census-scope-transcripts" />
            Imported transcripts <span className="text-neutral-500">({formatTokens(transcripts)})</span>
          </label>
        </fieldset>
        <Button variant="primary" onClick={start} disabled={running || (chosen === 'sessions' ? !list.data || sessions === 0 : transcripts === 0)} data-testid="census-run">
          {run && run.state !== 'running' ? 'Count again' : 'Count compactions'}
        </Button>
      </div>
      <div aria-live="polite">{run && (run.state === 'running' || run.state === 'cancelled') && <CensusProgressBar run={run} onCancel={cancel} />}</div>
      {run?.state === 'failed' && (
        <p role="alert" className="rounded-lg border border-red-300 bg-red-50 px-4 py-2 text-sm text-red-800 dark:border-red-900 dark:bg-red-950/40 dark:text-red-300" data-testid="census-error">
          The census failed: {run.error}
        </p>
      )}
      {run?.state === 'done' && <CensusTable census={run.census} scope={run.scope} />}
    </section>
  );
}

export function CensusProgressBar({ run, onCancel }: { run: Extract<Run, { state: 'running' | 'cancelled' }>; onCancel: () => void }) {
  const p = run.progress;
  const frac = p && p.total ? p.done / p.total : 0;
  const unit = run.scope === 'sessions' ? 'sessions' : 'transcripts';
  return (
    <div className="flex items-center gap-3 rounded-lg border border-neutral-200 px-4 py-3 dark:border-neutral-800" data-testid="census-progress" data-state={run.state} data-done={p?.done ?? 0} data-total={p?.total ?? 0}>
      <div className="min-w-0 flex-1">
        <div className="flex items-baseline justify-between gap-2 text-sm">
          <span className="truncate" data-testid="census-progress-text">
            {run.state === 'cancelled' ? <span className="font-medium">Cancelled</span> : <span className="font-medium">Counting compactions</span>}{' '}
            {p ? (
              <>
                {formatTokens(p.done)} / {formatTokens(p.total)} {unit} · {formatTokens(p.parsed)} with compactions parsed
              </>
            ) : (
              <span className="text-neutral-500">starting…</span>
            )}
          </span>
          <span className="tabular-nums text-neutral-500">{Math.floor(frac * 100)} %</span>
        </div>
        <div role="progressbar" aria-label="Census progress" aria-valuemin={0} aria-valuemax={p?.total ?? 0} aria-valuenow={p?.done ?? 0} className="mt-1.5 h-1.5 overflow-hidden rounded bg-neutral-200 dark:bg-neutral-800">
          <div className={`h-full ${run.state === 'cancelled' ? 'bg-neutral-400' : 'bg-blue-600'}`} style={{ width: `${frac * 100}%` }} />
        </div>
        {p && run.state === 'running' && <p className="mt-1 truncate font-mono text-[11px] text-neutral-500">{p.path}</p>}
      </div>
      {run.state === 'running' && (
        <Button onClick={onCancel} data-testid="census-cancel">
          Cancel
        </Button>
      )}
    </div>
  );
}

function Cell({ col, value, children, title, className = '' }: { col: string; value: number | null; children: React.ReactNode; title?: string; className?: string }) {
  return (
    <td className={`px-2 py-1 text-right tabular-nums ${className}`} data-col={col} data-value={value === null ? '' : String(value)} title={title}>
      {children}
    </td>
  );
}

function CensusRowView({ r }: { r: CensusRow }) {
  return (
    <tr className="border-t border-neutral-200 dark:border-neutral-800" data-testid="census-row" data-agent={r.agent}>
      <th scope="row" className="px-2 py-1 text-left font-medium">
        {r.agent}
      </th>
      <Cell col="sessions" value={r.sessions}>
        {formatTokens(r.sessions)}
      </Cell>
      <Cell col="sessionsCompacted" value={r.sessionsCompacted}>
        {formatTokens(r.sessionsCompacted)}
      </Cell>
      <Cell col="compactions" value={r.compactions}>
        {formatTokens(r.compactions)}
      </Cell>
      <Cell col="medianRatio" value={r.medianRatio}>
        {censusRatio(r.medianRatio)}
      </Cell>
      {CATEGORY_LIST.map((c) => (
        <Cell key={c} col={c} value={r.medianSurvival[c]} title={`${formatTokens(r.survivalTotals[c].kept)} of ${formatTokens(r.survivalTotals[c].of)} ${c} kept over all compactions`}>
          {censusPercent(r.medianSurvival[c])}
        </Cell>
      ))}
      <CacheWriteCell r={r} />
    </tr>
  );
}

/** The cache writes after an agent's compactions: the same text as the CLI's table (cacheWriteText), the USD apart. */
function CacheWriteCell({ r }: { r: CensusRow }) {
  const t = cacheWriteText(r);
  const title = !t
    ? undefined
    : !r.cacheWriteRecorded
      ? `No call after these ${r.compactions} compactions is in the files: nothing recorded the cache write they caused`
      : `What the call after ${r.cacheWriteRecorded === r.compactions ? (r.compactions === 1 ? 'the compaction' : `each of the ${r.compactions} compactions`) : `${r.cacheWriteRecorded} of the ${r.compactions} compactions`} wrote to the cache${r.cacheWriteRecorded < r.compactions ? ' (the others had no call after them in the file)' : ''}${r.cacheWriteUsd === null ? '; a model without a price: no USD' : ''}`;
  return (
    <Cell col="cacheWriteTokens" value={r.cacheWriteRecorded ? r.cacheWriteTokens : null} className="whitespace-nowrap" title={title}>
      {!t ? (
        '–'
      ) : !r.cacheWriteRecorded ? (
        <span className="text-neutral-500">{t.tokens}</span>
      ) : (
        <>
          {t.tokens}{' '}
          <span className="text-neutral-500" data-testid="census-usd" data-value={r.cacheWriteUsd ?? ''}>
            {t.usd}
          </span>
          {t.of && <span className="text-neutral-500" data-testid="census-recorded"> · {t.of}</span>}
        </>
      )}
    </Cell>
  );
}

export function CensusTable({ census, scope }: { census: Census; scope: Scope }) {
  const unit = scope === 'sessions' ? 'session file' : 'imported transcript';
  return (
    <div className="rounded-lg border border-neutral-200 dark:border-neutral-800">
      <div className="overflow-x-auto">
        <table className="w-full text-sm" data-testid="census-table" data-files={census.files} data-parsed={census.parsed} data-scope={scope}>
          <thead className="bg-neutral-50 text-xs text-neutral-500 dark:bg-neutral-900 dark:text-neutral-400">
            <tr>
              <th scope="col" className="px-2 py-1.5 text-left font-medium">
                Agent
              </th>
              <th scope="col" className="px-2 py-1.5 text-right font-medium">
                Sessions
              </th>
              <th scope="col" className="px-2 py-1.5 text-right font-medium" title="Sessions with at least one compaction of the agent's own">
                Compacted
              </th>
              <th scope="col" className="px-2 py-1.5 text-right font-medium">
                Compactions
              </th>
              <th scope="col" className="px-2 py-1.5 text-right font-medium" title="Median of tokens after ÷ tokens before, over the compactions with both">
                After / before
              </th>
              {CATEGORY_LIST.map((c) => (
                <th key={c} scope="col" className="px-2 py-1.5 text-right font-medium capitalize" title={`${CATEGORY_TITLE[c]}. The median share kept, over the compactions whose span held such items.`}>
                  {c}
                </th>
              ))}
              <th scope="col" className="px-2 py-1.5 text-right font-medium" title="Cache writes the next calls made after these compactions: tokens, and USD where the model is priced">
                Cache writes
              </th>
            </tr>
          </thead>
          <tbody>
            {census.rows.length === 0 ? (
              <tr>
                <td colSpan={6 + CATEGORY_LIST.length} className="px-2 py-4 text-center text-neutral-500">
                  No session could be read.
                </td>
              </tr>
            ) : (
              census.rows.map((r) => <CensusRowView key={r.agent} r={r} />)
            )}
          </tbody>
        </table>
      </div>
      <p className="border-t border-neutral-200 px-3 py-1.5 text-xs text-neutral-500 dark:border-neutral-800" data-testid="census-footer">
        {formatTokens(census.files)} {unit}
        {census.files === 1 ? '' : 's'}, {formatTokens(census.parsed)} {scope === 'sessions' ? 'parsed (the others hold no compaction)' : 'with compactions'}
        {census.skipped.length > 0 && `, ${formatTokens(census.skipped.length)} skipped`}. Survival: the median share of each category&apos;s items a compaction&apos;s span held that is still in what the model is sent next; “–”: no compaction held such items. Cache writes: what the call after each compaction recorded (“k of n”: only k of the n compactions had a call after them in the files).
      </p>
      {census.skipped.length > 0 && (
        <details className="border-t border-neutral-200 px-3 py-1.5 text-xs dark:border-neutral-800" data-testid="census-skipped">
          <summary className="cursor-pointer select-none text-amber-700 dark:text-amber-400">{formatTokens(census.skipped.length)} could not be read</summary>
          <ul className="mt-1 space-y-0.5 font-mono text-[11px]">
            {census.skipped.slice(0, 50).map((s) => (
              <li key={s.path}>
                {s.path}: {s.reason}
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}
