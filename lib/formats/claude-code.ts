/**
 * Claude Code session JSONL (`~/.claude/projects/<encoded-cwd>/<sessionId>.jsonl`), FORMATS.md §4.
 * Reference: https://github.com/daaain/claude-code-log/blob/main/claude_code_log/models.py
 *
 * Also the shared line → message code used by claude-code-web.ts (`{"loglines":[…]}`) and
 * claude-code-sdk.ts (`claude -p --output-format json|stream-json`): `ClaudeSessionReader`,
 * `lineBlocks` and `serializeClaudeRecords`.
 *
 * Why the grouping: Claude Code writes one API response over several lines (one content block per
 * line), each repeating `message.id` and `usage` (with a partial `output_tokens` on early lines).
 * Lines of one response are chained by `parentUuid`; they become ONE assistant message, and the
 * usage is taken once, from the last line of the id (ccusage dedupes the same way).
 *
 * Claude Code records no system prompt and no tool schemas: none are invented here; the UI infers
 * that invisible overhead from the recorded usage (DESIGN.md, Tokens).
 */
import type { ProjectedMessage, Projection } from '../model/projection';
import { ImportError } from '../errors';
import { TranscriptBuilder, type DraftBlock, type DraftMessage } from '../model/builder';
import { CallOccurrences } from '../model/pairing';
import type { ImportWarning, JsonStyle, Marker, Message, SourceRecord, Transcript, UsageRecord } from '../model/types';
import { stringifyLike } from '../read/json-doc';
import { isJsonlFile } from '../read/head';
import { foreignLinesWarning, isChatMessagesLine, isCodexLine, isUntypedLine, readJsonl, type RecordSet } from '../read/jsonl';
import type { SourceFile } from '../read/source';
import {
  addedBlocks,
  blockOutcomes,
  compactedFileName,
  defaultSeparator,
  isRecord,
  isUnchanged,
  joinOutput,
  projectedBySource,
  syntheticText,
  uuidFrom,
  type BlockOutcome,
  type OutputRecord,
} from './serialize-util';
import { assertProjectionPairing } from './api-projection';
import type { DetectInput, FormatModule, ParseOptions, ParseResult, SerializeResult } from './types';
import { imageFields, thumbnailOf } from './images';

/** Line types that only Claude Code writes (FORMATS.md §8 JSONL rule 2). */
const CLAUDE_ONLY_TYPES = new Set([
  'summary',
  'file-history-snapshot',
  'queue-operation',
  'permission-mode',
  'custom-title',
  'ai-title',
  'agent-name',
  'progress',
  'attachment',
  'last-prompt',
]);

// ---------------------------------------------------------------------------------------------
// Content → blocks (one block per content item, so an export can re-write items in place)

/** The counts an Anthropic usage object may carry; one of them must be there for the record to be a call. */
const USAGE_COUNTS = ['input_tokens', 'output_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens'] as const;

function num(x: unknown): number {
  return typeof x === 'number' && Number.isFinite(x) ? x : 0;
}

function base64Bytes(data: unknown): number | undefined {
  if (typeof data !== 'string') return undefined;
  const pad = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - pad);
}

/** Text of a tool_result `content` (string or array of text/image parts), images as placeholders. */
export function toolResultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return content === undefined || content === null ? '' : JSON.stringify(content);
  return content
    .map((p) => {
      if (typeof p === 'string') return p;
      if (!isRecord(p)) return '';
      if (p.type === 'text' && typeof p.text === 'string') return p.text;
      if (p.type === 'image') return `[image${isRecord(p.source) && typeof p.source.media_type === 'string' ? ` ${p.source.media_type}` : ''}]`;
      return `[${typeof p.type === 'string' ? p.type : 'part'}]`;
    })
    .join('\n');
}

function itemToBlock(item: unknown, summary: boolean): DraftBlock {
  if (typeof item === 'string') return summary ? { kind: 'summary', text: item } : { kind: 'text', text: item };
  if (!isRecord(item)) return { kind: 'opaque', type: 'unknown', text: JSON.stringify(item) ?? '' };
  switch (item.type) {
    case 'text':
      if (typeof item.text === 'string') return summary ? { kind: 'summary', text: item.text } : { kind: 'text', text: item.text };
      break;
    case 'thinking':
      return { kind: 'reasoning', text: typeof item.thinking === 'string' ? item.thinking : '', ...(typeof item.signature === 'string' && item.signature !== '' && { opaque: item.signature }) };
    case 'redacted_thinking':
      return { kind: 'reasoning', text: '', redacted: true, ...(typeof item.data === 'string' && { opaque: item.data }) };
    case 'tool_use':
      return { kind: 'tool_call', callId: typeof item.id === 'string' ? item.id : '', name: typeof item.name === 'string' ? item.name : '?', input: item.input ?? {} };
    case 'tool_result':
      return { kind: 'tool_result', callId: typeof item.tool_use_id === 'string' ? item.tool_use_id : '', content: toolResultText(item.content), isError: item.is_error === true };
    case 'image': {
      const src = isRecord(item.source) ? item.source : {};
      const bytes = base64Bytes(src.data);
      const thumbnail = src.type === 'base64' ? thumbnailOf(src.media_type, src.data) : undefined;
      return { kind: 'attachment', mediaType: typeof src.media_type === 'string' ? src.media_type : 'image/*', ...(bytes !== undefined && { bytes }), ...(typeof src.url === 'string' && { name: src.url }), ...imageFields(thumbnail) };
    }
    case 'document': {
      const src = isRecord(item.source) ? item.source : {};
      const text = src.type === 'text' && typeof src.data === 'string' ? src.data : undefined;
      const bytes = text === undefined ? base64Bytes(src.data) : undefined;
      return { kind: 'attachment', mediaType: typeof src.media_type === 'string' ? src.media_type : 'application/pdf', ...(typeof item.title === 'string' && { name: item.title }), ...(text !== undefined && { text }), ...(bytes !== undefined && { bytes }) };
    }
  }
  const type = typeof item.type === 'string' ? item.type : 'unknown';
  const text = typeof item.text === 'string' ? item.text : typeof item.content === 'string' ? item.content : JSON.stringify(item);
  return { kind: 'opaque', type, text: text.length > 4000 ? text.slice(0, 4000) + '…' : text };
}

