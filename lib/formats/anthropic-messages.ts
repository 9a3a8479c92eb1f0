/**
 * Anthropic Messages API — https://docs.anthropic.com/en/api/messages (FORMATS.md §2).
 * Three shapes: a request `{system, messages, tools}`, a response object (`type:"message"`), and a
 * recorded SSE stream (`*.chunks.txt`: one event JSON per line) reassembled from its deltas.
 */
import type { ProjectedBlock, ProjectedMessage, Projection } from '../model/projection';
import { ImportError } from '../errors';
import { TranscriptBuilder, type DraftBlock } from '../model/builder';
import type { Block, ImportWarning, Transcript } from '../model/types';
import { depthExceededAt, parseJsonText, readJsonDocument, stringifyLike, tooDeepInString } from '../read/json-doc';
import { looksLikeJsonl, readJsonl } from '../read/jsonl';
import { sourceFromText, type SourceFile } from '../read/source';
import {
  againstSource,
  assertProjectionPairing,
  isUntouchedSigned,
  replaysSignedReasoning,
  approxBase64Bytes,
  asText,
  baseName,
  cloneJson,
  isObject,
  num,
  rewriteParts,
  str,
  syntheticText,
  verbatim,
  writeDocumentRecords,
  type MessageSite,
} from './api-projection';
import type { ConvertInput, DetectInput, FormatModule, ParseOptions, ParseResult, SerializeResult } from './types';
import { imageFields, thumbnailOf } from './images';

type AnyObj = Record<string, unknown>;

const SSE_EVENTS = new Set(['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop', 'ping', 'error']);
// Block types only the Messages API has (Chat's images are `image_url` parts; an `image` or `document` block with a `source` is Anthropic's).
const ANTHROPIC_BLOCK_TYPES = new Set(['tool_use', 'tool_result', 'thinking', 'redacted_thinking', 'server_tool_use', 'compaction', 'image', 'document']);

type Shape = 'request' | 'response' | 'stream';

function shapeOf(v: unknown): Shape | null {
  if (!isObject(v)) return null;
  if (v.type === 'message' && v.role === 'assistant' && Array.isArray(v.content)) return 'response';
  if (Array.isArray(v.messages)) {
    const msgs = v.messages as unknown[];
    const anthropicBlocks = msgs.some((m) => isObject(m) && Array.isArray(m.content) && (m.content as unknown[]).some((b) => isObject(b) && ANTHROPIC_BLOCK_TYPES.has(String(b.type))));
    const chatOnly = msgs.some((m) => isObject(m) && (m.role === 'system' || m.role === 'tool' || m.role === 'developer' || 'tool_calls' in m));
    if (chatOnly) return null;
    if (anthropicBlocks || 'system' in v) return 'request';
  }
  return null;
}

function detect(input: DetectInput): number | null {
  if (input.container === 'jsonl') {
    const first = input.values[0];
    if (isObject(first) && typeof first.type === 'string' && SSE_EVENTS.has(first.type) && first.type !== 'error') {
      return input.values.every((v) => isObject(v) && SSE_EVENTS.has(String(v.type))) ? 0.95 : 0.6;
    }
    return null;
  }
  if (input.container !== 'json') return null;
  const shape = shapeOf(input.values[0]);
  if (shape === 'response') return 0.95;
  if (shape === 'request') return 0.9;
  return null;
}

// -------------------------------------------------------------------------------------------------
// Content blocks → canonical blocks

interface Converted {
  blocks: DraftBlock[];
  parts: number[];
  compactions: string[];
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((c) => {
        if (!isObject(c)) return asText(c);
        if (c.type === 'text') return str(c.text) ?? '';
        if (c.type === 'image') return '[image]';
        if (c.type === 'document') return `[document${typeof c.title === 'string' ? ' ' + c.title : ''}]`;
        if (c.type === 'web_search_result') return `${str(c.title) ?? ''} ${str(c.url) ?? ''}`.trim();
        if (c.type === 'search_result') return `${str(c.title) ?? ''}\n${resultText(c.content)}`;
        return asText(c);
      })
      .join('\n');
  }
  if (isObject(content)) {
    // Server tool results: {type:"bash_code_execution_result", stdout, stderr, …} and friends.
    const pieces = ['stdout', 'stderr', 'content', 'error_code'].map((k) => content[k]).filter((x) => typeof x === 'string' && x.length > 0) as string[];
    return pieces.length ? pieces.join('\n') : JSON.stringify(content);
  }
  return asText(content);
}

