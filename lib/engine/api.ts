/**
 * The engine: everything the UI asks of the data, as one object of async functions. The worker
 * exposes it (workers/engine.worker.ts); the main thread imports only `type Engine` and calls it
 * through WorkerBridge (lib/engine/client.ts). Pure over lib/: runs in Node tests as is.
 *
 * Errors that the user must read (a bad file) are returned as data (`SerializedError`), not
 * thrown: Comlink clones thrown errors poorly (code, where and expected would be lost).
 */
import { transfer } from 'comlink';
import { ImportError, serializeError, type SerializedError } from '../errors';
import { detect } from '../formats/detect';
import { contentId, importFile as importSourceFile, legacyContentId } from '../formats/import';
import { importWithPool, type CountPool } from '../tokens/pool';
import { browserThreads, browserTokenPool } from './token-pool';
import { dataLossOf } from '../model/warnings';
import { formatById } from '../formats/registry';
import type { ConversationInfo } from '../formats/types';
import type { Version } from '../compaction/types';
import type { Message, Transcript } from '../model/types';
import { deepFreeze } from '../model/builder';
import { encodeExport, sniffTextEncoding, UTF8 } from '../read/encode';
import { sourceFromBytes, type SourceFile } from '../read/source';
import { transcriptTotals } from '../tokens/totals';
import { tokenizerForModel } from '../tokens/count';
import { isContextSample, usageCalls } from '../tokens/calibration';
import { openRepo, type RecoveryReport, type StorageEstimate } from '../db/repo';
import type { DetailsRow, ImportRow, LayoutRow, TranscriptMeta, UsageSummary } from '../db/schema';
import { buildTimeline, contextWindowFor, TIMELINE_VERSION, type Timeline } from './timeline';
import { packTurns, unpackTurns, type PackedTurns } from './packed-turns';
import { buildRows, rowIndexOf, type Row, type RowIndex } from './rows';
import { parseQuery, searchRows as searchInRows } from './search';
import { compactionEngine } from './compaction';
import { replayEngine, type ReplayStore } from './replay';
import { ENGINE_BUILD } from './build';
import { ledgerEngine } from './ledger';

export type ImportStage = 'reading' | 'parsing' | 'counting' | 'storing' | 'done';

export interface ImportProgress {
  stage: ImportStage;
  /** 0..1 within the stage, when known. */
  fraction?: number;
  /** Position in a multi-conversation import (importConversations). */
  batch?: { done: number; total: number };
}

export interface EngineImportOptions {
  /** Which conversation of a container file to import. Without it a container with several asks. */
  conversation?: number;
  /** Force a format (the user's "import as …"). */
  format?: string;
}

export type ImportOutcome =
  | { kind: 'imported'; meta: TranscriptMeta; duplicate: boolean; warnings: number }
  /** A container file with several conversations: the caller picks one (or all) and imports again. */
  | { kind: 'choose'; format: string; formatLabel: string; conversations: ConversationInfo[] }
  | { kind: 'error'; error: SerializedError };

export interface BatchOutcome {
  kind: 'batch';
  imported: TranscriptMeta[];
  errors: Array<{ conversation: number; error: SerializedError }>;
}

export type ConversationsOutcome =
  | { kind: 'conversations'; format: string; formatLabel: string; conversations: ConversationInfo[] }
  | { kind: 'error'; error: SerializedError };

export interface ExportedFile {
  bytes: Uint8Array;
  fileName: string;
  mimeType: string;
  /** What the export could not carry (conversions). */
  dropped: string[];
}

export type ExportOutcome = { kind: 'file'; file: ExportedFile } | { kind: 'error'; error: SerializedError };

export interface InspectorData {
  meta: TranscriptMeta;
  timeline: Timeline;
  warnings: Transcript['warnings'];
  tools: Array<{ name: string; tokens: number }>;
}

type ProgressFn = (p: ImportProgress) => void;

// ── Worker-side caches (one transcript re-parse and one timeline per id) ─────────────────────
const MAX_CACHED_TRANSCRIPTS = 2;
const transcriptCache = new Map<string, Transcript>();
/**
 * Reads of a log under way, by id: a second call while the first still reads (the inspector's
 * preview warm-up and the overlay's replay, on one fresh worker after a reload) waits for that read
 * instead of parsing the original a second time (issue 31, session 18: at 2,000 turns ~1 s of CPU
 * each, and the overlay's replay waited for both).
 */
