/**
 * OpenAI Chat Completions messages (FORMATS.md §1).
 * Spec: https://platform.openai.com/docs/api-reference/chat/create
 *
 * Shapes read: a bare `messages` array; a request object `{model, messages, tools, …}`; a response
 * object (`object: "chat.completion"`, `choices[].message`, `usage`); fine-tune JSONL (one
 * `{"messages":[…]}` conversation per line); and container files holding many conversations
 * (tau-bench: an array of `{task_id, traj, …}`) from which the user picks one.
 *
 * Records are the elements of the array the messages live in. For containers the records are the
 * container's elements; the chosen conversation's messages are read from inside its record, and an
 * export re-writes only that record (its other elements stay byte-identical).
 */
import type { ProjectedMessage, Projection } from '../model/projection';
import { ImportError, type ErrorWhere } from '../errors';
import { TranscriptBuilder, type DraftBlock, type DraftMessage } from '../model/builder';
import type { ImportWarning, JsonStyle, Message, Role, SourceRecord, Transcript } from '../model/types';
import { CallOccurrences, validatePairing } from '../model/pairing';
import { isJsonlFile } from '../read/head';
import { lineAt, parseJsonString, readJsonDocument, spanAt, stringifyLike, type JsonPath } from '../read/json-doc';
import { readJsonl, type RecordSet } from '../read/jsonl';
import type { SourceFile } from '../read/source';
import { parsedRoot } from '../read/json-root';
import { assertProjectionPairing } from './api-projection';
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
  type OutputRecord,
} from './serialize-util';
import type { ConversationInfo, ConvertInput, DetectInput, FormatModule, ParseOptions, ParseResult, SerializeResult } from './types';
import { imageFields, thumbnailOfDataUrl } from './images';

const CHAT_ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function']);
/** Content part types that say "Anthropic", not Chat (FORMATS.md §8 disambiguation). */
const ANTHROPIC_PARTS = new Set(['tool_use', 'tool_result', 'thinking', 'redacted_thinking', 'image', 'document']);

/** How the messages sit in the file; kept in `Transcript.extra.chat` for the exporter. */
export interface ChatLayout {
  kind: 'array' | 'request' | 'response' | 'finetune-jsonl' | 'container';
  /** Path of the record array in a JSON document (null for JSONL). */
  recordsPath: JsonPath | null;
  /** Containers: which record holds the chosen conversation, and under which key. */
  conversation?: number;
  innerKey?: string;
  /** For each message, the index of the element of the messages array it was read from. */
  slots: number[];
}

// ---------------------------------------------------------------------------------------------
// Detection

function isChatMessage(v: unknown): boolean {
  return isRecord(v) && typeof v.role === 'string' && CHAT_ROLES.has(v.role);
}

function hasAnthropicParts(messages: readonly unknown[]): boolean {
  for (const m of messages.slice(0, 50)) {
    if (!isRecord(m) || !Array.isArray(m.content)) continue;
    for (const p of m.content) if (isRecord(p) && typeof p.type === 'string' && ANTHROPIC_PARTS.has(p.type)) return true;
  }
  return false;
}

function hasChatToolFields(messages: readonly unknown[]): boolean {
  return messages.some((m) => isRecord(m) && ('tool_calls' in m || 'tool_call_id' in m || 'function_call' in m || m.role === 'tool'));
}

/** Confidence that an array is a Chat messages array. */
function messagesConfidence(messages: readonly unknown[]): number | null {
  const head = messages.slice(0, 20);
  if (head.length === 0) return 0.3;
  if (!head.every(isChatMessage)) return null;
  if (hasAnthropicParts(messages)) return null;
  return hasChatToolFields(messages) ? 0.8 : 0.5;
}

/** The key of a container element that holds a conversation (tau-bench `traj`, eval `messages`). */
function innerKeyOf(el: unknown): string | undefined {
  if (!isRecord(el)) return undefined;
  if (Array.isArray(el.traj)) return 'traj';
  if (Array.isArray(el.messages) && el.messages.length > 0 && el.messages.every(isChatMessage)) return 'messages';
  return undefined;
}

function detectRoot(root: unknown): number | null {
  if (Array.isArray(root)) {
    if (root.length > 0 && isRecord(root[0]) && !('role' in root[0])) {
      const key = innerKeyOf(root[0]);
      if (!key) return null;
      const inner = (root[0] as Record<string, unknown>)[key] as unknown[];
      const c = messagesConfidence(inner);
      if (c === null) return null;
      return key === 'traj' ? 0.9 : Math.min(0.6, c);
    }
    return messagesConfidence(root);
  }
  if (!isRecord(root)) return null;
  if (root.object === 'chat.completion') return 0.95;
  if (Array.isArray(root.choices) && root.choices.some((c) => isRecord(c) && isRecord(c.message))) return 0.8;
  // Other families that also carry `messages` (FORMATS.md §8 order): leave them to their importers.
  if ('system' in root || 'trajectory_format' in root || 'eval' in root || 'projectHash' in root || 'contents' in root) return null;
  if (isRecord(root.info) && 'mini_version' in root.info) return null;
  if (!('messages' in root)) return null;
  // Claim a malformed `messages` weakly, so parse() can say precisely what is wrong.
  if (!Array.isArray(root.messages)) return 0.1;
  const c = messagesConfidence(root.messages);
  if (c === null) return null;
  return Array.isArray(root.tools) || typeof root.model === 'string' ? Math.min(0.85, c + 0.05) : c;
}