function serverResultIsError(c: unknown): boolean {
  if (!isObject(c)) return false;
  return (typeof c.type === 'string' && c.type.endsWith('_error')) || typeof c.error_code === 'string' || (typeof c.return_code === 'number' && c.return_code !== 0);
}

export function convertContent(content: unknown): Converted {
  const out: Converted = { blocks: [], parts: [], compactions: [] };
  if (typeof content === 'string') {
    out.blocks.push({ kind: 'text', text: content });
    out.parts.push(-1);
    return out;
  }
  if (!Array.isArray(content)) return out;
  content.forEach((b, j) => {
    const push = (d: DraftBlock) => {
      out.blocks.push(d);
      out.parts.push(j);
    };
    if (!isObject(b)) return push({ kind: 'opaque', type: 'unknown', text: asText(b) });
    const type = String(b.type);
    switch (type) {
      case 'text':
        return push({ kind: 'text', text: str(b.text) ?? '' });
      case 'thinking':
        return push({ kind: 'reasoning', text: str(b.thinking) ?? '', ...(typeof b.signature === 'string' && { opaque: b.signature }) });
      case 'redacted_thinking':
        return push({ kind: 'reasoning', text: '', opaque: str(b.data) ?? '', redacted: true });
      case 'tool_use':
      case 'server_tool_use':
      case 'mcp_tool_use':
        return push({ kind: 'tool_call', callId: str(b.id) ?? '', name: type === 'mcp_tool_use' && typeof b.server_name === 'string' ? `${b.server_name}/${str(b.name)}` : str(b.name) ?? '', input: b.input ?? {} });
      case 'tool_result':
        return push({ kind: 'tool_result', callId: str(b.tool_use_id) ?? '', content: resultText(b.content), isError: b.is_error === true });
      case 'image': {
        const src = isObject(b.source) ? b.source : {};
        const thumbnail = src.type === 'base64' ? thumbnailOf(src.media_type, src.data) : undefined;
        return push({ kind: 'attachment', mediaType: str(src.media_type) ?? 'image/*', ...(approxBase64Bytes(src.data) !== undefined && { bytes: approxBase64Bytes(src.data) }), ...imageFields(thumbnail) });
      }
      case 'document': {
        const src = isObject(b.source) ? b.source : {};
        const text = src.type === 'text' ? str(src.data) : src.type === 'content' ? resultText(src.content) : undefined;
        return push({
          kind: 'attachment',
          mediaType: str(src.media_type) ?? (text !== undefined ? 'text/plain' : 'application/pdf'),
          ...(typeof b.title === 'string' && { name: b.title }),
          ...(approxBase64Bytes(src.data) !== undefined && src.type === 'base64' && { bytes: approxBase64Bytes(src.data) }),
          ...(text !== undefined && { text }),
        });
      }
      case 'compaction': {
        const text = str(b.content) ?? '';
        out.compactions.push(text);
        return push({ kind: 'summary', text });
      }
      default:
        if (type.endsWith('_tool_result')) {
          // Server tools (web_search, code_execution, mcp…): paired with server_tool_use inside the same message.
          return push({ kind: 'tool_result', callId: str(b.tool_use_id) ?? '', content: resultText(b.content), isError: b.is_error === true || serverResultIsError(b.content) });
        }
        return push({ kind: 'opaque', type, text: JSON.stringify(b) });
    }
  });
  return out;
}

// -------------------------------------------------------------------------------------------------
// SSE stream reassembly

interface StreamAssembly {
  message: AnyObj;
  warnings: ImportWarning[];
}

