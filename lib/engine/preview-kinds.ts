/**
 * Constants of the preview summary that the main thread needs (legends, tabs). Kept apart from
 * preview.ts because that module imports the tokenizer: a value import of it from a component
 * would put megabytes of BPE tables into the page bundle (components/main-thread-imports.test.ts).
 */
import type { LostKind } from '../compaction/lost';

/** Fates drawn on the timeline as what was taken out (kept is what remains). */
export const SAVED_FATES = ['stubbed', 'truncated', 'removed', 'deduped', 'summarized'] as const;
export type SavedFate = (typeof SAVED_FATES)[number];

export const LOST_KINDS: readonly LostKind[] = ['instruction', 'path', 'url', 'id', 'error'];

/**
 * Lost identifiers listed per kind (the Lost tab's list; the full list is in the audit record).
 * The preview sends these and the counts, not every one (issue 31: what crosses to the main thread
 * is what it shows).
 */
export const LOST_SHOWN = 100;