function detect(input: DetectInput): number | null {
  if (input.container === 'json') return detectRoot(input.values[0]);
  if (input.container !== 'jsonl' || input.values.length === 0) return null;
  if (input.values.length === 1) return detectRoot(input.values[0]);
  // Fine-tune JSONL: every line a `{"messages":[…]}` conversation.
  let best = 0.6;
  for (const v of input.values) {
    if (!isRecord(v) || !Array.isArray(v.messages)) return null;
    const c = messagesConfidence(v.messages);
    if (c === null) return null;
    if ('tools' in v) best = 0.65;
  }
  return best;
}

// ---------------------------------------------------------------------------------------------
// Messages → canonical

interface ConvertContext {
  file: string;
  /** JSON path of the i-th message, for error locations. */
  pathOf: (index: number) => string;
  /** Line of the record holding the message (1-based), when known. */
  line?: number;
  warnings: ImportWarning[];
  /** Legacy function calls waiting for a `role:"function"` answer, by function name. */
  pendingFunctionCalls: Map<string, string[]>;
  syntheticIds: number;
  /**
   * Call ids re-used within one conversation (tau-bench replays re-use them: 49 of its 200
   * conversations; some models twice in one message). Each use becomes its own occurrence ("X",
   * "X#2", …) and each result answers the right one (lib/model/pairing.ts CallOccurrences);
   * records keep the original ids.
   */
  calls: CallOccurrences;
}

/** "a string", "an object", "an array", "null": for messages that say what was found. */
export function describeType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  const t = typeof v;
  return t === 'object' || t === 'undefined' ? `an ${t}` : `a ${t}`;
}

function fail(ctx: ConvertContext, path: string, message: string, expected: string): never {
  throw new ImportError('malformed:openai-chat', message, { file: ctx.file, line: ctx.line, path }, expected);
}

function dataUrlInfo(url: string): { mediaType: string; bytes?: number } {
  const m = /^data:([^;,]+)?(;base64)?,/.exec(url);
  if (!m) return { mediaType: 'image/url' };
  const payload = url.length - m[0].length;
  return { mediaType: m[1] ?? 'application/octet-stream', bytes: m[2] ? Math.floor((payload * 3) / 4) : payload };
}

/** One content part → one block (kept 1:1 so an export can re-write parts in place). */
function partToBlock(part: unknown, path: string, ctx: ConvertContext): DraftBlock {
  if (typeof part === 'string') return { kind: 'text', text: part };
  if (!isRecord(part)) fail(ctx, path, 'A content part is not an object.', 'a content part like {"type":"text","text":"…"}');
  const type = typeof part.type === 'string' ? part.type : '';
  if (type === 'text' || type === 'input_text' || type === 'output_text') {
    if (typeof part.text !== 'string') fail(ctx, `${path}.text`, 'A text part has no text string.', 'a string');
    return { kind: 'text', text: part.text };
  }
  if (type === 'refusal') return { kind: 'text', text: typeof part.refusal === 'string' ? part.refusal : '' };
  if (type === 'image_url') {
    const url = isRecord(part.image_url) && typeof part.image_url.url === 'string' ? part.image_url.url : typeof part.image_url === 'string' ? part.image_url : '';
    const info = dataUrlInfo(url);
    const thumbnail = thumbnailOfDataUrl(url);
    return { kind: 'attachment', mediaType: info.mediaType === 'image/url' ? 'image/*' : info.mediaType, ...(info.bytes !== undefined && { bytes: info.bytes }), ...(!url.startsWith('data:') && url && { name: url.slice(0, 200) }), ...imageFields(thumbnail) };
  }
  if (type === 'input_audio') {
    const a = isRecord(part.input_audio) ? part.input_audio : {};
    const data = typeof a.data === 'string' ? a.data : '';
    return { kind: 'attachment', mediaType: `audio/${typeof a.format === 'string' ? a.format : 'wav'}`, bytes: Math.floor((data.length * 3) / 4) };
  }
  if (type === 'file') {
    const f = isRecord(part.file) ? part.file : {};
    const data = typeof f.file_data === 'string' ? f.file_data : '';
    const info = data ? dataUrlInfo(data) : { mediaType: 'application/octet-stream' };
    return { kind: 'attachment', mediaType: info.mediaType, ...(typeof f.filename === 'string' && { name: f.filename }), ...('bytes' in info && info.bytes !== undefined && { bytes: info.bytes }) };
  }
  return { kind: 'opaque', type: type || 'unknown', text: JSON.stringify(part).slice(0, 2000) };
}

/** Text of a `content` that must be text (tool results, legacy function results). */
function contentText(content: unknown, path: string, ctx: ConvertContext): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((p, i) => {
        const b = partToBlock(p, `${path}[${i}]`, ctx);
        return b.kind === 'text' || b.kind === 'opaque' ? b.text : `[${b.kind === 'attachment' ? b.mediaType : b.kind}]`;
      })
      .join('\n');
  }
  fail(ctx, path, `The message content is ${describeType(content)}.`, 'a string, null, or an array of content parts');
}

