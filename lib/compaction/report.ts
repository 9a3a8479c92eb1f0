/**
 * The compaction report: what each step and reducer did, fates by kind, tokens before/after,
 * the cache-stable prefix, summaries and what was lost — as data (UI, audit) and as text (CLI).
 */
import type { Transcript } from '../model/types';
import { countByKind, lostByCategory, type LostIdentifier } from './lost';
import type { FateKind, Projection, ReducerReport, Step } from './types';

export interface CompactionSummary {
  tokens: { before: number; start: number; after: number; saved: number };
  cacheStablePrefix: number;
  fates: Record<FateKind, number>;
  reducers: Array<Pick<ReducerReport, 'stepId' | 'reducer' | 'events' | 'notes'> & { saved: number }>;
  summaries: number;
  summaryRequests: number;
  lost: ReturnType<typeof countByKind>;
}

export function summarizeProjection(projection: Projection, lost: readonly LostIdentifier[] = []): CompactionSummary {
  const fates: Record<FateKind, number> = { kept: 0, stubbed: 0, truncated: 0, removed: 0, deduped: 0, summarized: 0 };
  let listed = 0;
  for (const f of Object.values(projection.fates)) {
    fates[f.kind]++;
    listed++;
  }
  // A block without an entry is kept.
  if (projection.blocks !== undefined) fates.kept += projection.blocks - listed;
  const start = projection.tokens.start?.total ?? projection.tokens.before.total;
  return {
    tokens: { before: projection.tokens.before.total, start, after: projection.tokens.after.total, saved: start - projection.tokens.after.total },
    cacheStablePrefix: projection.cacheStablePrefix ?? 0,
    fates,
    reducers: projection.report.map((r) => ({ stepId: r.stepId, reducer: r.reducer, events: r.events, notes: r.notes, saved: r.tokensBefore - r.tokensAfter })),
    summaries: projection.summaries.length,
    summaryRequests: projection.summaryRequests?.length ?? 0,
    lost: countByKind(lost),
  };
}

const fmt = (n: number) => n.toLocaleString('en-US');

/** Plain-text report for the CLI (`compact --dry-run`, and after a compaction). */
export function formatReport(log: Transcript, steps: readonly Step[], projection: Projection, lost: readonly LostIdentifier[], options: { maxLost?: number } = {}): string {
  const s = summarizeProjection(projection, lost);
  const lines: string[] = [];
  lines.push(`${log.fileName}: ${log.messages.length} messages, ${log.turnCount} turns (${log.format})`);
  lines.push(`tokens: ${fmt(s.tokens.before)} in the file, ${fmt(s.tokens.start)} in the model's view → ${fmt(s.tokens.after)} (saved ${fmt(s.tokens.saved)})`);
  lines.push(`cache-stable prefix: ${fmt(s.cacheStablePrefix)} tokens`);
  for (const st of steps) lines.push(`step ${st.id}: ${st.reducers.map((r) => r.id).join(' + ')}, keep_last ${st.keepLast}${st.budget !== undefined ? `, budget ${fmt(st.budget)}` : ''}`);
  for (const r of s.reducers) lines.push(`  ${r.reducer.padEnd(22)} ${String(r.events).padStart(6)} events  ${fmt(r.saved).padStart(10)} tokens saved  ${r.notes.join('; ')}`);
  lines.push(`fates: ${Object.entries(s.fates).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${fmt(n)}`).join(', ')}`);
  if (s.summaries) lines.push(`summaries: ${s.summaries} (${s.summaryRequests} chunk(s) stood in by the offline summarizer)`);
  const lostTotal = lost.length;
  const bySource = lost.filter((l) => l.stepId.startsWith('source-marker:')).length;
  lines.push(
    `lost identifiers: ${lostTotal}${lostTotal ? ` (${Object.entries(s.lost).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${n}`).join(', ')})` : ''}${bySource ? `; ${bySource} of them were already gone before, in the source's own compaction` : ''}`,
  );
  for (const l of lost.slice(0, options.maxLost ?? 20)) lines.push(`  turn ${l.turn + 1} ${l.kind}: ${l.value.length > 100 ? l.value.slice(0, 99) + '…' : l.value}`);
  if (lostTotal > (options.maxLost ?? 20)) lines.push(`  … ${lostTotal - (options.maxLost ?? 20)} more`);
  // The five categories (lib/categories): of what the compacted blocks held, what the model is no longer sent.
  const byCategory = lostByCategory(log, projection).categories;
  lines.push(`lost by category (of what the compacted blocks held): ${Object.entries(byCategory).map(([c, v]) => `${c} ${v.of - v.kept}/${v.of}`).join(', ')}`);
  for (const [c, v] of Object.entries(byCategory)) {
    const max = options.maxLost ?? 20;
    for (const l of v.lost.slice(0, max)) lines.push(`  ${l.turn !== undefined ? `turn ${l.turn + 1} ` : ''}${c}: ${l.text.length > 100 ? l.text.slice(0, 99) + '…' : l.text.replace(/\s+/g, ' ')}`);
    if (v.lost.length > max) lines.push(`  … ${v.lost.length - max} more ${c}`);
  }
  return lines.join('\n');
}
