/**
 * OpenAI Responses API items — https://platform.openai.com/docs/api-reference/responses (FORMATS.md §3).
 * Shapes: an input item list (`{input:[…]}` or a bare array), a Response object (`object:"response"`,
 * `output:[…]`), and rollout JSONL (NeMo Gym: one `{responses_create_params, response}` conversation
 * per line). Items are also the body of Codex rollouts (codex-cli.ts reuses `convertItem`).
 */
import type { ProjectedBlock, ProjectedMessage, Projection } from '../model/projection';
import { ImportError } from '../errors';
import { TranscriptBuilder, type DraftBlock, type DraftMessage } from '../model/builder';
import type { JsonStyle, Role, Transcript } from '../model/types';
import { detectJsonStyle, parseJsonText, pathText, withPlace, readJsonDocument, spanAt, stringifyLike, type JsonPath } from '../read/json-doc';
import { looksLikeJsonl, readJsonl, type RecordSet } from '../read/jsonl';
import { sourceFromText, type SourceFile } from '../read/source';
import {
  againstSource,
  assertProjectionPairing,
  isUntouchedSigned,
  replaysSignedReasoning,
  asText,
  baseName,
  cloneJson,
  isObject,
  num,
  parseArgs,
  rewriteParts,
  setAt,
  str,
  syntheticText,
  verbatim,
  writeDocumentRecords,
  writeJsonl,
  type MessageSite,
  type ProjectedAgainstSource,
} from './api-projection';
import type { ConversationInfo, ConvertInput, DetectInput, FormatModule, ParseOptions, ParseResult, SerializeResult } from './types';
import { imageFields, thumbnailOfDataUrl } from './images';

type AnyObj = Record<string, unknown>;

const ITEM_TYPES = new Set([
  'message',
  'function_call',
  'function_call_output',
  'reasoning',
  'compaction',
  'custom_tool_call',
  'custom_tool_call_output',
  'web_search_call',
  'local_shell_call',
  'item_reference',
]);

function looksLikeItem(v: unknown): boolean {
  return isObject(v) && ((typeof v.type === 'string' && ITEM_TYPES.has(v.type)) || (v.type === undefined && typeof v.role === 'string' && 'content' in v && !('tool_calls' in v)));
}

/** A list holding at least one typed Responses item (an EasyInputMessage alone is Chat-shaped too). */
function isItemList(v: unknown): v is unknown[] {
  return Array.isArray(v) && v.length > 0 && v.every(looksLikeItem) && v.some((x) => isObject(x) && typeof x.type === 'string');
}

type Shape = 'rollouts' | 'response' | 'input';

function isRollout(v: unknown): boolean {
  return isObject(v) && (isObject(v.responses_create_params) || (isObject(v.response) && v.response.object === 'response'));
}

function detect(input: DetectInput): number | null {
  const first = input.values[0];
  if (input.container === 'jsonl') return isRollout(first) ? 0.95 : null;
  if (input.container !== 'json') return null;
  if (isObject(first) && first.object === 'response' && Array.isArray(first.output)) return 0.95;
  if (isObject(first) && isItemList(first.input)) return 0.9;
  if (isItemList(first)) return 0.85;
  return null;
}

// -------------------------------------------------------------------------------------------------
// Items → canonical messages

export interface ConvertedItem {
  role: Role;
  blocks: DraftBlock[];
  parts: number[];
  meta?: boolean;
  /** A `compaction` item: the readable part (empty for encrypted server compactions). */
  compaction?: { summary: string };
}

function contentPartBlock(p: unknown): DraftBlock {
  if (!isObject(p)) return { kind: 'text', text: asText(p) };
  switch (p.type) {
    case 'input_text':
    case 'output_text':
    case 'text':
    case 'summary_text':
    case 'reasoning_text':
      return { kind: 'text', text: str(p.text) ?? '' };
    case 'refusal':
      return { kind: 'text', text: str(p.refusal) ?? '' };
    case 'input_image': {
      const thumbnail = thumbnailOfDataUrl(p.image_url);
      return { kind: 'attachment', mediaType: thumbnail ? thumbnail.slice(5, thumbnail.indexOf(';')) : 'image/*', ...(typeof p.image_url === 'string' && !p.image_url.startsWith('data:') && { name: p.image_url }), ...imageFields(thumbnail) };
    }
    case 'input_file':
      return { kind: 'attachment', mediaType: 'application/octet-stream', ...(typeof p.filename === 'string' && { name: p.filename }) };
    case 'input_audio':
      return { kind: 'attachment', mediaType: 'audio/*' };
    default:
      return { kind: 'opaque', type: String(p.type), text: JSON.stringify(p) };
  }
}

