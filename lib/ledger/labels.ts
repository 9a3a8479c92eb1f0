/** Words the ledger is shown with, in the CLI and the inspector alike (no imports: the main thread reads it). */
import type { CensusRow } from './census';
import type { LedgerEvent } from './types';

/** The categories in the order reports list them (lib/categories CATEGORIES). */
export const CATEGORY_LIST = ['instructions', 'paths', 'commands', 'errors', 'figures'] as const;

const fmt = (n: number) => n.toLocaleString('en-US');

export function breakEvenText(e: Pick<LedgerEvent, 'breakEvenCalls' | 'callsAfter'>): string {
  if (e.breakEvenCalls === null) return '-';
  if (e.breakEvenCalls === 'never') return e.callsAfter !== null ? `never (within the ${fmt(e.callsAfter)} calls after it)` : 'never';
  return `after ${fmt(e.breakEvenCalls)} call${e.breakEvenCalls === 1 ? '' : 's'}`;
}

/**
 * The census' cache-write figure as text, the same in the CLI's table and the app's: nothing when
 * there was no compaction, "not recorded" when no compaction had a call after it, else the tokens,
 * their price ("no price" for an unpriced model) and, when some compactions had no figure, how many
 * had one.
 */
export function cacheWriteText(r: Pick<CensusRow, 'compactions' | 'cacheWriteTokens' | 'cacheWriteUsd' | 'cacheWriteRecorded'>): { tokens: string; usd: string; of: string } | null {
  if (!r.compactions) return null;
  if (!r.cacheWriteRecorded) return { tokens: 'not recorded', usd: '', of: '' };
  return {
    tokens: r.cacheWriteTokens.toLocaleString('en-US'),
    usd: r.cacheWriteUsd === null ? '(no price)' : `($${r.cacheWriteUsd.toFixed(2)})`,
    of: r.cacheWriteRecorded < r.compactions ? `${r.cacheWriteRecorded} of ${r.compactions}` : '',
  };
}

/** cacheWriteText in one line (the CLI's cell; the app shows the same words). */
export function cacheWriteLine(r: Parameters<typeof cacheWriteText>[0]): string | null {
  const t = cacheWriteText(r);
  return t && [t.tokens, t.usd, t.of && `· ${t.of}`].filter(Boolean).join(' ');
}
