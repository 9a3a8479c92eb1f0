/**
 * The Replay page's call (worker side): the call-by-call replay of every policy on a stored
 * transcript (lib/simulate/calls.ts), packed for the page — per policy its table row and, per
 * main-chain call, the prompt it sent, whether it fired and whether the cache broke, as typed
 * arrays (transferred, not cloned). Pure over lib/: runs in Node tests as is.
 */
import { transfer } from 'comlink';
import type { Transcript } from '../model/types';
import { modelCalls, simulate, type Simulation } from '../simulate/calls';
import { REPLAY_POLICIES } from '../simulate/policies/replay';
import { recordedError, replayRows, type ReplayRow } from '../simulate/table';

export interface ReplaySeries {
  id: string;
  label: string;
  note?: string;
  row: ReplayRow;
  /** Tokens each main-chain call sent under this policy. */
  prompts: Float64Array;
  /** 1 where the policy compacted just before the call. */
  fired: Uint8Array;
  /** 1 where the call lost the cached prefix (TTL ran out, or a compaction rewrote it). */
  broken: Uint8Array;
  /**
   * Where the policy compacted: the calls its compaction needed to pay back the cache it broke
   * (lib/ledger/break-even.ts); Infinity when it never could, 0 where it did not compact.
   */
  breakEven: Float64Array;
  /** Where the policy compacted: 1 when the session made fewer calls after it than its break-even (it never paid back). */
  unpaid: Uint8Array;
  /**
   * Set when this series was read from the browser's store (`ReplayStore`), not replayed by this
   * worker: when the replay it holds was stored (ISO time).
   */
  storedAt?: string;
}

export interface ReplayView {
  title: string;
  format: string;
  model: Simulation['model'];
  cache: Simulation['cache'];
  cacheFit: Simulation['cacheFit'] | null;
  calibration: Simulation['calibration'];
  recorded: Simulation['recorded'] | null;
  /** (as-recorded replay − recorded bill) / recorded bill, over the recorded calls. */
  recordedError: number | null;
  /** What the replay could not take as recorded (simulate's warnings: implausible usage, timestamps that go back). */
  warnings: string[];
  /** The recorded usage was implausible: sizes are our counts (lib/tokens/usage-sanity.ts). */
  usageIgnored: boolean;
  /** Main-chain calls: their turn and the message each produced. */
  callTurns: Int32Array;
  callMessages: Int32Array;
  series: ReplaySeries[];
}

export interface ReplayOptions {
  model?: string;
  cacheTtl?: '5m' | '1h';
  /**
   * Only these policies (ids of REPLAY_POLICIES; the timeline's overlay asks for the ones it
   * draws), in REPLAY_POLICIES' order. Every policy is replayed on its own (lib/simulate/calls.ts),
   * so a policy's series is the same whichever others are asked with it.
   */
  policies?: readonly string[];
}

/** What a view holds whatever the policies: the model, the calibration, the calls (stored as the `''` policy's row). */
export type ReplayHead = Omit<ReplayView, 'series' | 'recordedError'>;
type ViewHead = ReplayHead;

/** One stored piece of a log's replay: a policy's series, or (policy `''`) the view's head. */
export interface StoredReplay {
  policy: string;
  head?: ReplayHead;
  recordedError?: number | null;
  series?: ReplaySeries;
  storedAt: string;
}

/**
 * Where a log's replays outlive the worker (the browser's IndexedDB, lib/db/repo.ts): a log never
 * changes under its id, so its replay with a model and cache lifetime holds as long as the code that
 * made it — `build` names that code, and only rows of this build are read.
 */
export interface ReplayStore {
  build: string;
  load(id: string, optionsKey: string): Promise<StoredReplay[]>;
  save(id: string, optionsKey: string, rows: StoredReplay[]): Promise<void>;
}

/** The part of a replay's key the options make (the worker's cache and the store use the same). */
export function replayOptionsKey(options: ReplayOptions): string {
  return `${options.model ?? ''}|${options.cacheTtl ?? ''}`;
}

/**
 * What one transcript's replays computed, per model and cache lifetime: the view's head and each
 * policy's series. The overlay replays the policies it draws; the Replay page then replays only
 * the others, and ticking one more policy on the timeline replays that one alone.
 */
