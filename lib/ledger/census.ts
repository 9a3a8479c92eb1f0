/**
 * The compaction census (issue 26 §3): across many sessions, per agent — how many compactions,
 * the median after/before ratio, the median survival of each category (lib/categories), and the
 * cache writes they caused. Every compaction is a ledger event (lib/ledger/agent.ts).
 *
 * Work is bounded for a thousand sessions: a file is parsed only when its bytes hold a compaction
 * signature (`compact` — compact_boundary, compacted, compaction —, `state_snapshot`,
 * `condensation`) or cannot be searched (a zip `.eval`, gzip); every other file counts as a
 * session without a compaction after one byte search. Nothing is kept between files.
 */
import { CATEGORIES, type Category } from '../categories';
import { importFile } from '../formats/import';
import { formatById } from '../formats/registry';
import { sourceFromBytes } from '../read/source';
import { detect } from '../formats/detect';
import { agentEvents, AGENT_LABEL } from './agent';
import { cacheWriteLine } from './labels';
import { ledgerChecks } from './checks';
import type { LedgerEvent } from './types';

/** The agent a format's sessions come from, as the census names it (the ledger's labels). */
const FORMAT_AGENT: Record<string, string> = {
  'claude-code': AGENT_LABEL['claude-code-compact'],
  'claude-code-web': AGENT_LABEL['claude-code-compact'],
  'claude-code-sdk': AGENT_LABEL['claude-code-compact'],
  'codex-cli': AGENT_LABEL['codex-compacted'],
  'gemini-cli': AGENT_LABEL['gemini-state-snapshot'],
  'gemini-api': AGENT_LABEL['gemini-state-snapshot'],
  'anthropic-messages': AGENT_LABEL['anthropic-compaction'],
  'openai-responses': AGENT_LABEL['openai-compaction'],
  openhands: AGENT_LABEL['openhands-condensation'],
  'inspect-ai': AGENT_LABEL['inspect-compaction'],
};

export function agentOfFormat(format: string | undefined): string {
  if (!format) return 'unknown';
  return FORMAT_AGENT[format] ?? formatById(format)?.label ?? format;
}

export interface CensusInput {
  path: string;
  /** The format when the caller knows it (discovery sniffed it); else detected on import. */
  format?: string;
  /** Reads the file (tests count reads). */
  read: () => Uint8Array;
  /** The session's ledger events, when the caller has them already (a library of parsed transcripts): nothing is read. */
  events?: readonly LedgerEvent[];
}

export interface CensusRow {
  agent: string;
  sessions: number;
  /** Sessions with at least one compaction of their own. */
  sessionsCompacted: number;
  compactions: number;
  /** Median tokens after ÷ tokens before, over the compactions with both. */
  medianRatio: number | null;
  /** Median share kept per category over the compactions whose span held such items (null: none did). */
  medianSurvival: Record<Category, number | null>;
  /** Items over all compactions, per category: kept and of (the medians' totals). */
  survivalTotals: Record<Category, { kept: number; of: number }>;
  /**
   * Cache writes the next calls made after them: tokens, summed over the compactions whose next
   * call recorded its usage (`cacheWriteRecorded` of them; a compaction with no call after it in the
   * file has no figure, and is not counted as a zero).
   */
  cacheWriteTokens: number;
  /** USD of those writes; null when one of them is on a model without a price. */
  cacheWriteUsd: number | null;
  /** How many of the compactions had a next call that recorded its cache write. */
  cacheWriteRecorded: number;
}

export interface Census {
  rows: CensusRow[];
  files: number;
  /** Files imported in full (the others had no compaction signature). */
  parsed: number;
  skipped: Array<{ path: string; reason: string }>;
}

export interface CensusProgress {
  done: number;
  total: number;
  parsed: number;
  path: string;
}

const SIGNATURES = ['compact', 'state_snapshot', 'condensation'].map((s) => new TextEncoder().encode(s));

/** Does the file's text hold a compaction signature? (Compressed files cannot be searched: true.) */
export function mayHoldCompaction(bytes: Uint8Array): boolean {
  const gzip = bytes[0] === 0x1f && bytes[1] === 0x8b;
  const zip = bytes[0] === 0x50 && bytes[1] === 0x4b;
  if (gzip || zip) return true;
  return SIGNATURES.some((s) => indexOfBytes(bytes, s) >= 0);
}

/** First index of `needle` in `hay` (Uint8Array.indexOf finds each candidate first byte natively). */
function indexOfBytes(hay: Uint8Array, needle: Uint8Array): number {
  const last = hay.length - needle.length;
  for (let i = hay.indexOf(needle[0]); i >= 0 && i <= last; i = hay.indexOf(needle[0], i + 1)) {
    let k = 1;
    while (k < needle.length && hay[i + k] === needle[k]) k++;
    if (k === needle.length) return i;
  }
  return -1;
}

/** The format of a file that holds no compaction, from its head (undefined when no format claims it). */
function detectFormat(name: string, bytes: Uint8Array): string | undefined {
  try {
    return detect(sourceFromBytes(name, bytes)).format.id;
  } catch {
    return undefined;
  }
}