function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return output.map((p) => (isObject(p) && (p.type === 'input_text' || p.type === 'output_text') ? str(p.text) ?? '' : isObject(p) && p.type === 'input_image' ? '[image]' : asText(p))).join('\n');
  return asText(output);
}

function reasoningText(item: AnyObj): string {
  const pieces: string[] = [];
  if (Array.isArray(item.summary)) for (const s of item.summary) if (isObject(s) && typeof s.text === 'string') pieces.push(s.text);
  if (Array.isArray(item.content)) for (const c of item.content) if (isObject(c) && typeof c.text === 'string') pieces.push(c.text);
  return pieces.join('\n\n');
}

/** Codex shell outputs are JSON strings `{"output":…,"metadata":{"exit_code":N}}`: a non-zero exit is an error result. */
function nonZeroExit(output: unknown): boolean {
  if (typeof output !== 'string' || !output.startsWith('{"output"')) return false;
  try {
    const v = JSON.parse(output);
    return isObject(v) && isObject(v.metadata) && typeof v.metadata.exit_code === 'number' && v.metadata.exit_code !== 0;
  } catch {
    return false;
  }
}

const CALL_TYPES: Record<string, string> = { local_shell_call: 'local_shell', shell_call: 'shell', apply_patch_call: 'apply_patch', computer_call: 'computer' };
const OUTPUT_TYPES = new Set(['function_call_output', 'custom_tool_call_output', 'local_shell_call_output', 'shell_call_output', 'apply_patch_call_output', 'computer_call_output']);

/** One item → one canonical message (null = an item that is not model context, e.g. Codex ghost_snapshot). */
export function convertItem(item: unknown): ConvertedItem | null {
  if (!isObject(item)) return { role: 'user', blocks: [{ kind: 'opaque', type: 'unknown', text: asText(item) }], parts: [-1] };
  const type = item.type === undefined && typeof item.role === 'string' ? 'message' : String(item.type);
  if (type === 'message') {
    const role: Role = item.role === 'assistant' ? 'assistant' : item.role === 'system' || item.role === 'developer' ? 'system' : 'user';
    if (typeof item.content === 'string') return { role, blocks: [{ kind: 'text', text: item.content }], parts: [-1] };
    const blocks: DraftBlock[] = [];
    const parts: number[] = [];
    if (Array.isArray(item.content))
      item.content.forEach((p, j) => {
        blocks.push(contentPartBlock(p));
        parts.push(j);
      });
    return { role, blocks, parts };
  }
  if (type === 'reasoning') {
    const enc = str(item.encrypted_content);
    return { role: 'assistant', blocks: [{ kind: 'reasoning', text: reasoningText(item), ...(enc !== undefined && { opaque: enc }) }], parts: [-1] };
  }
  if (type === 'function_call') {
    const raw = str(item.arguments) ?? asText(item.arguments);
    return { role: 'assistant', blocks: [{ kind: 'tool_call', callId: str(item.call_id) ?? str(item.id) ?? '', name: str(item.name) ?? '', input: parseArgs(raw), rawInput: raw }], parts: [-1] };
  }
  if (type === 'custom_tool_call') {
    return { role: 'assistant', blocks: [{ kind: 'tool_call', callId: str(item.call_id) ?? str(item.id) ?? '', name: str(item.name) ?? '', input: str(item.input) ?? asText(item.input) }], parts: [-1] };
  }
  if (Object.prototype.hasOwnProperty.call(CALL_TYPES, type)) {
    return { role: 'assistant', blocks: [{ kind: 'tool_call', callId: str(item.call_id) ?? str(item.id) ?? '', name: CALL_TYPES[type], input: item.action ?? item.input ?? item.operation ?? {} }], parts: [-1] };
  }
  if (OUTPUT_TYPES.has(type)) {
    const isError = item.status === 'failed' || item.status === 'incomplete' || nonZeroExit(item.output);
    return { role: 'tool', blocks: [{ kind: 'tool_result', callId: str(item.call_id) ?? '', content: outputText(item.output), isError }], parts: [-1] };
  }
  if (type === 'mcp_call') {
    // A hosted MCP call carries its output in the same item: a call and its result, paired by the item id.
    const raw = str(item.arguments) ?? asText(item.arguments);
    const id = str(item.id) ?? '';
    const name = `${str(item.server_label) ?? 'mcp'}/${str(item.name) ?? ''}`;
    const blocks: DraftBlock[] = [{ kind: 'tool_call', callId: id, name, input: parseArgs(raw), rawInput: raw }];
    blocks.push({ kind: 'tool_result', callId: id, name, content: item.error != null ? asText(item.error) : outputText(item.output), isError: item.error != null });
    return { role: 'assistant', blocks, parts: [-1, -1] };
  }
  if (type === 'compaction' || type === 'compaction_summary') {
    const summary = str(item.summary) ?? '';
    return { role: 'user', blocks: [{ kind: 'summary', text: summary }], parts: [-1], compaction: { summary } };
  }
  if (type === 'ghost_snapshot') return null;
  const shown = type === 'web_search_call' && isObject(item.action) ? JSON.stringify(item.action) : type === 'mcp_list_tools' && Array.isArray(item.tools) ? item.tools.map((t) => (isObject(t) ? str(t.name) : '')).join(', ') : JSON.stringify(item);
  return { role: 'assistant', blocks: [{ kind: 'opaque', type, text: shown }], parts: [-1] };
}

