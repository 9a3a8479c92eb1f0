/**
 * The Dexie schema: what is persisted where (STYLE.md §9-10). Only lib/db/repo.ts opens tables.
 *
 * Storage is split by weight (Inspect viewer): `transcripts` holds small metadata for the library
 * list; `originals` the exact imported bytes (lossless export of the original); `chunks` the
 * normalized messages, ~500 per row, with their per-block token counts, because IndexedDB pays
 * ~50 µs per row whatever its size (TOOLCHAIN.md); `versions` and `summaries` the compaction
 * artifacts (steps are appended to a version; the log itself is never edited).
 *
 * Migrations are real: every `version(n)` declaration stays, each with its own `upgrade()`.
 * Never drop and recreate: this is user data.
 *
 * | table       | key                     | holds                                         | exported |
 * |-------------|-------------------------|-----------------------------------------------|----------|
 * | transcripts | id                      | TranscriptMeta (list row, status, soft delete) | no       |
 * | originals   | id (file content id)    | the imported file's bytes, untouched; shared by the conversations of one container file | yes (original export) |
 * | chunks      | [transcriptId+index]    | messages [index*500, …) with token counts     | no (re-derived) |
 * | details     | id                      | tools, markers, usage, warnings of a transcript | no (re-derived) |
 * | layouts     | id                      | the timeline, built at import, packed (typed arrays) | no (re-derived) |
 * | imports     | id                      | the import journal (running/done/failed/…)    | no       |
 * | versions    | id                      | Version (lib/compaction/types): steps         | with a compacted export |
 * | summaries   | id                      | SummaryArtifact keyed by span+prompt+model    | no       |
 * | settings    | key                     | app settings (theme, providers, …)            | no       |
 * | replays     | [transcriptId+key]      | a policy's call-by-call replay of a log (the Replay page, the overlay), per build | no (re-derived) |
 */
import Dexie, { type EntityTable, type Transaction } from 'dexie';
import type { SummaryArtifact, Version } from '../compaction/types';
import type { ImportWarning, Marker, Message, ToolSchema, UsageRecord } from '../model/types';
import type { PackedTurns } from '../engine/packed-turns';
import type { ReplayHead, ReplaySeries } from '../engine/replay';
import type { Timeline } from '../engine/timeline';
import { BUDGET_KINDS, budgetKind, emptyByKind, type BudgetKind } from '../tokens/totals';

export const DB_NAME = 'contextscope';

/** Messages per chunk row: big enough that a 10k-message session is 20 rows, small enough to page. */
export const CHUNK_SIZE = 500;

export type TranscriptStatus = 'importing' | 'ready';

/** Sum of the usage a transcript records (per model call), for the library and the inspector header. */
export interface UsageSummary {
  /** Model calls with usage (Claude Code responses grouped by message id). */
  calls: number;
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
  /** Context size (input + cache read + cache write) at the last call. */
  lastContext: number;
  /** Largest context size of any call. */
  maxContext: number;
  /** The context window, when the source records it (Codex). */
  contextWindow?: number;
}

export interface TokenSummary {
  total: number;
  byKind: Record<BudgetKind, number>;
}