function contentBlocks(content: unknown, path: string, ctx: ConvertContext): DraftBlock[] {
  if (content === null || content === undefined) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ kind: 'text', text: content }];
  if (Array.isArray(content)) return content.map((p, i) => partToBlock(p, `${path}[${i}]`, ctx));
  fail(ctx, path, `The message content is ${describeType(content)}.`, 'a string, null, or an array of content parts');
}

function parseArguments(args: unknown, where: ErrorWhere): { input: unknown; rawInput?: string } {
  if (typeof args !== 'string') return { input: args ?? {} };
  return { input: parseJsonString(args, where), rawInput: args };
}

/** Chat message → draft message (or null when the element is skipped with a warning). */
export function chatMessageToDraft(v: unknown, index: number, recordRefs: number[], ctx: ConvertContext): DraftMessage | null {
  const path = ctx.pathOf(index);
  if (!isRecord(v)) {
    ctx.warnings.push({ code: 'skipped:message', message: `Element ${path} is not a message object and was skipped.`, path, line: ctx.line });
    return null;
  }
  const role = v.role;
  if (typeof role !== 'string' || !CHAT_ROLES.has(role)) {
    ctx.warnings.push({ code: 'unknown:role', message: `Message ${path} has role ${JSON.stringify(role) ?? 'none'}; it was skipped (kept for export).`, path: `${path}.role`, line: ctx.line });
    return null;
  }
  const blocks: DraftBlock[] = [];
  let canonicalRole: Role;
  if (role === 'tool' || role === 'function') {
    canonicalRole = 'tool';
    let callId: string;
    if (role === 'tool') {
      if (typeof v.tool_call_id === 'string') callId = ctx.calls.result(v.tool_call_id);
      else {
        callId = '';
        ctx.warnings.push({ code: 'missing:tool_call_id', message: `Tool message ${path} has no tool_call_id.`, path, line: ctx.line });
      }
    } else {
      const name = typeof v.name === 'string' ? v.name : '';
      const queue = ctx.pendingFunctionCalls.get(name);
      callId = queue?.shift() ?? `function:${name}:${index}`;
    }
    blocks.push({ kind: 'tool_result', callId, content: contentText(v.content, `${path}.content`, ctx), isError: false, ...(typeof v.name === 'string' && { name: v.name }) });
  } else {
    canonicalRole = role === 'system' || role === 'developer' ? 'system' : (role as Role);
    if (role === 'assistant') {
      const reasoning = typeof v.reasoning_content === 'string' ? v.reasoning_content : typeof v.reasoning === 'string' ? v.reasoning : undefined;
      if (reasoning !== undefined && reasoning !== '') blocks.push({ kind: 'reasoning', text: reasoning });
    }
    blocks.push(...contentBlocks(v.content, `${path}.content`, ctx));
    if (role === 'assistant') {
      if (typeof v.refusal === 'string' && v.refusal !== '') blocks.push({ kind: 'text', text: v.refusal });
      if (v.tool_calls !== undefined && v.tool_calls !== null) {
        if (!Array.isArray(v.tool_calls)) fail(ctx, `${path}.tool_calls`, `tool_calls is ${describeType(v.tool_calls)}.`, 'an array of tool calls');
        v.tool_calls.forEach((tc, i) => {
          const tcPath = `${path}.tool_calls[${i}]`;
          if (!isRecord(tc)) fail(ctx, tcPath, 'A tool call is not an object.', 'a tool call like {"id","type":"function","function":{"name","arguments"}}');
          const fn = isRecord(tc.function) ? tc.function : undefined;
          if (!fn || typeof fn.name !== 'string') fail(ctx, `${tcPath}.function.name`, 'A tool call has no function name.', 'a string');
          let callId = typeof tc.id === 'string' && tc.id ? ctx.calls.call(tc.id, index) : '';
          if (!callId) {
            callId = `call_missing_${ctx.syntheticIds++}`;
            ctx.warnings.push({ code: 'missing:tool_call.id', message: `Tool call ${tcPath} has no id; results cannot be paired with it.`, path: tcPath, line: ctx.line });
          }
          blocks.push({ kind: 'tool_call', callId, name: fn.name, ...parseArguments(fn.arguments, { file: ctx.file, line: ctx.line, path: `${tcPath}.function.arguments` }) });
        });
      }
      if (isRecord(v.function_call) && typeof v.function_call.name === 'string') {
        const name = v.function_call.name;
        const callId = `function:${name}:${index}`;
        const queue = ctx.pendingFunctionCalls.get(name) ?? [];
        queue.push(callId);
        ctx.pendingFunctionCalls.set(name, queue);
        blocks.push({ kind: 'tool_call', callId, name, ...parseArguments(v.function_call.arguments, { file: ctx.file, line: ctx.line, path: `${path}.function_call.arguments` }) });
      }
    }
  }
  return { role: canonicalRole, blocks, recordRefs };
}

// ---------------------------------------------------------------------------------------------
// Layout: where the messages are

interface Located {
  layout: Omit<ChatLayout, 'slots'>;
  set: RecordSet;
  root?: unknown;
  /** The messages (elements), and the JSON path of each for error messages. */
  messages: unknown[];
  pathOf: (i: number) => string;
  /** Line of the container record (containers) for error locations. */
  line?: number;
  /** Record index for each element of `messages` (containers: all the chosen record). */
  recordOf: (i: number) => number;
}

