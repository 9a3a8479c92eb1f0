/**
 * Compaction as a projection (seed 004, RFD 036/D17): a version of a transcript is an ordered
 * list of steps; the rendered context is `project(log, steps, budget)`, a pure function.
 * Nothing here ever mutates a Transcript.
 */
import type { Block, Role, ToolSchema } from '../model/types';
import type { TokenizerId } from '../tokens/count';

/** Which turns a step applies to (RFD D17 / RFD 036 ranges). Turns are 0-based, `to` inclusive. */
export type TurnRange =
  | { kind: 'turns'; from: number; to: number }
  /** From just after the last compaction (a source marker or an earlier step's summary) up to `keepLast`. */
  | { kind: 'after-last-compaction' }
  /** Every turn but the last N. */
  | { kind: 'all-but-last'; n: number }
  /** Model calls `from`..`to` (0-based, inclusive; lib/compaction/calls.ts): a range inside an agent run. */
  | { kind: 'calls'; from: number; to: number };

export type ReducerId =
  | 'strip-reasoning'
  | 'strip-tool-results'
  | 'tool-retention'
  | 'dedup-tools'
  | 'tool-hints'
  | 'strip-attachments'
  | 'prune-tools'
  | 'truncate-tool-results'
  | 'sliding-window'
  | 'summarize'
  | 'classify-tangents'
  | 'emergency'
  | 'auto';

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
  /** Target input budget in tokens for `auto` (and the budget threaded through the reducers). */
  budget?: number;
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

/** What happened to one block of the log in a projection. */
export type Fate =
  | { kind: 'kept' }
  | { kind: 'stubbed'; by: ReducerId; stepId: string }
  | { kind: 'truncated'; by: ReducerId; stepId: string; keptHead: number; keptTail: number }
  | { kind: 'removed'; by: ReducerId; stepId: string }
  | { kind: 'deduped'; by: ReducerId; stepId: string; keptBlock: string }
  | { kind: 'summarized'; by: ReducerId; stepId: string; summaryId: string };

export type FateKind = Fate['kind'];

/** A block of the projected context. Unchanged blocks are the log's own objects (same reference). */
export type ProjectedBlock = Block & {
  /** The log block this one derives from (absent for synthetic blocks: summaries, notices). */
  sourceBlockId?: string;
};

export interface ProjectedMessage {
  /** The log message this derives from; absent for synthetic messages. */
  sourceId?: string;
  role: Role;
  turn: number;
  blocks: ProjectedBlock[];
  /** A message the projection made: a summary of a span, or an emergency notice. */
  synthetic?: 'summary' | 'notice';
  /** For summaries: the span of source turns [from, to] it replaces. */
  span?: [number, number];
  /** Copied from the source message (contextTotals skips side chains; exporters keep their records). */
  sidechain?: boolean;
  /** Copied from the source message: harness-injected (not typed by the user). */
  meta?: boolean;
}

export interface ReducerReport {
  stepId: string;
  reducer: ReducerId;
  /** Blocks touched. */
  events: number;
  tokensBefore: number;
  tokensAfter: number;
  /** Human-readable notes: "kept 3 newest read_file results", "summary failed: fell back to emergency". */
  notes: string[];
}

export interface SummaryArtifact {
  id: string;
  stepId: string;
  span: [number, number];
  text: string;
  /** 'offline' or `${provider}:${model}`. */
  producer: string;
  tokens: number;
}

export interface TokenTotals {
  total: number;
  byKind: Record<string, number>;
  /** Tool schema tokens (sent with every request). */
  tools: number;
}

export interface Projection {
  messages: ProjectedMessage[];
  tools: ToolSchema[];
  fates: Record<string, Fate>;
  report: ReducerReport[];
  summaries: SummaryArtifact[];
  /**
   * before = the log as `inspect` counts it (every message); after = this projection.
   * start = the context compaction started from (the model's view: after the last source marker).
   */
  tokens: { before: TokenTotals; after: TokenTotals; start?: TokenTotals };
  /** 'log': zero steps, every message as imported; 'model-view': messages covered by source markers left out. */
  baseline?: 'log' | 'model-view';
  /** Leading tokens (tool schemas, then messages) identical to the previous projection's: what a provider cache still hits. */
  cacheStablePrefix?: number;
  /** Summaries the offline summarizer stood in for: the async layer may produce them and re-project. */
  summaryRequests?: SummaryRequest[];
}

/** What identifies a stored summary artifact: the step, the span, the span's content and the producer. */
export interface SummaryKey {
  stepId: string;
  span: [number, number];
  /** Hash of the span's content as the summarizer is given it (messages + previous summary). */
  contentHash: string;
  /** Prompt/model identity of the producer, e.g. 'structured' or 'anthropic:claude-haiku-4-5'. */
  producer: string;
  /** The canonical string form: `${stepId}|${from}-${to}|${contentHash}|${producer}`. */
  id: string;
}

export interface SummaryRequest {
  key: SummaryKey;
  span: [number, number];
  messages: ProjectedMessage[];
  previousSummary?: string;
  /**
   * Tokens the summary replaces (the span's turns so far + a folded-in earlier summary), counted
   * with `tokenizer`. A summary of this many tokens or more is not used (summarize reducer).
   */
  spanTokens?: number;
  /** Size the summary should stay within, in characters (the prompt's length hint). */
  maxChars?: number;
  /** The transcript's tokenizer, to count a produced summary the way the projection will. */
  tokenizer?: TokenizerId;
}