/** The message object of a user/assistant line, or undefined. */
export function lineMessage(value: unknown): Record<string, unknown> | undefined {
  if (!isRecord(value) || (value.type !== 'user' && value.type !== 'assistant')) return undefined;
  return isRecord(value.message) ? value.message : undefined;
}

/**
 * The blocks one user/assistant line contributes, one per content item (a string content is one
 * item). The exporter relies on this 1:1 mapping to re-write items in place.
 */
export function lineBlocks(value: unknown): DraftBlock[] {
  const msg = lineMessage(value);
  if (!msg) return [];
  const summary = isRecord(value) && value.isCompactSummary === true;
  const c = msg.content;
  if (typeof c === 'string') return [itemToBlock(c, summary)];
  if (Array.isArray(c)) return c.map((item) => itemToBlock(item, summary));
  return [];
}

// ---------------------------------------------------------------------------------------------
// The reader shared by the three Claude Code formats

export interface ClaudeReadResult {
  title: string;
  model?: string;
  warnings: ImportWarning[];
}

interface OpenGroup {
  draft: DraftMessage;
  index: number;
  /** uuid of the group's last line, so the next line of the same response can be recognised. */
  lastUuid?: string;
  sidechain: boolean;
}

function titleFromPrompt(text: string): string | undefined {
  const cmd = /<command-name>([^<]*)<\/command-name>/.exec(text);
  if (cmd) {
    const args = /<command-args>([^<]*)<\/command-args>/.exec(text);
    return `${cmd[1].trim()}${args && args[1].trim() ? ' ' + args[1].trim() : ''}`;
  }
  if (/^\s*</.test(text) || /^Caveat:/.test(text)) return undefined;
  const one = text.replace(/\s+/g, ' ').trim();
  if (!one) return undefined;
  return one.length > 80 ? one.slice(0, 79) + '…' : one;
}