const transcriptReads = new Map<string, Promise<Transcript>>();
const timelineCache = new Map<string, Promise<Timeline>>();
/** The message list's rows, built here once per transcript; the page asks for a window at a time. */
const rowsCache = new Map<string, Promise<Row[]>>();
/**
 * The stored messages the timeline and the rows are built from, read once for both (at 100k turns
 * a read of every chunk is seconds). The rows hold these messages anyway, so keeping them costs
 * no more memory.
 */
const storedMessagesCache = new Map<string, Promise<Message[]>>();

function forget(id: string): void {
  transcriptCache.delete(id);
  transcriptReads.delete(id);
  timelineCache.delete(id);
  timelineCache.delete(`${id}#calls`);
  rowsCache.delete(id);
  storedMessagesCache.delete(id);
}

let dbName: string | undefined;
/** Tests: point the engine at a fresh database. */
export function useEngineDatabase(name: string): void {
  dbName = name;
  transcriptCache.clear();
  transcriptReads.clear();
  timelineCache.clear();
  rowsCache.clear();
  storedMessagesCache.clear();
}
const repo = () => openRepo(dbName);

function toBytes(input: ArrayBuffer | Uint8Array): Uint8Array {
  return input instanceof Uint8Array ? input : new Uint8Array(input);
}

/**
 * What an import is handed: bytes, or the user's File (a Blob) itself. A File is read here, in the
 * worker: read on the page (`file.arrayBuffer()`), a 37 MB session made main-thread tasks of 80–170 ms
 * CPU (the bytes materialized on the page's heap), and the transfer to the worker was one more hop.
 */
export type ImportInput = ArrayBuffer | Uint8Array | Blob;

async function readInput(input: ImportInput): Promise<Uint8Array> {
  return typeof Blob !== 'undefined' && input instanceof Blob ? new Uint8Array(await input.arrayBuffer()) : toBytes(input as ArrayBuffer | Uint8Array);
}

function usageSummary(t: Omit<Transcript, 'id'>): UsageSummary | null {
  const main = t.usage.filter((u) => !t.messages[u.messageIndex]?.sidechain);
  if (main.length === 0) return null;
  const s: UsageSummary = { calls: 0, input: 0, cacheRead: 0, cacheWrite: 0, output: 0, lastContext: 0, maxContext: 0 };
  for (const u of main) {
    s.calls += usageCalls(u);
    s.input += u.input;
    s.cacheRead += u.cacheRead;
    s.cacheWrite += u.cacheWrite;
    s.output += u.output;
    if (u.contextWindow) s.contextWindow = u.contextWindow;
    // An aggregate of several calls (NeMo Gym rollout totals) is no context size.
    if (!isContextSample(u)) continue;
    const ctx = u.input + u.cacheRead + u.cacheWrite;
    s.maxContext = Math.max(s.maxContext, ctx);
    s.lastContext = ctx;
  }
  return s;
}

function countToolCalls(messages: readonly Message[]): number {
  let n = 0;
  for (const m of messages) for (const b of m.blocks) if (b.kind === 'tool_call') n++;
  return n;
}

async function importFile(
  input: ImportInput,
  name: string,
  options: EngineImportOptions = {},
  onProgress?: ProgressFn,
): Promise<ImportOutcome> {
  onProgress?.({ stage: 'reading', fraction: 0 });
  const original = await readInput(input);
  let file: SourceFile;
  try {
    file = sourceFromBytes(name, original);
  } catch (e) {
    const error = serializeError(e);
    return { kind: 'error', error: { ...error, where: { file: name, ...error.where } } };
  }
  return importFromSource(file, original, name, options, onProgress);
}

/**
 * A live session's next snapshot (issue 25): the stored original of `baseId` followed by the
 * complete lines the agent appended since, imported as a new log (its own content id). The base
 * log is not touched: a step applied to it stays on it (DESIGN-NOTES "A live session is a chain
 * of snapshots"). Only the appended bytes cross from the server and the page; the parse of the
 * snapshot is the format's whole-file parse, run here on bytes already in memory.
 */
