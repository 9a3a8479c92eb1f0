/**
 * All data access (STYLE.md §9): the only module that touches Dexie tables, and the owner of every
 * transaction. The rest of the app speaks in transcripts, messages and versions, never in rows.
 *
 * Import protocol:
 *   1. `beginImport` writes a journal row (status 'running') in its own transaction.
 *   2. `storeImport` writes meta, chunks and the original bytes in ONE transaction; the meta row
 *      is written as 'importing' and flipped to 'ready' as the transaction's last write, so a
 *      reader never sees a half-written transcript, and an abort (crash, worker terminated,
 *      DataCloneError, quota) rolls everything back.
 *   3. `recover()` on start closes journal rows still 'running' (the tab or worker died) as
 *      'interrupted' and removes any leftovers: metas that never became 'ready', chunks and
 *      originals without a meta, and soft-deleted transcripts whose undo window ended.
 *
 * Delete protocol (several tabs share one database): `deleteTranscript` stamps `deletedAt` and the
 * deleting tab shows an undo toast for UNDO_WINDOW_MS. When the toast expires, that tab purges its
 * own ids (`purgeDeleted(ids)`). A tab starting up purges only deletions older than
 * PURGE_DELETED_AFTER_MS: a younger one may still have its undo toast up in another tab. A toast
 * held open (pointer or focus on it: its countdown pauses) keeps its deletion young by re-stamping
 * it (`renewDeletion`) every DELETION_RENEW_MS, so no other tab purges what it still offers back.
 */
import type { Version } from '../compaction/types';
import type { Message } from '../model/types';
import {
  CHUNK_SIZE,
  ContextscopeDB,
  type ChunkRow,
  type DetailsRow,
  type ImportRow,
  type LayoutRow,
  type OriginalRow,
  type ReplayRow,
  type SummaryRow,
  type TranscriptMeta,
} from './schema';

import { DELETION_RENEW_MS, PURGE_DELETED_AFTER_MS, UNDO_WINDOW_MS } from '../undo';

/** The undo toast's times and the purge age (lib/undo.ts, shared with the library page). */
export { DELETION_RENEW_MS, PURGE_DELETED_AFTER_MS, UNDO_WINDOW_MS };

/** Options of the purges, for tests: the clock. */
export interface PurgeOptions {
  /** Current time in ms since the epoch (default Date.now()). */
  now?: number;
}

/** A deletion old enough that no undo toast can still offer it back (an unreadable stamp counts as old). */
function deletionExpired(deletedAt: string, now: number): boolean {
  const at = Date.parse(deletedAt);
  return !(now - at < PURGE_DELETED_AFTER_MS);
}

export interface RecoveryReport {
  /** Imports that were running when the app last stopped. */
  interrupted: ImportRow[];
  /** Transcript ids removed because they never finished importing. */
  removedPartial: string[];
  /** Chunk/original rows removed because no transcript owned them. */
  removedOrphans: number;
  /** Soft-deleted transcripts purged (deleted longer ago than PURGE_DELETED_AFTER_MS). */
  purgedDeleted: string[];
}

export interface StorageEstimate {
  usage: number;
  quota: number;
}

/** What an import hands to storage: the meta (without status), the original bytes and the messages. */
export interface ImportPayload {
  meta: Omit<TranscriptMeta, 'status' | 'chunkCount' | 'deletedAt'>;
  original: Uint8Array;
  messages: readonly Message[];
  details: Omit<DetailsRow, 'id'>;
  /** The timeline built from these messages (optional: tests store without one). */
  layout?: Omit<LayoutRow, 'id'>;
}

export function chunkMessages(transcriptId: string, messages: readonly Message[]): ChunkRow[] {
  const rows: ChunkRow[] = [];
  for (let i = 0, index = 0; i < messages.length; i += CHUNK_SIZE, index++) {
    rows.push({ transcriptId, index, messages: messages.slice(i, i + CHUNK_SIZE) as Message[] });
  }
  return rows;
}

export class Repo {
  constructor(readonly db: ContextscopeDB) {}

  // ── Import ────────────────────────────────────────────────────────────────────────────────