/**
 * JSON.stringify(a) === JSON.stringify(b) for parsed JSON values, without building either string:
 * it stops at the first difference (a resumed session's replays are rare; lines that merely share
 * a uuid differ early, e.g. in message.id).
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i] === undefined ? null : a[i], b[i] === undefined ? null : b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    if (ka[i] !== kb[i]) return false;
    if (!sameJson((a as Record<string, unknown>)[ka[i]], (b as Record<string, unknown>)[kb[i]])) return false;
  }
  return true;
}

export class ClaudeSessionReader {
  readonly builder = new TranscriptBuilder();
  readonly warnings: ImportWarning[] = [];
  private readonly groups = new Map<string, OpenGroup>();
  private lastAdded: DraftMessage | undefined;
  private readonly drafts: DraftMessage[] = [];
  /** The file is a sub-agent's own transcript (every message line isSidechain). */
  subAgentFile = false;
  /** Index of the last user message per chain (main = false, side = true). */
  private readonly lastUserAt = new Map<boolean, number>();
  /** The parentUuid tree of every record that has a uuid (first occurrence), for rewinds. */
  private readonly parentOf = new Map<string, string | null>();
  /** Main-chain message lines: uuid → the draft holding it; and which of them are real prompts. */
  private readonly draftOfLine = new Map<string, DraftMessage>();
  private readonly promptLines = new Set<string>();
  private lastMainLine: string | undefined;
  /** Usage per API response id, last line wins; plus responses without an id. */
  private readonly usageById = new Map<string, UsageRecord>();
  private readonly usageInOrder: Array<UsageRecord | string> = [];
  private pendingBoundary: Omit<Marker, 'id'> | null = null;
  /**
   * A tool_use id used by more than one call (a model that repeats an id in one message, or a
   * session that re-issues a call): each occurrence gets its own id ("x#2"), and each result answers
   * its occurrence (lib/model/pairing.ts CallOccurrences), as the OpenAI Chat importer does. With
   * one id for two calls, the compaction could not tell which call a result answers: removing one
   * pair took the other's result (issue 30). The lines, and so the exports, keep the source ids.
   * One table per chain: a sub-agent's calls are not the main line's.
   */
  private readonly calls = new Map<boolean, CallOccurrences>();
  private lastBoundaryAt = 0;
  private markerCount = 0;
  private customTitle?: string;
  private aiTitle?: string;
  private readonly summaries: Array<{ summary: string; leafUuid?: string }> = [];
  private firstPrompt?: string;
  /** For a sub-agent's own file: its task prompt. */
  private firstSidePrompt?: string;
  private readonly uuids = new Set<string>();
  private mainModel?: string;
  private anyModel?: string;
  sessionId?: string;
  /** uuid → message of the user/assistant lines read, to recognise replayed lines. */
  private readonly messageLines = new Map<string, unknown>();
  private replayedLines = 0;

  constructor(private readonly fileName: string) {}

  /** Read every record in order, reporting progress now and then. */
  readAll(records: readonly SourceRecord[], onProgress?: (fraction: number) => void): void {
    records.forEach((r, i) => {
      if (onProgress && i % 2000 === 0) onProgress(i / records.length);
      this.add(r.value, i, r.line);
    });
    this.warnings.push(...foreignLinesWarning(records, isCodexLine, 'Codex rollout lines', 'Claude Code lines'));
    // Any other format's line was skipped in silence (issue 30: an OpenAI fine-tuning line).
    this.warnings.push(...foreignLinesWarning(records, isChatMessagesLine, 'OpenAI Chat or fine-tuning lines ({"messages": [...]})', 'Claude Code lines'));
    this.warnings.push(...foreignLinesWarning(records, isUntypedLine, 'JSON objects without a "type"', 'Claude Code lines'));
  }

  /** Read one record (line / logline / SDK message). */
  add(value: unknown, recordIndex: number, line: number): void {
    if (!isRecord(value)) {
      this.warnings.push({ code: 'skipped:record', message: `Line ${line} is not a JSON object; kept for export.`, line });
      return;
    }
    if (typeof value.uuid === 'string') {
      this.uuids.add(value.uuid);
      // Lines without a parentUuid key (hand-written files, old versions) are not part of a tree.
      if (!this.parentOf.has(value.uuid) && ('parentUuid' in value || 'logicalParentUuid' in value)) {
        // A compact boundary roots a new chain (parentUuid null) but stays linked logically.
        const parent = typeof value.parentUuid === 'string' ? value.parentUuid : typeof value.logicalParentUuid === 'string' ? value.logicalParentUuid : null;
        this.parentOf.set(value.uuid, parent);
      }
    }
    if (!this.sessionId) {
      if (typeof value.sessionId === 'string') this.sessionId = value.sessionId;
      else if (typeof value.session_id === 'string') this.sessionId = value.session_id;
    }
    const type = value.type;
    if (type === 'summary' && typeof value.summary === 'string') this.summaries.push({ summary: value.summary, ...(typeof value.leafUuid === 'string' && { leafUuid: value.leafUuid }) });
    if (type === 'custom-title' && typeof value.customTitle === 'string') this.customTitle = value.customTitle;
    if (type === 'ai-title' && typeof value.aiTitle === 'string') this.aiTitle = value.aiTitle;
    if (type === 'system') {
      if (value.subtype === 'compact_boundary') this.boundary(value, recordIndex);
      else if (value.subtype === 'init' && typeof value.model === 'string') this.anyModel ??= value.model;
      return;
    }
    if (type !== 'user' && type !== 'assistant') return; // metadata lines: kept as records, no message
    const msg = lineMessage(value);
    if (!msg) {
      this.warnings.push({ code: 'skipped:line', message: `Line ${line} is a ${type} line without a message object; kept for export.`, line, path: '$.message' });
      return;
    }
    if (msg.content !== undefined && typeof msg.content !== 'string' && !Array.isArray(msg.content)) {
      throw new ImportError('malformed:claude-code', `The message content on line ${line} is ${Array.isArray(msg.content) ? 'an array' : msg.content === null ? 'null' : typeof msg.content === 'object' ? 'an object' : `a ${typeof msg.content}`}.`, { file: this.fileName, line, path: '$.message.content' }, 'a string or an array of content blocks');
    }
    // A resumed session can start by replaying lines it already holds (same uuid, same message):
    // the replay is kept as a record for export but is not a second message (FORMATS.md §4).
    if (typeof value.uuid === 'string') {
      const seen = this.messageLines.get(value.uuid);
      if (seen !== undefined && sameJson(seen, msg)) {
        this.replayedLines++;
        return;
      }
      if (seen === undefined) this.messageLines.set(value.uuid, msg);
    }
    const blocks = lineBlocks(value);
    const sidechain = value.isSidechain === true;
    const time = typeof value.timestamp === 'string' ? value.timestamp : undefined;
    const uuid = typeof value.uuid === 'string' ? value.uuid : undefined;
    const parentUuid = typeof value.parentUuid === 'string' ? value.parentUuid : undefined;
    if (type === 'assistant') {
      const id = typeof msg.id === 'string' && msg.id !== '' ? msg.id : undefined;
      const model = typeof msg.model === 'string' ? msg.model : undefined;
      const real = model !== undefined && model !== '<synthetic>';
      if (real) {
        this.anyModel = model;
        if (!sidechain) this.mainModel = model;
      }
      const open = id !== undefined ? this.groups.get(id) : undefined;
      // Same response: chained to the group's last line by parentUuid, or (files without uuids)
      // the very next message.
      // A user line on the same chain in between (a prompt or a tool result) ends the response.
      const continues =
        open !== undefined &&
        open.sidechain === sidechain &&
        (this.lastUserAt.get(sidechain) ?? -1) < open.index &&
        (parentUuid !== undefined && open.lastUuid !== undefined ? parentUuid === open.lastUuid : this.lastAdded === open.draft);
      let index: number;
      if (continues) {
        open.draft.blocks.push(...blocks);
        open.draft.recordRefs.push(recordIndex);
        open.lastUuid = uuid;
        if (model && !open.draft.model) open.draft.model = model;
        index = open.index;
      } else {
        // model "<synthetic>": written by Claude Code itself (API errors, "No response requested."), not by the model.
        const harness = model === '<synthetic>' || value.isApiErrorMessage === true;
        const draft: DraftMessage = { role: 'assistant', blocks: [...blocks], recordRefs: [recordIndex], ...(time && { time }), ...(model && { model }), ...(harness && { meta: true }), ...(sidechain && { sidechain }) };
        index = this.builder.addMessage(draft);
        this.drafts.push(draft);
        this.lastAdded = draft;
        if (id !== undefined) this.groups.set(id, { draft, index, lastUuid: uuid, sidechain });
      }
      this.occurrences(blocks, index, sidechain);
      if (uuid !== undefined && !sidechain) {
        this.draftOfLine.set(uuid, continues ? open.draft : (this.lastAdded as DraftMessage));
        this.lastMainLine = uuid;
      }
      // A usage object without a single count (`"usage": {}` on a record Claude Code wrote for a
      // stopped task) records no call: taken as one, it read as a context of 0.
      if (isRecord(msg.usage) && real && USAGE_COUNTS.some((k) => typeof (msg.usage as Record<string, unknown>)[k] === 'number')) {
        const u = msg.usage;
        const usage: UsageRecord = {
          messageIndex: index,
          ...(model && { model }),
          input: num(u.input_tokens),
          cacheRead: num(u.cache_read_input_tokens),
          cacheWrite: num(u.cache_creation_input_tokens),
          output: num(u.output_tokens),
        };
        const key = id !== undefined ? `${id}\u0000${typeof value.requestId === 'string' ? value.requestId : ''}` : undefined;
        if (key === undefined) this.usageInOrder.push(usage);
        else {
          if (!this.usageById.has(key)) this.usageInOrder.push(key);
          this.usageById.set(key, usage); // the last line of a response holds the final output_tokens
        }
      }
      return;
    }
    // user line
    const meta = value.isMeta === true;
    const summary = value.isCompactSummary === true;
    const draft: DraftMessage = { role: 'user', blocks, recordRefs: [recordIndex], ...(time && { time }), ...(meta && { meta }), ...(sidechain && { sidechain }) };
    if (summary) {
      const markerId = `k${this.markerCount}`;
      for (const b of blocks) if (b.kind === 'summary') b.markerId = markerId;
    }
    const index = this.builder.addMessage(draft);
    this.occurrences(blocks, index, sidechain);
    this.drafts.push(draft);
    this.lastAdded = draft;
    this.lastUserAt.set(sidechain, index);
    if (uuid !== undefined && !sidechain) {
      this.draftOfLine.set(uuid, draft);
      this.lastMainLine = uuid;
      if (!meta && !summary && blocks.some((b) => b.kind !== 'tool_result')) this.promptLines.add(uuid);
    }
    if (summary) this.compactSummary(draft, index, recordIndex);
    else if (!meta && (sidechain ? this.firstSidePrompt : this.firstPrompt) === undefined) {
      const text = blocks.find((b) => b.kind === 'text');
      if (text && text.kind === 'text') {
        if (sidechain) this.firstSidePrompt = titleFromPrompt(text.text);
        else this.firstPrompt = titleFromPrompt(text.text);
      }
    }
  }

  private boundary(value: Record<string, unknown>, recordIndex: number): void {
    this.flushBoundary();
    const meta = isRecord(value.compactMetadata) ? value.compactMetadata : isRecord(value.compact_metadata) ? value.compact_metadata : {};
    const at = this.builder.messageCount;
    const trigger = typeof meta.trigger === 'string' ? meta.trigger : typeof value.trigger === 'string' ? value.trigger : undefined;
    const before = num(meta.preTokens ?? meta.pre_tokens);
    const after = num(meta.postTokens ?? meta.post_tokens);
    const duration = num(meta.durationMs ?? meta.duration_ms);
    this.pendingBoundary = {
      source: 'claude-code-compact',
      atMessage: at,
      covers: [this.lastBoundaryAt, at],
      ...(trigger && { trigger }),
      ...(before && { tokensBefore: before }),
      ...(after && { tokensAfter: after }),
      ...(duration && { durationMs: duration }),
      recordRef: recordIndex,
    };
  }

  /** Give each call occurrence its own id and each result the id of the call it answers (see `calls`). */
  private occurrences(blocks: DraftBlock[], index: number, sidechain: boolean): void {
    let calls = this.calls.get(sidechain);
    for (const b of blocks) {
      if ((b.kind !== 'tool_call' && b.kind !== 'tool_result') || b.callId === '') continue;
      if (!calls) this.calls.set(sidechain, (calls = new CallOccurrences()));
      b.callId = b.kind === 'tool_call' ? calls.call(b.callId, index) : calls.result(b.callId);
    }
  }

  private compactSummary(draft: DraftMessage, index: number, recordIndex: number): void {
    const text = draft.blocks.map((b) => (b.kind === 'summary' ? b.text : '')).join('\n');
    const marker: Omit<Marker, 'id'> = this.pendingBoundary ?? { source: 'claude-code-compact', atMessage: index, covers: [this.lastBoundaryAt, index], recordRef: recordIndex };
    this.pendingBoundary = null;
    this.builder.addMarker({ ...marker, atMessage: index, summary: text });
    this.markerCount++;
    this.lastBoundaryAt = index;
  }

  private flushBoundary(): void {
    if (!this.pendingBoundary) return;
    this.builder.addMarker(this.pendingBoundary);
    this.markerCount++;
    this.lastBoundaryAt = this.pendingBoundary.atMessage;
    this.pendingBoundary = null;
  }

  /** Finish reading: markers and usage are committed; returns title and model. */
  /**
   * Rewinds (Esc Esc, edit a prompt) leave the abandoned branch in the file: a line with two or more
   * child prompts. The active branch is the chain ending at the last main-chain line; messages of
   * the other prompts' subtrees are marked as side chains (not in the model's context) and reported.
   * Only prompt forks count, so parallel tool results sharing a parent are never mistaken for one.
   */
  private markAbandonedBranches(): void {
    if (this.lastMainLine === undefined) return;
    const children = new Map<string, string[]>();
    // Roots hang off a virtual '' so a rewind of the very first prompt is a fork too.
    for (const [uuid, p] of this.parentOf) {
      const parent = p ?? '';
      const list = children.get(parent);
      if (list) list.push(uuid);
      else children.set(parent, [uuid]);
    }
    const forks: string[] = [];
    for (const [parent, kids] of children) if (kids.filter((k) => this.promptLines.has(k)).length >= 2) forks.push(parent);
    if (forks.length === 0) return;
    const active = new Set<string>(['']);
    for (let cur: string | null | undefined = this.lastMainLine; cur && !active.has(cur); cur = this.parentOf.get(cur)) active.add(cur);
    const abandoned = new Set<DraftMessage>();
    for (const fork of forks) {
      if (!active.has(fork)) continue; // a fork inside an abandoned branch is handled by its root
      const stack = (children.get(fork) ?? []).filter((k) => !active.has(k));
      while (stack.length) {
        const u = stack.pop()!;
        const d = this.draftOfLine.get(u);
        if (d) abandoned.add(d);
        for (const k of children.get(u) ?? []) if (!active.has(k)) stack.push(k);
      }
    }
    // A message with any line on the active branch stays in the context.
    for (const [u, d] of this.draftOfLine) if (active.has(u)) abandoned.delete(d);
    for (const d of abandoned) d.sidechain = true;
    if (abandoned.size > 0) {
      this.warnings.push({ code: 'branch:abandoned', message: `${abandoned.size} message(s) are on a branch abandoned by a rewind; they are shown as side chains and not counted in the context.` });
    }
  }

  finish(fallbackTitle: string): ClaudeReadResult {
    this.flushBoundary();
    // A sub-agent's own file (agent-<id>.jsonl, CC ≥ 2.0): every line is a side chain of the parent
    // session, but here it IS the conversation. Read it as the main chain, and say so.
    if (this.drafts.length > 0 && this.drafts.every((d) => d.sidechain)) {
      for (const d of this.drafts) delete d.sidechain;
      this.subAgentFile = true;
      this.warnings.push({ code: 'subagent:file', message: 'Every line is a side chain: this is a sub-agent transcript, shown as its own conversation.' });
    }
    this.markAbandonedBranches();
    if (this.replayedLines > 0) {
      this.warnings.push({ code: 'duplicate:uuid', message: `${this.replayedLines} line(s) repeat an earlier line (same uuid and message, as a resumed session writes them); they are kept in the file but shown once.` });
    }
    for (const u of this.usageInOrder) this.builder.addUsage(typeof u === 'string' ? this.usageById.get(u)! : u);
    const ownSummary = this.summaries.find((s) => s.leafUuid !== undefined && this.uuids.has(s.leafUuid));
    const title = this.customTitle ?? ownSummary?.summary ?? this.summaries[0]?.summary ?? this.aiTitle ?? this.firstPrompt ?? (this.subAgentFile ? this.firstSidePrompt : undefined) ?? fallbackTitle;
    const model = this.mainModel ?? this.anyModel;
    return { title, ...(model && { model }), warnings: this.warnings };
  }
}