async function importAppended(baseId: string, appended: ArrayBuffer | Uint8Array, name: string, onProgress?: ProgressFn): Promise<ImportOutcome> {
  const row = await repo().getOriginal(baseId);
  if (!row) return { kind: 'error', error: serializeError(new Error(`The original bytes of ${baseId} are missing: open the session again from the library.`)) };
  const tail = toBytes(appended);
  const joined = new Uint8Array(row.bytes.length + tail.length);
  joined.set(row.bytes, 0);
  joined.set(tail, row.bytes.length);
  return importFile(joined, name, {}, onProgress);
}

/**
 * Import every listed conversation of one container file (tau-bench, eval logs) from a single
 * decode: the file is sent, decompressed and parsed once, not once per conversation.
 */
async function importConversations(
  input: ImportInput,
  name: string,
  conversations: readonly number[],
  options: Omit<EngineImportOptions, 'conversation'> = {},
  onProgress?: ProgressFn,
): Promise<BatchOutcome> {
  const original = await readInput(input);
  const imported: TranscriptMeta[] = [];
  const errors: BatchOutcome['errors'] = [];
  let file: SourceFile;
  try {
    file = sourceFromBytes(name, original);
  } catch (e) {
    return { kind: 'batch', imported, errors: conversations.map((conversation) => ({ conversation, error: serializeError(e) })) };
  }
  for (let i = 0; i < conversations.length; i++) {
    const batch = { done: i, total: conversations.length };
    const out = await importFromSource(file, original, name, { ...options, conversation: conversations[i] }, (p) => onProgress?.({ ...p, batch }));
    if (out.kind === 'imported') imported.push(out.meta);
    else if (out.kind === 'error') errors.push({ conversation: conversations[i], error: out.error });
  }
  return { kind: 'batch', imported, errors };
}

/**
 * The tokenizer pool an import may use: the browser's Web Workers where there are two cores or
 * more; none (count in this thread) elsewhere. Tests in Node set worker threads here.
 */
const browserPool = () => (browserThreads() >= 2 ? () => browserTokenPool() : undefined);
let tokenPoolFactory: () => (() => CountPool) | undefined = browserPool;
export function useTokenPool(factory: (() => CountPool) | undefined | 'default'): void {
  tokenPoolFactory = factory === 'default' ? browserPool : () => factory;
}

async function importFromSource(file: SourceFile, original: Uint8Array, name: string, options: EngineImportOptions, onProgress?: ProgressFn): Promise<ImportOutcome> {
  const r = repo();
  let journal: string | null = null;
  try {
    let formatId = options.format;
    if (!formatId) formatId = detect(file).format.id;
    const format = formatById(formatId);
    if (!format) throw new Error(`Unknown format ${formatId}`);

    if (options.conversation === undefined && format.listConversations) {
      const conversations = format.listConversations(file);
      if (conversations.length > 1) return { kind: 'choose', format: format.id, formatLabel: format.label, conversations };
    }

    const suffix = options.conversation !== undefined ? `-c${options.conversation}` : '';
    // A library imported by an earlier version keys its files by the earlier hash: the same file
    // is still recognised there, and a container's conversations still share its stored original.
    const legacyId = (await r.hasLegacyIds()) ? legacyContentId(file) : undefined;
    const legacyExisting = legacyId !== undefined ? await r.getMeta(legacyId + suffix) : undefined;
    const fileId = legacyId !== undefined && (legacyExisting || (await r.hasOriginal(legacyId))) ? legacyId : contentId(file);
    const id = fileId + suffix;
    const existing = legacyExisting ?? (await r.getMeta(id));
    if (existing) {
      onProgress?.({ stage: 'done', fraction: 1 });
      return { kind: 'imported', meta: existing, duplicate: true, warnings: existing.warnings };
    }

    journal = await r.beginImport(name, original.length);
    onProgress?.({ stage: 'parsing', fraction: 0 });
    const parseOptions = {
      format: format.id,
      id,
      ...(options.conversation !== undefined && { conversation: options.conversation }),
      onProgress: (fraction: number) => onProgress?.({ stage: 'parsing', fraction }),
    };
    // Exact counts of a large import on every core (issue 12); chars/4 and small imports count here.
    const pool = tokenPoolFactory();
    const { transcript, pool: counted } = pool ? await importWithPool(file, parseOptions, pool) : { ...importSourceFile(file, parseOptions), pool: undefined };

    onProgress?.({ stage: 'counting', fraction: 0 });
    const tokens = transcriptTotals(transcript);
    const meta: Omit<TranscriptMeta, 'status' | 'chunkCount' | 'deletedAt'> = {
      id,
      title: transcript.title || name,
      format: format.id,
      formatLabel: format.label,
      ...(transcript.model !== undefined && { model: transcript.model }),
      fileName: name,
      size: original.length,
      messages: transcript.messages.length,
      turns: transcript.turnCount,
      tokens,
      toolCalls: countToolCalls(transcript.messages),
      markers: transcript.markers.length,
      usage: usageSummary(transcript),
      warnings: transcript.warnings.length,
      ...(dataLossOf(transcript.warnings) && { dataLoss: dataLossOf(transcript.warnings) }),
      ...(options.conversation !== undefined && { conversation: options.conversation }),
      counting: { tokenizer: tokenizerForModel(transcript.model), threads: counted?.threads ?? 1 },
      originalId: fileId,
      importedAt: new Date().toISOString(),
    };

    onProgress?.({ stage: 'storing', fraction: 0 });
    const details = { tools: [...transcript.tools], markers: [...transcript.markers], usage: [...transcript.usage], warnings: [...transcript.warnings] };
    const stored = await r.storeImport(journal, {
      meta,
      original,
      messages: transcript.messages,
      details,
      layout: layoutOf(timelineOf(meta.model, transcript.messages, details)),
    });
    forget(id);
    transcriptCache.set(id, transcript);
    trimCache();
    onProgress?.({ stage: 'done', fraction: 1 });
    return { kind: 'imported', meta: stored, duplicate: false, warnings: transcript.warnings.length };
  } catch (e) {
    const error = serializeError(await storageError(e, r));
    // The user reads this error now; the journal only exists to detect imports that never ended.
    if (journal) await r.dismissImport(journal).catch(() => {});
    return { kind: 'error', error: { ...error, where: { file: name, ...error.where } } };
  }
}

