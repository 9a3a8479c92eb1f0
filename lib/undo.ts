/**
 * The undo window after a delete (lib/db/repo.ts, delete protocol). Outside lib/db (worker-only:
 * Dexie) so the library page and the end-to-end tests can import it.
 */

/** How long the undo toast after a delete stays up (its countdown pauses while it is held). */
export const UNDO_WINDOW_MS = 8_000;

/**
 * Age past which a soft-deleted transcript is purged by anyone (start-up, another tab's purge).
 * The slack past the undo window covers a toast that fires late: browsers throttle the timers of
 * background tabs, and the deleting tab's own purge normally comes first anyway.
 */
export const PURGE_DELETED_AFTER_MS = UNDO_WINDOW_MS + 10_000;

/**
 * How often an undo toast held open (pointer or focus on it: its countdown pauses) re-stamps its
 * deletion. After the last stamp the toast lives at most this plus UNDO_WINDOW_MS (released, it
 * counts down again from the time it had left): under PURGE_DELETED_AFTER_MS, so no other tab
 * purges a deletion whose undo is still on screen.
 */
export const DELETION_RENEW_MS = 5_000;