export function assembleStream(values: readonly unknown[], lines: readonly number[], fileName: string): StreamAssembly {
  const warnings: ImportWarning[] = [];
  let message: AnyObj | null = null;
  const content: AnyObj[] = [];
  const partialJson = new Map<number, string>();
  values.forEach((v, i) => {
    if (!isObject(v)) return;
    const line = lines[i];
    switch (v.type) {
      case 'message_start':
        if (!isObject(v.message)) throw new ImportError('malformed:anthropic-stream', 'message_start has no message object.', { file: fileName, line, path: '$.message' }, 'a message object');
        message = cloneJson(v.message) as AnyObj;
        return;
      case 'content_block_start': {
        const idx = num(v.index);
        if (!isObject(v.content_block)) throw new ImportError('malformed:anthropic-stream', 'content_block_start has no content_block.', { file: fileName, line, path: '$.content_block' }, 'a content block');
        content[idx] = cloneJson(v.content_block) as AnyObj;
        return;
      }
      case 'content_block_delta': {
        const idx = num(v.index);
        const block = content[idx];
        const d = isObject(v.delta) ? v.delta : {};
        if (!block) {
          warnings.push({ code: 'stream:orphan-delta', message: `A delta for block ${idx} arrived before its content_block_start.`, line });
          return;
        }
        switch (d.type) {
          case 'text_delta':
            block.text = (str(block.text) ?? '') + (str(d.text) ?? '');
            return;
          case 'thinking_delta':
            block.thinking = (str(block.thinking) ?? '') + (str(d.thinking) ?? '');
            return;
          case 'signature_delta':
            block.signature = (str(block.signature) ?? '') + (str(d.signature) ?? '');
            return;
          case 'input_json_delta':
            partialJson.set(idx, (partialJson.get(idx) ?? '') + (str(d.partial_json) ?? ''));
            return;
          case 'compaction_delta':
            block.content = (str(block.content) ?? '') + (str(d.content) ?? '');
            return;
          case 'citations_delta':
            block.citations = [...(Array.isArray(block.citations) ? block.citations : []), d.citation];
            return;
          default:
            warnings.push({ code: 'stream:unknown-delta', message: `Unknown delta type ${String(d.type)} kept out of the reassembled message.`, line });
        }
        return;
      }
      case 'content_block_stop': {
        const idx = num(v.index);
        const json = partialJson.get(idx);
        if (json !== undefined && content[idx]) {
          if (depthExceededAt(json) >= 0) throw tooDeepInString({ file: fileName, line, path: `content_block ${idx}: input_json_delta` });
          try {
            content[idx].input = json === '' ? {} : JSON.parse(json);
          } catch {
            content[idx].input = json;
            warnings.push({ code: 'stream:bad-input-json', message: `The streamed tool input of block ${idx} is not valid JSON; kept as text.`, line });
          }
        }
        return;
      }
      case 'message_delta': {
        if (!message) return;
        const d = isObject(v.delta) ? v.delta : {};
        for (const [k, x] of Object.entries(d)) message[k] = x;
        if (isObject(v.usage)) message.usage = { ...(isObject(message.usage) ? message.usage : {}), ...v.usage };
        if (isObject(v.context_management)) message.context_management = v.context_management;
        return;
      }
      case 'error':
        warnings.push({ code: 'stream:error', message: `The stream reported an error: ${asText(isObject(v.error) ? v.error.message : v.error)}`, line });
        return;
    }
  });
  if (!message) throw new ImportError('malformed:anthropic-stream', 'The stream has no message_start event.', { file: fileName }, 'a message_start event first');
  const m = message as AnyObj;
  m.content = content.filter((b) => b !== undefined);
  return { message: m, warnings };
}

// -------------------------------------------------------------------------------------------------
// Parse

interface Layout {
  shape: Shape;
  sites: Array<MessageSite | null>;
  /** Response / stream: the (reassembled) message object. */
  message?: AnyObj;
}

function addUsage(b: TranscriptBuilder, usage: unknown, messageIndex: number, model: string | undefined): void {
  if (!isObject(usage)) return;
  const one = (u: AnyObj) =>
    b.addUsage({
      messageIndex,
      ...(model !== undefined && { model }),
      // input_tokens excludes cache: prompt = input + cache_creation + cache_read (FORMATS.md §2).
      input: num(u.input_tokens),
      cacheRead: num(u.cache_read_input_tokens),
      cacheWrite: num(u.cache_creation_input_tokens),
      output: num(u.output_tokens),
      ...(isObject(u.output_tokens_details) && typeof u.output_tokens_details.thinking_tokens === 'number' && { reasoning: u.output_tokens_details.thinking_tokens }),
    });
  // With server-side compaction the response made several model calls: one record per iteration.
  if (Array.isArray(usage.iterations) && usage.iterations.length > 0) {
    for (const it of usage.iterations) if (isObject(it)) one(it);
  } else one(usage);
}