// ---------------------------------------------------------------------------------------------
// Export of a projection (shared)

export interface ClaudeExportOptions {
  /** Nesting depth of a record in its file (0 = JSONL line, 1 = element of a bare array, 2 = loglines). */
  depth: number;
  /** How a summary is written: a session line pair (JSONL, web) or SDK messages. */
  summaryShape: 'session' | 'sdk';
}

function rewriteItem(item: unknown, o: BlockOutcome & { kind: 'changed' }): unknown | undefined {
  const b = o.block;
  if (!isRecord(item)) return typeof item === 'string' && 'text' in b ? (b as { text: string }).text : item;
  switch (b.kind) {
    case 'tool_result':
      return { ...item, content: b.content, ...(b.isError ? { is_error: true } : {}) };
    case 'text':
    case 'summary':
      return item.type === 'text' ? { ...item, text: b.text } : { type: 'text', text: b.text };
    case 'tool_call':
      return { ...item, input: b.input };
    case 'reasoning':
      // Signed thinking cannot be edited: a changed thinking block goes, with its signature.
      return undefined;
    default:
      return item;
  }
}

/**
 * Re-write one user/assistant line under the projection. `blocks` are the source blocks this line
 * contributed. Returns null when nothing of the line remains.
 */
function rewriteLine(value: Record<string, unknown>, blocks: readonly Message['blocks'][number][], outcomes: Map<string, BlockOutcome>, added: string[]): Record<string, unknown> | null {
  const out = structuredClone(value);
  const msg = out.message as Record<string, unknown>;
  let stubbedResult: string | undefined;
  if (typeof msg.content === 'string') {
    const o = blocks[0] ? outcomes.get(blocks[0].id)! : ({ kind: 'kept' } as BlockOutcome);
    if (o.kind === 'removed') msg.content = '';
    else if (o.kind === 'changed') msg.content = 'text' in o.block ? (o.block as { text: string }).text : msg.content;
    if (added.length) msg.content = [msg.content, ...added].filter((s) => s !== '').join('\n\n');
    return msg.content === '' ? null : out;
  }
  const items = Array.isArray(msg.content) ? msg.content : [];
  const next: unknown[] = [];
  items.forEach((item, j) => {
    const o = blocks[j] ? outcomes.get(blocks[j].id)! : ({ kind: 'kept' } as BlockOutcome);
    if (o.kind === 'kept') next.push(item);
    else if (o.kind === 'changed') {
      const r = rewriteItem(item, o);
      if (r !== undefined) next.push(r);
      if (o.block.kind === 'tool_result') stubbedResult = o.block.content;
    }
  });
  for (const text of added) next.push({ type: 'text', text });
  if (next.length === 0) return null;
  msg.content = next;
  // toolUseResult duplicates the result in a tool-specific structure (often the bulk of the
  // file); once the result is stubbed it must not carry the full output any more.
  if (stubbedResult !== undefined && 'toolUseResult' in out) out.toolUseResult = stubbedResult;
  return out;
}