export class ReplayCache {
  private byLog = new WeakMap<Transcript, Map<string, ReplayEntry>>();
  /** Policies replayed so far (for tests: each policy of a transcript, options, is replayed once). */
  replayed = 0;

  entry(t: Transcript, options: ReplayOptions): ReplayEntry {
    let perLog = this.byLog.get(t);
    if (!perLog) this.byLog.set(t, (perLog = new Map()));
    const key = replayOptionsKey(options);
    let e = perLog.get(key);
    if (!e) perLog.set(key, (e = { series: new Map(), stored: new Set() }));
    return e;
  }
}

interface ReplayEntry {
  head?: ViewHead;
  recordedError?: number | null;
  series: Map<string, ReplaySeries>;
  /** Policies (and `''`, the head) the store holds: read from it, or written by this worker. */
  stored: Set<string>;
  /** The store's read of this entry, once per worker. */
  load?: Promise<void>;
}

/**
 * Fill a cache entry from the store: each row checked against the head it is read with (a series
 * of another length than the calls is not this log's and is left out: the policy replays again).
 */
async function readStored(store: ReplayStore, id: string, optionsKey: string, e: ReplayEntry): Promise<void> {
  let rows: StoredReplay[];
  try {
    rows = await store.load(id, optionsKey);
  } catch (err) {
    console.warn('Contextscope: the stored replays could not be read; replaying.', err);
    return;
  }
  const head = rows.find((r) => r.policy === '' && r.head)?.head;
  if (!head || e.head) return;
  const calls = head.callTurns.length;
  e.head = head;
  e.stored.add('');
  for (const r of rows) {
    const s = r.series;
    if (!r.policy || !s || s.id !== r.policy || e.series.has(r.policy)) continue;
    if (s.prompts.length !== calls || s.fired.length !== calls || s.broken.length !== calls || s.breakEven.length !== calls || s.unpaid.length !== calls) continue;
    e.series.set(r.policy, { ...s, storedAt: r.storedAt });
    if (r.policy === 'recorded') e.recordedError = r.recordedError ?? null;
    e.stored.add(r.policy);
  }
}

/** Write what this worker replayed and the store does not hold yet (after the answer: never awaited by it). */
async function saveFresh(store: ReplayStore, id: string, optionsKey: string, e: ReplayEntry): Promise<void> {
  const storedAt = new Date().toISOString();
  const rows: StoredReplay[] = [];
  if (e.head && !e.stored.has('')) rows.push({ policy: '', head: e.head, storedAt });
  for (const [policy, series] of e.series)
    if (!e.stored.has(policy)) rows.push({ policy, series, ...(policy === 'recorded' && { recordedError: e.recordedError ?? null }), storedAt });
  if (rows.length === 0) return;
  for (const r of rows) e.stored.add(r.policy);
  try {
    await store.save(id, optionsKey, rows);
  } catch (err) {
    // Not kept (quota, a closed database): the next page load replays these policies again.
    for (const r of rows) e.stored.delete(r.policy);
    console.warn('Contextscope: the replay could not be stored.', err);
  }
}

function packSeries(r: Simulation['results'][number], row: ReplayRow): ReplaySeries {
  const calls = r.calls.filter((c) => !c.sidechain);
  return {
    id: r.policy,
    label: r.label,
    ...(r.note && { note: r.note }),
    row,
    prompts: Float64Array.from(calls, (c) => c.prompt),
    fired: Uint8Array.from(calls, (c) => (c.fired ? 1 : 0)),
    broken: Uint8Array.from(calls, (c) => (c.cacheBroken ? 1 : 0)),
    breakEven: Float64Array.from(calls, (c) => (c.compaction ? c.compaction.breakEvenCalls ?? Infinity : 0)),
    unpaid: Uint8Array.from(calls, (c) => (c.compaction && !c.compaction.paidBack ? 1 : 0)),
  };
}

const copySeries = (s: ReplaySeries): ReplaySeries => ({ ...s, prompts: s.prompts.slice(), fired: s.fired.slice(), broken: s.broken.slice(), breakEven: s.breakEven.slice(), unpaid: s.unpaid.slice() });

/**
 * The replay of the asked policies (every one by default), packed for the page. With a cache, a
 * policy already replayed on this transcript with these options is not replayed again; the view
 * holds copies of the cached arrays (it is transferred, which detaches them).
 */