// -------------------------------------------------------------------------------------------------
// Parse

interface ConversationLayout {
  shape: Shape;
  /** Path of the record array inside the document (json shapes). */
  recordsPath: JsonPath | null;
  conversation: number;
  sites: Array<MessageSite | null>;
}

interface Read {
  set: RecordSet;
  shape: Shape;
  root?: unknown;
  recordsPath: JsonPath | null;
}

function readShape(file: SourceFile): Read {
  if (looksLikeJsonl(file.text())) {
    const set = readJsonl(file);
    if (set.records.length > 0 && isRollout(set.records[0].value)) return { set, shape: 'rollouts', recordsPath: null };
    if (set.records.length !== 1) throw new ImportError('malformed:responses', 'The JSONL lines are not Responses rollouts.', { file: file.name, line: set.records[0]?.line ?? 1 }, 'lines with responses_create_params / response');
  }
  const root = parseJsonText(file.text(), file.name);
  if (isObject(root) && root.object === 'response' && Array.isArray(root.output)) return { set: readJsonDocument(file.text(), file.name, ['output'], root, file.bom), shape: 'response', root, recordsPath: ['output'] };
  if (isObject(root) && Array.isArray(root.input)) return { set: readJsonDocument(file.text(), file.name, ['input'], root, file.bom), shape: 'input', root, recordsPath: ['input'] };
  if (Array.isArray(root)) return { set: readJsonDocument(file.text(), file.name, [], root, file.bom), shape: 'input', root, recordsPath: [] };
  throw new ImportError('malformed:responses', 'The document is not a Responses input list or Response object.', { file: file.name, path: '$' }, 'an object with "input" items, a Response object with "output", or an array of items');
}

interface Conversation {
  drafts: Array<{ draft: DraftMessage; site: MessageSite | null; compaction?: { summary: string } }>;
  model?: string;
  tools: unknown[];
  usage?: unknown;
  title?: string;
  /** The request continued a stored conversation: the earlier items live server-side. */
  previousResponseId?: string;
}

