/**
 * The canonical transcript model. Every format importer produces a `Transcript`;
 * every reducer, view and exporter reads one. A Transcript is frozen after import:
 * compaction never edits it (DESIGN.md, "the one rule") — it is projected instead.
 */

/** Identifier of a format in lib/formats/registry.ts. */
export type FormatId = string;

export type Role = 'system' | 'user' | 'assistant' | 'tool';

export type BlockKind =
  | 'text'
  | 'reasoning'
  | 'tool_call'
  | 'tool_result'
  | 'attachment'
  | 'summary'
  | 'opaque';

interface BlockBase {
  /** Stable id, assigned by the builder: `${messageIndex}.${blockIndex}`. Never taken from source data. */
  id: string;
  /** Estimated tokens of this block (filled by lib/tokens at import, cached with the message). */
  tokens: number;
}

export interface TextBlock extends BlockBase {
  kind: 'text';
  text: string;
}

export interface ReasoningBlock extends BlockBase {
  kind: 'reasoning';
  /** Readable reasoning (may be empty when only an encrypted payload exists). */
  text: string;
  /** Signature / encrypted payload, kept verbatim, never edited (FORMATS.md §0). */
  opaque?: string;
  redacted?: boolean;
}

export interface ToolCallBlock extends BlockBase {
  kind: 'tool_call';
  /** The pairing key (OpenAI tool_call id, Anthropic tool_use id, Responses call_id, …). */
  callId: string;
  name: string;
  /** Parsed arguments when they parse, else the raw string. */
  input: unknown;
  /** The exact argument string when the source holds a string (OpenAI); absent for object inputs. */
  rawInput?: string;
}

export interface ToolResultBlock extends BlockBase {
  kind: 'tool_result';
  callId: string;
  /** Tool name, resolved from the paired call where the result itself does not say. */
  name?: string;
  /** Text of the result as the model saw it (parts joined with "\n"; images as a placeholder). */
  content: string;
  isError: boolean;
}

export interface AttachmentBlock extends BlockBase {
  kind: 'attachment';
  mediaType: string;
  name?: string;
  /** Size of the payload in bytes (base64 decoded where known). */
  bytes?: number;
  /** Text content for text-like attachments (documents); images have none. */
  text?: string;
  /**
   * A raster image the source carries inline, as a `data:` URL, for a thumbnail
   * (lib/formats/images.ts: PNG, JPEG, GIF or WebP, never SVG, never a remote URL, size-capped).
   */
  thumbnail?: string;
  /** Pixel size of an inline image, read from its header: what its token cost is computed from. */
  width?: number;
  height?: number;
}

/** A summary that the source itself contains (Claude Code isCompactSummary, Codex compacted, …). */
export interface SummaryBlock extends BlockBase {
  kind: 'summary';
  text: string;
  /** The marker this summary belongs to, if any. */
  markerId?: string;
}

/** Anything the model saw that has no better kind (server tool blocks, unknown parts). Kept. */
export interface OpaqueBlock extends BlockBase {
  kind: 'opaque';
  /** The source's own type name, e.g. "web_search_tool_result". */
  type: string;
  /** A textual rendering for display and token estimation. */
  text: string;
}

export type Block =
  | TextBlock
  | ReasoningBlock
  | ToolCallBlock
  | ToolResultBlock
  | AttachmentBlock
  | SummaryBlock
  | OpaqueBlock;

export interface Message {
  /** Stable id assigned by the builder: `m${index}`. */
  id: string;
  /** Position in `Transcript.messages`. */
  index: number;
  /** Turn number (0-based), from lib/model/turns.ts. */
  turn: number;
  role: Role;
  blocks: Block[];
  /** Indices into `Transcript.records` this message was read from. */
  recordRefs: number[];
  /** ISO timestamp when the source has one. */
  time?: string;
  /** Model that produced this message (assistant messages), when recorded. */
  model?: string;
  /** Injected by the harness rather than typed by the user (Claude Code isMeta, Codex environment_context). */
  meta?: boolean;
  /** A side chain (sub-agent) message that is not part of the main context. */
  sidechain?: boolean;
}

