/** The ledger as text (CLI `inspect FILE --compactions`): one block per event, its survival as a small table. */
import type { LedgerEvent } from './types';
import type { Category } from './survival';

const fmt = (n: number) => n.toLocaleString('en-US');
const usd = (n: number | null) => (n === null ? '-' : n < 0.01 && n > 0 ? `$${n.toFixed(4)}` : `$${n.toFixed(2)}`);
export const CATEGORY_ORDER: readonly Category[] = ['instructions', 'paths', 'commands', 'errors', 'figures'];

export function breakEvenText(e: Pick<LedgerEvent, 'breakEvenCalls' | 'callsAfter'>): string {
  if (e.breakEvenCalls === null) return '-';
  if (e.breakEvenCalls === 'never') return e.callsAfter !== null ? `never (within the ${fmt(e.callsAfter)} calls after it)` : 'never';
  return `after ${fmt(e.breakEvenCalls)} call${e.breakEvenCalls === 1 ? '' : 's'}`;
}

export function renderLedger(events: readonly LedgerEvent[], options: { maxLost?: number } = {}): string {
  if (events.length === 0) return 'No compaction in this session.';
  const lines: string[] = [];
  events.forEach((e, i) => {
    lines.push(`#${i + 1} ${e.label} · ${e.by} · trigger ${e.trigger}${e.triggerLevel?.ofWindow !== undefined ? ` at ${(e.triggerLevel.ofWindow * 100).toFixed(1)} % of the window` : ''}${e.policy ? ` · ${e.policy}` : ''} · before message ${e.atMessage} (turn ${e.atTurn + 1})`);
    const rows: Array<[string, string]> = [
      ['tokens before', e.tokensBefore === null ? '-' : `${fmt(e.tokensBefore)} (${e.tokensBeforeFrom})`],
      ['tokens after', e.tokensAfter === null ? '-' : `${fmt(e.tokensAfter)} (${e.tokensAfterFrom === 'recorded' ? 'recorded, next call' : e.tokensAfterFrom})`],
      ['duration', e.durationMs === null ? 'not recorded' : `${fmt(e.durationMs)} ms`],
      ['model', e.model ?? '-'],
      ['compaction call', `${usd(e.costUsd)}${e.costFrom ? ` (${e.costFrom})` : ''}`],
      ['cache write after', e.cacheWriteAfter === null ? '-' : `${fmt(e.cacheWriteAfter)} tokens, ${usd(e.cacheWriteUsd)}`],
      ['break-even', breakEvenText(e)],
      ['summary', e.summary === null ? '-' : `${fmt(e.summary.length)} characters`],
    ];
    if (e.pinsLost.length) rows.push(['PINNED LOST', e.pinsLost.join(' · ')]);
    for (const [k, v] of rows) lines.push(`  ${k.padEnd(18)} ${v}`);
    if (e.survival) {
      lines.push(`  ${'kept'.padEnd(18)} ${CATEGORY_ORDER.map((c) => `${c} ${e.survival![c].kept}/${e.survival![c].of}`).join(' · ')}`);
      for (const c of CATEGORY_ORDER) {
        const lost = e.survival[c].lost;
        const max = options.maxLost ?? 5;
        for (const l of lost.slice(0, max)) lines.push(`    lost ${c.slice(0, -1)}: ${l.text.length > 100 ? l.text.slice(0, 99) + '…' : l.text}${l.turn !== undefined ? ` (turn ${l.turn + 1})` : ''}`);
        if (lost.length > max) lines.push(`    … ${lost.length - max} more ${c}`);
      }
    }
  });
  return lines.join('\n');
}