function conversationOf(r: Read, index: number, fileName: string): Conversation {
  const drafts: Conversation['drafts'] = [];
  const addItem = (item: unknown, record: number, path: JsonPath) => {
    let c: ReturnType<typeof convertItem>;
    try {
      c = convertItem(item);
    } catch (e) {
      throw withPlace(e, { file: fileName, line: r.set.records[record]?.line, path: pathText(path) });
    }
    if (!c) return;
    drafts.push({ draft: { role: c.role, blocks: c.blocks, recordRefs: [record], ...(c.meta && { meta: true }) }, site: { record, path, parts: c.parts }, ...(c.compaction && { compaction: c.compaction }) });
  };
  if (r.shape === 'rollouts') {
    const rec = r.set.records[index];
    if (!rec) throw new ImportError('unsupported:conversation', `The file has ${r.set.records.length} conversations; there is no conversation ${index}.`, { file: fileName }, `a conversation index below ${r.set.records.length}`);
    const v = rec.value as AnyObj;
    const params = isObject(v.responses_create_params) ? v.responses_create_params : {};
    const response = isObject(v.response) ? v.response : {};
    if (typeof params.instructions === 'string' && params.instructions) drafts.push({ draft: { role: 'system', blocks: [{ kind: 'text', text: params.instructions }], recordRefs: [index] }, site: { record: index, path: ['responses_create_params', 'instructions'], parts: [-1] } });
    if (typeof params.input === 'string') drafts.push({ draft: { role: 'user', blocks: [{ kind: 'text', text: params.input }], recordRefs: [index] }, site: { record: index, path: ['responses_create_params', 'input'], parts: [-1] } });
    else if (Array.isArray(params.input)) params.input.forEach((it, i) => addItem(it, index, ['responses_create_params', 'input', i]));
    if (Array.isArray(response.output)) response.output.forEach((it, i) => addItem(it, index, ['response', 'output', i]));
    // Rollouts without a user prompt (SWE tasks) are named by their task instance.
    const meta = isObject(params.metadata) ? params.metadata : {};
    const instance = str(meta.instance_id) ?? str(v.instance_id);
    const previous = str(params.previous_response_id);
    return { drafts, model: str(response.model) ?? str(params.model), tools: Array.isArray(params.tools) ? params.tools : Array.isArray(response.tools) ? response.tools : [], usage: response.usage, ...(instance !== undefined && { title: instance }), ...(previous !== undefined && { previousResponseId: previous }) };
  }
  const root = r.root as AnyObj;
  if (r.shape === 'response' && typeof root.instructions === 'string' && root.instructions) drafts.push({ draft: { role: 'system', blocks: [{ kind: 'text', text: root.instructions }], recordRefs: [] }, site: null });
  if (r.shape === 'input' && isObject(root) && typeof root.instructions === 'string' && root.instructions) drafts.push({ draft: { role: 'system', blocks: [{ kind: 'text', text: root.instructions }], recordRefs: [] }, site: null });
  r.set.records.forEach((rec, i) => addItem(rec.value, i, []));
  const tools = isObject(root) && Array.isArray(root.tools) ? root.tools : [];
  const previous = isObject(root) ? str(root.previous_response_id) : undefined;
  return { drafts, model: isObject(root) ? str(root.model) : undefined, tools, usage: r.shape === 'response' ? root.usage : undefined, title: r.shape === 'response' ? str(root.id) : undefined, ...(previous !== undefined && { previousResponseId: previous }) };
}

/** The name a tool entry is imported under (a function's name; a hosted tool's type). */
function toolEntryName(t: unknown): string | undefined {
  if (!isObject(t)) return undefined;
  const fn = isObject(t.function) ? t.function : t;
  return str(fn.name) ?? (typeof t.type === 'string' && t.type !== 'function' ? t.type : undefined);
}

/** The source's tool entries the projection kept (by imported name); null when none was pruned. */
function keptToolEntries(tools: unknown, keep: ReadonlySet<string>): unknown[] | null {
  if (!Array.isArray(tools)) return null;
  const kept = tools.filter((x) => {
    const n = toolEntryName(x);
    return n === undefined || keep.has(n);
  });
  return kept.length === tools.length ? null : kept;
}

export function addToolSchemas(b: TranscriptBuilder, tools: readonly unknown[]): void {
  for (const t of tools) {
    if (!isObject(t)) continue;
    const fn = isObject(t.function) ? t.function : t;
    const name = toolEntryName(t);
    if (!name) continue;
    b.addTool({ name, ...(typeof fn.description === 'string' && { description: fn.description }), parameters: fn.parameters ?? fn.format ?? (t.type !== 'function' ? t : undefined) });
  }
}

function titleOf(drafts: Conversation['drafts']): string | undefined {
  for (const { draft } of drafts) {
    if (draft.role !== 'user' || draft.meta) continue;
    const t = draft.blocks.find((b) => b.kind === 'text');
    if (t && t.kind === 'text' && t.text.trim()) return t.text.replace(/\s+/g, ' ').trim().slice(0, 80);
  }
  return undefined;
}

function layoutOf(file: SourceFile, conversation: number): { r: Read; conv: Conversation } {
  const r = readShape(file);
  return { r, conv: conversationOf(r, r.shape === 'rollouts' ? conversation : 0, file.name) };
}