function chooseConversation(count: number, options: ParseOptions | undefined, file: string): number {
  const k = options?.conversation ?? 0;
  if (!Number.isInteger(k) || k < 0 || k >= count) {
    throw new ImportError('invalid:conversation', `Conversation ${k} does not exist: the file holds ${count}.`, { file }, `a conversation index from 0 to ${count - 1}`);
  }
  return k;
}

function locate(file: SourceFile, options?: ParseOptions): Located {
  if (isJsonlFile(file)) {
    const set = readJsonl(file);
    if (set.records.length > 1 || set.warnings.length > 0) {
      const k = chooseConversation(set.records.length, options, file.name);
      const rec = set.records[k];
      if (!isRecord(rec.value) || !Array.isArray(rec.value.messages)) {
        throw new ImportError('malformed:openai-chat', `Line ${rec.line} has no "messages" array.`, { file: file.name, line: rec.line, path: '$.messages' }, 'one {"messages":[…]} conversation per line');
      }
      return { layout: { kind: 'finetune-jsonl', recordsPath: null, conversation: k, innerKey: 'messages' }, set, messages: rec.value.messages, pathOf: (i) => `$.messages[${i}]`, line: rec.line, recordOf: () => k };
    }
  }
  const text = file.text();
  const root = parsedRoot(file);
  if (Array.isArray(root)) {
    const key = root.length > 0 && isRecord(root[0]) && !('role' in root[0]) ? innerKeyOf(root[0]) : undefined;
    if (key) {
      const set = readJsonDocument(text, file.name, [], root, file.bom);
      const k = chooseConversation(set.records.length, options, file.name);
      const el = set.records[k].value;
      if (!isRecord(el) || !Array.isArray(el[key])) {
        throw new ImportError('malformed:openai-chat', `Conversation ${k} has no "${key}" array.`, { file: file.name, line: set.records[k].line, path: `$[${k}].${key}` }, 'an array of chat messages');
      }
      return { layout: { kind: 'container', recordsPath: [], conversation: k, innerKey: key }, set, root, messages: el[key] as unknown[], pathOf: (i) => `$[${k}].${key}[${i}]`, line: set.records[k].line, recordOf: () => k };
    }
    const set = readJsonDocument(text, file.name, [], root, file.bom);
    return { layout: { kind: 'array', recordsPath: [] }, set, root, messages: root, pathOf: (i) => `$[${i}]`, recordOf: (i) => i };
  }
  if (!isRecord(root)) {
    throw new ImportError('malformed:openai-chat', 'The document is not an object or an array.', { file: file.name, path: '$' }, 'a messages array, a request {"messages":[…]} or a chat.completion response');
  }
  if (Array.isArray(root.choices)) {
    const set = readJsonDocument(text, file.name, ['choices'], root, file.bom);
    const messages = root.choices.map((c) => (isRecord(c) ? c.message : undefined));
    return { layout: { kind: 'response', recordsPath: ['choices'] }, set, root, messages, pathOf: (i) => `$.choices[${i}].message`, recordOf: (i) => i };
  }
  if (!Array.isArray(root.messages)) {
    const span = spanAt(text, ['messages']);
    throw new ImportError('malformed:openai-chat', `"messages" is ${root.messages === undefined ? 'missing' : describeType(root.messages)}.`, { file: file.name, ...(span && { line: lineAt(text, span[0]) }), path: '$.messages' }, 'an array of chat messages');
  }
  const set = readJsonDocument(text, file.name, ['messages'], root, file.bom);
  return { layout: { kind: 'request', recordsPath: ['messages'] }, set, root, messages: root.messages, pathOf: (i) => `$.messages[${i}]`, recordOf: (i) => i };
}

function firstUserText(messages: readonly unknown[]): string | undefined {
  for (const m of messages) {
    if (!isRecord(m) || m.role !== 'user') continue;
    if (typeof m.content === 'string' && m.content.trim()) return m.content;
    if (Array.isArray(m.content)) for (const p of m.content) if (isRecord(p) && typeof p.text === 'string' && p.text.trim()) return p.text;
  }
  return undefined;
}

function shortTitle(s: string): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > 80 ? one.slice(0, 79) + '…' : one;
}

function containerTitle(el: unknown, k: number, count: number, messages: readonly unknown[]): string {
  if (isRecord(el) && 'task_id' in el) {
    const trial = 'trial' in el ? ` trial ${String(el.trial)}` : '';
    return `tau-bench task ${String(el.task_id)}${trial} (${k + 1}/${count})`;
  }
  const first = firstUserText(messages);
  return `Conversation ${k + 1}/${count}${first ? `: ${shortTitle(first)}` : ''}`;
}

