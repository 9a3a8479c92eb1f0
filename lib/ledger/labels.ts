/** Words the ledger is shown with, in the CLI and the inspector alike (no imports: the main thread reads it). */
import type { LedgerEvent } from './types';

/** The categories in the order reports list them (lib/categories CATEGORIES). */
export const CATEGORY_LIST = ['instructions', 'paths', 'commands', 'errors', 'figures'] as const;

const fmt = (n: number) => n.toLocaleString('en-US');

export function breakEvenText(e: Pick<LedgerEvent, 'breakEvenCalls' | 'callsAfter'>): string {
  if (e.breakEvenCalls === null) return '-';
  if (e.breakEvenCalls === 'never') return e.callsAfter !== null ? `never (within the ${fmt(e.callsAfter)} calls after it)` : 'never';
  return `after ${fmt(e.breakEvenCalls)} call${e.breakEvenCalls === 1 ? '' : 's'}`;
}
