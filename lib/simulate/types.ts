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
  /**
   * The plan's decision for a message depends only on the messages after it: it only stubs tool
   * results (tool-retention, count mode, scope 'all', no budget, keepLast 0, no hints), a result
   * expires once `keepResults` results (of any tool) follow it, and a result a look left or stubbed
   * is left as it is by every later look (its rank only grows; re-stubbing a stub is no smaller).
   * So a look need project only the context from the oldest of the newest `keepResults` results at
   * the previous look (lib/simulate/calls.ts); the projected prefix stays as it is.
   */
  endLocal?: { keepResults: number } | EndLocalTokens;
}

/**
 * PeerPolicy.endLocal for tool-retention's tokens mode (OpenCode prune): a result expires once
 * `keepResultTokens` of results follow it, outside the last `keepTurns` turns (the step's keepLast,
 * no budget); the prune applies only when enough is reclaimable, which the results before the tail
 * do not add to while every one of them is a stub (the replay projects the whole context otherwise),
 * and only a look that pruned settles what it passed over.
 */
export interface EndLocalTokens {
  keepResultTokens: number;
  keepTurns: number;
}

export function planStep(id: string, reducers: Step['reducers'], keepLast: number, budget?: number, range: Step['range'] = { kind: 'after-last-compaction' }): Step {
  return { id, range, reducers, keepLast, ...(budget !== undefined && { budget }), createdAt: new Date(0).toISOString(), label: id };
}
