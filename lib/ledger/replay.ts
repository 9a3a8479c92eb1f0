/**
 * A replayed policy's compactions as ledger events (lib/simulate/calls.ts): each call where the
 * policy fired. Before = the prompt the call would have sent without firing, after = the prompt it
 * sent, the cache write = what that call wrote under the replay's cache model; break-even counts
 * the replay's later calls (lib/ledger/break-even.ts). A summarizing policy's compaction call is
 * the replay's estimate (issue #29: the context it summarizes sent at the session's model, the
 * summary as output; ReplayedCall.compaction.callUsd); a compaction that calls no model costs null.
 */
import type { Transcript } from '../model/types';
import type { ReplayResult, Simulation } from '../simulate/calls';
import { lookupModel } from '../tokens/catalog';
import { compactionBreakEven } from './break-even';
import type { LedgerEvent } from './types';

export function replayEvents(log: Transcript, sim: Simulation, result: ReplayResult, triggerTokens?: number): LedgerEvent[] {
  const info = sim.model.id ? lookupModel(sim.model.id) : undefined;
  const main = result.calls.filter((c) => !c.sidechain);
  const out: LedgerEvent[] = [];
  main.forEach((c, i) => {
    if (!c.fired || c.before === undefined) return;
    const callsAfter = main.length - i;
    const cacheWriteUsd = info ? (c.cacheWrite * info.price.cacheWrite * sim.cache.writePrice) / 1_000_000 : null;
    out.push({
      id: `replay:${result.policy}:${c.index}`,
      by: 'replay',
      label: `${result.label} (replay)`,
      trigger: 'auto',
      triggerLevel: triggerTokens !== undefined ? { tokens: triggerTokens, ofWindow: triggerTokens / sim.model.contextWindow } : { tokens: c.before, ofWindow: c.before / sim.model.contextWindow },
      policy: result.policy,
      atMessage: c.messageIndex,
      atTurn: c.turn,
      covers: null,
      tokensBefore: c.before,
      tokensBeforeFrom: 'estimate',
      tokensAfter: c.prompt,
      tokensAfterFrom: 'estimate',
      durationMs: null,
      model: sim.model.id ?? log.model ?? null,
      costUsd: c.compaction?.call ? c.compaction.callUsd : null,
      costFrom: c.compaction?.call ? 'estimate' : null,
      cacheWriteAfter: c.cacheWrite,
      cacheWriteUsd,
      breakEvenCalls: info ? compactionBreakEven({ price: info.price, tokensBefore: c.before, tokensAfter: c.prompt, firstCall: c, compactionUsd: c.compaction?.callUsd ?? 0, callsAfter }) : null,
      callsAfter,
      summary: null,
      survival: null,
      pinsLost: [],
    });
  });
  return out;
}
