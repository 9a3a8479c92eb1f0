/**
 * Import warnings that mean content of the file is missing from what the app shows and counts (a
 * cut-off last line, a line that is not JSON, undecodable bytes, a truncated archive), as opposed
 * to repairs and notes (a renamed duplicate id, usage that is totals only). These are said where
 * the user looks — the import banner, the library row, the top of the inspector — not only in a
 * warnings count.
 */
import type { ImportWarning } from './types';

const LOSS_CODES = /^(truncated:|skipped:(line|record|message|event)$|decoding:)/;

export function isDataLoss(w: Pick<ImportWarning, 'code'>): boolean {
  return LOSS_CODES.test(w.code);
}

/** The stored summary of a transcript's data-loss warnings (TranscriptMeta.dataLoss), or undefined. */
export function dataLossOf(warnings: readonly ImportWarning[]): { count: number; first: string } | undefined {
  const lost = warnings.filter(isDataLoss);
  if (lost.length === 0) return undefined;
  const w = lost[0];
  // Without its closing period: the UI writes it inside a sentence.
  const message = w.message.replace(/\.\s*$/, '');
  return { count: lost.length, first: w.line !== undefined && !/\bline\b/i.test(message) ? `line ${w.line}: ${message}` : message };
}
