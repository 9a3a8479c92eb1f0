/**
 * The contract of a format module (one file per format, listed in registry.ts).
 * Importers are pure: bytes in, a Transcript (or a typed ImportError) out.
 */
import type { ProjectedMessage, Projection } from '../model/projection';
import type { ImportWarning, ToolSchema, Transcript } from '../model/types';
import type { SourceFile } from '../read/source';

export interface DetectInput {
  /** File name as given ("unknown" in the detection tests). */
  name: string;
  /** The decoded text (BOM stripped). For zip archives, the text of the main entry, or "". */
  text: string;
  /** The first parsed values: up to the first 5 JSONL records, or the whole JSON document. */
  values: unknown[];
  container: 'jsonl' | 'json' | 'zip' | 'unknown';
  /** Entry names when the file is a zip archive. */
  zipEntries?: string[];
}

/** A conversation inside a container file (tau-bench, eval outputs, rollout files). */
export interface ConversationInfo {
  index: number;
  title: string;
  messages: number;
}

export interface ParseOptions {
  /** Which conversation of a container to import (default 0). */
  conversation?: number;
  /** Progress callback, 0..1. */
  onProgress?: (fraction: number) => void;
}

export interface ParseResult {
  transcript: Omit<Transcript, 'id'>;
  warnings: ImportWarning[];
}

export interface SerializeResult {
  /** The file content. */
  text: string;
  /**
   * The file's bytes when it is binary (Inspect `.eval` zip archives): write these instead of `text`.
   * `text` then holds the readable main entry (the sample JSON).
   */
  bytes?: Uint8Array;
  /** Suggested file name. */
  fileName: string;
  mimeType: string;
  /** What the export could not carry (conversions, opaque payloads dropped with their signatures). */
  dropped: string[];
}

export interface FormatModule {
  id: string;
  label: string;
  /** Link to the format's documentation or an example source. */
  specUrl: string;
  /** File extensions this format is written with, e.g. ['.jsonl']. Content sniffing must agree. */
  extensions: string[];
  /** Confidence 0..1 that this file is in this format, or null for "not mine". */
  detect(input: DetectInput): number | null;
  /** Throws ImportError when the file is this format but unusable. */
  parse(file: SourceFile, options?: ParseOptions): ParseResult;
  /**
   * Re-emit the file. With no projection, untouched records are emitted verbatim (byte-identical).
   * With a projection, the compacted conversation in this format's own way.
   */
  serialize(transcript: Transcript, projection?: Projection): SerializeResult;
  /** For container files: the conversations they hold. */
  listConversations?(file: SourceFile): ConversationInfo[];
  /**
   * A compacted export keeps the lines the compaction took out of the model's view, as history
   * before its compaction point (Claude Code's compact_boundary, Codex's `compacted` line). Other
   * formats leave removed and summarized messages out of the file.
   */
  keepsHistory?: boolean;
  /**
   * Conversion target (API formats: openai-chat, anthropic-messages, openai-responses, gemini-api):
   * write a new file of this format from canonical (possibly projected) messages.
   */
  fromMessages?(input: ConvertInput): SerializeResult;
}

export interface ConvertInput {
  messages: readonly ProjectedMessage[];
  tools: readonly ToolSchema[];
  model?: string;
  title: string;
  /** Base name for the output file, without extension. */
  baseName: string;
  /**
   * Format id of the transcript the messages come from. Signed reasoning (Anthropic thinking
   * signatures, OpenAI encrypted reasoning, Gemini thought signatures) is replayed only to the
   * provider whose format signed it; without this, targets guess from the model name.
   */
  sourceFormat?: string;
}
