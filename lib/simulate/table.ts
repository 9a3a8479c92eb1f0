/**
 * The replay's table, one row per policy: what the CLI prints, what the inspector's Replay tab
 * shows and what both export as CSV — one function, so the numbers mean the same everywhere.
 */
import type { ReplayTotals, Simulation } from './calls';

/** One policy's row: its totals, with the cache hit rate as a percent (one decimal) and cost to 1/100 cent. */
export type ReplayRow = { policy: string; label: string } & Omit<ReplayTotals, 'calls' | 'cacheHitRate'> & { cacheHitPct: number };

/** `label` heads the CSV; `short`, where given, heads the page's table (which must fit 1024 px) with `label` as its title. */
export const REPLAY_COLUMNS: ReadonlyArray<{ key: keyof ReplayRow; label: string; short?: string }> = [
  { key: 'label', label: 'Policy' },
  { key: 'compactions', label: 'Compactions' },
  { key: 'peakContext', label: 'Peak context' },
  { key: 'callsOverWindow', label: 'Calls over window' },
  { key: 'input', label: 'Input' },
  { key: 'cacheRead', label: 'Cache read' },
  { key: 'cacheWrite', label: 'Cache write' },
  { key: 'output', label: 'Output' },
  { key: 'usd', label: 'Cost $' },
  { key: 'cacheHitPct', label: 'Cache hit %' },
  { key: 'cacheBreaks', label: 'Cache breaks' },
  { key: 'identifiersLost', label: 'Identifiers lost' },
  { key: 'userMessagesLost', label: 'User messages lost' },
  { key: 'compactionUsd', label: 'Compaction calls $', short: 'Summary calls $' },
  { key: 'compactionsNotPaidBack', label: 'Compactions not paid back', short: 'Not paid back' },
];

export function replayRows(sim: Simulation): ReplayRow[] {
  return sim.results.map((r) => {
    const { calls: _calls, cacheHitRate, usd, ...totals } = r.totals;
    return { policy: r.policy, label: r.label, ...totals, usd: Math.round(usd * 10_000) / 10_000, compactionUsd: Math.round(totals.compactionUsd * 10_000) / 10_000, cacheHitPct: Math.round(cacheHitRate * 1000) / 10 };
  });
}

function csvCell(v: string | number): string {
  const s = String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function replayCsv(rows: readonly ReplayRow[]): string {
  const keys = ['policy', ...REPLAY_COLUMNS.map((c) => c.key)] as Array<keyof ReplayRow>;
  const head = ['Policy id', ...REPLAY_COLUMNS.map((c) => c.label)];
  return [head.map(csvCell).join(','), ...rows.map((r) => keys.map((k) => csvCell(r[k])).join(','))].join('\n') + '\n';
}

/** Relative error of the "as recorded" replay's bill against the recorded bill, when both exist. */
export function recordedError(sim: Simulation): number | undefined {
  const r = sim.results.find((x) => x.policy === 'recorded');
  if (!r || !sim.recorded || sim.recorded.usd <= 0) return undefined;
  // Only the calls the source recorded make up the recorded bill.
  const replayed = r.calls.reduce((n, c) => n + (c.recorded ? c.usd : 0), 0);
  return (replayed - sim.recorded.usd) / sim.recorded.usd;
}