function noteContextEdits(b: TranscriptBuilder, cm: unknown, atMessage: number, recordRef: number): void {
  if (!isObject(cm) || !Array.isArray(cm.applied_edits) || cm.applied_edits.length === 0) return;
  const edits = cm.applied_edits.filter(isObject);
  const text = edits.map((e) => `${String(e.type)}${typeof e.cleared_tool_uses === 'number' ? ` cleared ${e.cleared_tool_uses} tool uses` : ''}${typeof e.cleared_input_tokens === 'number' ? ` (${e.cleared_input_tokens} tokens)` : ''}`).join('; ');
  b.addMarker({ source: 'anthropic-compaction', atMessage, trigger: 'context_management', summary: `Context edits applied by the API: ${text}`, recordRef });
  b.warn({ code: 'context-management', message: `The API edited the context before this response (${text}); the cleared content is not in the file.` });
}

function parseInternal(file: SourceFile): { result: ParseResult; layout: Layout } {
  const b = new TranscriptBuilder();
  const sites: Array<MessageSite | null> = [];
  let shape: Shape;
  let set;
  let model: string | undefined;
  let title = '';
  let message: AnyObj | undefined;
  let docRoot: unknown;
  let jsonl = looksLikeJsonl(file.text()) ? readJsonl(file) : null;
  // A minified document on one line looks like one-line JSONL: only SSE events make a stream.
  if (jsonl && !(isObject(jsonl.records[0]?.value) && SSE_EVENTS.has(String((jsonl.records[0].value as AnyObj).type)))) jsonl = null;
  if (jsonl) {
    shape = 'stream';
    set = jsonl;
    const assembled = assembleStream(
      set.records.map((r) => r.value),
      set.records.map((r) => r.line),
      file.name,
    );
    for (const w of assembled.warnings) b.warn(w);
    message = assembled.message;
  } else {
    const root = parseJsonText(file.text(), file.name);
    docRoot = root;
    // Parsing is lenient where detection is strict: a forced import of `{messages:[…]}` is a request.
    const s = shapeOf(root) ?? (isObject(root) && Array.isArray(root.messages) ? 'request' : null);
    if (!s) throw new ImportError('malformed:anthropic', 'The document is neither an Anthropic request nor a response.', { file: file.name, path: '$' }, 'an object with "messages" or a response with type "message"');
    shape = s;
    set = readJsonDocument(file.text(), file.name, s === 'request' ? ['messages'] : null, root, file.bom);
    if (s === 'response') message = root as AnyObj;
  }

  if (message) {
    model = str(message.model);
    const conv = convertContent(message.content);
    const idx = b.addMessage({ role: 'assistant', blocks: conv.blocks, recordRefs: set.records.map((_, i) => i), ...(model !== undefined && { model }) });
    sites.push(shape === 'response' ? { record: 0, path: [], parts: conv.parts } : null);
    // A response's compaction covers the earlier conversation, which is not in this file.
    for (const c of conv.compactions) b.addMarker({ source: 'anthropic-compaction', atMessage: idx, summary: c, recordRef: 0 });
    addUsage(b, message.usage, idx, model);
    noteContextEdits(b, message.context_management, idx, 0);
    title = `${str(message.id) ?? 'Anthropic response'}${model ? ` (${model})` : ''}`;
  } else {
    const root = docRoot as AnyObj;
    model = str(root.model);
    if (root.system !== undefined) {
      const conv = convertContent(root.system);
      if (conv.blocks.length) {
        b.addMessage({ role: 'system', blocks: conv.blocks, recordRefs: [] });
        sites.push(null);
      }
    }
    if (Array.isArray(root.tools)) {
      for (const t of root.tools) if (isObject(t) && typeof t.name === 'string') b.addTool({ name: t.name, ...(typeof t.description === 'string' && { description: t.description }), parameters: t.input_schema ?? (typeof t.type === 'string' ? { type: t.type } : undefined) });
    }
    set.records.forEach((r, i) => {
      const m = r.value;
      if (!isObject(m) || (m.role !== 'user' && m.role !== 'assistant' && m.role !== 'system')) {
        b.warn({ code: 'skipped:message', message: `messages[${i}] has no user/assistant role and was skipped (kept for export).`, line: r.line, path: `$.messages[${i}]` });
        return;
      }
      const conv = convertContent(m.content);
      // A user message that answers the previous turn's calls and then says something new is two
      // messages here: the results (closing the last turn) and the new prompt (opening the next), so
      // a turn boundary never falls between a call and its result. Export joins them again.
      const lead = m.role === 'user' ? conv.blocks.findIndex((x) => x.kind !== 'tool_result') : -1;
      if (lead > 0 && !conv.blocks.slice(lead).some((x) => x.kind === 'tool_result')) {
        b.addMessage({ role: 'user', blocks: conv.blocks.slice(0, lead), recordRefs: [i] });
        sites.push({ record: i, path: [], parts: conv.parts.slice(0, lead) });
        const rest = { blocks: conv.blocks.slice(lead), parts: conv.parts.slice(lead) };
        b.addMessage({ role: 'user', blocks: rest.blocks, recordRefs: [i] });
        sites.push({ record: i, path: [], parts: rest.parts });
        if (!title) {
          const t = rest.blocks.find((x) => x.kind === 'text');
          if (t && t.kind === 'text') title = t.text.replace(/\s+/g, ' ').trim().slice(0, 80);
        }
        return;
      }
      const idx = b.addMessage({ role: m.role, blocks: conv.blocks, recordRefs: [i] });
      sites.push({ record: i, path: [], parts: conv.parts });
      for (const c of conv.compactions) b.addMarker({ source: 'anthropic-compaction', atMessage: idx, ...(idx > 0 && { covers: [0, idx] as [number, number] }), summary: c, recordRef: i });
      if (!title && m.role === 'user') {
        const t = conv.blocks.find((x) => x.kind === 'text');
        if (t && t.kind === 'text') title = t.text.replace(/\s+/g, ' ').trim().slice(0, 80);
      }
    });
    if (!title) title = 'Anthropic request';
  }
  const transcript = b.build({
    format: 'anthropic-messages',
    fileName: file.name,
    title,
    ...(model !== undefined && { model }),
    records: set.records,
    frame: set.frame,
    style: set.style,
    warnings: set.warnings,
    extra: { shape },
  });
  return { result: { transcript, warnings: [] }, layout: { shape, sites, message } };
}