function parse(file: SourceFile, options?: ParseOptions): ParseResult {
  const loc = locate(file, options);
  const b = new TranscriptBuilder();
  const warnings: ImportWarning[] = [...loc.set.warnings];
  const ctx: ConvertContext = { file: file.name, pathOf: loc.pathOf, line: loc.line, warnings, pendingFunctionCalls: new Map(), syntheticIds: 0, calls: new CallOccurrences() };
  const perRecord = loc.layout.conversation === undefined;
  const slots: number[] = [];
  const total = loc.messages.length;
  loc.messages.forEach((v, i) => {
    if (options?.onProgress && i % 2000 === 0) options.onProgress(i / total);
    const ref = loc.recordOf(i);
    if (perRecord) ctx.line = loc.set.records[ref]?.line;
    const d = chatMessageToDraft(v, i, [ref], ctx);
    if (d) {
      b.addMessage(d);
      slots.push(i);
    }
  });
  if (ctx.calls.renamed > 0) {
    warnings.push({ code: 'renamed:duplicate-call-id', message: `${ctx.calls.renamed} tool call id(s) are re-used for later calls; they are shown as "id#2", "id#3", … (the file keeps the original ids).` });
  }
  // Conversation-level fields: the request/response object, or the container element.
  const holder: Record<string, unknown> | undefined =
    loc.layout.kind === 'request' || loc.layout.kind === 'response'
      ? (loc.root as Record<string, unknown>)
      : loc.layout.conversation !== undefined && isRecord(loc.set.records[loc.layout.conversation].value)
        ? (loc.set.records[loc.layout.conversation].value as Record<string, unknown>)
        : undefined;
  const model = holder && typeof holder.model === 'string' ? holder.model : undefined;
  // `tools` (function tools) or the legacy `functions` list: both are schemas sent with every request.
  const toolList = holder && Array.isArray(holder.tools) ? { key: 'tools', list: holder.tools } : holder && Array.isArray(holder.functions) ? { key: 'functions', list: holder.functions } : undefined;
  if (toolList) {
    toolList.list.forEach((t, i) => {
      const fn = isRecord(t) && isRecord(t.function) ? t.function : isRecord(t) ? t : undefined;
      if (fn && typeof fn.name === 'string') b.addTool({ name: fn.name, ...(typeof fn.description === 'string' && { description: fn.description }), ...(fn.parameters !== undefined && { parameters: fn.parameters }) });
      else warnings.push({ code: 'skipped:tool', message: `Tool $.${toolList.key}[${i}] has no function name.`, path: `$.${toolList.key}[${i}]` });
    });
  }
  if (loc.layout.kind === 'response' && holder && isRecord(holder.usage)) {
    const u = holder.usage;
    const num = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) ? x : 0);
    const cached = isRecord(u.prompt_tokens_details) ? num(u.prompt_tokens_details.cached_tokens) : 0;
    const reasoning = isRecord(u.completion_tokens_details) ? num(u.completion_tokens_details.reasoning_tokens) : 0;
    const lastAssistant = b.messageCount - 1;
    if (lastAssistant >= 0) {
      b.addUsage({ messageIndex: lastAssistant, ...(model && { model }), input: Math.max(0, num(u.prompt_tokens) - cached), cacheRead: cached, cacheWrite: 0, output: num(u.completion_tokens), ...(reasoning && { reasoning }) });
    }
    if (loc.messages.length > 1) warnings.push({ code: 'response:choices', message: `The response holds ${loc.messages.length} alternative choices; all are shown in order.` });
  }
  let title: string;
  if (loc.layout.conversation !== undefined) {
    title = containerTitle(loc.set.records[loc.layout.conversation].value, loc.layout.conversation, loc.set.records.length, loc.messages);
  } else {
    const first = firstUserText(loc.messages);
    title = first ? shortTitle(first) : loc.layout.kind === 'response' && holder && typeof holder.id === 'string' ? `Chat completion ${holder.id}` : file.name;
  }
  const layout: ChatLayout = { ...loc.layout, slots };
  const transcript = b.build({
    format: 'openai-chat',
    fileName: file.name,
    title,
    ...(model && { model }),
    records: loc.set.records,
    frame: loc.set.frame,
    style: loc.set.style,
    warnings,
    extra: { chat: layout },
  });
  return { transcript, warnings: [] };
}

function listConversations(file: SourceFile): ConversationInfo[] {
  if (isJsonlFile(file)) {
    const set = readJsonl(file);
    if (set.records.length > 1 || set.warnings.length > 0) {
      return set.records.map((r, k) => {
        const msgs = isRecord(r.value) && Array.isArray(r.value.messages) ? r.value.messages : [];
        return { index: k, title: containerTitle(r.value, k, set.records.length, msgs), messages: msgs.length };
      });
    }
  }
  const root = parsedRoot(file);
  if (Array.isArray(root) && root.length > 0 && isRecord(root[0]) && !('role' in root[0])) {
    const key = innerKeyOf(root[0]);
    if (key) {
      return root.map((el, k) => {
        const msgs = isRecord(el) && Array.isArray(el[key]) ? (el[key] as unknown[]) : [];
        return { index: k, title: containerTitle(el, k, root.length, msgs), messages: msgs.length };
      });
    }
  }
  return [];
}

// ---------------------------------------------------------------------------------------------
// Export

function layoutOf(t: Transcript): ChatLayout {
  const l = t.extra?.chat as ChatLayout | undefined;
  if (!l) throw new ImportError('internal:layout', 'This transcript was not imported as OpenAI Chat.', { file: t.fileName });
  return l;
}