/** The preamble Claude Code itself puts before a compact summary (verified in the slopometry session). */
export const COMPACT_SUMMARY_PREAMBLE = 'This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\n';

/** A summary as Claude Code writes it into the isCompactSummary line: with its preamble, once. */
export function summaryContent(text: string): string {
  return text.startsWith(COMPACT_SUMMARY_PREAMBLE.trim()) ? text : COMPACT_SUMMARY_PREAMBLE + text;
}

/** Line types Claude Code links into its parentUuid chain (its loader's "transcript" lines); every other record is metadata. */
const CLAUDE_LOADED_TYPES = new Set(['user', 'assistant', 'system', 'attachment']);

function shiftTime(iso: string, ms: number): string | undefined {
  const at = Date.parse(iso);
  return Number.isFinite(at) ? new Date(at + ms).toISOString() : undefined;
}

/**
 * Timestamps of the nth of `of` compaction pairs written before record `at` (undefined: at the
 * end): strictly increasing and before the first line after them with a timestamp; at the end,
 * after the last one. ISO strings compare as text in Claude Code's loader, as here.
 */
function pairTimes(t: Transcript, at: number | undefined, lastTime: string | undefined, nth: number, of: number): { boundaryTime: string; summaryTime: string } {
  let next: string | undefined;
  for (let r = at ?? t.records.length; r < t.records.length && next === undefined; r++) {
    const v = t.records[r].value;
    if (isRecord(v) && typeof v.timestamp === 'string' && Number.isFinite(Date.parse(v.timestamp))) next = v.timestamp;
  }
  const step = (of - nth) * 2; // ms before `next` of this pair's boundary
  const boundaryTime = (next !== undefined ? shiftTime(next, -step) : lastTime !== undefined ? shiftTime(lastTime, 1 + nth * 2) : undefined) ?? lastTime ?? new Date(0).toISOString();
  const summaryTime = shiftTime(boundaryTime, 1) ?? boundaryTime;
  return { boundaryTime, summaryTime };
}

const ENVELOPE_KEYS = ['userType', 'cwd', 'sessionId', 'version', 'gitBranch', 'slug', 'entrypoint', 'agentId'] as const;

/** A source message that is a compaction summary the file already held (isCompactSummary line). */
function isSourceSummary(pm: ProjectedMessage): boolean {
  return pm.blocks.some((b) => b.kind === 'summary');
}