/** One library row. Small: the list reads every row. */
export interface TranscriptMeta {
  id: string;
  title: string;
  format: string;
  formatLabel: string;
  model?: string;
  fileName: string;
  /** Size of the original file in bytes (as imported, before decompression). */
  size: number;
  messages: number;
  turns: number;
  tokens: TokenSummary;
  toolCalls: number;
  markers: number;
  usage: UsageSummary | null;
  warnings: number;
  /**
   * Content of the file that import could not read (lib/model/warnings.ts isDataLoss): how many
   * such warnings and the first one's text. Absent when nothing was lost (and on rows stored
   * before this field existed).
   */
  dataLoss?: { count: number; first: string };
  /** Which conversation of a container file this is (tau-bench, eval outputs). */
  conversation?: number;
  /**
   * How the tokens were counted: the tokenizer (exact o200k / cl100k for OpenAI's models, chars/4
   * elsewhere) and on how many threads (the tokenizer pool, issue 12). Absent on older rows.
   */
  counting?: { tokenizer: 'o200k' | 'cl100k' | 'chars4'; threads: number };
  /**
   * Key of the `originals` row. Conversations of one container file share it (importing all 200
   * tau-bench trajectories stores the 4 MB file once). Absent = `id` (version-1 rows).
   */
  originalId?: string;
  /** Number of chunk rows. */
  chunkCount: number;
  importedAt: string;
  status: TranscriptStatus;
  /** Soft delete: set when deleted, cleared by undo, purged on the next start. */
  deletedAt?: string;
}

export interface OriginalRow {
  id: string;
  fileName: string;
  bytes: Uint8Array;
}

export interface ChunkRow {
  transcriptId: string;
  index: number;
  /** Messages [index * CHUNK_SIZE, …), frozen copies of the canonical ones, token counts included. */
  messages: Message[];
}

/**
 * The parts of a transcript besides messages and records that the inspector needs on open
 * (timeline: usage, markers, tool schema overhead; warnings panel). Separate from the meta so the
 * library list stays small; separate from chunks so opening does not re-parse the original.
 */
export interface DetailsRow {
  id: string;
  tools: ToolSchema[];
  markers: Marker[];
  usage: UsageRecord[];
  warnings: ImportWarning[];
}

/**
 * A transcript's timeline (lib/engine/timeline.ts buildTimeline, turn axis) as built at import:
 * opening a transcript then reads this row, not every message (at 100k turns the messages were
 * 1.0–1.6 s of IndexedDB reading and the build another 0.6 s before the timeline could show).
 * `version` is TIMELINE_VERSION when it was built; a row of another version is rebuilt on open.
 */
export interface LayoutRow {
  id: string;
  version: number;
  timeline: Omit<Timeline, 'turns'>;
  turns: PackedTurns;
}

export type ImportJournalStatus = 'running' | 'done' | 'failed' | 'interrupted';

/** The import journal: a row is written before an import starts and closed when it ends. */
export interface ImportRow {
  id: string;
  transcriptId?: string;
  fileName: string;
  size: number;
  startedAt: string;
  finishedAt?: string;
  status: ImportJournalStatus;
  /** Error code when it failed. */
  error?: string;
}

export type VersionRow = Version;

export interface SummaryRow extends SummaryArtifact {
  transcriptId: string;
  /** Span + prompt + model hash: a summary is reused when nothing it depends on changed. */
  key: string;
  createdAt: string;
}

export interface SettingRow {
  key: string;
  value: unknown;
}

/**
 * One policy's replay of one log (lib/engine/replay.ts), or the view's head (`policy: ''`: the
 * model, the calibration, the calls). A log never changes under its id (content-addressed), so a
 * replay holds as long as the code that made it: `build` names that code (ENGINE_BUILD), and a row
 * of another build is never read (and is deleted when this build stores a replay of the same log).
 */
export interface ReplayRow {
  transcriptId: string;
  /** `${build}|${model}|${cacheTtl}|${policy}` (lib/engine/replay.ts replayRowKey). */
  key: string;
  build: string;
  policy: string;
  head?: ReplayHead;
  /** On the `recorded` policy's row: the as-recorded replay's error against the recorded bill. */
  recordedError?: number | null;
  series?: ReplaySeries;
  storedAt: string;
}

export class ContextscopeDB extends Dexie {
  transcripts!: EntityTable<TranscriptMeta, 'id'>;
  originals!: EntityTable<OriginalRow, 'id'>;
  chunks!: Dexie.Table<ChunkRow, [string, number]>;
  details!: EntityTable<DetailsRow, 'id'>;
  layouts!: EntityTable<LayoutRow, 'id'>;
  imports!: EntityTable<ImportRow, 'id'>;
  versions!: EntityTable<VersionRow, 'id'>;
  summaries!: EntityTable<SummaryRow, 'id'>;
  settings!: EntityTable<SettingRow, 'key'>;
  replays!: Dexie.Table<ReplayRow, [string, string]>;