export function median(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

interface Acc {
  sessions: number;
  sessionsCompacted: number;
  events: LedgerEvent[];
}

/**
 * Counts sessions one at a time: runCensus reads its files synchronously (the CLI), the app's
 * worker fetches each from the local API first (lib/engine/ledger.ts sessionsCensus). Both feed
 * the same tally, so the same files give the same table.
 */
export function censusTally() {
  const acc = new Map<string, Acc>();
  const get = (agent: string) => {
    let a = acc.get(agent);
    if (!a) acc.set(agent, (a = { sessions: 0, sessionsCompacted: 0, events: [] }));
    return a;
  };
  const skipped: Census['skipped'] = [];
  let parsed = 0;
  let files = 0;
  const checks = ledgerChecks();
  return {
    get parsed() {
      return parsed;
    },
    /** One session: its events when known, else its bytes (`read` may throw: the session is skipped with the reason). */
    add(input: Pick<CensusInput, 'path' | 'format' | 'events'>, read: () => Uint8Array): void {
      files++;
      try {
        if (input.events) {
          const a = get(agentOfFormat(input.format));
          a.sessions++;
          if (input.events.length) a.sessionsCompacted++;
          a.events.push(...input.events);
          return;
        }
        const bytes = read();
        const name = input.path.split(/[\\/]/).pop() ?? input.path;
        if (!mayHoldCompaction(bytes)) get(agentOfFormat(input.format ?? detectFormat(name, bytes))).sessions++;
        else {
          parsed++;
          const { transcript } = importFile(sourceFromBytes(name, bytes), { ...(input.format && { format: input.format }) });
          const events = agentEvents(transcript, checks);
          const a = get(agentOfFormat(transcript.format));
          a.sessions++;
          if (events.length) a.sessionsCompacted++;
          a.events.push(...events);
        }
      } catch (e) {
        skipped.push({ path: input.path, reason: e instanceof Error ? e.message.split('\n')[0] : String(e) });
      }
    },
    result(): Census {
      return { rows: censusRows(acc), files, parsed, skipped };
    },
  };
}

export function runCensus(inputs: readonly CensusInput[], onProgress?: (p: CensusProgress) => void): Census {
  const tally = censusTally();
  inputs.forEach((input, i) => {
    tally.add(input, input.read);
    onProgress?.({ done: i + 1, total: inputs.length, parsed: tally.parsed, path: input.path });
  });
  return tally.result();
}

/** A session the agents' stores (or a named folder) hold, as the census reads it: the format is the store's agent, or what a folder's file was recognised as. */
export function censusInputOf(s: { path: string; agent: string; format?: string }): { path: string; format?: string } {
  const format = s.agent !== 'folder' ? s.agent : s.format;
  return { path: s.path, ...(format && { format }) };
}

function censusRows(acc: Map<string, Acc>): CensusRow[] {
  const rows: CensusRow[] = [...acc.entries()].map(([agent, a]) => {
    const ratios = a.events.filter((e) => e.tokensBefore && e.tokensAfter !== null).map((e) => e.tokensAfter! / e.tokensBefore!);
    const medianSurvival = {} as CensusRow['medianSurvival'];
    const survivalTotals = {} as CensusRow['survivalTotals'];
    for (const c of CATEGORIES) {
      const shares = a.events.filter((e) => e.survival && e.survival[c].of > 0).map((e) => e.survival![c].kept / e.survival![c].of);
      medianSurvival[c] = median(shares);
      survivalTotals[c] = a.events.reduce((t, e) => (e.survival ? { kept: t.kept + e.survival[c].kept, of: t.of + e.survival[c].of } : t), { kept: 0, of: 0 });
    }
    return {
      agent,
      sessions: a.sessions,
      sessionsCompacted: a.sessionsCompacted,
      compactions: a.events.length,
      medianRatio: median(ratios),
      medianSurvival,
      survivalTotals,
      ...cacheWrites(a.events),
    };
  });
  rows.sort((x, y) => y.compactions - x.compactions || y.sessions - x.sessions || x.agent.localeCompare(y.agent));
  return rows;
}

function cacheWrites(events: readonly LedgerEvent[]): Pick<CensusRow, 'cacheWriteTokens' | 'cacheWriteUsd' | 'cacheWriteRecorded'> {
  const recorded = events.filter((e) => e.cacheWriteAfter !== null);
  return {
    cacheWriteTokens: recorded.reduce((n, e) => n + e.cacheWriteAfter!, 0),
    cacheWriteUsd: recorded.some((e) => e.cacheWriteUsd === null) ? null : recorded.reduce((n, e) => n + e.cacheWriteUsd!, 0),
    cacheWriteRecorded: recorded.length,
  };
}

const pct = (x: number | null) => (x === null ? '-' : `${(x * 100).toFixed(0)} %`);

/** The per-agent table (CLI). */
export function renderCensus(c: Census): string {
  const head = ['agent', 'sessions', 'compacted', 'compactions', 'after/before', ...CATEGORIES, 'cache writes'];
  const rows = c.rows.map((r) => [
    r.agent,
    String(r.sessions),
    String(r.sessionsCompacted),
    String(r.compactions),
    r.medianRatio === null ? '-' : r.medianRatio.toFixed(2),
    ...CATEGORIES.map((k) => pct(r.medianSurvival[k])),
    cacheWriteLine(r) ?? '-',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((x, i) => (i === 0 ? x.padEnd(widths[i]) : x.padStart(widths[i]))).join('  ');
  const out = [line(head), ...rows.map(line)];
  out.push('', `${c.files} session file(s), ${c.parsed} parsed (the others hold no compaction)${c.skipped.length ? `, ${c.skipped.length} skipped` : ''}. Survival: the median share of each category's items a compaction's span held that is still in what the model is sent next. Cache writes: what the call after each compaction recorded ("k of n" when only k of the n compactions had a call after them in the file).`);
  return out.join('\n');
}
