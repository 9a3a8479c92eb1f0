/**
 * The Replay page's call (worker side): the call-by-call replay of every policy on a stored
 * transcript (lib/simulate/calls.ts), packed for the page — per policy its table row and, per
 * main-chain call, the prompt it sent, whether it fired and whether the cache broke, as typed
 * arrays (transferred, not cloned). Pure over lib/: runs in Node tests as is.
 */
import { transfer } from 'comlink';
import type { Transcript } from '../model/types';
import { simulate, type Simulation } from '../simulate/calls';
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

export function replayView(t: Transcript, options: { model?: string; cacheTtl?: '5m' | '1h' } = {}): ReplayView {
  const sim = simulate(t, REPLAY_POLICIES, options);
  const rows = replayRows(sim);
  const mainOf = (r: Simulation['results'][number]) => r.calls.filter((c) => !c.sidechain);
  const first = sim.results[0] ? mainOf(sim.results[0]) : [];
  return {
    title: t.title,
    format: t.format,
    model: sim.model,
    cache: sim.cache,
    cacheFit: sim.cacheFit ?? null,
    calibration: sim.calibration,
    recorded: sim.recorded ?? null,
    recordedError: recordedError(sim) ?? null,
    warnings: sim.warnings,
    usageIgnored: !!sim.usageIgnored,
    callTurns: Int32Array.from(first, (c) => c.turn),
    callMessages: Int32Array.from(first, (c) => c.messageIndex),
    series: sim.results.map((r, i) => {
      const calls = mainOf(r);
      return {
        id: r.policy,
        label: r.label,
        ...(r.note && { note: r.note }),
        row: rows[i],
        prompts: Float64Array.from(calls, (c) => c.prompt),
        fired: Uint8Array.from(calls, (c) => (c.fired ? 1 : 0)),
        broken: Uint8Array.from(calls, (c) => (c.cacheBroken ? 1 : 0)),
        breakEven: Float64Array.from(calls, (c) => (c.compaction ? c.compaction.breakEvenCalls ?? Infinity : 0)),
        unpaid: Uint8Array.from(calls, (c) => (c.compaction && !c.compaction.paidBack ? 1 : 0)),
      };
    }),
  };
}

/** The typed arrays of a view, for Comlink's transfer list. */
export function replayTransferables(v: ReplayView): ArrayBuffer[] {
  return [v.callTurns.buffer, v.callMessages.buffer, ...v.series.flatMap((s) => [s.prompts.buffer, s.fired.buffer, s.broken.buffer, s.breakEven.buffer, s.unpaid.buffer])] as ArrayBuffer[];
}

export function replayEngine(deps: { getTranscript: (id: string) => Promise<Transcript> }) {
  return {
    /** Every policy replayed call by call on a stored transcript (the Replay page). */
    async replay(id: string, options: { model?: string; cacheTtl?: '5m' | '1h' } = {}): Promise<ReplayView> {
      const view = replayView(await deps.getTranscript(id), options);
      return transfer(view, replayTransferables(view));
    },
  };
}
