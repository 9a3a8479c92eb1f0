/**
 * The seam between compaction and summarizers. `project()` is pure and synchronous: it reads
 * summaries that already exist (artifacts made off the critical path, seed 004) and otherwise uses
 * the offline summarizer, which is deterministic and needs no model call.
 */
import type { ProjectedMessage } from '../model/projection';

export type SummaryStyle = 'structured' | 'narrative' | 'claude-code';

export interface SpanInput {
  /** The messages of the span, in order, as the context holds them at this point of the pipeline. */
  messages: readonly ProjectedMessage[];
  /** Source turns [from, to] (inclusive) the span covers. */
  span: [number, number];
  /** The summary of the span just before this one (prefix-ward chunking: each feeds the next). */
  previousSummary?: string;
  style?: SummaryStyle;
  /**
   * Size the summary should stay within, in characters (≈ 4 per token). The offline summarizer
   * tightens its caps step by step to fit; lists and instructions are shortened with visible
   * markers, never silently. Absent = the default caps.
   */
  maxChars?: number;
}

/** A synchronous, deterministic summarizer (the offline one). */
export type SyncSummarizer = (input: SpanInput) => string;