function parse(file: SourceFile, _options?: ParseOptions): ParseResult {
  return parseInternal(file).result;
}

// -------------------------------------------------------------------------------------------------
// Blocks → Anthropic content (export)

function toolInputObject(input: unknown, rawInput?: string): Record<string, unknown> {
  if (isObject(input)) return input;
  const raw = typeof input === 'string' ? input : rawInput;
  if (raw !== undefined) {
    try {
      const v = JSON.parse(raw);
      if (isObject(v)) return v;
      return { input: v };
    } catch {
      return { input: raw };
    }
  }
  return input === undefined || input === null ? {} : { input };
}

/** Anthropic tool ids must match ^[a-zA-Z0-9_-]+$; other formats' ids are mapped consistently. */
function safeToolId(id: string): string {
  const s = id.replace(/[^a-zA-Z0-9_-]/g, '_');
  return s.length > 0 ? s : 'tool_call';
}

/**
 * A fresh Anthropic content block for a canonical block (no source part to patch). Reasoning is
 * kept only with its untouched signature (a log block: frozen, no sourceBlockId); otherwise dropped.
 */
function freshPart(b: ProjectedBlock, dropped: string[], keepSignatures = true): AnyObj | null {
  switch (b.kind) {
    case 'text':
      return b.text.length ? { type: 'text', text: b.text } : null;
    case 'summary':
      return { type: 'text', text: b.text };
    case 'reasoning':
      if (isUntouchedSigned(b) && keepSignatures) return b.redacted ? { type: 'redacted_thinking', data: b.opaque } : { type: 'thinking', thinking: b.text, signature: b.opaque };
      dropped.push(`reasoning block ${b.id}: ${!b.opaque ? 'has no signature' : !keepSignatures ? 'signed by another provider' : 'edited, so its signature is invalid'} — dropped`);
      return null;
    case 'tool_call':
      return { type: 'tool_use', id: safeToolId(b.callId), name: b.name, input: toolInputObject(b.input, b.rawInput) };
    case 'tool_result':
      return { type: 'tool_result', tool_use_id: safeToolId(b.callId), content: b.content, ...(b.isError && { is_error: true }) };
    case 'attachment':
      dropped.push(`attachment ${b.mediaType}${b.name ? ' ' + b.name : ''}: payload not carried, replaced by a placeholder`);
      return { type: 'text', text: b.text ?? `[attachment: ${b.mediaType}${b.name ? ' ' + b.name : ''}]` };
    case 'opaque':
      return { type: 'text', text: b.text };
  }
}

