/**
 * The compaction ledger of one session (issue 26): the agent's own compactions, our applied steps
 * and, when asked, a replayed policy's — one event each, in the order they happen.
 */
import type { Transcript } from '../model/types';
import type { Step } from '../compaction/types';
import type { Projection } from '../compaction/types';
import { projectTranscript } from '../compaction/project';
import { simulate } from '../simulate/calls';
import type { ReplayPolicy } from '../simulate/calls';
import { agentEvents } from './agent';
import { ourEvents } from './ours';
import { replayEvents } from './replay';
import type { Ledger, LedgerEvent } from './types';
import type { SurvivalFn } from './survival';

export type { Ledger, LedgerEvent } from './types';

export interface LedgerOptions {
  /** A version's steps: each is one event. */
  steps?: readonly Step[];
  versionId?: string;
  /** How to project the first i steps (default projectTranscript, offline summaries). */
  project?: (steps: readonly Step[]) => Projection;
  /** Replayed policies: each of their compactions is one event. */
  policies?: readonly ReplayPolicy[];
  survival?: SurvivalFn;
  pinsLost?: (log: Transcript, span: [number, number], modelText: string) => string[];
}

export function ledgerOf(log: Transcript, options: LedgerOptions = {}): Ledger {
  const events: LedgerEvent[] = agentEvents(log, options);
  if (options.steps && options.steps.length > 0) {
    const project = options.project ?? ((steps: readonly Step[]) => projectTranscript(log, steps, steps.length === 0 ? { baseline: 'model-view' } : {}));
    events.push(...ourEvents(log, options.steps, { ...options, project }));
  }
  if (options.policies && options.policies.length > 0) {
    const sim = simulate(log, options.policies);
    sim.results.forEach((r, i) => events.push(...replayEvents(log, sim, r, options.policies![i].triggerTokens?.(sim.model))));
  }
  return { events };
}
