/**
 * A projection: the view of a log that compaction produces (DESIGN.md "the one rule": the log is
 * immutable, compaction is a projection). It is part of the model, not of the compaction package:
 * exporters serialize a projection and depend on lib/model alone; lib/compaction makes them.
 */
import type { Block, Role, ToolSchema } from './types';
import type { TokenizerId } from '../tokens/count';

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
  /** The fate of every log block that is not kept, by block id: a block without an entry is kept. */
  fates: Record<string, Fate>;
  /** How many blocks the log has (kept = blocks − the entries of `fates`); absent on hand-made projections. */
  blocks?: number;
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
