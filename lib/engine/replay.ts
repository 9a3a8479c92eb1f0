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

type ViewHead = Omit<ReplayView, 'series' | 'recordedError' | 'callTurns' | 'callMessages'> & { callTurns: Int32Array; callMessages: Int32Array };

/**
 * What one transcript's replays computed, per model and cache lifetime: the view's head and each
 * policy's series. The overlay replays the policies it draws; the Replay page then replays only
 * the others, and ticking one more policy on the timeline replays that one alone.
 */
export class ReplayCache {
  private byLog = new WeakMap<Transcript, Map<string, { head?: ViewHead; recordedError?: number | null; series: Map<string, ReplaySeries> }>>();
  /** Policies replayed so far (for tests: each policy of a transcript, options, is replayed once). */
  replayed = 0;

  entry(t: Transcript, options: ReplayOptions) {
    let perLog = this.byLog.get(t);
    if (!perLog) this.byLog.set(t, (perLog = new Map()));
    const key = `${options.model ?? ''}|${options.cacheTtl ?? ''}`;
    let e = perLog.get(key);
    if (!e) perLog.set(key, (e = { series: new Map() }));
    return e;
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

export function replayEngine(deps: { getTranscript: (id: string) => Promise<Transcript> }) {
  // Keyed by the transcript object: the worker's transcript cache hands the same one back while it holds it.
  const cache = new ReplayCache();
  return {
    /** The policies replayed call by call on a stored transcript (the Replay page: all; the timeline's overlay: the ones it draws). */
    async replay(id: string, options: ReplayOptions = {}): Promise<ReplayView> {
      // Phases a DevTools trace shows on the worker's thread (blink.user_timing; bench/profile-app-trace.ts prints them).
      const t0 = performance.now();
      const log = await deps.getTranscript(id);
      const t1 = performance.now();
      const view = replayView(log, options, cache);
      measure('cs-replay:transcript', t0, t1);
      measure(`cs-replay:view ${options.policies?.join(',') ?? 'all'}`, t1, performance.now());
      return transfer(view, replayTransferables(view));
    },
  };
}