/**
 * IndexedDB refusing a write because the origin's quota is full is the one storage failure a user
 * can act on: say so, with the numbers, instead of a bare DOMException name.
 */
async function storageError(e: unknown, r: ReturnType<typeof repo>): Promise<unknown> {
  const name = (e as { name?: string } | null)?.name;
  const inner = (e as { inner?: { name?: string } } | null)?.inner?.name;
  if (name !== 'QuotaExceededError' && inner !== 'QuotaExceededError') return e;
  const est = await r.storageEstimate().catch(() => null);
  const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;
  return new ImportError(
    'quota:storage',
    `The browser refused to store the transcript: this site's storage is full${est ? ` (${mb(est.usage)} of ${mb(est.quota)} used)` : ''}.`,
    {},
    'free space: delete transcripts you no longer need, or allow this site more storage',
    { cause: e },
  );
}

function trimCache(): void {
  while (transcriptCache.size > MAX_CACHED_TRANSCRIPTS) transcriptCache.delete(transcriptCache.keys().next().value!);
}

async function listConversations(input: ArrayBuffer | Uint8Array, name: string): Promise<ConversationsOutcome> {
  try {
    const file = sourceFromBytes(name, toBytes(input));
    const format = detect(file).format;
    const conversations = format.listConversations ? format.listConversations(file) : [];
    return { kind: 'conversations', format: format.id, formatLabel: format.label, conversations };
  } catch (e) {
    return { kind: 'error', error: serializeError(e) };
  }
}

async function requireMeta(id: string): Promise<TranscriptMeta> {
  const meta = await repo().getMeta(id);
  if (!meta) throw Object.assign(new Error(`No transcript ${id} in this browser.`), { name: 'NotFoundError', code: 'missing:transcript' });
  return meta;
}

/** The canonical transcript again: messages (and their token counts) from the chunks, records from a re-parse. */
function getTranscript(id: string): Promise<Transcript> {
  const cached = transcriptCache.get(id);
  if (cached) return Promise.resolve(cached);
  const reading = transcriptReads.get(id);
  if (reading) return reading;
  const read = readTranscript(id).finally(() => {
    if (transcriptReads.get(id) === read) transcriptReads.delete(id);
  });
  transcriptReads.set(id, read);
  return read;
}