/** Re-write one Chat message object with the projected blocks swapped in. Null = drop it. */
function rewriteChatMessage(value: unknown, source: Message, pm: ProjectedMessage): Record<string, unknown> | null {
  if (!isRecord(value)) return null;
  const out: Record<string, unknown> = structuredClone(value);
  const outcomes = blockOutcomes(pm, source);
  const outcome = (i: number) => outcomes.get(source.blocks[i].id)!;
  let bi = 0;
  const role = out.role;
  if (role === 'tool' || role === 'function') {
    const o = outcome(0);
    if (o.kind === 'removed') return null;
    if (o.kind === 'changed' && o.block.kind === 'tool_result') out.content = o.block.content;
    return out;
  }
  if (role === 'assistant') {
    const reasoning = typeof out.reasoning_content === 'string' ? 'reasoning_content' : typeof out.reasoning === 'string' ? 'reasoning' : undefined;
    if (reasoning && out[reasoning] !== '') {
      const o = outcome(bi++);
      if (o.kind === 'removed') delete out[reasoning];
      else if (o.kind === 'changed' && o.block.kind === 'reasoning') out[reasoning] = o.block.text;
    }
  }
  // content
  if (typeof out.content === 'string' && out.content !== '') {
    const o = outcome(bi++);
    if (o.kind === 'removed') out.content = role === 'assistant' ? null : '';
    else if (o.kind === 'changed' && 'text' in o.block) out.content = (o.block as { text: string }).text;
  } else if (Array.isArray(out.content)) {
    const parts: unknown[] = [];
    for (const part of out.content) {
      const o = outcome(bi++);
      if (o.kind === 'kept') parts.push(part);
      else if (o.kind === 'changed') {
        const nb = o.block;
        if (nb.kind === 'text') parts.push(isRecord(part) && typeof part.type === 'string' ? { ...part, text: nb.text } : nb.text);
        else if (nb.kind === 'opaque' || nb.kind === 'summary') parts.push({ type: 'text', text: nb.text });
      }
    }
    out.content = parts;
  }
  if (role === 'assistant') {
    if (typeof out.refusal === 'string' && out.refusal !== '') {
      const o = outcome(bi++);
      if (o.kind === 'removed') out.refusal = null;
      else if (o.kind === 'changed' && o.block.kind === 'text') out.refusal = o.block.text;
    }
    if (Array.isArray(out.tool_calls)) {
      const calls: unknown[] = [];
      for (const tc of out.tool_calls) {
        const o = outcome(bi++);
        if (o.kind === 'kept') calls.push(tc);
        else if (o.kind === 'changed' && o.block.kind === 'tool_call' && isRecord(tc) && isRecord(tc.function)) {
          const nb = o.block;
          calls.push({ ...tc, function: { ...tc.function, arguments: nb.rawInput ?? (typeof nb.input === 'string' ? nb.input : JSON.stringify(nb.input)) } });
        }
      }
      if (calls.length > 0) out.tool_calls = calls;
      else delete out.tool_calls;
    }
    if (isRecord(out.function_call)) {
      const o = outcome(bi++);
      if (o.kind === 'removed') delete out.function_call;
      else if (o.kind === 'changed' && o.block.kind === 'tool_call') out.function_call = { ...out.function_call, arguments: o.block.rawInput ?? JSON.stringify(o.block.input) };
    }
  }
  const extra = addedBlocks(pm, source).filter((x) => x.kind === 'text' || x.kind === 'summary');
  if (extra.length) {
    const add = extra.map((x) => (x as { text: string }).text).join('\n\n');
    if (Array.isArray(out.content)) out.content = [...out.content, { type: 'text', text: add }];
    else out.content = (typeof out.content === 'string' && out.content ? out.content + '\n\n' : '') + add;
  }
  const empty = (out.content === null || out.content === '' || (Array.isArray(out.content) && out.content.length === 0)) && !out.tool_calls && !out.function_call;
  return empty ? null : out;
}

/**
 * Emit the messages array of a conversation under a projection. `elements` are the source texts
 * and values of the array's elements; `frame` the text around them.
 */
function emitMessagesArray(
  t: Transcript,
  projection: Projection,
  elements: ReadonlyArray<Pick<SourceRecord, 'text' | 'value'>>,
  frame: readonly string[],
  depth: number,
  style: JsonStyle,
  dropped: string[],
): string {
  const layout = layoutOf(t);
  const bySource = projectedBySource(projection);
  const messageAtSlot = new Map<number, Message>();
  layout.slots.forEach((slot, mi) => messageAtSlot.set(slot, t.messages[mi]));
  // Synthetic messages go just before the next projected source message.
  const pendingBefore = new Map<string, ProjectedMessage[]>();
  const trailing: ProjectedMessage[] = [];
  let queue: ProjectedMessage[] = [];
  for (const pm of projection.messages) {
    if (pm.synthetic || pm.sourceId === undefined) queue.push(pm);
    else if (queue.length) {
      pendingBefore.set(pm.sourceId, queue);
      queue = [];
    }
  }
  trailing.push(...queue);
  const synthText = (pm: ProjectedMessage) => stringifyLike({ role: 'user', content: syntheticText(pm) }, style, depth);
  const items: OutputRecord[] = [];
  elements.forEach((el, i) => {
    const m = messageAtSlot.get(i);
    if (!m) {
      items.push({ orig: i, text: el.text }); // not a message we read: keep in place
      return;
    }
    const pm = bySource.get(m.id);
    if (!pm) return; // dropped by the projection
    for (const s of pendingBefore.get(m.id) ?? []) items.push({ text: synthText(s) });
    if (isUnchanged(pm, m)) items.push({ orig: i, text: el.text });
    else {
      const v = rewriteChatMessage(el.value, m, pm);
      if (v) items.push({ orig: i, text: stringifyLike(v, style, depth) });
      else dropped.push(`message ${m.index} (all of its content was removed)`);
    }
  });
  for (const s of trailing) items.push({ text: synthText(s) });
  // Always an array inside a JSON value here (even in a JSONL file): separators are commas.
  return joinOutput(frame, items, defaultSeparator(frame, { ...style, container: 'json' }, depth));
}