function parse(file: SourceFile, options: ParseOptions = {}): ParseResult {
  const conversation = options.conversation ?? 0;
  const { r, conv } = layoutOf(file, conversation);
  const b = new TranscriptBuilder();
  for (const d of conv.drafts) {
    const idx = b.addMessage({ ...d.draft, ...(d.draft.role === 'assistant' && conv.model !== undefined && { model: conv.model }) });
    if (d.compaction) b.addMarker({ source: 'openai-compaction', atMessage: idx, ...(idx > 0 && { covers: [0, idx] as [number, number] }), ...(d.compaction.summary && { summary: d.compaction.summary }), recordRef: d.site?.record });
  }
  addToolSchemas(b, conv.tools);
  const usage = conv.usage;
  if (isObject(usage)) {
    let last = -1;
    conv.drafts.forEach((d, i) => {
      if (d.draft.role === 'assistant') last = i;
    });
    const cached = isObject(usage.input_tokens_details) ? num(usage.input_tokens_details.cached_tokens) : 0;
    // A rollout line is a whole agent loop: each run of assistant items in `response.output` is one
    // model call (tool outputs separate them), and `response.usage` is their total — not one call's
    // context size. Assistant items of the request's input are earlier history, not calls.
    let runs = 0;
    conv.drafts.forEach((d, i) => {
      const inOutput = d.site?.path[0] === 'response';
      const prev = conv.drafts[i - 1];
      if (inOutput && d.draft.role === 'assistant' && !(prev && prev.site?.path[0] === 'response' && prev.draft.role === 'assistant')) runs++;
    });
    b.addUsage({
      messageIndex: Math.max(0, last),
      ...(conv.model !== undefined && { model: conv.model }),
      // input_tokens includes the cached ones (FORMATS.md §3).
      input: Math.max(0, num(usage.input_tokens) - cached),
      cacheRead: cached,
      cacheWrite: isObject(usage.input_tokens_details) ? num(usage.input_tokens_details.cache_write_tokens) : 0,
      output: num(usage.output_tokens),
      ...(isObject(usage.output_tokens_details) && { reasoning: num(usage.output_tokens_details.reasoning_tokens) }),
      ...(r.shape === 'rollouts' && runs > 1 && { calls: runs }),
    });
  }
  if (b.messageCount === 0) b.warn({ code: 'empty:conversation', message: 'This conversation holds no items.' });
  if (conv.previousResponseId) b.warn({ code: 'partial:previous-response', message: `The request continues stored response ${conv.previousResponseId}: the earlier conversation lives server-side and is not in this file.` });
  const title = titleOf(conv.drafts) ?? conv.title ?? (r.shape === 'rollouts' ? `Rollout ${conversation + 1}` : 'Responses conversation');
  const transcript = b.build({
    format: 'openai-responses',
    fileName: file.name,
    title,
    ...(conv.model !== undefined && { model: conv.model }),
    records: r.set.records,
    frame: r.set.frame,
    style: r.set.style,
    warnings: r.set.warnings,
    extra: { shape: r.shape, conversation: r.shape === 'rollouts' ? conversation : 0, recordsPath: r.recordsPath },
  });
  return { transcript, warnings: [] };
}

function listConversations(file: SourceFile): ConversationInfo[] {
  const r = readShape(file);
  if (r.shape !== 'rollouts') return [{ index: 0, title: 'Conversation', messages: conversationOf(r, 0, file.name).drafts.length }];
  return r.set.records.map((_, i) => {
    const c = conversationOf(r, i, file.name);
    return { index: i, title: titleOf(c.drafts) ?? c.title ?? `Rollout ${i + 1}`, messages: c.drafts.length };
  });
}

// -------------------------------------------------------------------------------------------------
// Export

/** The style a rewritten JSONL line is written in: the line's own separators and escapes. */
export function lineStyle(text: string, file: JsonStyle): JsonStyle {
  const s = detectJsonStyle(text);
  return { ...file, container: 'jsonl', indent: 0, spacedSeparators: s.spacedSeparators, asciiEscapes: s.asciiEscapes };
}

function freshItem(b: ProjectedBlock, role: Role, dropped: string[]): AnyObj | null {
  switch (b.kind) {
    case 'text':
    case 'summary':
    case 'opaque':
      return role === 'assistant' ? { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: b.text, annotations: [] }] } : { type: 'message', role: role === 'system' ? 'developer' : 'user', content: [{ type: 'input_text', text: b.text }] };
    case 'reasoning':
      if (b.opaque !== undefined && b.sourceBlockId === undefined && Object.isFrozen(b)) return { type: 'reasoning', summary: b.text ? [{ type: 'summary_text', text: b.text }] : [], encrypted_content: b.opaque };
      if (b.text) return { type: 'reasoning', summary: [{ type: 'summary_text', text: b.text }] };
      dropped.push(`reasoning block ${b.id}: no readable text and no untouched payload — dropped`);
      return null;
    case 'tool_call':
      return { type: 'function_call', call_id: b.callId, name: b.name, arguments: b.rawInput ?? (typeof b.input === 'string' ? b.input : JSON.stringify(b.input ?? {})) };
    case 'tool_result':
      return { type: 'function_call_output', call_id: b.callId, output: b.content };
    case 'attachment':
      dropped.push(`attachment ${b.mediaType}${b.name ? ' ' + b.name : ''}: payload not carried, replaced by a placeholder`);
      return { type: 'message', role: role === 'assistant' ? 'assistant' : 'user', content: [{ type: role === 'assistant' ? 'output_text' : 'input_text', text: b.text ?? `[attachment: ${b.mediaType}${b.name ? ' ' + b.name : ''}]` }] };
  }
}