/** Patch a source content part with a changed block of the same kind. */
function patchPart(part: AnyObj, b: ProjectedBlock, src: Block, dropped: string[]): AnyObj | null {
  if (b.kind !== src.kind) return freshPart(b, dropped);
  switch (b.kind) {
    case 'text':
      return { ...part, text: b.text };
    case 'summary':
      return part.type === 'compaction' ? { ...part, content: b.text } : { ...part, text: b.text };
    case 'tool_call':
      return { ...part, input: toolInputObject(b.input, b.rawInput) };
    case 'tool_result': {
      if (part.type === 'tool_result') return { ...part, content: b.content, ...(b.isError ? { is_error: true } : {}) };
      // Server tool results have a structured body the API validates: code execution bodies carry
      // their output in stdout / content strings, which can hold the stub; search results cannot.
      const body = part.content;
      if (isObject(body) && typeof body.stdout === 'string') return { ...part, content: { ...body, stdout: b.content, stderr: '' } };
      if (isObject(body) && typeof body.content === 'string') return { ...part, content: { ...body, content: b.content } };
      dropped.push(`server tool result ${b.callId}: kept whole (a server result cannot be stubbed)`);
      return part;
    }
    case 'reasoning':
      dropped.push(`reasoning block ${b.id}: edited, so its signature is invalid — dropped`);
      return null;
    default:
      return freshPart(b, dropped);
  }
}

function rewriteMessageValue(orig: AnyObj, site: MessageSite, pas: ReturnType<typeof againstSource>, dropped: string[]): AnyObj | null {
  const content = orig.content;
  const parts: AnyObj[] = typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? (content as AnyObj[]) : [];
  // A string content is one pseudo-part at index 0.
  const s: MessageSite = typeof content === 'string' ? { ...site, parts: site.parts.map(() => 0) } : site;
  const next = rewriteParts(parts, s, pas, (p, b, src) => patchPart(p, b, src, dropped), (b) => freshPart(b, dropped));
  if (next.length === 0) return null;
  if (typeof content === 'string' && next.length === 1 && next[0].type === 'text') return { ...orig, content: next[0].text };
  return { ...orig, content: next };
}

// -------------------------------------------------------------------------------------------------
// Serialize