/**
 * prune-tools removes declared tools from the context: the `tools` (or legacy `functions`) array
 * next to the messages lives in the frame around them, so it is re-written there, keeping the
 * remaining tool objects and everything else of the frame verbatim. `depth` is the nesting of the
 * array's value (1 = a key of the root object).
 */
function pruneToolsInFrame(frame: readonly string[], texts: readonly string[], keep: ReadonlySet<string>, style: JsonStyle, depth = 1): string[] {
  if (texts.length === 0) return [...frame];
  // With every record in place the join is the original text exactly.
  const text = joinOutput(frame, texts.map((x, orig) => ({ orig, text: x })), ',');
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch {
    return [...frame];
  }
  if (!isRecord(root)) return [...frame];
  const key = Array.isArray(root.tools) ? 'tools' : Array.isArray(root.functions) ? 'functions' : undefined;
  if (!key) return [...frame];
  const list = root[key] as unknown[];
  const nameOf = (x: unknown) => (isRecord(x) && isRecord(x.function) && typeof x.function.name === 'string' ? x.function.name : isRecord(x) && typeof x.name === 'string' ? x.name : undefined);
  const kept = list.filter((x) => {
    const n = nameOf(x);
    return n === undefined || keep.has(n);
  });
  if (kept.length === list.length) return [...frame];
  const span = spanAt(text, [key]);
  if (!span) return [...frame];
  const replacement = stringifyLike(kept, { ...style, container: 'json' }, depth);
  const out = [...frame];
  const last = out.length - 1;
  const tailStart = text.length - out[last].length;
  if (span[1] <= out[0].length) out[0] = out[0].slice(0, span[0]) + replacement + out[0].slice(span[1]);
  else if (span[0] >= tailStart) out[last] = out[last].slice(0, span[0] - tailStart) + replacement + out[last].slice(span[1] - tailStart);
  return out;
}

function serialize(t: Transcript, projection?: Projection): SerializeResult {
  const layout = layoutOf(t);
  const mimeType = t.style.container === 'jsonl' ? 'application/jsonl' : 'application/json';
  const texts = t.records.map((r) => r.text);
  if (!projection) return { text: joinOutput(t.frame, texts.map((text, orig) => ({ orig, text })), defaultSeparator(t.frame, t.style, 1)), fileName: t.fileName, mimeType, dropped: [] };
  // A projection may not break tool call/result pairs (issues the source already has are tolerated).
  assertProjectionPairing(t, projection.messages.filter((m) => !m.sidechain));
  const dropped: string[] = [];
  let text: string;
  const keepTools = new Set(projection.tools.map((x) => x.name));
  if (layout.kind === 'array' || layout.kind === 'request') {
    const depth = (layout.recordsPath?.length ?? 0) + 1;
    const frame = layout.kind === 'request' ? pruneToolsInFrame(t.frame, texts, keepTools, t.style) : t.frame;
    text = emitMessagesArray(t, projection, t.records, frame, depth, t.style, dropped);
  } else if (layout.kind === 'response') {
    // Choices are alternatives, not a sequence: re-write each choice's message, no summaries.
    const bySource = projectedBySource(projection);
    const items: OutputRecord[] = [];
    t.records.forEach((r, i) => {
      const mi = layout.slots.indexOf(i);
      const m = mi >= 0 ? t.messages[mi] : undefined;
      const pm = m ? bySource.get(m.id) : undefined;
      if (!m || (pm && isUnchanged(pm, m))) items.push({ orig: i, text: r.text });
      else if (pm && isRecord(r.value)) {
        const msg = rewriteChatMessage(r.value.message, m, pm);
        items.push({ orig: i, text: stringifyLike({ ...r.value, message: msg ?? { role: 'assistant', content: null } }, t.style, 2) });
      } else {
        dropped.push(`choice ${i} (removed by the projection; kept since a response needs it)`);
        items.push({ orig: i, text: r.text });
      }
    });
    if (projection.messages.some((pm) => pm.synthetic)) dropped.push('summary: a chat.completion response cannot hold one');
    text = joinOutput(t.frame, items, defaultSeparator(t.frame, t.style, 2));
  } else {
    // Containers: re-write only the chosen conversation's record.
    const k = layout.conversation!;
    const key = layout.innerKey!;
    const rec = t.records[k];
    const inner = readJsonDocument(rec.text, t.fileName, [key], rec.value);
    const depth = layout.kind === 'container' ? 3 : 2;
    const innerFrame = pruneToolsInFrame(inner.frame, inner.records.map((r) => r.text), keepTools, t.style, layout.kind === 'container' ? 2 : 1);
    const innerText = emitMessagesArray(t, projection, inner.records, innerFrame, depth, t.style, dropped);
    text = joinOutput(t.frame, texts.map((tx, orig) => ({ orig, text: orig === k ? innerText : tx })), defaultSeparator(t.frame, t.style, 1));
  }
  return { text, fileName: compactedFileName(t, true), mimeType, dropped };
}