/** Rewrite one item from its projected blocks (null = the item goes). */
export function rewriteItem(item: unknown, site: MessageSite, pas: ProjectedAgainstSource, dropped: string[]): AnyObj[] {
  if (!isObject(item)) return [];
  const type = item.type === undefined && typeof item.role === 'string' ? 'message' : String(item.type);
  if (type === 'message' && Array.isArray(item.content)) {
    const role = pas.pm.role;
    const content = rewriteParts(
      item.content as unknown[],
      site,
      pas,
      (part, b) => {
        if (!isObject(part)) return part;
        if (b.kind === 'text' || b.kind === 'summary' || b.kind === 'opaque') return part.type === 'refusal' ? { ...part, refusal: b.text } : { ...part, text: b.text };
        if (b.kind === 'tool_result') return { ...part, text: b.content };
        dropped.push(`${b.kind} in a message item: replaced by a text part`);
        return { type: role === 'assistant' ? 'output_text' : 'input_text', text: b.kind === 'attachment' ? b.text ?? `[attachment: ${b.mediaType}]` : '' };
      },
      (b) => ({ type: role === 'assistant' ? 'output_text' : 'input_text', text: b.kind === 'text' || b.kind === 'summary' || b.kind === 'opaque' ? b.text : b.kind === 'tool_result' ? b.content : '' }),
    );
    return content.length ? [{ ...item, content }] : [];
  }
  if (type === 'message' && typeof item.content === 'string') {
    const texts = pas.pm.blocks.map((b) => (b.kind === 'text' || b.kind === 'summary' ? b.text : '')).filter(Boolean);
    return texts.length ? [{ ...item, content: texts.join('\n') }] : [];
  }
  // Item-level blocks: patch the fields a changed block stands for; other blocks become their own items.
  let next: AnyObj | null = { ...item };
  const extra: AnyObj[] = [];
  const seen = new Set<number>();
  for (const { block: b, sourceIndex } of pas.blocks) {
    if (sourceIndex === undefined) {
      const f = freshItem(b, pas.pm.role, dropped);
      if (f) extra.push(f);
      continue;
    }
    seen.add(sourceIndex);
    const src = pas.source!.blocks[sourceIndex];
    if (b === src || next === null) continue;
    if (b.kind === 'tool_result' && src.kind === 'tool_result') {
      // function_call_output, custom_tool_call_output and mcp_call all hold the result in `output`.
      next = { ...next, output: b.content };
    } else if (b.kind === 'tool_call' && src.kind === 'tool_call') {
      if (type === 'custom_tool_call') next = { ...next, input: typeof b.input === 'string' ? b.input : JSON.stringify(b.input) };
      else if (type === 'function_call' || type === 'mcp_call') next = { ...next, arguments: b.rawInput ?? JSON.stringify(b.input ?? {}) };
      else next = { ...next, action: b.input };
    } else if (b.kind === 'reasoning' && src.kind === 'reasoning') {
      // Edited reasoning cannot keep its encrypted payload; readable text survives as a summary.
      dropped.push(`reasoning item ${str(item.id) ?? ''}: edited, encrypted content dropped`);
      next = b.text ? { type: 'reasoning', ...(item.id !== undefined && { id: item.id }), summary: [{ type: 'summary_text', text: b.text }] } : null;
    } else if (b.kind === 'summary' && src.kind === 'summary') {
      next = { ...next, summary: b.text };
    } else {
      const f = freshItem(b, pas.pm.role, dropped);
      next = f;
    }
  }
  // A block of the item removed by the projection removes the item (a call without its result would be invalid).
  if (pas.source && seen.size < pas.source.blocks.length) {
    if (type === 'mcp_call' && seen.size === 1) dropped.push(`mcp call ${str(item.id) ?? ''}: half of it was removed, the whole item goes`);
    next = null;
  }
  return [...(next ? [next] : []), ...extra];
}

