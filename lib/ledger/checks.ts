/** The survival and pin checks every ledger runs with (lib/categories; pins: lib/ledger/pins.ts). */
import type { LedgerOptions } from '.';

export function ledgerChecks(): Pick<LedgerOptions, 'survival' | 'pinsLost'> {
  return {};
}