// ---------------------------------------------------------------------------------------------
// Conversion target: a valid Chat request

function fromMessages(input: ConvertInput): SerializeResult {
  const dropped: string[] = [];
  const system: Array<Record<string, unknown>> = [];
  const rest: Array<Record<string, unknown>> = [];
  // Results by call id, so each call can be answered right after the assistant message making it.
  const results = new Map<string, string>();
  const calls = new Set<string>();
  const reasoningAt: number[] = [];
  let signedReasoning = 0;
  // Side chains (sub-agents) were never in the main model's context: they are not part of the request.
  const messages = input.messages.filter((m) => !m.sidechain);
  if (messages.length < input.messages.length) dropped.push(`${input.messages.length - messages.length} side-chain (sub-agent) message(s): not part of the main conversation`);
  for (const m of messages) for (const b of m.blocks) if (b.kind === 'tool_call') calls.add(b.callId);
  for (const m of messages) for (const b of m.blocks) if (b.kind === 'tool_result' && calls.has(b.callId) && !results.has(b.callId)) results.set(b.callId, b.isError ? `Error: ${b.content}` : b.content);
  messages.forEach((m, mi) => {
    const texts: string[] = [];
    const toolCalls: Array<Record<string, unknown>> = [];
    for (const b of m.blocks) {
      switch (b.kind) {
        case 'text':
        case 'summary':
          texts.push(b.text);
          break;
        case 'opaque':
          if (b.text) texts.push(b.text);
          dropped.push(`message ${mi}: ${b.type} block written as text`);
          break;
        case 'reasoning':
          reasoningAt.push(mi);
          if (b.opaque) signedReasoning++;
          break;
        case 'attachment':
          dropped.push(`message ${mi}: ${b.mediaType} attachment${b.name ? ` ${b.name}` : ''} (its data is not in the transcript)`);
          texts.push(`[${b.mediaType} attachment${b.name ? `: ${b.name}` : ''}]`);
          break;
        case 'tool_call':
          toolCalls.push({ id: b.callId, type: 'function', function: { name: b.name, arguments: b.rawInput ?? (typeof b.input === 'string' ? b.input : JSON.stringify(b.input ?? {})) } });
          break;
        case 'tool_result':
          if (!calls.has(b.callId)) dropped.push(`message ${mi}: tool result ${b.callId} without a call`);
          break; // written right after its call
      }
    }
    const text = texts.join('\n\n');
    if (m.role === 'system') {
      if (text) system.push({ role: 'system', content: text });
      return;
    }
    if (m.role === 'assistant') {
      if (!text && toolCalls.length === 0) return;
      const msg: Record<string, unknown> = { role: 'assistant', content: text || null };
      if (toolCalls.length) msg.tool_calls = toolCalls;
      rest.push(msg);
      for (const tc of toolCalls) {
        const id = tc.id as string;
        const content = results.get(id);
        if (content === undefined) dropped.push(`tool call ${id}: no result recorded; answered with a placeholder`);
        rest.push({ role: 'tool', tool_call_id: id, content: content ?? '[no result recorded: the call was interrupted]' });
      }
      return;
    }
    // user / tool messages: results were written after their calls; other text stays a user message.
    if (text) rest.push({ role: 'user', content: text });
  });
  if (reasoningAt.length) {
    const where = [...new Set(reasoningAt)];
    dropped.push(`${reasoningAt.length} reasoning block(s)${signedReasoning ? ` (${signedReasoning} signed)` : ''} cannot be carried in a Chat request (message${where.length > 1 ? 's' : ''} ${where.slice(0, 8).join(', ')}${where.length > 8 ? ', …' : ''})`);
  }
  const request: Record<string, unknown> = { model: input.model ?? 'gpt-4o', messages: [...system, ...rest] };
  if (input.tools.length) {
    request.tools = input.tools.map((t) => ({ type: 'function', function: { name: t.name, ...(t.description && { description: t.description }), parameters: t.parameters ?? { type: 'object', properties: {} } } }));
  }
  const issues = validatePairing(
    (request.messages as Array<Record<string, unknown>>).map((m) => ({
      role: m.role === 'tool' ? ('tool' as const) : (m.role as Role),
      blocks: m.role === 'tool' ? [{ kind: 'tool_result' as const, callId: m.tool_call_id as string }] : ((m.tool_calls as Array<{ id: string }> | undefined) ?? []).map((c) => ({ kind: 'tool_call' as const, callId: c.id })),
    })),
  );
  if (issues.length) dropped.push(...issues.map((i) => `pairing: ${i.kind} ${i.callId}`));
  return { text: JSON.stringify(request, null, 2) + '\n', fileName: `${input.baseName}.openai-chat.json`, mimeType: 'application/json', dropped };
}

export const openaiChat: FormatModule = {
  id: 'openai-chat',
  label: 'OpenAI Chat',
  specUrl: 'https://platform.openai.com/docs/api-reference/chat/create',
  extensions: ['.json', '.jsonl'],
  detect,
  parse,
  serialize,
  listConversations,
  fromMessages,
};

export default openaiChat;