async function readTranscript(id: string): Promise<Transcript> {
  const meta = await requireMeta(id);
  const original = await repo().getOriginal(id);
  if (!original) throw new Error(`The original bytes of ${id} are missing.`);
  const { transcript } = importSourceFile(sourceFromBytes(meta.fileName, original.bytes), {
    format: meta.format,
    id,
    ...(meta.conversation !== undefined && { conversation: meta.conversation }),
  });
  const messages = await repo().getAllMessages(id);
  const hydrated = deepFreeze({ ...transcript, title: meta.title, messages: messages.length === transcript.messages.length ? messages : transcript.messages });
  transcriptCache.set(id, hydrated);
  trimCache();
  if (!(await repo().getDetails(id))) {
    await repo().putDetails({ id, tools: [...transcript.tools], markers: [...transcript.markers], usage: [...transcript.usage], warnings: [...transcript.warnings] });
  }
  return hydrated;
}

/** A transcript's timeline on either axis, from its messages and details (at import, or on open). */
function timelineOf(model: string | undefined, messages: readonly Message[], details: Pick<DetailsRow, 'usage' | 'markers' | 'tools'> | undefined, axis: 'turns' | 'calls' = 'turns'): Timeline {
  return buildTimeline({
    messages,
    usage: details?.usage ?? [],
    markers: details?.markers ?? [],
    tools: details?.tools ?? [],
    contextWindow: contextWindowFor(model, details?.usage ?? []),
    axis,
  });
}

function layoutOf(timeline: Timeline): Omit<LayoutRow, 'id'> {
  const { turns, ...rest } = timeline;
  return { version: TIMELINE_VERSION, timeline: rest, turns: packTurns(turns) };
}

/** A transcript's timeline (cached; concurrent callers share one read or build). */
function getTimeline(id: string, axis: 'turns' | 'calls' = 'turns'): Promise<Timeline> {
  const key = axis === 'calls' ? `${id}#calls` : id;
  let timeline = timelineCache.get(key);
  if (!timeline) {
    timeline = loadTimeline(id, axis);
    timelineCache.set(key, timeline);
    timeline.catch(() => {
      if (timelineCache.get(key) === timeline) timelineCache.delete(key);
    });
  }
  return timeline;
}

async function loadTimeline(id: string, axis: 'turns' | 'calls'): Promise<Timeline> {
  const meta = await requireMeta(id);
  if (axis === 'turns') {
    // Stored at import: no message is read (the rows read them, for the list).
    const layout = await repo().getLayout(id);
    if (layout?.version === TIMELINE_VERSION) return { ...layout.timeline, turns: unpackTurns(layout.turns) };
  }
  let details = await repo().getDetails(id);
  if (!details) {
    await getTranscript(id);
    details = await repo().getDetails(id);
  }
  const timeline = timelineOf(meta.model, await storedMessages(id), details, axis);
  // Imported before timelines were stored, or by a build whose timeline differed: the next open reads it.
  if (axis === 'turns') await repo().putLayout({ id, ...layoutOf(timeline) }).catch(() => {});
  return timeline;
}

/**
 * The timeline with one bar per model call (the inspector's call axis): built on demand, cached
 * like the turn one. Its bars come packed (transferred typed arrays, timeline.ts packTurns), not as
 * objects to clone.
 */
async function getCallTimeline(id: string): Promise<{ timeline: Timeline; packed: PackedTurns }> {
  const timeline = await getTimeline(id, 'calls');
  const packed = packTurns(timeline.turns);
  return transfer({ timeline: { ...timeline, turns: [] }, packed }, [packed.ints.buffer, packed.nums.buffer]);
}

/** What the inspector needs on open, in one round trip. */
async function getInspectorData(id: string): Promise<InspectorData> {
  const meta = await requireMeta(id);
  const timeline = await getTimeline(id);
  const details = await repo().getDetails(id);
  return { meta, timeline, warnings: details?.warnings ?? [], tools: (details?.tools ?? []).map((t) => ({ name: t.name, tokens: t.tokens })) };
}

/**
 * getInspectorData without the timeline's turns (their number instead): the page fetches the turns
 * in slices (getTimelineTurns), each decoded in a task of its own. At 100k turns one message of
 * every turn was a 250 ms structured-clone task on the main thread.
 */
async function getInspectorHead(id: string): Promise<{ data: InspectorData; turnCount: number }> {
  const data = await getInspectorData(id);
  return { data: { ...data, timeline: { ...data.timeline, turns: [] } }, turnCount: data.timeline.turns.length };
}

/** Timeline turns [from, to) (positions in timeline.turns), packed (typed arrays, transferred). */
async function getTimelineTurns(id: string, from: number, to: number): Promise<PackedTurns> {
  const packed = packTurns((await getTimeline(id)).turns.slice(Math.max(0, from), Math.max(0, to)));
  return transfer(packed, [packed.ints.buffer, packed.nums.buffer]);
}