export function replayView(t: Transcript, options: ReplayOptions = {}, cache?: ReplayCache): ReplayView {
  const simOptions = { ...(options.model && { model: options.model }), ...(options.cacheTtl && { cacheTtl: options.cacheTtl }) };
  const asked = options.policies ? REPLAY_POLICIES.filter((p) => options.policies!.includes(p.id)) : REPLAY_POLICIES;
  const e = (cache ?? new ReplayCache()).entry(t, options);
  const missing = asked.filter((p) => !e.series.has(p.id));
  // The head (model, calibration, the calls) does not depend on the policies: one simulate gives it.
  if (missing.length > 0 || !e.head) {
    const sim = simulate(t, missing, simOptions);
    if (cache) cache.replayed += missing.length;
    const rows = replayRows(sim);
    sim.results.forEach((r, i) => e.series.set(r.policy, packSeries(r, rows[i])));
    if (missing.some((p) => p.id === 'recorded')) e.recordedError = recordedError(sim) ?? null;
    if (!e.head) {
      // The calls the replay ran on: without the recorded usage when it was implausible (simulate's own rule).
      const main = modelCalls(sim.usageIgnored ? { ...t, usage: [] } : t).filter((c) => !c.sidechain);
      e.head = {
        title: t.title,
        format: t.format,
        model: sim.model,
        cache: sim.cache,
        cacheFit: sim.cacheFit ?? null,
        calibration: sim.calibration,
        recorded: sim.recorded ?? null,
        warnings: sim.warnings,
        usageIgnored: !!sim.usageIgnored,
        callTurns: Int32Array.from(main, (c) => c.turn),
        callMessages: Int32Array.from(main, (c) => c.messageIndex),
      };
    }
  }
  const head = e.head!;
  const series = asked.map((p) => e.series.get(p.id)!);
  return {
    ...head,
    recordedError: e.recordedError ?? null,
    callTurns: head.callTurns.slice(),
    callMessages: head.callMessages.slice(),
    series: cache ? series.map(copySeries) : series,
  };
}

/** The typed arrays of a view, for Comlink's transfer list. */
export function replayTransferables(v: ReplayView): ArrayBuffer[] {
  return [v.callTurns.buffer, v.callMessages.buffer, ...v.series.flatMap((s) => [s.prompts.buffer, s.fired.buffer, s.broken.buffer, s.breakEven.buffer, s.unpaid.buffer])] as ArrayBuffer[];
}

/** A user-timing measure, cleared at once (the trace has it; the worker's timeline buffer does not grow). */
function measure(name: string, start: number, end: number): void {
  performance.measure(name, { start, end });
  performance.clearMeasures(name);
}

export function replayEngine(deps: { getTranscript: (id: string) => Promise<Transcript>; store?: ReplayStore; cache?: ReplayCache }) {
  // Keyed by the transcript object: the worker's transcript cache hands the same one back while it holds it.
  const cache = deps.cache ?? new ReplayCache();
  return {
    /**
     * The policies replayed call by call on a stored transcript (the Replay page: all; the timeline's
     * overlay: the ones it draws). With a store, what an earlier page load replayed of this log is
     * read back (its series carry `storedAt`) and only the rest replays; what replays is stored
     * after the answer.
     */
    async replay(id: string, options: ReplayOptions = {}): Promise<ReplayView> {
      // Phases a DevTools trace shows on the worker's thread (blink.user_timing; bench/profile-app-trace.ts prints them).
      const t0 = performance.now();
      const log = await deps.getTranscript(id);
      const t1 = performance.now();
      const { store } = deps;
      const e = store ? cache.entry(log, options) : undefined;
      if (store && e) await (e.load ??= readStored(store, id, replayOptionsKey(options), e));
      const t2 = performance.now();
      const view = replayView(log, options, cache);
      if (store && e) void saveFresh(store, id, replayOptionsKey(options), e);
      measure('cs-replay:transcript', t0, t1);
      if (store) measure('cs-replay:stored', t1, t2);
      measure(`cs-replay:view ${options.policies?.join(',') ?? 'all'}`, t2, performance.now());
      return transfer(view, replayTransferables(view));
    },
  };
}
