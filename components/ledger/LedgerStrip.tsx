'use client';

import type { LedgerEvent } from '@/lib/ledger/types';
import { formatTokens } from '../ui/format';
import { useLedger } from './CompactionsTab';

/**
 * The compactions on the timeline (issue 26): a marker per ledger event under the chart, at its
 * bar over the whole session, aligned with the chart's plot area. A click opens it in the
 * Compactions tab and shows its turn. The agent's own are teal, ours blue; red when a pin was lost.
 */
export function LedgerStrip({ events, barOf, bars, onOpen }: { events: readonly LedgerEvent[]; barOf: (e: LedgerEvent) => number; bars: number; onOpen: (e: LedgerEvent) => void }) {
  if (events.length === 0 || bars === 0) return null;
  return (
    <div className="relative h-5" style={{ marginLeft: 52, marginRight: 14 }} data-testid="ledger-strip" aria-label="Compactions on the timeline">
      {events.map((e, i) => {
        const b = Math.max(0, Math.min(bars - 1, barOf(e)));
        const left = ((b + 0.5) / bars) * 100;
        const label = `Compaction ${i + 1} by ${e.label} before turn ${e.atTurn + 1}${e.tokensBefore !== null && e.tokensAfter !== null ? `: ${formatTokens(e.tokensBefore)} → ${formatTokens(e.tokensAfter)} tokens` : ''}${e.pinsLost.length ? ' (lost a pin)' : ''}`;
        const colour = e.pinsLost.length ? 'bg-red-600' : e.by === 'agent' ? 'bg-teal-500' : 'bg-blue-600';
        return (
          <button
            key={e.id}
            type="button"
            data-testid="ledger-marker"
            data-event={e.id}
            title={label}
            aria-label={label}
            onClick={() => onOpen(e)}
            className={`absolute top-0.5 h-3.5 w-3.5 -translate-x-1/2 rotate-45 rounded-sm ${colour} focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-500`}
            style={{ left: `${left}%` }}
          />
        );
      })}
    </div>
  );
}

/**
 * The strip with the shown version's ledger (the tab's query: fetched once for both). `later`: the
 * Plan panel's preview is on its way — the ledger runs on the same worker, so the strip asks once the
 * numbers are shown (after an Apply it went first and the new version's numbers waited; issue 31).
 */
export function InspectorLedgerStrip({ id, versionId, stamp, barOf, bars, onOpen, later = false }: { id: string; versionId: string; stamp: string; barOf: (e: LedgerEvent) => number; bars: number; onOpen: (e: LedgerEvent) => void; later?: boolean }) {
  const ledger = useLedger(id, versionId, stamp, !later);
  return ledger.data ? <LedgerStrip events={ledger.data.events} barOf={barOf} bars={bars} onOpen={onOpen} /> : null;
}