/** Messages of turns [fromTurn, toTurn] (inclusive). */
async function getMessages(id: string, fromTurn: number, toTurn: number): Promise<Message[]> {
  const timeline = await getTimeline(id);
  const turns = timeline.turns.filter((t) => t.turn >= fromTurn && t.turn <= toTurn);
  if (turns.length === 0) return [];
  return repo().getMessageRange(id, turns[0].firstMessage, turns[turns.length - 1].endMessage);
}

/** A transcript's stored messages, read once for the timeline and the rows (two transcripts at most). */
function storedMessages(id: string): Promise<Message[]> {
  let messages = storedMessagesCache.get(id);
  if (!messages) {
    messages = repo().getAllMessages(id);
    storedMessagesCache.set(id, messages);
    messages.catch(() => storedMessagesCache.delete(id));
    while (storedMessagesCache.size > MAX_CACHED_TRANSCRIPTS) storedMessagesCache.delete(storedMessagesCache.keys().next().value!);
  }
  return messages;
}

/** The list's rows of a transcript (cached: two transcripts at most, as for the transcripts). */
function rowsOf(id: string): Promise<Row[]> {
  let rows = rowsCache.get(id);
  if (!rows) {
    // The timeline first: it is one stored row, and a read of every chunk issued before it would
    // hold it back (IndexedDB answers a connection's reads in order).
    rows = (async () => {
      const { turns } = await getTimeline(id);
      return buildRows(await storedMessages(id), turns);
    })();
    rowsCache.set(id, rows);
    rows.catch(() => rowsCache.delete(id));
    while (rowsCache.size > MAX_CACHED_TRANSCRIPTS) rowsCache.delete(rowsCache.keys().next().value!);
  }
  return rows;
}

/** The list's layout in flat arrays (transferred): row count, turn, header flag and estimated height per row. */
async function getRowIndex(id: string): Promise<RowIndex> {
  await requireMeta(id);
  const index = rowIndexOf(await rowsOf(id));
  return transfer(index, [index.turn.buffer, index.header.buffer, index.height.buffer, index.offsets.buffer, index.message.buffer]);
}

/** Rows [from, to) of the list. */
async function getRows(id: string, from: number, to: number): Promise<Row[]> {
  return (await rowsOf(id)).slice(Math.max(0, from), Math.max(0, to));
}

/** Search the list's rows (text, `tool:NAME`, `role:ROLE`): indexes of the hits, in order, at most `limit`. */
async function searchRows(id: string, query: string, limit = 10_000): Promise<number[]> {
  return searchInRows(await rowsOf(id), parseQuery(query), limit);
}

function mimeFor(fileName: string): string {
  if (/\.jsonl(\.gz)?$/i.test(fileName)) return 'application/jsonl';
  if (/\.gz$/i.test(fileName)) return 'application/gzip';
  if (/\.(eval|zip)$/i.test(fileName)) return 'application/zip';
  return 'application/json';
}

/** The exact bytes that were imported. */
async function exportOriginal(id: string): Promise<ExportedFile> {
  await requireMeta(id);
  const row = await repo().getOriginal(id);
  if (!row) throw new Error(`The original bytes of ${id} are missing.`);
  const bytes = row.bytes.slice();
  return transfer({ bytes, fileName: row.fileName, mimeType: mimeFor(row.fileName), dropped: [] }, [bytes.buffer]);
}

/** Serialize through the format (no projection yet: the inspector's compaction pass adds it). */
async function exportTranscript(id: string, options: { format?: string } = {}): Promise<ExportOutcome> {
  try {
    const transcript = await getTranscript(id);
    const format = formatById(options.format ?? transcript.format);
    if (!format) throw new Error(`Unknown format ${options.format}`);
    const out = format.serialize(transcript);
    // Binary formats (Inspect .eval zips) hand back the archive in `bytes`; `text` is only its main entry.
    // A copy, so the transferred buffer holds exactly the file. Text in the source's own format is
    // written in the source's encoding and BOM; another format is plain UTF-8 (lib/read/encode.ts).
    const original = format.id === transcript.format ? await repo().getOriginal(id) : undefined;
    const bytes = out.bytes ? out.bytes.slice() : encodeExport(out, original ? sniffTextEncoding(original.bytes) : UTF8);
    return transfer({ kind: 'file', file: { bytes, fileName: out.fileName, mimeType: out.mimeType, dropped: out.dropped } }, [bytes.buffer]);
  } catch (e) {
    return { kind: 'error', error: serializeError(e) };
  }
}