export function summaryItem(pm: ProjectedMessage): AnyObj {
  return { type: 'message', role: 'user', content: [{ type: 'input_text', text: syntheticText(pm) }] };
}

/**
 * The items a summary message becomes: a native compaction's own output (OpenAI: the user messages
 * it kept and the encrypted `compaction` item, verbatim, so the span stays readable to the model),
 * else one user message with the summary text.
 */
export function summaryItems(pm: ProjectedMessage): AnyObj[] {
  const native = pm.blocks.flatMap((b) => (b.kind === 'summary' && b.nativeItems ? b.nativeItems : []));
  const carried = native.filter((x): x is AnyObj => x !== null && typeof x === 'object' && !Array.isArray(x));
  return carried.some((x) => x.type === 'compaction' && typeof x.encrypted_content === 'string') ? carried.map((x) => cloneJson(x)) : [summaryItem(pm)];
}

function serialize(t: Transcript, projection?: Projection): SerializeResult {
  const name = baseName(t.fileName);
  const jsonl = t.style.container === 'jsonl';
  if (!projection) return { text: verbatim(t), fileName: t.fileName, mimeType: jsonl ? 'application/x-ndjson' : 'application/json', dropped: [] };
  assertProjectionPairing(t, projection.messages);
  const conversation = typeof t.extra?.conversation === 'number' ? t.extra.conversation : 0;
  const { r, conv } = layoutOf(sourceFromText(t.fileName, verbatim(t)), conversation);
  const dropped: string[] = [];

  // Each projected message → the items it becomes, tagged with the list they belong in.
  const placed: Array<{ items: AnyObj[]; verbatimText?: string; list: 'input' | 'output' | 'doc' }> = [];
  for (const pm of projection.messages) {
    const pas = againstSource(t, pm);
    const site = pas.source ? conv.drafts[pas.source.index]?.site ?? null : null;
    if (pas.source && !site) continue; // from the frame (instructions): stays there
    if (!pas.source || !site) {
      const items = pm.synthetic ? summaryItems(pm) : pm.blocks.map((b) => freshItem(b, pm.role, dropped)).filter((x): x is AnyObj => x !== null);
      placed.push({ items, list: 'input' });
      continue;
    }
    const list = r.shape !== 'rollouts' ? 'doc' : site.path[0] === 'response' ? 'output' : 'input';
    if (r.shape === 'rollouts' && site.path.length === 2) {
      // instructions / a string input: not an item list entry
      placed.push({ items: [], list });
      continue;
    }
    const original = r.shape === 'rollouts' ? (getItem(r.set.records[site.record].value, site.path) as AnyObj) : (r.set.records[site.record].value as AnyObj);
    if (pas.unchanged) placed.push({ items: [original], verbatimText: r.shape === 'rollouts' ? undefined : r.set.records[site.record].text, list });
    else placed.push({ items: rewriteItem(original, site, pas, dropped), list });
  }

  // Tool schemas the projection pruned (prune-tools) leave the request's `tools` too.
  const keepTools = new Set(projection.tools.map((x) => x.name));
  if (r.shape !== 'rollouts') {
    const depth = t.style.indent === 0 ? 0 : (r.recordsPath?.length ?? 0) + 1;
    const texts = placed.flatMap((p) => (p.verbatimText !== undefined ? [p.verbatimText] : p.items.map((it) => stringifyLike(it, t.style, depth))));
    const text = writeDocumentRecords(t, texts, depth);
    const kept = isObject(r.root) ? keptToolEntries(r.root.tools, keepTools) : null;
    return { text: kept ? replaceTopLevelTools(text, kept, t.style) : text, fileName: `${name}.compacted.json`, mimeType: 'application/json', dropped };
  }

  // Rollouts: rewrite this conversation's line; other conversations stay verbatim.
  const line = cloneJson(r.set.records[conversation].value) as AnyObj;
  const input: AnyObj[] = [];
  const output: AnyObj[] = [];
  let seenOutput = false;
  for (const p of placed) {
    if (p.list === 'output') seenOutput = true;
    const target = p.list === 'output' || (p.list === 'input' && seenOutput) ? output : input;
    target.push(...p.items);
  }
  const params = line.responses_create_params as AnyObj;
  if (Array.isArray(params?.input) || input.length > 0) setAt(line, ['responses_create_params', 'input'], input);
  if (isObject(line.response)) setAt(line, ['response', 'output'], output);
  // The schemas were read from the request's tools (or the response's echo of them): prune both.
  const keptParams = isObject(params) ? keptToolEntries(params.tools, keepTools) : null;
  if (keptParams) setAt(line, ['responses_create_params', 'tools'], keptParams);
  const keptEcho = isObject(line.response) ? keptToolEntries(line.response.tools, keepTools) : null;
  if (keptEcho) setAt(line, ['response', 'tools'], keptEcho);
  // Nothing changed in this conversation: the line stays byte for byte.
  const same = JSON.stringify(line) === JSON.stringify(r.set.records[conversation].value);
  const lines = r.set.records.map((rec, i) => (i === conversation && !same ? stringifyLike(line, lineStyle(rec.text, t.style)) : rec.text));
  return { text: writeJsonl(t.style, lines, t.frame[0]), fileName: `${name}.compacted.jsonl`, mimeType: 'application/x-ndjson', dropped };
}

