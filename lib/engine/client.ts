/**
 * WorkerBridge: the main thread's only door to the engine (STYLE.md §8). Components never see
 * Comlink. Every method takes an AbortSignal first; aborting rejects that call with AbortError and
 * terminates its worker (the only way to stop CPU-bound parsing); the next call starts a new one.
 * The other reads that were pending on that worker are sent again to the new one, and a worker with
 * a write in flight is never terminated by an abort (see CallKind).
 *
 * Two lanes, each its own worker: `import` (parsing a dropped file can take seconds) and `query`
 * (everything else). Cancelling an import must not kill the library list, and TanStack Query
 * cancelling a stale timeline query must not kill an import.
 */
import { proxy, transfer, wrap, type Remote } from 'comlink';
import type { BatchOutcome, ConversationsOutcome, Engine, EngineImportOptions, ExportedFile, ExportOutcome, ImportOutcome, ImportProgress, InspectorData } from './api';
import type { Timeline, TimelineTurn } from './timeline';
import { unpackTurns } from './packed-turns';
import type { Row, RowIndex } from './rows';
import type { ConfigOutcome, ConversionLossesOutcome, HistoryLeftOut, DraftStep, ExportOptions, ExportVersionOutcome, PreviewOutcome, PreviewRequest, SummaryRun, TangentProposals, VersionComparison } from './compaction';
import type { ToolStat } from './preview';
import type { Version } from '../compaction/types';
import { announce, type LibraryMessage } from './channel';
import type { TriggerPoint } from '../simulate/replay';
import type { ReplayOptions, ReplayView } from './replay';
import type { LedgerView, PinsOutcome, SessionRef } from './ledger';
import type { Pin } from '../compaction/pins';
import type { Census, CensusProgress } from '../ledger/census';
import type { SummaryFailure, SummaryProgress } from '../summarize/run';
import type { Transcript } from '../model/types';
import type { TranscriptMeta } from '../db/schema';
import type { RecoveryReport, StorageEstimate } from '../db/repo';

/**
 * `preview` is its own lane: the Plan panel cancels stale previews often (every knob change), and
 * terminating that worker must not kill the message list's queries. `census` too: the library's
 * census reads every session (minutes for thousands) and its Cancel stops that worker alone.
 */
export type Lane = 'import' | 'query' | 'preview' | 'census';

/** Timeline turns per message on open: ~20 ms of decoding each at the main thread's pace. */
export const TIMELINE_SLICE = 2_048;

export function abortError(): Error {
  // DOMException is what fetch and friends reject with; code that filters AbortError checks the name.
  return typeof DOMException === 'function' ? new DOMException('The operation was aborted.', 'AbortError') : Object.assign(new Error('The operation was aborted.'), { name: 'AbortError' });
}

/**
 * A call's kind. A `read` has no effect but its answer: when another call's abort terminates the
 * lane's worker, a read still wanted is sent again to the next worker. A `write` changes the
 * database, calls an LLM, or transfers its input: it is never sent twice, and while one is in
 * flight an abort on its lane only drops the aborted call's answer (the worker is left to finish).
 */
export type CallKind = 'read' | 'write';

interface PendingCall {
  kind: CallKind;
  signal: AbortSignal | undefined;
  /** Settle the caller's promise with an error (abort, worker crash). */
  reject: (e: unknown) => void;
  /** Send the job again to the lane's next worker (reads only). */
  resend: () => void;
  /** Already sent again after a worker crash (a read that crashes two workers fails). */
  crashed?: boolean;
}

interface LaneState {
  worker: Worker;
  remote: Remote<Engine>;
  pending: Set<PendingCall>;
  /** Calls sent to this worker whose answer has not come back (an aborted one stays until its worker answers). */
  running: Set<PendingCall>;
}

/**
 * How long a cancelled preview may go on finishing before its worker is stopped. The preview
 * worker holds the transcript and the pipeline's per-log caches: a fresh one reads the transcript
 * again and runs the pipeline cold (at 10k turns ≈ 3× a warm preview), which costs more than the
 * rest of a short stale preview. A stale preview still running after this is stopped.
 * Issue 31: a warm preview of 10,000 turns takes well under a second of CPU, and a fresh worker
 * reads the log back and builds its indexes again (seconds): 1.5 s lets a stale preview end.
 */