/**
 * serialize(t, projection) for the Claude Code family. Untouched records are re-emitted verbatim;
 * changed messages are re-written line by line; dropped lines are removed and the parentUuid chain
 * re-linked; synthetic summaries become a compact_boundary + isCompactSummary pair, the way
 * Claude Code itself records a compaction.
 *
 * Where the pair goes. In Claude Code a compact_boundary ends the model's context: on resume it
 * sees the summary and what follows, while the lines before the boundary are history only (our
 * reader says the same: the marker `covers` them). Claude Code's own compaction summarizes a
 * prefix, so its pair sits where the summarized span ended. A projection may summarize a span in
 * the MIDDLE of the context (a turn range picked in the inspector): the messages kept before it —
 * the kept prefix since the last summary — are still in the model's context. To keep them there,
 * the pair is written ahead of that kept prefix (right after the previous compaction, or at the
 * start of the file) and the prefix's first line is re-parented onto the summary line: the model
 * then reads summary, kept prefix, rest — the same messages, the summary moved to the front, as
 * a prefix-ward summary is anyway. With no kept prefix (the usual case: auto, all-but-last,
 * after-last-compaction) the pair sits exactly where the span was. The boundary roots the chain
 * (parentUuid null) and points at the last summarized line with logicalParentUuid, like Claude Code.
 *
 * What is dropped: every line of a message absent from the projection — including tool_result
 * lines whose tool_use went with the span (and their toolUseResult payloads), and a resumed
 * session's replay of such a line (same uuid, no message of its own; it follows its original:
 * dropped, re-written the same way, or verbatim). Records that carry no message
 * (file-history-snapshot, summary, system lines …) stay in place.
 */
