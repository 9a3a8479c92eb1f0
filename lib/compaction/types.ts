/**
 * Compaction as a projection (seed 004, RFD 036/D17): a version of a transcript is an ordered
 * list of steps; the rendered context is `project(log, steps, budget)`, a pure function.
 * Nothing here ever mutates a Transcript.
 */
import type { ReducerId } from '../model/projection';
import type { Pin } from './pins';

/** The projection's types live in lib/model (formats serialize projections without knowing compaction). */
export type { ReducerId, Fate, FateKind, ProjectedBlock, ProjectedMessage, ReducerReport, SummaryArtifact, TokenTotals, Projection, SummaryKey, SummaryRequest } from '../model/projection';

/** Which turns a step applies to (RFD D17 / RFD 036 ranges). Turns are 0-based, `to` inclusive. */
export type TurnRange =
  | { kind: 'turns'; from: number; to: number }
  /** From just after the last compaction (a source marker or an earlier step's summary) up to `keepLast`. */
  | { kind: 'after-last-compaction' }
  /** Every turn but the last N. */
  | { kind: 'all-but-last'; n: number }
  /** Model calls `from`..`to` (0-based, inclusive; lib/compaction/calls.ts): a range inside an agent run. */
  | { kind: 'calls'; from: number; to: number };

/** A reducer with its knobs. Options are reducer-specific plain data (serializable, stored in Dexie). */
export interface ReducerSpec {
  id: ReducerId;
  options?: Record<string, unknown>;
}

export interface Step {
  id: string;
  range: TurnRange;
  reducers: ReducerSpec[];
  /** Turns at the end never touched by this step (RFD 036 `--keep-last`). */
  keepLast: number;
  /**
   * The finer tail an agent run needs (DESIGN-NOTES "A protected tail that fits agents"): when
   * what the step may not touch alone exceeds the budget, `keep_last` narrows to the last
   * `keepLastCalls` model calls (default 3), at most `keepLastTokens` tokens of them (default a
   * quarter of the budget; the last call is always kept), and the prompts of the narrowed turns.
   * A `calls` range is always protected this way.
   */
  keepLastCalls?: number;
  keepLastTokens?: number;
  /** 'auto' (default): narrow as above when needed; 'turns': keep_last protects whole turns, always. */
  tail?: 'auto' | 'turns';
  /**
   * sven's `compaction_keep_recent` (seed 003, normal path): the newest N main-line non-system
   * messages are never touched by the step, the boundary moved back so that the kept part never
   * starts on a tool result (split safety). Applies with keep_last, on every compaction.
   */
  keepLastMessages?: number;
  /** Target input budget in tokens for `auto` (and the budget threaded through the reducers). */
  budget?: number;
  /** What no reducer of this step may touch (lib/compaction/pins.ts; a config's `pin = […]`). */
  pins?: Pin[];
  createdAt: string;
  label?: string;
}

export interface Version {
  id: string;
  transcriptId: string;
  name: string;
  /** The version this one was forked from. */
  parentId?: string;
  /** Forked from the original by an Apply, not by the user (nor renamed since): an Undo that leaves it without steps removes it. */
  autoForked?: boolean;
  steps: Step[];
  createdAt: string;
  updatedAt: string;
}
