/**
 * The peers' compaction policies (POLICIES.md) as data: when each one fires for a model, and —
 * where our reducers can express it — what it does, as a plan. Replaying a plan is
 * `projectTranscript(log, plan)`: the same engine, so peers and our own strategies compare like
 * for like. Plans are approximations of the peers' behaviour; each file says where it differs.
 */
import type { Transcript } from '../model/types';
import type { ModelInfo } from '../tokens/catalog';
import type { Step } from '../compaction/types';

export type ModelLimits = Pick<ModelInfo, 'contextWindow' | 'maxOutput'>;

export interface PeerPolicy {
  id: string;
  label: string;
  /** Tokens of context at which it fires, or undefined when its trigger is not a token count. */
  triggerTokens(model: ModelLimits): number | undefined;
  /** Event-count triggers (OpenHands counts events, not tokens). */
  triggerEvents?: number;
  /** When the trigger is checked: before every model call (default), or only between turns (JP, RFD D17). */
  checkAt?: 'call' | 'turn';
  /** One line: what it does when it fires. */
  action: string;
  /** What it keeps. */
  keeps: string;
  /** The policy as steps over our reducers, when it can be expressed. */
  plan?(log: Transcript, model: ModelLimits): Step[];
  /** The plan removes blocks of this kind and nothing else (the replay skips a look at a context without one: it would change nothing). */
  onlyRemoves?: 'reasoning';
}

export function planStep(id: string, reducers: Step['reducers'], keepLast: number, budget?: number, range: Step['range'] = { kind: 'after-last-compaction' }): Step {
  return { id, range, reducers, keepLast, ...(budget !== undefined && { budget }), createdAt: new Date(0).toISOString(), label: id };
}