function serialize(t: Transcript, projection?: Projection): SerializeResult {
  const name = baseName(t.fileName);
  if (!projection) return { text: verbatim(t), fileName: t.fileName, mimeType: t.fileName.endsWith('.txt') ? 'text/plain' : 'application/json', dropped: [] };
  assertProjectionPairing(t, projection.messages);
  const shape = (t.extra?.shape as Shape | undefined) ?? 'request';
  const { layout } = parseInternal(sourceOfTranscript(t));
  const dropped: string[] = [];

  if (shape === 'request') {
    // Rewrite the messages array in place; `system`, `tools` and every other field stay in the frame.
    const depth = t.style.indent === 0 ? 0 : 2;
    // Projected messages read from the same record (a split results + prompt message) write one record.
    const groups: Array<{ record: number; parts: Array<ReturnType<typeof againstSource>> } | { synthetic: ProjectedMessage }> = [];
    for (const pm of projection.messages) {
      if (pm.role === 'system' && pm.sourceId !== undefined) continue; // top-level system: in the frame
      const pas = againstSource(t, pm);
      const site = pas.source ? layout.sites[pas.source.index] : null;
      if (!pas.source || !site) {
        groups.push({ synthetic: pm });
        continue;
      }
      const last = groups[groups.length - 1];
      if (last && 'record' in last && last.record === site.record) last.parts.push(pas);
      else groups.push({ record: site.record, parts: [pas] });
    }
    const texts: string[] = [];
    // Messages per record, counted once (a filter over every site per group was quadratic).
    const messagesPerRecord = new Map<number, number>();
    for (const x of layout.sites) if (x) messagesPerRecord.set(x.record, (messagesPerRecord.get(x.record) ?? 0) + 1);
    for (const g of groups) {
      if ('synthetic' in g) {
        const value = synthesizedMessage(g.synthetic, dropped);
        if (value) texts.push(stringifyLike(value, t.style, depth));
        continue;
      }
      const messagesOfRecord = messagesPerRecord.get(g.record) ?? 0;
      if (g.parts.length === messagesOfRecord && g.parts.every((p) => p.unchanged)) {
        texts.push(t.records[g.record].text);
        continue;
      }
      const orig = t.records[g.record].value as AnyObj;
      const content = g.parts.flatMap((p) => {
        const v = rewriteMessageValue(orig, layout.sites[p.source!.index]!, p, dropped);
        return v === null ? [] : typeof v.content === 'string' ? [{ type: 'text', text: v.content }] : (v.content as AnyObj[]);
      });
      if (content.length === 0) continue;
      const single = typeof orig.content === 'string' && content.length === 1 && content[0].type === 'text';
      texts.push(stringifyLike({ ...orig, content: single ? content[0].text : content }, t.style, depth));
    }
    return { text: writeDocumentRecords(t, texts, depth), fileName: `${name}.compacted.json`, mimeType: 'application/json', dropped };
  }

  // A response or a stream holds one assistant message: the compacted export is a request that
  // replays the projected conversation (the response's own content kept verbatim when untouched).
  const messages: AnyObj[] = [];
  for (const pm of projection.messages) {
    const pas = againstSource(t, pm);
    if (pas.source && layout.message && pas.source.index === 0) {
      const orig = { role: 'assistant', content: layout.message.content } as AnyObj;
      const site: MessageSite = layout.sites[0] ?? { record: 0, path: [], parts: parseContentParts(layout.message.content) };
      const v = pas.unchanged ? orig : rewriteMessageValue(orig, site, pas, dropped);
      if (v) messages.push(v);
      continue;
    }
    const value = synthesizedMessage(pm, dropped);
    if (value) messages.push(value);
  }
  const doc = { ...(t.model !== undefined && { model: t.model }), max_tokens: 8192, messages: mergeSameRole(messages) };
  return { text: JSON.stringify(doc, null, 2) + '\n', fileName: `${name}.compacted.request.json`, mimeType: 'application/json', dropped };
}

function parseContentParts(content: unknown): number[] {
  return convertContent(content).parts;
}

function synthesizedMessage(pm: ProjectedMessage, dropped: string[]): AnyObj | null {
  if (pm.synthetic) return { role: 'user', content: [{ type: 'text', text: syntheticText(pm) }] };
  const content = pm.blocks.map((b) => freshPart(b, dropped)).filter((p): p is AnyObj => p !== null);
  if (!content.length) return null;
  return { role: pm.role === 'assistant' ? 'assistant' : 'user', content };
}

/** The API merges consecutive same-role messages; do it explicitly, tool_result blocks first. */
function mergeSameRole(messages: AnyObj[]): AnyObj[] {
  const out: AnyObj[] = [];
  for (const m of messages) {
    const prev = out[out.length - 1];
    if (prev && prev.role === m.role) {
      const a = Array.isArray(prev.content) ? prev.content : [{ type: 'text', text: prev.content }];
      const b = Array.isArray(m.content) ? m.content : [{ type: 'text', text: m.content }];
      prev.content = [...a, ...b];
    } else out.push({ ...m });
  }
  for (const m of out) {
    if (m.role === 'user' && Array.isArray(m.content)) {
      const c = m.content as AnyObj[];
      m.content = [...c.filter((p) => p.type === 'tool_result'), ...c.filter((p) => p.type !== 'tool_result')];
    }
  }
  return out;
}