  constructor(name: string = DB_NAME, upTo: number = LATEST_VERSION) {
    super(name);
    declareVersions(this, upTo);
  }
}

/**
 * Version 1 (first release): library meta with a single token total, originals, chunks, the
 * import journal and settings.
 */
export const SCHEMA_V1 = {
  transcripts: 'id, importedAt, status',
  originals: 'id',
  chunks: '[transcriptId+index], transcriptId',
  imports: 'id, status',
  settings: 'key',
} as const;

/**
 * Version 2: tokens per budget kind in the meta (the library and timeline legend show the split),
 * a soft-delete index, per-transcript details (usage, markers, tools: version 1 re-parsed the
 * original to draw a timeline; v1 rows get theirs on first open) and the compaction tables
 * (versions of a transcript, summary artifacts).
 */
export const SCHEMA_V2 = {
  transcripts: 'id, importedAt, status, deletedAt, originalId',
  originals: 'id',
  chunks: '[transcriptId+index], transcriptId',
  details: 'id',
  imports: 'id, status',
  versions: 'id, transcriptId, updatedAt',
  summaries: 'id, transcriptId, key',
  settings: 'key',
} as const;

/**
 * Version 3: the timeline stored at import (`layouts`). Nothing to migrate: a transcript imported
 * before gets its row on its first open.
 */
export const SCHEMA_V3 = { ...SCHEMA_V2, layouts: 'id' } as const;

/**
 * Version 4: the replays of a log kept across page loads (`replays`, issue 31: compute once per log
 * what does not depend on the plan). Nothing to migrate: a log replays on its first Replay page.
 */
export const SCHEMA_V4 = { ...SCHEMA_V3, replays: '[transcriptId+key], transcriptId' } as const;

export const LATEST_VERSION = 4;

/** The meta row as version 1 wrote it (for the upgrade and its test). */
export interface TranscriptMetaV1 extends Omit<TranscriptMeta, 'tokens' | 'deletedAt' | 'originalId'> {
  tokens: number;
}

/** Declare every schema version up to `upTo` (tests open older versions to exercise upgrades). */
export function declareVersions(db: Dexie, upTo: number): void {
  db.version(1).stores(SCHEMA_V1);
  if (upTo >= 2) db.version(2).stores(SCHEMA_V2).upgrade(upgradeToV2);
  if (upTo >= 3) db.version(3).stores(SCHEMA_V3);
  if (upTo >= 4) db.version(4).stores(SCHEMA_V4);
}

/** v1 → v2: recompute the per-kind token split from the stored chunks (their blocks carry counts). */
async function upgradeToV2(tx: Transaction): Promise<void> {
  const metas = (await tx.table('transcripts').toArray()) as Array<TranscriptMetaV1 | TranscriptMeta>;
  for (const meta of metas) {
    if (typeof meta.tokens !== 'number') continue;
    const chunks = (await tx.table('chunks').where('transcriptId').equals(meta.id).toArray()) as ChunkRow[];
    const byKind = emptyByKind();
    for (const chunk of chunks)
      for (const m of chunk.messages) {
        if (m.sidechain) continue;
        for (const b of m.blocks) byKind[budgetKind(m.role, b)] += b.tokens;
      }
    // Tool schemas were not stored in v1: whatever the old total had beyond the messages was theirs.
    let counted = 0;
    for (const k of BUDGET_KINDS) counted += byKind[k];
    byKind.tools += Math.max(0, meta.tokens - counted);
    await tx.table('transcripts').update(meta.id, { tokens: { total: Math.max(meta.tokens, counted), byKind } });
  }
}