/** Swap the document's top-level `tools` array for `kept`, every other byte as it was. */
function replaceTopLevelTools(text: string, kept: unknown[], style: JsonStyle): string {
  const bom = text.startsWith('\uFEFF') ? 1 : 0;
  const span = spanAt(text.slice(bom), ['tools']);
  if (!span) return text;
  const [from, to] = [span[0] + bom, span[1] + bom];
  return text.slice(0, from) + stringifyLike(kept, { ...style, container: 'json' }, 1) + text.slice(to);
}

function getItem(root: unknown, path: JsonPath): unknown {
  let v: unknown = root;
  for (const seg of path) v = isObject(v) || Array.isArray(v) ? (v as Record<string | number, unknown>)[seg as string] : undefined;
  return v;
}

// -------------------------------------------------------------------------------------------------
// fromMessages: an input item list the Responses API accepts

function fromMessages(input: ConvertInput): SerializeResult {
  const dropped: string[] = [];
  const keep = replaysSignedReasoning(input, 'openai');
  const items: AnyObj[] = [];
  const instructions: string[] = [];
  const called = new Set<string>();
  const answered = new Set<string>();
  for (const m of input.messages) for (const b of m.blocks) if (b.kind === 'tool_result') answered.add(b.callId);
  for (const m of input.messages) {
    if (m.role === 'system' && items.length === 0) {
      instructions.push(syntheticText(m));
      continue;
    }
    if (m.synthetic) {
      items.push(...summaryItems(m));
      continue;
    }
    // Reasoning first: a reasoning item must precede the function_call it led to.
    const ordered = [...m.blocks.filter((b) => b.kind === 'reasoning'), ...m.blocks.filter((b) => b.kind !== 'reasoning')];
    for (const b of ordered) {
      if (b.kind === 'tool_result' && !called.has(b.callId)) {
        dropped.push(`tool result ${b.callId} without a call before it: sent as text`);
        items.push({ type: 'message', role: 'user', content: [{ type: 'input_text', text: `[tool result ${b.name ?? ''}] ${b.content}` }] });
        continue;
      }
      if (b.kind === 'reasoning' && !(isUntouchedSigned(b) && keep)) {
        // Only untouched encrypted reasoning of OpenAI's own can be replayed (the API rejects items it cannot verify).
        dropped.push(`reasoning block ${b.id}: ${b.opaque && !keep ? 'encrypted by another provider' : 'no untouched encrypted payload'} — dropped`);
        continue;
      }
      const it = freshItem(b, m.role, dropped);
      if (!it) continue;
      items.push(it);
      if (b.kind === 'tool_call') {
        called.add(b.callId);
        if (!answered.has(b.callId)) {
          dropped.push(`tool call ${b.callId} had no result: answered with an error output`);
          items.push({ type: 'function_call_output', call_id: b.callId, output: '[no result recorded]' });
        }
      }
    }
  }
  const tools = input.tools.map((t) => ({ type: 'function', name: t.name, ...(t.description && { description: t.description }), parameters: isObject(t.parameters) ? t.parameters : { type: 'object', properties: {} } }));
  const doc: AnyObj = { model: input.model ?? 'gpt-5', ...(instructions.length && { instructions: instructions.join('\n\n') }), input: items, ...(tools.length && { tools }) };
  return { text: JSON.stringify(doc, null, 2) + '\n', fileName: `${input.baseName}.responses.json`, mimeType: 'application/json', dropped };
}

export const openaiResponses: FormatModule = {
  id: 'openai-responses',
  label: 'OpenAI Responses API',
  specUrl: 'https://platform.openai.com/docs/api-reference/responses',
  extensions: ['.json', '.jsonl'],
  detect,
  parse,
  serialize,
  listConversations,
  fromMessages,
};

export default openaiResponses;