/**
 * Transcripts this worker soft-deleted and has not purged or restored: what its `purgeDeleted()`
 * closes. Each tab has its own engine worker, so another tab's deletions are not in here.
 */
const deletedHere = new Set<string>();

/** Versions, preview, apply/undo, compare, export of a version, summaries (lib/engine/compaction.ts). */
// projectorFor stays in the worker (the ledger's projections are the previews'): it is no engine call.
const { projectorFor, ...compaction } = compactionEngine({ repo, getTranscript });

/**
 * A log's replays kept in IndexedDB under this build's name (lib/engine/build.ts): the Replay page
 * and the overlay read back what an earlier page load replayed. None outside a production build.
 */
export function replayStoreFor(openedRepo: () => ReturnType<typeof openRepo>, build: string | undefined): ReplayStore | undefined {
  if (!build) return undefined;
  return {
    build,
    async load(id, optionsKey) {
      return openedRepo().storedReplays(id, build, optionsKey);
    },
    async save(id, optionsKey, rows) {
      await openedRepo().storeReplays(rows.map((r) => ({ ...r, transcriptId: id, build, key: `${build}|${optionsKey}|${r.policy}` })));
    },
  };
}

export const engine = {
  ...compaction,
  ...replayEngine({ getTranscript, store: replayStoreFor(repo, ENGINE_BUILD) }),
  ...ledgerEngine({ repo, getTranscript, projectorFor }),
  /** Run once per worker start: close interrupted imports, remove leftovers, purge expired deletes. */
  async init(): Promise<RecoveryReport> {
    return repo().recover();
  },
  importFile,
  importAppended,
  importConversations,
  listConversations,
  async listTranscripts(): Promise<TranscriptMeta[]> {
    return repo().listTranscripts();
  },
  async getMeta(id: string): Promise<TranscriptMeta | null> {
    return (await repo().getMeta(id)) ?? null;
  },
  getTranscript,
  getTimeline,
  getCallTimeline,
  getInspectorData,
  getInspectorHead,
  getTimelineTurns,
  getMessages,
  getRowIndex,
  getRows,
  searchRows,
  exportOriginal,
  exportTranscript,
  async renameTranscript(id: string, title: string): Promise<void> {
    await repo().renameTranscript(id, title);
  },
  async deleteTranscript(id: string): Promise<void> {
    forget(id);
    await repo().deleteTranscript(id);
    deletedHere.add(id);
  },
  /** The undo toast is held open: keep the deletion young (false: undone or purged meanwhile). */
  async renewDeletion(id: string): Promise<boolean> {
    return repo().renewDeletion(id);
  },
  /** False when the transcript is gone already (purged: its undo window ended). */
  async undoDelete(id: string): Promise<boolean> {
    deletedHere.delete(id);
    return repo().undoDelete(id);
  },
  /**
   * Close the undo window now (the undo toast expired): purge `ids`, by default the ones this
   * worker deleted, plus deletions old enough that no tab can still undo them. Another tab's
   * recent deletion stays restorable there (lib/db/repo.ts, delete protocol).
   */
  async purgeDeleted(ids?: readonly string[]): Promise<string[]> {
    const mine = ids ?? [...deletedHere];
    const purged = await repo().purgeDeleted(mine);
    for (const id of mine) deletedHere.delete(id);
    return purged;
  },
  async storageEstimate(): Promise<StorageEstimate | null> {
    return repo().storageEstimate();
  },
  async unfinishedImports(): Promise<ImportRow[]> {
    return repo().unfinishedImports();
  },
  async dismissImport(journalId: string): Promise<void> {
    await repo().dismissImport(journalId);
  },
  async saveVersion(version: Version): Promise<void> {
    await repo().putVersion(version);
  },
  async deleteVersion(id: string): Promise<void> {
    await repo().deleteVersion(id);
  },
  async getSetting(key: string): Promise<unknown> {
    return (await repo().getSetting(key)) ?? null;
  },
  async putSetting(key: string, value: unknown): Promise<void> {
    await repo().putSetting(key, value);
  },
};

export type Engine = typeof engine;