export interface ToolSchema {
  name: string;
  description?: string;
  /** JSON schema of the parameters, as the source holds it. */
  parameters?: unknown;
  /** Estimated tokens of this schema as sent with every request. */
  tokens: number;
}

/** A compaction that already happened in the source. Drawn as a summary band. */
export interface Marker {
  id: string;
  /** Which mechanism wrote it. */
  source:
    | 'claude-code-compact'
    | 'codex-compacted'
    | 'openhands-condensation'
    | 'inspect-compaction'
    | 'anthropic-compaction'
    | 'openai-compaction'
    | 'gemini-state-snapshot'
    | 'other';
  /** Index of the first message the marker sits before (the summary's position). */
  atMessage: number;
  /** Messages [from, to) the compaction removed from the model's view, when known. */
  covers?: [number, number];
  trigger?: 'auto' | 'manual' | string;
  tokensBefore?: number;
  tokensAfter?: number;
  /** How long the compaction took, where the source records it (Claude Code `compactMetadata.durationMs`). */
  durationMs?: number;
  /** Summary text, when readable (opaque server compactions have none). */
  summary?: string;
  /** Record index of the marker in the source. */
  recordRef?: number;
}

/** Usage of one model call, as recorded. All counts are tokens. */
export interface UsageRecord {
  /** Index of the (last) assistant message this call produced. */
  messageIndex: number;
  model?: string;
  /** Uncached input tokens. */
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
  reasoning?: number;
  /** The model's context window when the source records it (Codex token_count). */
  contextWindow?: number;
  /**
   * How many model calls this record aggregates; absent = 1. An aggregate (a NeMo Gym rollout's
   * `response.usage` over all its calls) counts toward cost and the call count, but its input is a
   * sum of prompts, not one context size.
   */
  calls?: number;
}

/** How a JSON text was written, so an export can match it. */
export interface JsonStyle {
  /** 'jsonl' = one compact record per line; 'json' = a single document. */
  container: 'jsonl' | 'json';
  /** Indent of a single JSON document: 0 = compact, or a number of spaces, or '\t'. */
  indent: number | '\t';
  eol: '\n' | '\r\n';
  /** The file ended with a newline. */
  finalNewline: boolean;
  /** Python-style separators `{"a": 1}` in compact output. */
  spacedSeparators?: boolean;
  /** Non-ASCII written as \uXXXX escapes (Python json.dumps default). */
  asciiEscapes?: boolean;
  bom?: boolean;
}

/**
 * One source record (a JSONL line or an element of the document's record array), verbatim.
 * `text` is the exact source text of the record; `value` its parse.
 */
export interface SourceRecord {
  text: string;
  value: unknown;
  /** 1-based line of the record's start in the file. */
  line: number;
}

export interface ImportWarning {
  code: string;
  message: string;
  line?: number;
  path?: string;
}

export interface Transcript {
  id: string;
  format: FormatId;
  title: string;
  /** Model read from the source (the latest one used), when it says. */
  model?: string;
  /** Original file name. */
  fileName: string;
  records: SourceRecord[];
  /**
   * The text around the records: `frame[i]` precedes `records[i]`, `frame[records.length]`
   * follows the last one. `frame.join` interleaved with records re-creates the file byte for byte.
   */
  frame: string[];
  style: JsonStyle;
  messages: Message[];
  tools: ToolSchema[];
  markers: Marker[];
  usage: UsageRecord[];
  warnings: ImportWarning[];
  /** Number of turns (max turn + 1, 0 when there are no messages). */
  turnCount: number;
  /** Format-specific extras an exporter needs (e.g. which conversation of a container was picked). */
  extra?: Record<string, unknown>;
}