export function serializeClaudeRecords(t: Transcript, projection: Projection, opts: ClaudeExportOptions): { text: string; dropped: string[] } {
  // A projection may not break tool call/result pairs (issues the source already has are tolerated).
  assertProjectionPairing(t, projection.messages.filter((m) => !m.sidechain));
  const dropped: string[] = [];
  const style: JsonStyle = t.style;
  const bySource = projectedBySource(projection);
  // In a sub-agent's own file every line is a side chain, and that chain is the conversation.
  const subAgentFile = t.warnings.some((w) => w.code === 'subagent:file');
  const messageOfRecord = new Map<number, Message>();
  const messageById = new Map<string, Message>();
  for (const m of t.messages) {
    messageById.set(m.id, m);
    for (const r of m.recordRefs) messageOfRecord.set(r, m);
  }
  // Synthetic messages are written just before the first kept main-chain message since the last
  // summary (the kept prefix, see above), else before the next projected source message.
  const before = new Map<string, ProjectedMessage[]>();
  /** For each synthetic: the first record of the next kept main-chain message (its span ends before). */
  const spanEnd = new Map<ProjectedMessage, number>();
  let queue: ProjectedMessage[] = [];
  let prefixStart: string | undefined;
  const waitingForEnd: ProjectedMessage[] = [];
  for (const pm of projection.messages) {
    if (pm.synthetic || pm.sourceId === undefined) {
      if (prefixStart !== undefined) before.get(prefixStart)!.push(pm);
      else queue.push(pm);
      waitingForEnd.push(pm);
      prefixStart = undefined;
      continue;
    }
    // A side chain (a sub-agent's lines, interleaved in the file) is never where a summary pair
    // goes: the pair waits for the next main-chain message, so the main-chain lines the summary
    // covers after the side chain stay in the history before it.
    if (pm.sidechain) continue;
    if (queue.length) {
      before.set(pm.sourceId, queue);
      queue = [];
    }
    const source = messageById.get(pm.sourceId);
    if (source) for (const s of waitingForEnd.splice(0)) spanEnd.set(s, source.recordRefs[0]);
    if (isSourceSummary(pm)) prefixStart = undefined;
    else if (prefixStart === undefined && !before.has(pm.sourceId)) {
      prefixStart = pm.sourceId;
      before.set(pm.sourceId, []);
    }
  }
  const trailing = queue;
  for (const s of waitingForEnd) spanEnd.set(s, t.records.length);
  const session = opts.summaryShape === 'session';
  // History: Claude Code, like Codex, keeps the whole session in the file and starts the model's
  // view at the last compact_boundary (its loader skips what lies before it). So every line before
  // the last boundary of the output — the source's own, or the pair written here — stays as it
  // is, summarized lines included; only after it are dropped lines left out (there, nothing else
  // hides them from the model).
  let historyEnd = -1;
  if (session) {
    for (const [sourceId, list] of before) {
      const m = list.length ? t.messages.find((x) => x.id === sourceId) : undefined;
      if (m) historyEnd = Math.max(historyEnd, m.recordRefs[0]);
    }
    if (trailing.length) historyEnd = t.records.length;
    t.records.forEach((r, i) => {
      const v = r.value;
      if (isRecord(v) && v.type === 'system' && v.subtype === 'compact_boundary' && (v.isSidechain !== true || subAgentFile)) historyEnd = Math.max(historyEnd, i);
    });
  }
  /** uuid → type and parent of every record that has one: to walk past records Claude Code does not load. */
  const lineOfUuid = new Map<string, { type: unknown; parent: string | null }>();
  for (const r of t.records) {
    const v = r.value;
    if (isRecord(v) && typeof v.uuid === 'string' && !lineOfUuid.has(v.uuid)) lineOfUuid.set(v.uuid, { type: v.type, parent: typeof v.parentUuid === 'string' ? v.parentUuid : null });
  }
  /** uuid of the last dropped main-chain line before `end`: what a summary ending there summarized. */
  const lastDroppedLine = (end: number): string | undefined => {
    for (let r = Math.min(end, t.records.length) - 1; r >= 0; r--) {
      const m = messageOfRecord.get(r);
      const u = (t.records[r].value as Record<string, unknown> | null)?.uuid;
      if (m && (!m.sidechain || subAgentFile) && !bySource.has(m.id) && typeof u === 'string') return u;
    }
    return undefined;
  };

  /** Dropped line uuid → the uuid its children should point to instead. */
  const redirect = new Map<string, string | null>();
  const resolve = (u: string | null): string | null => {
    let cur = u;
    for (let guard = 0; cur !== null && redirect.has(cur) && guard < 100000; guard++) cur = redirect.get(cur)!;
    return cur;
  };
  let lastMainUuid: string | null = null;
  /** Set after a summary pair: the next main-chain line hangs off the summary line. */
  let relinkTo: string | undefined;
  /** The last summary line written (a loaded line of its own, though not in the source). */
  let relinkedSummary: string | undefined;
  let envelope: Record<string, unknown> = {};
  let lastTime: string | undefined;
  const items: OutputRecord[] = [];
  /** Message lines by record: the message as written (null = dropped); absent = written verbatim. */
  const writtenLine = new Map<number, Record<string, unknown> | null>();
  /** uuid → the record of the message line that first held it (a later line with it is a replay). */
  const messageLineOfUuid = new Map<string, number>();
  t.records.forEach((r, i) => {
    const u = isRecord(r.value) ? r.value.uuid : undefined;
    if (typeof u === 'string' && messageOfRecord.has(i) && !messageLineOfUuid.has(u)) messageLineOfUuid.set(u, i);
  });

  const emitValue = (orig: number | undefined, value: Record<string, unknown>, original?: SourceRecord) => {
    let v = value;
    if (session && orig !== undefined && orig < historyEnd) {
      // History before the boundary: as it is (its links only matter to the transcript viewer).
      items.push({ orig, text: original ? original.text : stringifyLike(v, style, opts.depth) });
      if (typeof v.uuid === 'string' && (v.isSidechain !== true || subAgentFile)) lastMainUuid = v.uuid;
      return;
    }
    const mainLine = typeof v.uuid === 'string' && (v.isSidechain !== true || subAgentFile) && (v.type === 'user' || v.type === 'assistant' || (session && (v.type === 'attachment' || (v.type === 'system' && v.subtype !== 'compact_boundary'))));
    if (relinkTo !== undefined && mainLine && 'parentUuid' in v) {
      v = original ? structuredClone(v) : v;
      v.parentUuid = relinkTo;
      original = undefined;
      relinkTo = undefined;
    } else if (typeof v.parentUuid === 'string' && redirect.has(v.parentUuid)) {
      v = original ? structuredClone(v) : v;
      v.parentUuid = resolve(v.parentUuid as string);
      original = undefined;
    }
    // Claude Code links only the lines it loads (user, assistant, system, attachment): a line whose
    // parent is another record (file-history-delta, progress …) breaks its parent walk, and the
    // walk then falls back to the line with the nearest earlier timestamp. Hang it off the
    // nearest loaded ancestor instead.
    if (session && orig !== undefined && orig >= historyEnd && typeof v.parentUuid === 'string') {
      let p: string | null = v.parentUuid;
      for (let guard = 0; p !== null && guard < 100000; guard++) {
        const line = lineOfUuid.get(p);
        if (!line || CLAUDE_LOADED_TYPES.has(line.type as string) || p === relinkedSummary) break;
        p = resolve(line.parent);
      }
      if (p !== v.parentUuid) {
        v = original ? structuredClone(v) : v;
        v.parentUuid = p;
        original = undefined;
      }
    }
    items.push({ ...(orig !== undefined && { orig }), text: original ? original.text : stringifyLike(v, style, opts.depth) });
    if (typeof v.uuid === 'string' && (v.isSidechain !== true || subAgentFile)) lastMainUuid = v.uuid;
  };

  /** at: the record the pair is written before (undefined: at the end); nth of `of` pairs written there. */
  const emitSynthetic = (pm: ProjectedMessage, k: number, at?: number, nth = 0, of = 1) => {
    const summary = summaryContent(syntheticText(pm));
    const seed = `${t.id}:${pm.span?.join('-') ?? ''}:${k}:${summary.length}`;
    const preTokens = projection.tokens.before.total;
    // Strictly increasing, as Claude Code writes its own compaction: boundary < summary < the
    // first line kept after them (a tie sends its parent-walk fallback to the boundary).
    const { boundaryTime, summaryTime } = pairTimes(t, at, lastTime, nth, of);
    if (opts.summaryShape === 'sdk') {
      const session_id = (envelope.session_id as string | undefined) ?? t.id;
      items.push({ text: stringifyLike({ type: 'system', subtype: 'compact_boundary', session_id, uuid: uuidFrom(seed), compact_metadata: { trigger: 'manual', pre_tokens: preTokens } }, style, opts.depth) });
      items.push({ text: stringifyLike({ type: 'user', message: { role: 'user', content: summary }, parent_tool_use_id: null, session_id, isCompactSummary: true }, style, opts.depth) });
      return;
    }
    const env: Record<string, unknown> = {};
    for (const key of ENVELOPE_KEYS) if (envelope[key] !== undefined) env[key] = envelope[key];
    const boundaryUuid = uuidFrom(seed);
    const summaryUuid = uuidFrom(seed + ':summary');
    // The boundary roots the chain (parentUuid null) and names the last summarized line, exactly
    // as Claude Code writes it; what the model keeps follows the summary line (see above).
    const boundary = {
      parentUuid: null,
      logicalParentUuid: lastDroppedLine(spanEnd.get(pm) ?? t.records.length) ?? lastMainUuid,
      isSidechain: envelope.isSidechain === true,
      ...env,
      type: 'system',
      subtype: 'compact_boundary',
      content: 'Conversation compacted',
      isMeta: false,
      timestamp: boundaryTime,
      uuid: boundaryUuid,
      level: 'info',
      compactMetadata: { trigger: 'manual', preTokens },
    };
    const summaryLine = {
      parentUuid: boundaryUuid,
      isSidechain: envelope.isSidechain === true,
      ...env,
      type: 'user',
      message: { role: 'user', content: summary },
      isVisibleInTranscriptOnly: true,
      isCompactSummary: true,
      uuid: summaryUuid,
      timestamp: summaryTime,
    };
    items.push({ text: stringifyLike(boundary, style, opts.depth) });
    items.push({ text: stringifyLike(summaryLine, style, opts.depth) });
    lastMainUuid = summaryUuid;
    relinkTo = summaryUuid;
    relinkedSummary = summaryUuid;
    // Everything dropped so far was summarized into this line: children of it now hang off it.
    for (const key of redirect.keys()) redirect.set(key, summaryUuid);
  };

  let syntheticCount = 0;
  t.records.forEach((rec, i) => {
    const value = rec.value;
    if (isRecord(value)) {
      if (typeof value.timestamp === 'string') lastTime = value.timestamp;
      if ((value.type === 'user' || value.type === 'assistant') && (value.isSidechain !== true || subAgentFile)) {
        envelope = {};
        if (value.isSidechain === true) envelope.isSidechain = true;
        if (typeof value.agentId === 'string') envelope.agentId = value.agentId;
        for (const key of ENVELOPE_KEYS) if (value[key] !== undefined) envelope[key] = value[key];
        if (typeof value.session_id === 'string') envelope.session_id = value.session_id;
      }
    }
    const m = messageOfRecord.get(i);
    if (!m) {
      // A resumed session's replay of a message line follows its original.
      const replayOf = isRecord(value) && (value.type === 'user' || value.type === 'assistant') && typeof value.uuid === 'string' ? messageLineOfUuid.get(value.uuid) : undefined;
      if (replayOf !== undefined && replayOf < i && isRecord(value)) {
        const written = writtenLine.get(replayOf);
        // Its original was dropped (its uuid is already redirected); history keeps it.
        if (written === null) return i < historyEnd ? emitValue(i, value, rec) : undefined;
        if (written === undefined) return emitValue(i, value, rec);
        const replay = structuredClone(value) as Record<string, unknown>;
        replay.message = structuredClone(written.message);
        if ('toolUseResult' in replay && 'toolUseResult' in written) replay.toolUseResult = structuredClone(written.toolUseResult);
        return emitValue(i, replay);
      }
      if (isRecord(value)) emitValue(i, value, rec);
      else items.push({ orig: i, text: rec.text });
      return;
    }
    const pm = bySource.get(m.id);
    if (i === m.recordRefs[0]) {
      const pairs = before.get(m.id) ?? [];
      pairs.forEach((s, j) => emitSynthetic(s, syntheticCount++, i, j, pairs.length));
    }
    const v = value as Record<string, unknown>;
    const dropLine = () => {
      writtenLine.set(i, null);
      if (typeof v.uuid === 'string') redirect.set(v.uuid, typeof v.parentUuid === 'string' ? v.parentUuid : null);
      // Out of the model's view, still in the session's history.
      if (i < historyEnd) emitValue(i, v, rec);
    };
    if (!pm) return dropLine();
    if (isUnchanged(pm, m)) return emitValue(i, v, rec);
    // Which of the message's blocks came from this line.
    let offset = 0;
    for (const r of m.recordRefs) {
      if (r === i) break;
      offset += lineBlocks(t.records[r].value).length;
    }
    const count = lineBlocks(v).length;
    const lineSourceBlocks = m.blocks.slice(offset, offset + count);
    const outcomes = blockOutcomes(pm, m);
    const isLast = i === m.recordRefs[m.recordRefs.length - 1];
    const added = isLast ? addedBlocks(pm, m).flatMap((b) => (b.kind === 'text' || b.kind === 'summary' || b.kind === 'opaque' ? [b.text] : b.kind === 'tool_result' ? [b.content] : [])) : [];
    const out = rewriteLine(v, lineSourceBlocks, outcomes, added);
    if (out === null) return dropLine();
    writtenLine.set(i, out);
    emitValue(i, out);
  });
  trailing.forEach((s, j) => emitSynthetic(s, syntheticCount++, undefined, j, trailing.length));
  const text = joinOutput(t.frame, items, defaultSeparator(t.frame, style, opts.depth));
  for (const m of t.messages) for (const b of m.blocks) if (b.kind === 'reasoning' && b.opaque) {
    const pm = bySource.get(m.id);
    if (pm && !pm.blocks.includes(b)) dropped.push(`message ${m.index}: a signed thinking block was removed with its signature`);
  }
  return { text, dropped };
}