export const PREVIEW_GRACE_MS = 1500;

/**
 * How long a census may go without a word from its worker (no session counted, no answer) before
 * the call fails with a message saying so and its worker is stopped. A session's fetch and count
 * take well under a second (1,000 sessions: ~20 s in e2e, 24 s under load); 60 s of silence is a
 * worker or a server that stopped, and the page shows why instead of a bar that never ends.
 */
export const CENSUS_STALL_MS = 60_000;

/** The error of a census whose worker went silent (CENSUS_STALL_MS). */
export function censusStalled(ms: number, last: CensusProgress | null): Error {
  const where = last ? `after ${last.done.toLocaleString('en-US')} of ${last.total.toLocaleString('en-US')} (the last one counted: ${last.path})` : 'before it counted the first one';
  return new Error(`The census stopped answering: its worker reported nothing for ${ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`}, ${where}. It was stopped; Count again to start over.`);
}

export type WorkerFactory = () => Worker;

/** webpack and Turbopack bundle the worker only when `new URL(…)` is written inline here (TOOLCHAIN.md #6). */
const defaultFactory: WorkerFactory = () => new Worker(new URL('../../workers/engine.worker.ts', import.meta.url), { type: 'module' });

/** Resolve as `write` does, after telling the other tabs that this transcript's versions changed. */
async function announced<T>(transcriptId: string, write: Promise<T>): Promise<T> {
  const out = await write;
  announce({ kind: 'versions', transcriptId });
  return out;
}

/** An import's input for the worker: bytes are transferred (not copied); a File or Blob goes as its handle. */
function sent(bytes: ArrayBuffer | Blob): ArrayBuffer | Blob {
  return bytes instanceof ArrayBuffer ? transfer(bytes, [bytes]) : bytes;
}

/** Resolve as `write` does, after telling the other tabs what changed in the library (lib/engine/channel.ts). */
async function told<T>(message: LibraryMessage, write: Promise<T>): Promise<T> {
  const out = await write;
  announce(message);
  return out;
}

export class WorkerBridge {
  private lanes = new Map<Lane, LaneState>();
  private recovery: Promise<RecoveryReport> | null = null;
  private recoverySettled = false;
  /** The worker start-up recovery runs on; `recoveryLost` resolves if that worker stops before it ends. */
  private recoveryOn: LaneState | null = null;
  private recoveryLost: Promise<void> = new Promise(() => {});
  private loseRecovery: () => void = () => {};
  /** Census calls fail after this long without a word from their worker (CENSUS_STALL_MS; tests shorten it). */
  censusStallMs = CENSUS_STALL_MS;
  /** Workers started so far (tests assert a new one after an abort). */
  startedWorkers = 0;
  /** Idle import workers another lane took instead of starting its own (takeIdleImportWorker). */
  handedOverWorkers = 0;

  constructor(private readonly createWorker: WorkerFactory = defaultFactory) {}

  /** The lane a worker's state serves now (a worker handed over changes lanes), or none once stopped. */
  private laneOf(state: LaneState): Lane | undefined {
    for (const [name, s] of this.lanes) if (s === state) return name;
    return undefined;
  }

  /**
   * The import lane's worker, idle (no call pending or still running on it), taken from that lane
   * for another one's first worker: after a drop the user opens the file, and the inspector's
   * preview lane would otherwise start a third engine worker (fetching, compiling and evaluating
   * the engine again: ~0.6 s of CPU, session 16's trace) while this one sits idle. The next import
   * starts its own worker again, as the first one did. Only an idle worker moves: an import in
   * flight keeps its worker, and the lane that takes it has had no worker to abort.
   */
  private takeIdleImportWorker(): LaneState | undefined {
    const state = this.lanes.get('import');
    if (!state || state.pending.size > 0 || state.running.size > 0) return undefined;
    this.lanes.delete('import');
    this.handedOverWorkers++;
    return state;
  }

  private lane(lane: Lane): LaneState {
    let state = this.lanes.get(lane);
    if (!state && (lane === 'preview' || lane === 'census')) {
      state = this.takeIdleImportWorker();
      if (state) this.lanes.set(lane, state);
    }
    if (!state) {
      const worker = this.createWorker();
      this.startedWorkers++;
      const remote = wrap<Engine>(worker);
      state = { worker, remote, pending: new Set(), running: new Set() };
      const s = state;
      worker.addEventListener('error', (ev) => {
        // The worker crashed (out of memory, an uncaught error): the page goes on with a new one.
        // A read is sent once more to it; a write is not (it may or may not have committed: the
        // database rolled back an unfinished transaction), so it fails with what happened.
        const reason = (ev as ErrorEvent).message || 'it stopped unexpectedly';
        const serving = this.laneOf(s);
        if (!serving) return;
        for (const call of this.stop(serving, s)) {
          if (call.kind === 'read' && !call.crashed && !call.signal?.aborted) {
            call.crashed = true;
            call.resend();
          } else call.reject(new Error(`The engine worker stopped (${reason}) before this ${call.kind === 'write' ? 'import or change finished: the database keeps nothing of an unfinished one. Try again' : 'request was answered'}.`));
        }
      });
      this.lanes.set(lane, state);
      // Recovery runs once per page load, not per worker: a restarted worker must not purge the
      // soft-deleted transcripts whose undo toast is still on screen.
      if (!this.recovery) this.startRecovery(state);
    }
    return state;
  }

  private startRecovery(state: LaneState): void {
    const recovery = state.remote.init();
    this.recovery = recovery;
    this.recoveryOn = state;
    this.recoveryLost = new Promise((lost) => (this.loseRecovery = lost));
    recovery.then(
      () => (this.recoverySettled = true),
      () => (this.recoverySettled = true),
    );
  }

  /**
   * Resolves once start-up recovery has ended (done or failed). If the worker it runs on is
   * stopped first (an abort on its lane, a crash), its promise never settles: it is started again,
   * on `state`'s worker if no other lane started it meanwhile, and that one is waited for. A call
   * on another lane that waited for the first one used to wait forever (session 19).
   */
  private async recoveryEnded(state: LaneState): Promise<void> {
    for (;;) {
      if (this.recoverySettled) return;
      if (!this.recovery) {
        // This call's own worker was stopped too: the call was sent again elsewhere, or rejected.
        if (!this.laneOf(state)) return;
        this.startRecovery(state);
      }
      const lost = this.recoveryLost;
      const ended = await Promise.race([this.recovery!.then(() => true, () => true), lost.then(() => false)]);
      if (ended) return;
    }
  }

  /**
   * Start the query lane's worker (and start-up recovery) now, before a call needs it. Its start-up
   * (fetching and evaluating the engine's chunks, opening the database) takes 1–1.5 s on a busy
   * machine; started as the app's code loads (warmEngine) it overlaps the page's own start-up
   * instead of following it: the library's first query used to start it only after React had
   * rendered and run its effects. A lane that already has a worker is left as it is.
   */
  warm(): void {
    this.lane('query');
  }

  /** What recovery found on start (interrupted imports, leftovers removed). */
  recovered(): Promise<RecoveryReport> | null {
    return this.recovery;
  }

  /** Terminate a lane's worker (or all); pending calls reject with AbortError. */
  terminate(lane?: Lane): void {
    for (const [name, state] of this.lanes) {
      if (lane && name !== lane) continue;
      for (const call of this.stop(name, state)) call.reject(abortError());
    }
  }

  /** Terminate one lane's worker; returns the calls that were pending on it. */
  private stop(name: Lane, state: LaneState): PendingCall[] {
    state.worker.terminate();
    if (this.lanes.get(name) === state) this.lanes.delete(name);
    // Recovery that died with this worker must run again on the next one, and the calls waiting for
    // it on other lanes wait for that one instead (recoveryEnded). Recovery running on another worker
    // goes on: it is not started a second time beside it.
    if (!this.recoverySettled && this.recoveryOn === state) {
      this.recovery = null;
      this.recoveryOn = null;
      this.loseRecovery();
    }
    const calls = [...state.pending];
    state.pending.clear();
    return calls;
  }

  /**
   * One call's signal aborted: it rejects with AbortError at once. Its worker is terminated (the only
   * way to stop CPU-bound work) unless a write is in flight on it — on the preview lane only if the
   * call is still running PREVIEW_GRACE_MS later; the other reads pending there are sent again to a
   * fresh worker, so a stale preview being cancelled never fails the current one that TanStack
   * Query started a moment before.
   */
  private abortCall(name: Lane, state: LaneState, call: PendingCall): void {
    state.pending.delete(call);
    call.reject(abortError());
    if (name === 'preview' && state.running.has(call)) {
      // A stale preview gets PREVIEW_GRACE_MS to finish on its warm worker (its answer is dropped).
      setTimeout(() => {
        if (state.running.has(call)) this.stopForAbort(name, state);
      }, PREVIEW_GRACE_MS);
      return;
    }
    this.stopForAbort(name, state);
  }

  /** Stop a lane's worker for an aborted call, unless a write is in flight on it; its other reads go to a fresh worker. */
  private stopForAbort(name: Lane, state: LaneState): void {
    if (this.lanes.get(name) !== state) return;
    if ([...state.pending].some((c) => c.kind === 'write')) return;
    for (const other of this.stop(name, state)) {
      if (other.signal?.aborted) other.reject(abortError());
      else other.resend();
    }
  }

  /** Run one engine call on a lane, wired to the signal. */
  run<T>(signal: AbortSignal | undefined, lane: Lane, job: (remote: Remote<Engine>) => Promise<T>, kind: CallKind = 'read'): Promise<T> {
    if (signal?.aborted) return Promise.reject(abortError());
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const settle = (f: () => void) => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        f();
      };
      let state: LaneState;
      const call: PendingCall = {
        kind,
        signal,
        reject: (e) => settle(() => reject(e)),
        resend: () => send(),
      };
      const onAbort = () => this.abortCall(lane, state, call);
      const send = () => {
        const mine = (state = this.lane(lane));
        mine.pending.add(call);
        mine.running.add(call);
        // Every call waits for start-up recovery, so it never races an import that just began.
        this.recoveryEnded(mine)
          .then(() => job(mine.remote))
          .finally(() => mine.running.delete(call))
          .then(
            (value) => {
              // An answer from a worker the call has left (terminated, or resent elsewhere) is dropped.
              if (!mine.pending.delete(call)) return;
              settle(() => resolve(value));
            },
            (e) => {
              if (!mine.pending.delete(call)) return;
              settle(() => reject(e));
            },
          );
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      send();
    });
  }

  // ── Import lane ─────────────────────────────────────────────────────────────────────────────

  /**
   * `bytes` is transferred (the caller's buffer is emptied): pass a copy if you need it again. A File
   * (a Blob) is sent as it is, a handle, and read in the worker (lib/engine/api.ts ImportInput).
   */
  importFile(signal: AbortSignal | undefined, bytes: ArrayBuffer | Blob, name: string, options: EngineImportOptions, onProgress?: (p: ImportProgress) => void): Promise<ImportOutcome> {
    return told({ kind: 'transcripts' }, this.run(signal, 'import', (r) => r.importFile(sent(bytes), name, options, onProgress ? proxy(onProgress) : undefined) as Promise<ImportOutcome>, 'write'));
  }

  /** A live session's next snapshot: `baseId`'s original + `appended` (transferred), imported as a new log. */
  importAppended(signal: AbortSignal | undefined, baseId: string, appended: ArrayBuffer, name: string): Promise<ImportOutcome> {
    return this.run(signal, 'import', (r) => r.importAppended(baseId, transfer(appended, [appended]), name) as Promise<ImportOutcome>, 'write');
  }

  /** Every listed conversation of a container file, from one transfer and one parse of it. */
  importConversations(
    signal: AbortSignal | undefined,
    bytes: ArrayBuffer | Blob,
    name: string,
    conversations: number[],
    options: Omit<EngineImportOptions, 'conversation'>,
    onProgress?: (p: ImportProgress) => void,
  ): Promise<BatchOutcome> {
    return told({ kind: 'transcripts' }, this.run(signal, 'import', (r) => r.importConversations(sent(bytes), name, conversations, options, onProgress ? proxy(onProgress) : undefined), 'write'));
  }

  listConversations(signal: AbortSignal | undefined, bytes: ArrayBuffer, name: string): Promise<ConversationsOutcome> {
    return this.run(signal, 'import', (r) => r.listConversations(transfer(bytes, [bytes]), name) as Promise<ConversationsOutcome>, 'write');
  }

  // ── Query lane ──────────────────────────────────────────────────────────────────────────────

  listTranscripts(signal?: AbortSignal): Promise<TranscriptMeta[]> {
    return this.run(signal, 'query', (r) => r.listTranscripts());
  }
  getMeta(signal: AbortSignal | undefined, id: string): Promise<TranscriptMeta | null> {
    return this.run(signal, 'query', (r) => r.getMeta(id));
  }
  getTranscript(signal: AbortSignal | undefined, id: string): Promise<Transcript> {
    return this.run(signal, 'query', (r) => r.getTranscript(id));
  }
  getTimeline(signal: AbortSignal | undefined, id: string): Promise<Timeline> {
    return this.run(signal, 'query', (r) => r.getTimeline(id));
  }
  /** One bar per model call (the call axis). */
  async getCallTimeline(signal: AbortSignal | undefined, id: string): Promise<Timeline> {
    const { timeline, packed } = await this.run(signal, 'query', (r) => r.getCallTimeline(id));
    return { ...timeline, turns: unpackTurns(packed) };
  }
  /**
   * What the inspector needs on open. The timeline's turns come in slices of TIMELINE_SLICE: each
   * slice is decoded on the main thread in a task of its own (one message of 100k turns was a
   * 250 ms task), and the page can paint between them.
   */
  async getInspectorData(signal: AbortSignal | undefined, id: string): Promise<InspectorData> {
    const head = await this.run(signal, 'query', (r) => r.getInspectorHead(id));
    const turns: TimelineTurn[] = [];
    for (let from = 0; from < head.turnCount; from += TIMELINE_SLICE) {
      const slice = unpackTurns(await this.run(signal, 'query', (r) => r.getTimelineTurns(id, from, from + TIMELINE_SLICE)));
      for (const t of slice) turns.push(t);
    }
    return { ...head.data, timeline: { ...head.data.timeline, turns } };
  }
  /** The message list's layout (typed arrays, transferred); the rows come by window through getRows. */
  getRowIndex(signal: AbortSignal | undefined, id: string): Promise<RowIndex> {
    return this.run(signal, 'query', (r) => r.getRowIndex(id));
  }

  getRows(signal: AbortSignal | undefined, id: string, from: number, to: number): Promise<Row[]> {
    return this.run(signal, 'query', (r) => r.getRows(id, from, to));
  }

  /**
   * Search the list's rows. On the query lane, where the rows are cached; callers debounce and
   * pass no signal (aborting would terminate the lane's worker and the list's row loads with it).
   */
  searchRows(signal: AbortSignal | undefined, id: string, query: string, limit?: number): Promise<number[]> {
    return this.run(signal, 'query', (r) => r.searchRows(id, query, limit));
  }
  exportOriginal(signal: AbortSignal | undefined, id: string): Promise<ExportedFile> {
    return this.run(signal, 'query', (r) => r.exportOriginal(id));
  }
  exportTranscript(signal: AbortSignal | undefined, id: string, options: { format?: string } = {}): Promise<ExportOutcome> {
    return this.run(signal, 'query', (r) => r.exportTranscript(id, options) as Promise<ExportOutcome>);
  }
  renameTranscript(signal: AbortSignal | undefined, id: string, title: string): Promise<void> {
    return told({ kind: 'transcripts' }, this.run(signal, 'query', (r) => r.renameTranscript(id, title), 'write'));
  }
  deleteTranscript(signal: AbortSignal | undefined, id: string): Promise<void> {
    return told({ kind: 'deleted', transcriptId: id }, this.run(signal, 'query', (r) => r.deleteTranscript(id), 'write'));
  }
  /** The undo toast is held open: keep the deletion young. False when it was undone or purged. */
  renewDeletion(signal: AbortSignal | undefined, id: string): Promise<boolean> {
    return this.run(signal, 'query', (r) => r.renewDeletion(id), 'write');
  }
  /** False when there was nothing left to restore. */
  undoDelete(signal: AbortSignal | undefined, id: string): Promise<boolean> {
    return told({ kind: 'restored', transcriptId: id }, this.run(signal, 'query', (r) => r.undoDelete(id), 'write'));
  }
  /** `ids`: the deletions whose undo toast expired (default: the ones the engine worker made). */
  purgeDeleted(signal?: AbortSignal, ids?: readonly string[]): Promise<string[]> {
    return told({ kind: 'transcripts' }, this.run(signal, 'query', (r) => r.purgeDeleted(ids), 'write'));
  }
  storageEstimate(signal?: AbortSignal): Promise<StorageEstimate | null> {
    return this.run(signal, 'query', (r) => r.storageEstimate());
  }
  unfinishedImports(signal?: AbortSignal) {
    return this.run(signal, 'query', (r) => r.unfinishedImports());
  }
  dismissImport(signal: AbortSignal | undefined, journalId: string): Promise<void> {
    return this.run(signal, 'query', (r) => r.dismissImport(journalId), 'write');
  }
  getSetting(signal: AbortSignal | undefined, key: string): Promise<unknown> {
    return this.run(signal, 'query', (r) => r.getSetting(key));
  }
  putSetting(signal: AbortSignal | undefined, key: string, value: unknown): Promise<void> {
    return this.run(signal, 'query', (r) => r.putSetting(key, value), 'write');
  }

  // ── Versions, preview, export of a version (lib/engine/compaction.ts) ────────────────────────

  listVersions(signal: AbortSignal | undefined, id: string): Promise<Version[]> {
    return this.run(signal, 'query', (r) => r.listVersions(id));
  }
  // Version writes tell the other tabs (lib/engine/channel.ts) once they succeeded.
  forkVersion(signal: AbortSignal | undefined, id: string, parentId: string, name?: string): Promise<Version> {
    return announced(id, this.run(signal, 'query', (r) => r.forkVersion(id, parentId, name), 'write'));
  }
  renameVersion(signal: AbortSignal | undefined, id: string, versionId: string, name: string): Promise<Version> {
    return announced(id, this.run(signal, 'query', (r) => r.renameVersion(id, versionId, name), 'write'));
  }
  removeVersion(signal: AbortSignal | undefined, id: string, versionId: string): Promise<void> {
    return announced(id, this.run(signal, 'query', (r) => r.removeVersion(id, versionId), 'write'));
  }
  /**
   * On the preview lane (a write: never stopped by a stale preview's abort): its worker holds the
   * projection of the preview the user applies, and Apply's check reuses it (issue 31).
   */
  applyStep(signal: AbortSignal | undefined, id: string, versionId: string, step: DraftStep): Promise<Version> {
    return announced(id, this.run(signal, 'preview', (r) => r.applyStep(id, versionId, step), 'write'));
  }
  undoStep(signal: AbortSignal | undefined, id: string, versionId: string): Promise<Version> {
    return announced(id, this.run(signal, 'query', (r) => r.undoStep(id, versionId), 'write'));
  }
  /** Stale previews are cancelled by TanStack Query's signal: the preview worker is terminated if the stale one is still running PREVIEW_GRACE_MS later. */
  preview(signal: AbortSignal | undefined, id: string, request: PreviewRequest): Promise<PreviewOutcome> {
    return this.run(signal, 'preview', (r) => r.preview(id, request) as Promise<PreviewOutcome>);
  }
  /**
   * Build, on the preview lane's worker, what every preview of this transcript needs (its first
   * preview then does not). Asked one part at a time: a call made meanwhile on the lane (the
   * overlay's tick, a preview) is queued on the worker before the next part, so it waits for the
   * part running only, not the whole speculative warm-up (issue 31, session 18).
   */
  async warmPreview(signal: AbortSignal | undefined, id: string): Promise<void> {
    for (let part = 0; part < WARM_PREVIEW_PARTS; part++) await this.run(signal, 'preview', (r) => r.warmPreview(id, part));
  }
  compareVersions(signal: AbortSignal | undefined, id: string, a: string, b: string, model?: string): Promise<VersionComparison> {
    return this.run(signal, 'preview', (r) => r.compareVersions(id, a, b, model));
  }
  /*
   * The export dialog's calls (the note, a conversion's losses, the file) run on the preview lane
   * (issue 31): its worker holds the log read back, the lost-identifier index and the projection of
   * the version just applied (the preview's). On the query lane, whose worker holds none of them,
   * the first of them read the log back from IndexedDB and parsed its original again, projected the
   * version and indexed the log for the audit's lost identifiers: seconds at 1,000 turns.
   */
  conversionLosses(signal: AbortSignal | undefined, id: string, versionId: string, format: string): Promise<ConversionLossesOutcome> {
    return this.run(signal, 'preview', (r) => r.conversionLosses(id, versionId, format) as Promise<ConversionLossesOutcome>);
  }
  exportVersion(signal: AbortSignal | undefined, id: string, versionId: string, options: ExportOptions): Promise<ExportVersionOutcome> {
    return this.run(signal, 'preview', (r) => r.exportVersion(id, versionId, options) as Promise<ExportVersionOutcome>);
  }
  historyLeftOut(signal: AbortSignal | undefined, id: string, versionId: string): Promise<HistoryLeftOut> {
    return this.run(signal, 'preview', (r) => r.historyLeftOut(id, versionId));
  }
  exportTargets(signal: AbortSignal | undefined, id: string): Promise<Array<{ id: string; label: string; source: boolean }>> {
    return this.run(signal, 'query', (r) => r.exportTargets(id));
  }
  /** LLM summaries on their own lane's worker: cancelling aborts the request in flight (worker terminated). */
  runSummaries(signal: AbortSignal | undefined, id: string, versionId: string, draft: DraftStep | null, onProgress?: (p: SummaryProgress) => void): Promise<SummaryRun> {
    return this.run(signal, 'preview', (r) => r.runSummaries(id, versionId, draft, onProgress ? proxy(onProgress) : undefined), 'write');
  }
  /** The last summary run's failures still standing (shown in the Plan tab until the next run). */
  summaryFailures(signal: AbortSignal | undefined, id: string): Promise<SummaryFailure[]> {
    return this.run(signal, 'query', (r) => r.summaryFailures(id));
  }
  summarySettings(signal?: AbortSignal): Promise<{ offline: boolean; description: string; onFailure: 'emergency' | 'leave'; nativeUnavailable?: string }> {
    return this.run(signal, 'query', (r) => r.summarySettings());
  }
  toolStats(signal: AbortSignal | undefined, id: string): Promise<ToolStat[]> {
    return this.run(signal, 'query', (r) => r.toolStats(id));
  }
  peerTriggers(signal: AbortSignal | undefined, id: string, model?: string): Promise<TriggerPoint[]> {
    return this.run(signal, 'query', (r) => r.peerTriggers(id, model));
  }
  /** Every policy replayed call by call (the Replay page), or the ones asked (the timeline's overlay); CPU-bound, so on the preview lane (cancellable). */
  replay(signal: AbortSignal | undefined, id: string, options: ReplayOptions = {}): Promise<ReplayView> {
    return this.run(signal, 'preview', (r) => r.replay(id, options));
  }
  /**
   * The Replay page's replay: `parts` (lists of policy ids, in the table's order) one call each on
   * the preview lane, `onPart` told the policies done so far after each, so the first rows show
   * while the others replay. The signal is checked between parts, never handed to the worker: the
   * page left, the part running finishes (the worker keeps it, lib/engine/replay.ts ReplayCache)
   * and the rest is not asked — the preview worker is not stopped, and keeps the log it holds for
   * the inspector's next preview (one call of every policy, aborted, stopped that worker 1.5 s later).
   */
  async replayInParts(signal: AbortSignal | undefined, id: string, parts: ReadonlyArray<readonly string[]>, options: Omit<ReplayOptions, 'policies'> = {}, onPart?: (done: ReplayView) => void): Promise<ReplayView> {
    let done: ReplayView | undefined;
    for (const policies of parts) {
      if (signal?.aborted) throw abortError();
      const v = await this.run(undefined, 'preview', (r) => r.replay(id, { ...options, policies: [...policies] }));
      this.replayCalls++;
      done = done ? { ...v, recordedError: done.recordedError ?? v.recordedError, series: [...done.series, ...v.series] } : v;
      if (signal?.aborted) throw abortError();
      if (done.series.length < parts.reduce((n, p) => n + p.length, 0)) onPart?.(done);
    }
    if (!done) throw new Error('Nothing to replay: no policy asked.');
    return done;
  }
  /** Replay calls answered by replayInParts (tests count them: an abort asks no further part). */
  replayCalls = 0;
  /** classify-tangents proposals (an LLM call when a provider is configured: never sent twice). */
  classifyTangents(signal: AbortSignal | undefined, id: string, keepLast: number): Promise<TangentProposals> {
    return this.run(signal, 'query', (r) => r.classifyTangents(id, keepLast), 'write');
  }
  parseConfig(signal: AbortSignal | undefined, fileName: string, text: string): Promise<ConfigOutcome> {
    return this.run(signal, 'query', (r) => r.parseConfig(fileName, text) as Promise<ConfigOutcome>);
  }
  /** The compaction ledger of a version (issue 26): CPU-bound, on the preview lane. */
  compactionLedger(signal: AbortSignal | undefined, id: string, versionId?: string | null): Promise<LedgerView> {
    return this.run(signal, 'preview', (r) => r.compactionLedger(id, versionId));
  }
  /** The transcript's pins (messages, tool results, patterns), as stored with it. */
  getPins(signal: AbortSignal | undefined, id: string): Promise<Pin[]> {
    return this.run(signal, 'query', (r) => r.getPins(id));
  }
  setPins(signal: AbortSignal | undefined, id: string, pins: Pin[]): Promise<PinsOutcome> {
    return this.run(signal, 'query', (r) => r.setPins(id, pins) as Promise<PinsOutcome>, 'write');
  }
  /** Every stored transcript's own compactions, per agent (the library's census), on its own lane: cancelling stops its worker only. */
  libraryCensus(signal: AbortSignal | undefined, onProgress?: (p: CensusProgress) => void): Promise<Census> {
    return this.census(signal, (r, report) => r.libraryCensus(report), onProgress);
  }
  /** The census of the sessions the local server lists: the worker fetches each file from the API itself (nothing passes through the page). */
  sessionsCensus(signal: AbortSignal | undefined, sessions: SessionRef[], api: { origin: string; token: string }, onProgress?: (p: CensusProgress) => void): Promise<Census> {
    return this.census(signal, (r, report) => r.sessionsCensus(sessions, api, report), onProgress);
  }

  /**
   * A census call on its lane, with two guarantees for the page's bar. No report reaches
   * `onProgress` once the call has settled: the reports come on the Comlink proxy's MessagePort and
   * the answer on the worker's own port, and a browser does not keep the order between two ports
   * (Chromium delivered a worker's answer before its last reports in 29 of 30 runs:
   * scripts/port-order.mjs). And the call never waits forever: CENSUS_STALL_MS without a report or the answer, it fails with a message
   * saying so (censusStalled) and its worker is stopped, as Cancel stops it.
   */
  private census(signal: AbortSignal | undefined, ask: (remote: Remote<Engine>, report: (p: CensusProgress) => void) => Promise<Census>, onProgress?: (p: CensusProgress) => void): Promise<Census> {
    if (signal?.aborted) return Promise.reject(abortError());
    const stopper = new AbortController();
    const follow = () => stopper.abort();
    signal?.addEventListener('abort', follow, { once: true });
    return new Promise<Census>((resolve, reject) => {
      let open = true;
      let last: CensusProgress | null = null;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const end = (f: () => void) => {
        if (!open) return;
        open = false;
        clearTimeout(timer);
        signal?.removeEventListener('abort', follow);
        f();
      };
      const arm = () => {
        clearTimeout(timer);
        const ms = this.censusStallMs;
        timer = setTimeout(() => {
          end(() => reject(censusStalled(ms, last)));
          stopper.abort();
        }, ms);
      };
      const report = (p: CensusProgress) => {
        if (!open) return;
        last = p;
        arm();
        onProgress?.(p);
      };
      arm();
      this.run(stopper.signal, 'census', (r) => ask(r, proxy(report))).then(
        (census) => end(() => resolve(census)),
        (e: unknown) => end(() => reject(e)),
      );
    });
  }
}

/** The parts of the preview's warm-up (lib/engine/compaction.ts warmPreview): the log read, then three of its indexes. */
export const WARM_PREVIEW_PARTS = 4;

let shared: WorkerBridge | null = null;

/** The page's bridge (one per tab). */
export function getBridge(): WorkerBridge {
  if (!shared) shared = new WorkerBridge();
  return shared;
}

/** Start the shared bridge's query worker as the app's code loads (WorkerBridge.warm); browser only. */
export function warmEngine(): void {
  if (typeof window === 'undefined' || typeof Worker === 'undefined') return;
  getBridge().warm();
}
