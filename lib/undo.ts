/**
 * How long the undo toast after a delete stays up. Outside lib/db (worker-only: Dexie) so the library page
 * can import it; lib/db/repo.ts bases its purge ages on it.
 */
export const UNDO_WINDOW_MS = 8_000;
