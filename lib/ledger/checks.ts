/** The survival and pin checks every ledger runs with (lib/categories; pins: lib/compaction/pins.ts). */
import type { LedgerOptions } from '.';
import { pinsLostIn, type Pin } from '../compaction/pins';
import { spanSurvival } from './survival';

export function ledgerChecks(pins: readonly Pin[] = []): Pick<LedgerOptions, 'survival' | 'pinsLost'> {
  return {
    survival: spanSurvival,
    ...(pins.length > 0 && { pinsLost: (log, span, text) => pinsLostIn(log, pins, span, text) }),
  };
}