// ---------------------------------------------------------------------------------------------
// The JSONL session format

function detect(input: DetectInput): number | null {
  if (input.container !== 'jsonl') return null;
  for (const v of input.values) {
    if (!isRecord(v)) continue;
    if ('parentUuid' in v) return 0.95;
    if (typeof v.sessionId === 'string' && (v.type === 'user' || v.type === 'assistant' || v.type === 'system') && isRecord(v.message)) return 0.9;
    if (typeof v.type === 'string' && CLAUDE_ONLY_TYPES.has(v.type) && !('payload' in v)) return 0.85;
  }
  return null;
}

/**
 * Records of any Claude Code container (session JSONL, web export, SDK output) → a transcript:
 * the one read path the three Claude Code formats share.
 */
export function parseClaudeRecords(
  format: string,
  fileName: string,
  set: RecordSet,
  options: ParseOptions | undefined,
  more: { fallbackTitle?: (reader: ClaudeSessionReader) => string; extra?: Record<string, unknown> } = {},
): ParseResult {
  const reader = new ClaudeSessionReader(fileName);
  reader.readAll(set.records, options?.onProgress);
  const { title, model, warnings } = reader.finish(more.fallbackTitle?.(reader) ?? fileName);
  const transcript = reader.builder.build({
    format,
    fileName,
    title,
    ...(model && { model }),
    records: set.records,
    frame: set.frame,
    style: set.style,
    warnings: [...set.warnings, ...warnings],
    ...(more.extra && { extra: more.extra }),
  });
  return { transcript, warnings: [] };
}

function parse(file: SourceFile, options?: ParseOptions): ParseResult {
  if (!isJsonlFile(file)) {
    throw new ImportError('malformed:claude-code', 'This is a single JSON document, not a Claude Code session.', { file: file.name, line: 1 }, 'JSONL: one JSON object per line (~/.claude/projects/*/*.jsonl)');
  }
  return parseClaudeRecords('claude-code', file.name, readJsonl(file), options);
}

function serialize(t: Transcript, projection?: Projection): SerializeResult {
  if (!projection) {
    return { text: joinOutput(t.frame, t.records.map((r, orig) => ({ orig, text: r.text })), t.style.eol), fileName: t.fileName, mimeType: 'application/jsonl', dropped: [] };
  }
  const { text, dropped } = serializeClaudeRecords(t, projection, { depth: 0, summaryShape: 'session' });
  return { text, fileName: compactedFileName(t, true), mimeType: 'application/jsonl', dropped };
}

export const claudeCode: FormatModule = {
  id: 'claude-code',
  keepsHistory: true,
  label: 'Claude Code',
  specUrl: 'https://github.com/daaain/claude-code-log/blob/main/claude_code_log/models.py',
  extensions: ['.jsonl'],
  detect,
  parse,
  serialize,
};

export default claudeCode;