/** Re-create the source file from a transcript's records (serialize needs the layout parse gives). */
function sourceOfTranscript(t: Transcript): SourceFile {
  return sourceFromText(t.fileName, verbatim(t));
}

// -------------------------------------------------------------------------------------------------
// fromMessages: a request the Messages API accepts

function fromMessages(input: ConvertInput): SerializeResult {
  const dropped: string[] = [];
  const keep = replaysSignedReasoning(input, 'anthropic');
  const system: string[] = [];
  const raw: AnyObj[] = [];
  // Calls answered somewhere later: unanswered ones get an explicit error result so the request is valid.
  const answered = new Set<string>();
  const called = new Set<string>();
  for (const m of input.messages) for (const b of m.blocks) if (b.kind === 'tool_result') answered.add(b.callId);
  for (const m of input.messages) {
    if (m.role === 'system') {
      system.push(m.blocks.map((b) => (b.kind === 'text' || b.kind === 'summary' ? b.text : '')).filter(Boolean).join('\n\n'));
      continue;
    }
    const role = m.role === 'assistant' ? 'assistant' : 'user';
    const content: AnyObj[] = [];
    const missing: AnyObj[] = [];
    for (const b of m.blocks) {
      if (b.kind === 'tool_result' && !called.has(b.callId)) {
        dropped.push(`tool result ${b.callId} without a call before it: sent as text`);
        content.push({ type: 'text', text: `[tool result ${b.name ?? ''}] ${b.content}` });
        continue;
      }
      if (b.kind === 'tool_call') {
        if (role !== 'assistant') {
          dropped.push(`tool call ${b.callId} in a ${m.role} message: sent as text`);
          content.push({ type: 'text', text: `[tool call ${b.name}] ${JSON.stringify(b.input)}` });
          continue;
        }
        called.add(b.callId);
        if (!answered.has(b.callId)) {
          dropped.push(`tool call ${b.callId} had no result: answered with an error result`);
          missing.push({ type: 'tool_result', tool_use_id: safeToolId(b.callId), content: '[no result recorded]', is_error: true });
        }
      }
      if (b.kind === 'tool_result' && role === 'assistant') {
        // Results live in user messages; a result inside an assistant turn (Gemini model-turn responses) moves out.
        raw.push({ role: 'assistant', content: [...content] });
        content.length = 0;
        raw.push({ role: 'user', content: [freshPart(b, dropped, keep)!] });
        continue;
      }
      const p = freshPart(b, dropped, keep);
      if (p) content.push(p);
    }
    if (m.synthetic && content.length === 0) content.push({ type: 'text', text: syntheticText(m) });
    if (content.length) raw.push({ role, content });
    if (missing.length) raw.push({ role: 'user', content: missing });
  }
  let messages = mergeSameRole(raw.filter((m) => Array.isArray(m.content) && (m.content as unknown[]).length > 0));
  if (messages.length && messages[0].role !== 'user') {
    messages = [{ role: 'user', content: [{ type: 'text', text: '(conversation continues)' }] }, ...messages];
    dropped.push('the conversation started with an assistant turn: a placeholder user message was added');
  }
  const tools = input.tools.map((t) => ({ name: t.name, ...(t.description && { description: t.description }), input_schema: isObject(t.parameters) && t.parameters.type === 'object' ? t.parameters : { type: 'object', properties: {} } }));
  const doc: AnyObj = {
    model: input.model ?? 'claude-sonnet-4-5',
    max_tokens: 8192,
    ...(system.length && { system: system.join('\n\n') }),
    messages,
    ...(tools.length && { tools }),
  };
  return { text: JSON.stringify(doc, null, 2) + '\n', fileName: `${input.baseName}.anthropic.json`, mimeType: 'application/json', dropped };
}

export const anthropicMessages: FormatModule = {
  id: 'anthropic-messages',
  label: 'Anthropic Messages API',
  specUrl: 'https://docs.anthropic.com/en/api/messages',
  extensions: ['.json', '.txt', '.jsonl'],
  detect,
  parse,
  serialize,
  fromMessages,
};

export default anthropicMessages;
