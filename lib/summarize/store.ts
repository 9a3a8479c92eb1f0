/**
 * Summary artifacts ↔ the Dexie `summaries` table (lib/db/schema.ts SummaryRow). The projection is
 * synchronous, so the engine preloads a transcript's rows into a `SummaryStore` (a Map) and
 * persists each new or edited artifact as it is made. Rows read back are untrusted: a row that
 * does not parse is skipped, never a crash.
 */
import { z } from 'zod';
import type { SummaryRow } from '../db/schema';
import type { StoredSummary, SummaryFailure, SummaryStore } from './run';

export type StoredSummaryRow = SummaryRow & Pick<StoredSummary, 'keyId' | 'model' | 'template'> & { usage?: StoredSummary['usage']; edited?: boolean; failure?: FailureRecord; native?: StoredSummary['native'] };

/** Why the producer failed for a key (the last run's reason, shown until the next run). */
export interface FailureRecord {
  code: SummaryFailure['code'];
  message: string;
}

/**
 * A failed summary is stored under the artifact's own id with empty text and the reason: the next
 * preview's lookup returns '' for it (the summarize reducer falls back as the user chose), and a
 * later success for the same key overwrites the row.
 */
export function failureToRow(f: SummaryFailure, artifactId: string, transcriptId: string, producer: string, template: string, createdAt: string): StoredSummaryRow {
  return {
    id: artifactId,
    key: artifactId,
    transcriptId,
    stepId: f.stepId,
    span: [f.span[0], f.span[1]],
    text: '',
    producer,
    tokens: 0,
    createdAt,
    keyId: f.keyId,
    model: '',
    template,
    failure: { code: f.code, message: f.message },
  };
}

const FailureRow = z.object({
  id: z.string(),
  keyId: z.string(),
  stepId: z.string(),
  span: z.tuple([z.number().int(), z.number().int()]),
  failure: z.object({ code: z.string(), message: z.string() }),
});

/** A stored failure row back as (artifact id, failure); anything else (artifacts, bad rows) → undefined. */
export function rowToFailure(row: unknown): { id: string; failure: SummaryFailure } | undefined {
  const r = FailureRow.safeParse(row);
  if (!r.success) return undefined;
  const { id, keyId, stepId, span, failure } = r.data;
  return { id, failure: { keyId, stepId, span, code: failure.code as SummaryFailure['code'], message: failure.message } };
}

export function storedToRow(s: StoredSummary, transcriptId: string, tokens: number, createdAt: string): StoredSummaryRow {
  return {
    id: s.id,
    key: s.id,
    transcriptId,
    stepId: s.stepId,
    span: [s.span[0], s.span[1]],
    text: s.text,
    producer: s.producer,
    tokens,
    createdAt,
    keyId: s.keyId,
    model: s.model,
    template: s.template,
    ...(s.usage && { usage: s.usage }),
    ...(s.edited && { edited: true }),
    ...(s.native && { native: s.native }),
  };
}

const Row = z.object({
  id: z.string(),
  keyId: z.string(),
  stepId: z.string(),
  span: z.tuple([z.number().int(), z.number().int()]),
  text: z.string(),
  producer: z.string(),
  model: z.string(),
  template: z.string(),
  usage: z.object({ input: z.number().optional(), output: z.number().optional() }).optional(),
  edited: z.boolean().optional(),
  native: z.union([z.object({ api: z.enum(['openai-responses-compact', 'anthropic-compact-20260112']), item: z.unknown() }), z.object({ fellBack: z.string() })]).optional(),
});

export function rowToStored(row: unknown): StoredSummary | undefined {
  // A failure row is not an artifact: a run must ask the producer again for its key.
  if (rowToFailure(row)) return undefined;
  const r = Row.safeParse(row);
  if (!r.success) return undefined;
  const { id, keyId, stepId, span, text, producer, model, template, usage, edited, native } = r.data;
  return { id, keyId, stepId, span, text, producer, model, template, ...(usage && { usage }), ...(edited && { edited }), ...(native && { native: native as StoredSummary['native'] }) };
}

/**
 * A store seeded from rows; `persist` is called for every artifact set (produced or edited).
 * Persisting is fire-and-forget from the store's point of view: the caller awaits `flush()`.
 */
export function preloadedStore(rows: readonly unknown[], persist: (s: StoredSummary) => Promise<void>): SummaryStore & { flush(): Promise<void>; values(): StoredSummary[] } {
  const map = new Map<string, StoredSummary>();
  for (const row of rows) {
    const s = rowToStored(row);
    if (s) map.set(s.id, s);
  }
  const pending: Promise<void>[] = [];
  return {
    get: (id) => map.get(id),
    set: (id, s) => {
      map.set(id, s);
      pending.push(persist(s));
    },
    flush: async () => {
      await Promise.all(pending.splice(0));
    },
    values: () => [...map.values()],
  };
}

/** The user edited a summary before applying it: the same key now holds their text. */
export function editStoredSummary(store: SummaryStore, id: string, text: string): StoredSummary | undefined {
  const s = store.get(id);
  if (!s || !text.trim()) return undefined;
  const edited: StoredSummary = { ...s, text: text.trim(), edited: true };
  store.set(id, edited);
  return edited;
}