  async beginImport(fileName: string, size: number): Promise<string> {
    const id = `imp-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    await this.db.imports.put({ id, fileName, size, startedAt: new Date().toISOString(), status: 'running' });
    return id;
  }

  /**
   * Store a whole import atomically. A transcript with the same id that was soft-deleted is
   * replaced; a live one is replaced too (same content id = same file, re-imported).
   */
  async storeImport(journalId: string | null, payload: ImportPayload): Promise<TranscriptMeta> {
    const { db } = this;
    const id = payload.meta.id;
    const chunks = chunkMessages(id, payload.messages);
    const originalId = payload.meta.originalId ?? id;
    const meta: TranscriptMeta = { ...payload.meta, originalId, chunkCount: chunks.length, status: 'importing' };
    const original: OriginalRow = { id: originalId, fileName: payload.meta.fileName, bytes: payload.original };
    await db.transaction('rw', [db.transcripts, db.originals, db.chunks, db.details, db.layouts, db.imports], async () => {
      await db.transcripts.put(meta);
      await db.chunks.where('transcriptId').equals(id).delete();
      await db.chunks.bulkPut(chunks);
      await db.details.put({ id, ...payload.details });
      if (payload.layout) await db.layouts.put({ id, ...payload.layout });
      else await db.layouts.delete(id);
      // Another conversation of the same container may have stored these bytes already.
      if ((await db.originals.where('id').equals(originalId).count()) === 0) await db.originals.put(original);
      if (journalId) await db.imports.update(journalId, { status: 'done', transcriptId: id, finishedAt: new Date().toISOString() });
      // Last write of the transaction: from here on the transcript is visible.
      await db.transcripts.update(id, { status: 'ready' });
    });
    return { ...meta, status: 'ready' };
  }

  /**
   * Clean what an interrupted session left behind (see the module comment). Run once on start.
   * Soft deletes younger than PURGE_DELETED_AFTER_MS stay: another open tab may still undo them.
   */
  async recover(options: PurgeOptions = {}): Promise<RecoveryReport> {
    const { db } = this;
    const now = options.now ?? Date.now();
    return db.transaction('rw', [db.transcripts, db.originals, db.chunks, db.details, db.layouts, db.imports, db.versions, db.summaries, db.replays], async () => {
      const running = await db.imports.where('status').equals('running').toArray();
      const finishedAt = new Date().toISOString();
      for (const r of running) await db.imports.update(r.id, { status: 'interrupted', finishedAt });

      const partial = await db.transcripts.where('status').equals('importing').primaryKeys();
      for (const id of partial) await this.purgeInTx(id);

      const deleted = (await db.transcripts.toArray()).filter((m) => m.deletedAt !== undefined && deletionExpired(m.deletedAt, now)).map((m) => m.id);
      for (const id of deleted) await this.purgeInTx(id);

      const metas = await db.transcripts.toArray();
      const live = new Set(metas.map((m) => m.id));
      const liveOriginals = new Set(metas.map((m) => m.originalId ?? m.id));
      const orphanChunks = (await db.chunks.toCollection().primaryKeys()).filter(([tid]) => !live.has(tid));
      const orphanOriginals = (await db.originals.toCollection().primaryKeys()).filter((id) => !liveOriginals.has(id));
      const orphanDetails = (await db.details.toCollection().primaryKeys()).filter((id) => !live.has(id));
      const orphanLayouts = (await db.layouts.toCollection().primaryKeys()).filter((id) => !live.has(id));
      const orphanReplays = (await db.replays.toCollection().primaryKeys()).filter(([tid]) => !live.has(tid));
      await db.chunks.bulkDelete(orphanChunks);
      await db.originals.bulkDelete(orphanOriginals);
      await db.details.bulkDelete(orphanDetails);
      await db.layouts.bulkDelete(orphanLayouts);
      await db.replays.bulkDelete(orphanReplays);

      return {
        interrupted: running.map((r) => ({ ...r, status: 'interrupted' as const, finishedAt })),
        removedPartial: partial,
        removedOrphans: orphanChunks.length + orphanOriginals.length + orphanDetails.length + orphanLayouts.length + orphanReplays.length,
        purgedDeleted: deleted,
      };
    });
  }

  /** Imports that were cut off by a closed tab or a killed worker (for "your import of X was interrupted"). */
  async unfinishedImports(): Promise<ImportRow[]> {
    return this.db.imports.where('status').equals('interrupted').reverse().sortBy('startedAt');
  }

  async dismissImport(journalId: string): Promise<void> {
    await this.db.imports.delete(journalId);
  }

  // ── Library ───────────────────────────────────────────────────────────────────────────────

  /** Transcripts that finished importing and are not deleted, newest first. */
  async listTranscripts(): Promise<TranscriptMeta[]> {
    const rows = await this.db.transcripts.where('status').equals('ready').toArray();
    return rows.filter((m) => m.deletedAt === undefined).sort((a, b) => (a.importedAt < b.importedAt ? 1 : a.importedAt > b.importedAt ? -1 : 0));
  }

  /** Whether any stored original was imported under the earlier content hash (ids starting with "t"). */
  async hasLegacyIds(): Promise<boolean> {
    return (await this.db.originals.where('id').startsWith('t').limit(1).count()) > 0;
  }

  /** Whether an original file is stored under this id (without reading its bytes). */
  async hasOriginal(originalId: string): Promise<boolean> {
    return (await this.db.originals.where('id').equals(originalId).count()) > 0;
  }

  /** The meta of a visible transcript (ready, not deleted), or undefined. */
  async getMeta(id: string): Promise<TranscriptMeta | undefined> {
    const m = await this.db.transcripts.get(id);
    return m && m.status === 'ready' && m.deletedAt === undefined ? m : undefined;
  }

  async renameTranscript(id: string, title: string): Promise<void> {
    const clean = title.trim();
    if (clean === '') return;
    await this.db.transcripts.update(id, { title: clean.slice(0, 500) });
  }

  /** Soft delete: hidden at once, restorable with `undoDelete` until purged. */
  async deleteTranscript(id: string): Promise<void> {
    await this.db.transcripts.update(id, { deletedAt: new Date().toISOString() });
  }

  /**
   * Keep a soft deletion young: its undo is still on screen (a held toast). Only a transcript that
   * is still deleted is stamped; one undone or purged meanwhile is left as it is. False then.
   */
  async renewDeletion(id: string, options: PurgeOptions = {}): Promise<boolean> {
    const at = new Date(options.now ?? Date.now()).toISOString();
    return (await this.db.transcripts.where('id').equals(id).and((m) => m.deletedAt !== undefined).modify({ deletedAt: at })) > 0;
  }

  /** Restore a soft-deleted transcript. False when there is nothing to restore (purged already). */
  async undoDelete(id: string): Promise<boolean> {
    // Dexie removes a property when it is updated to undefined.
    return (await this.db.transcripts.update(id, { deletedAt: undefined })) > 0;
  }

  /** Remove a transcript and everything derived from it. */
  async purge(id: string): Promise<void> {
    const { db } = this;
    await db.transaction('rw', [db.transcripts, db.originals, db.chunks, db.details, db.layouts, db.versions, db.summaries, db.replays], () => this.purgeInTx(id));
  }

  /**
   * Close undo windows: purge `ids` (the caller's own deletions, whose toast expired) now, and any
   * other soft delete older than PURGE_DELETED_AFTER_MS. Another tab's recent deletion stays
   * restorable. An id that is no longer deleted (undone, or re-imported) is left alone: the check
   * and the purge share one transaction, so an undo in another tab cannot fall between them.
   */
  async purgeDeleted(ids: readonly string[] = [], options: PurgeOptions = {}): Promise<string[]> {
    const { db } = this;
    const now = options.now ?? Date.now();
    const mine = new Set(ids);
    return db.transaction('rw', [db.transcripts, db.originals, db.chunks, db.details, db.layouts, db.versions, db.summaries, db.replays], async () => {
      const purged = (await db.transcripts.toArray()).filter((m) => m.deletedAt !== undefined && (mine.has(m.id) || deletionExpired(m.deletedAt, now))).map((m) => m.id);
      for (const id of purged) await this.purgeInTx(id);
      return purged;
    });
  }

  private async purgeInTx(id: string): Promise<void> {
    const { db } = this;
    const meta = await db.transcripts.get(id);
    const originalId = meta?.originalId ?? id;
    await db.transcripts.delete(id);
    const sharers = await db.transcripts.where('originalId').equals(originalId).count();
    if (sharers === 0) await db.originals.delete(originalId);
    await db.chunks.where('transcriptId').equals(id).delete();
    await db.details.delete(id);
    await db.layouts.delete(id);
    await db.versions.where('transcriptId').equals(id).delete();
    await db.summaries.where('transcriptId').equals(id).delete();
    await db.replays.where('transcriptId').equals(id).delete();
  }

  // ── Replays (lib/engine/replay.ts ReplayStore) ────────────────────────────────────────────

  /** The stored replays of a log made by `build` with these options (`model|cacheTtl`). */
  async storedReplays(transcriptId: string, build: string, optionsKey: string): Promise<ReplayRow[]> {
    const prefix = `${build}|${optionsKey}|`;
    return this.db.replays.where('[transcriptId+key]').between([transcriptId, prefix], [transcriptId, prefix + '\uffff']).toArray();
  }

  /**
   * Keep replays of a log, in one transaction: only while the log is stored and not deleted (a
   * replay that finishes after its log was deleted is dropped), and the log's rows of other builds
   * go (no other build reads them). A log keeps the replays of at most
   * `REPLAY_OPTION_SETS_PER_LOG` models and cache lifetimes (sets): the one being written, the log's
   * own (no model or lifetime chosen), and the others whose head (the `''` row, written with a set's
   * first replay) is newest; the rest go, whole. A set is ~26 bytes per call per policy (~90 MB at
   * 100,000 turns), and each model tried on the Replay page is another set.
   */
  async storeReplays(rows: readonly ReplayRow[]): Promise<void> {
    if (rows.length === 0) return;
    const { db } = this;
    const transcriptId = rows[0].transcriptId;
    if (rows.some((r) => r.transcriptId !== transcriptId)) throw new Error('storeReplays: rows of one log at a time');
    await db.transaction('rw', [db.transcripts, db.replays], async () => {
      const meta = await db.transcripts.get(transcriptId);
      if (!meta || meta.status !== 'ready' || meta.deletedAt !== undefined) return;
      const builds = new Set(rows.map((r) => r.build));
      await db.replays.where('transcriptId').equals(transcriptId).and((r) => !builds.has(r.build)).delete();
      await db.replays.bulkPut(rows as ReplayRow[]);
      // The cap, by keys alone (of the other sets only the heads are read, for their time).
      const keys = (await db.replays.where('transcriptId').equals(transcriptId).primaryKeys()) as [string, string][];
      const sets = new Map<string, string[]>();
      for (const [, key] of keys) {
        const set = replaySetOf(key);
        (sets.get(set) ?? sets.set(set, []).get(set)!).push(key);
      }
      if (sets.size <= REPLAY_OPTION_SETS_PER_LOG) return;
      // Kept whatever their age: the sets being written, and the log's own model and cache lifetime
      // (no `m` in the URL: the view the Replay page and the overlay open with).
      const kept = new Set([...sets.keys()].filter((set) => set.endsWith('|||') || rows.some((r) => replaySetOf(r.key) === set)));
      const others = [...sets.keys()].filter((set) => !kept.has(set));
      const heads = await db.replays.bulkGet(others.map((set) => [transcriptId, set] as [string, string]));
      const newestFirst = others
        .map((set, i) => ({ set, at: heads[i]?.storedAt ?? '' }))
        .sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
      const gone = newestFirst.slice(Math.max(0, REPLAY_OPTION_SETS_PER_LOG - kept.size)).flatMap(({ set }) => sets.get(set)!);
      await db.replays.bulkDelete(gone.map((key) => [transcriptId, key] as [string, string]));
    });
  }

  // ── Bodies ────────────────────────────────────────────────────────────────────────────────

  /** The original file of a transcript (by transcript id). */
  async getOriginal(id: string): Promise<OriginalRow | undefined> {
    const meta = await this.db.transcripts.get(id);
    return this.db.originals.get(meta?.originalId ?? id);
  }

  /** All messages of a transcript, in order (the chunks concatenated). */
  async getAllMessages(id: string): Promise<Message[]> {
    const rows = await this.db.chunks.where('[transcriptId+index]').between([id, 0], [id, Infinity]).toArray();
    rows.sort((a, b) => a.index - b.index);
    return rows.flatMap((r) => r.messages);
  }

  /** Messages [from, to) by index, reading only the chunks that hold them. */
  async getMessageRange(id: string, from: number, to: number): Promise<Message[]> {
    if (to <= from) return [];
    const first = Math.floor(from / CHUNK_SIZE);
    const last = Math.floor((to - 1) / CHUNK_SIZE);
    const rows = await this.db.chunks.where('[transcriptId+index]').between([id, first], [id, last], true, true).toArray();
    rows.sort((a, b) => a.index - b.index);
    const base = first * CHUNK_SIZE;
    return rows.flatMap((r) => r.messages).slice(from - base, to - base);
  }

  /** The timeline stored at import (or on a first open), whatever its version. */
  async getLayout(id: string): Promise<LayoutRow | undefined> {
    return this.db.layouts.get(id);
  }

  /** Store a transcript's timeline, if the transcript is still there (it may be purged meanwhile). */
  async putLayout(row: LayoutRow): Promise<void> {
    const { db } = this;
    await db.transaction('rw', [db.transcripts, db.layouts], async () => {
      if (await db.transcripts.get(row.id)) await db.layouts.put(row);
    });
  }

  async getDetails(id: string): Promise<DetailsRow | undefined> {
    return this.db.details.get(id);
  }

  /** Details re-derived for a transcript stored before they existed (schema v1). */
  async putDetails(row: DetailsRow): Promise<void> {
    await this.db.details.put(row);
  }

  // ── Versions and summaries (compaction artifacts) ─────────────────────────────────────────

  async listVersions(transcriptId: string): Promise<Version[]> {
    const rows = await this.db.versions.where('transcriptId').equals(transcriptId).toArray();
    return rows.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
  }

  async getVersion(id: string): Promise<Version | undefined> {
    return this.db.versions.get(id);
  }

  async putVersion(version: Version): Promise<void> {
    await this.db.versions.put(version);
  }

  async deleteVersion(id: string): Promise<void> {
    await this.db.versions.delete(id);
  }

  async getSummaryByKey(key: string): Promise<SummaryRow | undefined> {
    return this.db.summaries.where('key').equals(key).first();
  }

  async putSummary(row: SummaryRow): Promise<void> {
    await this.db.summaries.put(row);
  }

  // ── Settings ──────────────────────────────────────────────────────────────────────────────

  async getSetting<T>(key: string): Promise<T | undefined> {
    const row = await this.db.settings.get(key);
    return row?.value as T | undefined;
  }

  async putSetting(key: string, value: unknown): Promise<void> {
    await this.db.settings.put({ key, value });
  }

  // ── Storage ───────────────────────────────────────────────────────────────────────────────

  /** Bytes used vs the origin's quota, when the browser says (`navigator.storage.estimate`). */
  async storageEstimate(): Promise<StorageEstimate | null> {
    const nav = (globalThis as { navigator?: { storage?: { estimate?: () => Promise<{ usage?: number; quota?: number }> } } }).navigator;
    if (!nav?.storage?.estimate) return null;
    const e = await nav.storage.estimate();
    return { usage: e.usage ?? 0, quota: e.quota ?? 0 };
  }
}

let shared: Repo | null = null;
let sharedName: string | undefined;

/** The process-wide repo (the worker's, or a test's). `name` selects the database (tests use fresh ones). */
export function openRepo(name?: string): Repo {
  if (!shared || (name !== undefined && name !== sharedName)) {
    shared?.db.close();
    shared = new Repo(new ContextscopeDB(name));
    sharedName = name;
  }
  return shared;
}

/** How many models and cache lifetimes a log keeps replays of (lib/db/repo.ts storeReplays). */
export const REPLAY_OPTION_SETS_PER_LOG = 4;

/** A replay row's set (`build|model|cacheTtl|`, its head's key) from its key (`…|policy`). */
export function replaySetOf(key: string): string {
  return key.slice(0, key.lastIndexOf('|') + 1);
}
