/**
 * Gemini API generateContent — https://ai.google.dev/api/generate-content (FORMATS.md §6a).
 * Shapes: a request (`contents`, camelCase or snake_case), a checkpoint (`{history:[…]}` or a bare
 * Content array), a response (`candidates`), and gemini-cli `.responses` replay JSONL
 * (`{method, response: chunk | chunk[]}` per model call).
 */
import type { ProjectedBlock, ProjectedMessage, Projection } from '../model/projection';
import { ImportError } from '../errors';
import { TranscriptBuilder, type DraftBlock, type DraftMessage } from '../model/builder';
import type { Block, Transcript, UsageRecord } from '../model/types';
import { parseJsonText, readJsonDocument, stringifyLike, type JsonPath } from '../read/json-doc';
import { looksLikeJsonl, readJsonl, type RecordSet } from '../read/jsonl';
import { sourceFromText, type SourceFile } from '../read/source';
import { againstSource, assertProjectionPairing, isUntouchedSigned, replaysSignedReasoning, approxBase64Bytes, asText, baseName, isObject, num, rewriteParts, str, syntheticText, verbatim, writeDocumentRecords, type MessageSite, type ProjectedAgainstSource } from './api-projection';
import type { ConvertInput, DetectInput, FormatModule, ParseOptions, ParseResult, SerializeResult } from './types';
import { imageFields, thumbnailOf } from './images';

type AnyObj = Record<string, unknown>;
type Shape = 'request' | 'contents' | 'history' | 'response' | 'replay';

/** camelCase or snake_case field of a part (`functionCall` / `function_call`). */
function field(o: AnyObj, camel: string): unknown {
  if (camel in o) return o[camel];
  const snake = camel.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase());
  return o[snake];
}

function isContent(v: unknown): boolean {
  return isObject(v) && (v.role === 'user' || v.role === 'model' || v.role === 'function') && Array.isArray(v.parts);
}

function shapeOf(v: unknown): Shape | null {
  if (Array.isArray(v)) return v.length > 0 && v.every(isContent) ? 'contents' : null;
  if (!isObject(v)) return null;
  if (Array.isArray(v.contents)) return 'request';
  if (Array.isArray(v.candidates)) return 'response';
  if (Array.isArray(v.history) && v.history.every(isContent) && !('messages' in v)) return 'history';
  return null;
}

function isReplayLine(v: unknown): boolean {
  if (!isObject(v) || typeof v.method !== 'string') return false;
  const r = v.response;
  return Array.isArray(r) ? r.every((c) => isObject(c) && ('candidates' in c || 'usageMetadata' in c)) : isObject(r) && ('candidates' in r || 'usageMetadata' in r);
}

function detect(input: DetectInput): number | null {
  if (input.container === 'jsonl') return input.values.length > 0 && input.values.every(isReplayLine) ? 0.95 : null;
  if (input.container !== 'json') return null;
  const s = shapeOf(input.values[0]);
  if (s === 'request' || s === 'response') return 0.95;
  if (s === 'history' || s === 'contents') return 0.85;
  return null;
}

// -------------------------------------------------------------------------------------------------
// Parts → blocks

const SNAPSHOT = /<state_snapshot>[\s\S]*?(<\/state_snapshot>|$)/;

/** Pairs functionResponses with functionCalls: by id when present, else by name and order. */
class CallPairer {
  private byName = new Map<string, string[]>();
  private counter = 0;
  call(id: string | undefined, name: string): string {
    const callId = id ?? `${name}#${this.counter++}`;
    const q = this.byName.get(name) ?? [];
    q.push(callId);
    this.byName.set(name, q);
    return callId;
  }
  response(id: string | undefined, name: string): string {
    const q = this.byName.get(name) ?? [];
    if (id !== undefined) {
      const i = q.indexOf(id);
      if (i >= 0) q.splice(i, 1);
      return id;
    }
    return q.shift() ?? `${name}#unmatched`;
  }
}

export interface ConvertedParts {
  blocks: DraftBlock[];
  parts: number[];
  snapshots: string[];
}

export function convertParts(parts: readonly unknown[], pairer: CallPairer): ConvertedParts {
  const out: ConvertedParts = { blocks: [], parts: [], snapshots: [] };
  parts.forEach((p, j) => {
    const push = (b: DraftBlock) => {
      out.blocks.push(b);
      out.parts.push(j);
    };
    if (!isObject(p)) return push({ kind: 'opaque', type: 'unknown', text: asText(p) });
    const sig = str(field(p, 'thoughtSignature'));
    const fc = field(p, 'functionCall');
    const fr = field(p, 'functionResponse');
    const inline = field(p, 'inlineData');
    const fileData = field(p, 'fileData');
    if (p.thought === true) return push({ kind: 'reasoning', text: str(p.text) ?? '', ...(sig !== undefined && { opaque: sig }) });
    // A signature on a non-thought part belongs to the thinking that preceded it: kept as its own reasoning block.
    if (sig !== undefined) push({ kind: 'reasoning', text: '', opaque: sig });
    if (typeof p.text === 'string') {
      const m = SNAPSHOT.exec(p.text);
      if (m) {
        out.snapshots.push(m[0]);
        return push({ kind: 'summary', text: p.text });
      }
      return push({ kind: 'text', text: p.text });
    }
    if (isObject(fc)) {
      const name = str(fc.name) ?? '';
      return push({ kind: 'tool_call', callId: pairer.call(str(fc.id), name), name, input: fc.args ?? {} });
    }
    if (isObject(fr)) {
      const name = str(fr.name) ?? '';
      const response = isObject(fr.response) ? fr.response : {};
      const isError = 'error' in response && !('output' in response);
      const content = typeof response.output === 'string' ? response.output : typeof response.error === 'string' ? response.error : asText(fr.response);
      return push({ kind: 'tool_result', callId: pairer.response(str(fr.id), name), name, content, isError });
    }
    if (isObject(inline)) {
      const thumbnail = thumbnailOf(field(inline, 'mimeType'), inline.data);
      return push({ kind: 'attachment', mediaType: str(field(inline, 'mimeType')) ?? 'application/octet-stream', ...(approxBase64Bytes(inline.data) !== undefined && { bytes: approxBase64Bytes(inline.data) }), ...imageFields(thumbnail) });
    }
    if (isObject(fileData)) return push({ kind: 'attachment', mediaType: str(field(fileData, 'mimeType')) ?? 'application/octet-stream', ...(typeof field(fileData, 'fileUri') === 'string' && { name: String(field(fileData, 'fileUri')) }) });
    if (sig !== undefined) return;
    const type = Object.keys(p)[0] ?? 'part';
    return push({ kind: 'opaque', type, text: JSON.stringify(p) });
  });
  return out;
}

function usageOf(meta: unknown, messageIndex: number, model: string | undefined): UsageRecord | null {
  if (!isObject(meta)) return null;
  const prompt = num(meta.promptTokenCount) + num(meta.toolUsePromptTokenCount);
  const cached = num(meta.cachedContentTokenCount);
  const thoughts = num(meta.thoughtsTokenCount);
  return {
    messageIndex,
    ...(model !== undefined && { model }),
    // promptTokenCount includes the cached tokens; candidatesTokenCount excludes the thoughts.
    input: Math.max(0, prompt - cached),
    cacheRead: cached,
    cacheWrite: 0,
    output: num(meta.candidatesTokenCount) + thoughts,
    reasoning: thoughts,
  };
}

// -------------------------------------------------------------------------------------------------
// Parse

interface Layout {
  shape: Shape;
  set: RecordSet;
  root?: unknown;
  recordsPath: JsonPath | null;
  drafts: Array<{ draft: DraftMessage; site: MessageSite | null; snapshots: string[]; usage?: UsageRecord | null; content?: AnyObj }>;
  tools: unknown[];
  model?: string;
  snake: boolean;
}

/** Stream chunks → one Content: adjacent text fragments of the same kind are joined. */
function assembleChunks(chunks: readonly unknown[]): { content: AnyObj; usage?: unknown; model?: string } {
  const parts: AnyObj[] = [];
  let usage: unknown;
  let model: string | undefined;
  for (const ch of chunks) {
    if (!isObject(ch)) continue;
    if (isObject(ch.usageMetadata)) usage = ch.usageMetadata;
    if (typeof ch.modelVersion === 'string') model = ch.modelVersion;
    const cand = Array.isArray(ch.candidates) ? ch.candidates[0] : undefined;
    const cparts = isObject(cand) && isObject(cand.content) && Array.isArray(cand.content.parts) ? cand.content.parts : [];
    for (const p of cparts) {
      if (!isObject(p)) continue;
      const prev = parts[parts.length - 1];
      const isText = typeof p.text === 'string' && !('functionCall' in p);
      if (isText && prev && typeof prev.text === 'string' && !('functionCall' in prev) && !!prev.thought === !!p.thought && !('thoughtSignature' in p && 'thoughtSignature' in prev)) {
        prev.text = (prev.text as string) + p.text;
        if ('thoughtSignature' in p) prev.thoughtSignature = p.thoughtSignature;
      } else if (isText && p.text === '' && !('thoughtSignature' in p)) {
        continue; // empty closing chunk
      } else parts.push({ ...p });
    }
  }
  return { content: { role: 'model', parts }, usage, model };
}

function layoutOf(file: SourceFile): Layout {
  const pairer = new CallPairer();
  const drafts: Layout['drafts'] = [];
  let tools: unknown[] = [];
  let model: string | undefined;
  let snake = false;
  const addContent = (content: AnyObj, site: MessageSite | null, recordRefs: number[], extra: Partial<Layout['drafts'][number]> = {}) => {
    const parts = Array.isArray(content.parts) ? content.parts : [];
    const c = convertParts(parts, pairer);
    const role = content.role === 'model' ? 'assistant' : 'user';
    // A user turn that answers the last calls and then asks something new is two messages here, so
    // no turn boundary falls between a call and its result; the export joins them again.
    const lead = role === 'user' && site ? c.blocks.findIndex((x) => x.kind !== 'tool_result') : -1;
    if (site && lead > 0 && !c.blocks.slice(lead).some((x) => x.kind === 'tool_result')) {
      drafts.push({ draft: { role, blocks: c.blocks.slice(0, lead), recordRefs }, site: { ...site, parts: c.parts.slice(0, lead) }, snapshots: [] });
      drafts.push({ draft: { role, blocks: c.blocks.slice(lead), recordRefs }, site: { ...site, parts: c.parts.slice(lead) }, snapshots: c.snapshots, ...extra });
      return;
    }
    drafts.push({ draft: { role, blocks: c.blocks, recordRefs, ...(role === 'assistant' && model !== undefined && { model }) }, site: site ? { ...site, parts: c.parts } : null, snapshots: c.snapshots, ...extra });
  };

  if (looksLikeJsonl(file.text())) {
    const set = readJsonl(file);
    if (set.records.length > 1 || (set.records[0] && isReplayLine(set.records[0].value))) {
      set.records.forEach((rec, r) => {
        if (!isReplayLine(rec.value)) throw new ImportError('malformed:gemini-replay', `Line ${rec.line} is not a {method, response} replay line.`, { file: file.name, line: rec.line }, '{"method": …, "response": [chunks]}');
        const v = rec.value as AnyObj;
        const a = assembleChunks(Array.isArray(v.response) ? v.response : [v.response]);
        if (a.model) model = a.model;
        addContent(a.content, null, [r], { content: a.content });
        const last = drafts[drafts.length - 1];
        last.usage = usageOf(a.usage, drafts.length - 1, model);
      });
      return { shape: 'replay', set, recordsPath: null, drafts, tools, model, snake };
    }
  }
  const root = parseJsonText(file.text(), file.name);
  const shape = shapeOf(root);
  if (!shape) throw new ImportError('malformed:gemini', 'The document is not a Gemini request, response or contents array.', { file: file.name, path: '$' }, 'an object with "contents", "candidates" or "history", or an array of {role, parts}');
  if (shape === 'response') {
    const set = readJsonDocument(file.text(), file.name, null, root, file.bom);
    const r = root as AnyObj;
    model = str(r.modelVersion);
    const cand = (r.candidates as unknown[])[0];
    const content = isObject(cand) && isObject(cand.content) ? cand.content : { role: 'model', parts: [] };
    addContent(content, { record: 0, path: ['candidates', 0, 'content'], parts: [] }, [0], { content });
    drafts[0].usage = usageOf(r.usageMetadata, 0, model);
    return { shape, set, root, recordsPath: null, drafts, tools, model, snake };
  }
  const recordsPath: JsonPath = shape === 'request' ? ['contents'] : shape === 'history' ? ['history'] : [];
  const set = readJsonDocument(file.text(), file.name, recordsPath, root, file.bom);
  if (isObject(root)) {
    snake = 'system_instruction' in root || 'generation_config' in root;
    model = str(root.model);
    const sys = field(root, 'systemInstruction');
    if (isObject(sys) && Array.isArray(sys.parts)) {
      const text = sys.parts.map((p) => (isObject(p) ? str(p.text) ?? '' : '')).join('\n');
      if (text) drafts.push({ draft: { role: 'system', blocks: [{ kind: 'text', text }], recordRefs: [] }, site: null, snapshots: [] });
    } else if (typeof sys === 'string' && sys) drafts.push({ draft: { role: 'system', blocks: [{ kind: 'text', text: sys }], recordRefs: [] }, site: null, snapshots: [] });
    if (Array.isArray(root.tools)) tools = root.tools;
  }
  set.records.forEach((rec, i) => {
    if (!isObject(rec.value)) return;
    if (JSON.stringify(rec.value).includes('"function_call"') || JSON.stringify(rec.value).includes('"function_response"')) snake = true;
    addContent(rec.value, { record: i, path: [], parts: [] }, [i]);
  });
  return { shape, set, root, recordsPath, drafts, tools, model, snake };
}

function parse(file: SourceFile, _options?: ParseOptions): ParseResult {
  const layout = layoutOf(file);
  const b = new TranscriptBuilder();
  let title = '';
  layout.drafts.forEach((d, i) => {
    const idx = b.addMessage(d.draft);
    for (const s of d.snapshots) b.addMarker({ source: 'gemini-state-snapshot', atMessage: idx, ...(d.draft.role === 'user' && idx > 0 && { covers: [0, idx] as [number, number] }), summary: s, ...(d.site && { recordRef: d.site.record }) });
    if (d.usage) b.addUsage({ ...d.usage, messageIndex: i });
    if (!title && d.draft.role === 'user') {
      const t = d.draft.blocks.find((x) => x.kind === 'text');
      if (t && t.kind === 'text') title = t.text.replace(/\s+/g, ' ').trim().slice(0, 80);
    }
  });
  for (const t of layout.tools) {
    if (!isObject(t)) continue;
    const decls = field(t, 'functionDeclarations');
    if (Array.isArray(decls)) for (const d of decls) if (isObject(d) && typeof d.name === 'string') b.addTool({ name: d.name, ...(typeof d.description === 'string' && { description: d.description }), parameters: d.parameters ?? field(d, 'parametersJsonSchema') });
  }
  const transcript = b.build({
    format: 'gemini-api',
    fileName: file.name,
    title: title || (layout.shape === 'replay' ? `gemini-cli replay (${layout.drafts.length} calls)` : layout.shape === 'response' ? 'Gemini response' : 'Gemini conversation'),
    ...(layout.model !== undefined && { model: layout.model }),
    records: layout.set.records,
    frame: layout.set.frame,
    style: layout.set.style,
    warnings: layout.set.warnings,
    extra: { shape: layout.shape },
  });
  return { transcript, warnings: [] };
}

// -------------------------------------------------------------------------------------------------
// Export

function keyFor(snake: boolean, camel: string): string {
  return snake ? camel.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase()) : camel;
}

function argsObject(input: unknown): AnyObj {
  if (isObject(input)) return input;
  if (typeof input === 'string') {
    try {
      const v = JSON.parse(input);
      return isObject(v) ? v : { input: v };
    } catch {
      return { input };
    }
  }
  return input === undefined || input === null ? {} : { input };
}

function freshPart(b: ProjectedBlock, snake: boolean, dropped: string[]): AnyObj | null {
  switch (b.kind) {
    case 'text':
    case 'summary':
    case 'opaque':
      return { text: b.text };
    case 'tool_call':
      return { [keyFor(snake, 'functionCall')]: { id: b.callId, name: b.name, args: argsObject(b.input) } };
    case 'tool_result':
      return { [keyFor(snake, 'functionResponse')]: { id: b.callId, name: b.name ?? '', response: b.isError ? { error: b.content } : { output: b.content } } };
    case 'attachment':
      dropped.push(`attachment ${b.mediaType}: payload not carried, replaced by a placeholder`);
      return { text: b.text ?? `[attachment: ${b.mediaType}${b.name ? ' ' + b.name : ''}]` };
    case 'reasoning':
      return null;
  }
}

function patchPart(part: unknown, b: ProjectedBlock, src: Block, snake: boolean, dropped: string[]): unknown {
  if (!isObject(part)) return part;
  if (b.kind !== src.kind) return freshPart(b, snake, dropped);
  switch (b.kind) {
    case 'text':
    case 'summary':
      return { ...part, text: b.text };
    case 'tool_call': {
      const k = 'functionCall' in part ? 'functionCall' : 'function_call';
      return { ...part, [k]: { ...(part[k] as AnyObj), args: argsObject(b.input) } };
    }
    case 'tool_result': {
      const k = 'functionResponse' in part ? 'functionResponse' : 'function_response';
      return { ...part, [k]: { ...(part[k] as AnyObj), response: b.isError ? { error: b.content } : { output: b.content } } };
    }
    case 'reasoning': {
      // Edited reasoning: the signature no longer matches; drop the thought text and the signature.
      dropped.push(`reasoning ${b.id}: edited, its thought signature was dropped`);
      if (part.thought === true) return null;
      const { thoughtSignature: _s, thought_signature: _t, ...rest } = part;
      return rest;
    }
    default:
      return freshPart(b, snake, dropped);
  }
}

function rewriteContent(content: AnyObj, site: MessageSite, pas: ProjectedAgainstSource, snake: boolean, dropped: string[]): AnyObj | null {
  const present = new Set(pas.blocks.map((x) => x.sourceIndex));
  // A removed signature-only reasoning block takes the thoughtSignature off the part it rode on.
  const unsigned = new Set(pas.source ? pas.source.blocks.flatMap((b, i) => (b.kind === 'reasoning' && b.opaque !== undefined && b.text === '' && !present.has(i) ? [site.parts[i]] : [])) : []);
  const parts = (Array.isArray(content.parts) ? content.parts : []).map((p, j) => {
    if (!unsigned.has(j) || !isObject(p)) return p;
    const { thoughtSignature: _a, thought_signature: _b, ...rest } = p;
    return rest;
  });
  const next = rewriteParts(parts, site, pas, (p, b, src) => patchPart(p, b, src, snake, dropped), (b) => freshPart(b, snake, dropped));
  return next.length ? { ...content, parts: next } : null;
}

const summaryContent = (pm: ProjectedMessage): AnyObj => ({ role: 'user', parts: [{ text: syntheticText(pm) }] });

function serialize(t: Transcript, projection?: Projection): SerializeResult {
  const name = baseName(t.fileName);
  if (!projection) return { text: verbatim(t), fileName: t.fileName, mimeType: t.style.container === 'jsonl' ? 'application/x-ndjson' : 'application/json', dropped: [] };
  assertProjectionPairing(t, projection.messages);
  const layout = layoutOf(sourceFromText(t.fileName, verbatim(t)));
  const dropped: string[] = [];
  const contents: Array<{ value: AnyObj; record?: number; unchanged?: boolean }> = [];
  for (const pm of projection.messages) {
    const pas = againstSource(t, pm);
    const d = pas.source ? layout.drafts[pas.source.index] : undefined;
    if (pas.source && d && !d.site && !d.content) continue; // systemInstruction: stays in the frame
    if (!pas.source || !d) {
      if (pm.synthetic) contents.push({ value: summaryContent(pm) });
      else {
        const parts = pm.blocks.map((b) => freshPart(b, layout.snake, dropped)).filter((p): p is AnyObj => p !== null);
        if (parts.length) contents.push({ value: { role: pm.role === 'assistant' ? 'model' : 'user', parts } });
      }
      continue;
    }
    const original = (d.content ?? layout.set.records[d.site!.record].value) as AnyObj;
    const site: MessageSite = d.site ?? { record: 0, path: [], parts: convertParts(Array.isArray(original.parts) ? original.parts : [], new CallPairer()).parts };
    const record = layout.recordsPath ? site.record : undefined;
    if (pas.unchanged) {
      // Its own parts only: a split turn's halves each carry theirs.
      const value = record !== undefined && Array.isArray(original.parts) ? { ...original, parts: original.parts.filter((_, j) => site.parts.includes(j)) } : original;
      contents.push({ value, record, unchanged: true });
      continue;
    }
    const v = rewriteContent(original, site, pas, layout.snake, dropped);
    if (v) contents.push({ value: v, record, unchanged: false });
  }
  // Messages read from one Content (a split results + new prompt turn) are written back as one Content:
  // verbatim when every one of them is there untouched, else from their own parts.
  const written: Array<{ value: AnyObj; text?: string }> = [];
  // Messages per Content record, counted once (a filter over every draft per Content was quadratic).
  const draftsPerRecord = new Map<number, number>();
  for (const x of layout.drafts) if (x.site?.record !== undefined) draftsPerRecord.set(x.site.record, (draftsPerRecord.get(x.site.record) ?? 0) + 1);
  for (let i = 0; i < contents.length; ) {
    const c = contents[i];
    let j = i + 1;
    while (c.record !== undefined && j < contents.length && contents[j].record === c.record) j++;
    const group = contents.slice(i, j);
    i = j;
    if (c.record === undefined) {
      written.push(c);
      continue;
    }
    const original = layout.set.records[c.record].value as AnyObj;
    const all = draftsPerRecord.get(c.record) ?? 0;
    if (group.length === all && group.every((g) => g.unchanged)) {
      written.push({ value: original, text: layout.set.records[c.record].text });
      continue;
    }
    const parts = group.flatMap((g) => (Array.isArray(g.value.parts) ? g.value.parts : []));
    if (parts.length) written.push({ value: { ...original, parts } });
  }
  if (layout.recordsPath) {
    const depth = t.style.indent === 0 ? 0 : layout.recordsPath.length + 1;
    const texts = written.map((c) => c.text ?? stringifyLike(c.value, t.style, depth));
    return { text: writeDocumentRecords(t, texts, depth), fileName: `${name}.compacted.json`, mimeType: 'application/json', dropped };
  }
  // A response or a replay holds model turns only: the export is a request replaying the projection.
  const doc = { contents: written.map((c) => c.value) };
  return { text: JSON.stringify(doc, null, 2) + '\n', fileName: `${name}.compacted.request.json`, mimeType: 'application/json', dropped };
}

// -------------------------------------------------------------------------------------------------
// fromMessages: a generateContent request

function fromMessages(input: ConvertInput): SerializeResult {
  const dropped: string[] = [];
  const keep = replaysSignedReasoning(input, 'google');
  const system: string[] = [];
  const contents: AnyObj[] = [];
  const called = new Map<string, string>();
  const answered = new Set<string>();
  for (const m of input.messages) for (const b of m.blocks) if (b.kind === 'tool_result') answered.add(b.callId);
  const push = (role: 'user' | 'model', parts: AnyObj[]) => {
    if (!parts.length) return;
    const prev = contents[contents.length - 1];
    if (prev && prev.role === role) (prev.parts as AnyObj[]).push(...parts);
    else contents.push({ role, parts: [...parts] });
  };
  for (const m of input.messages) {
    if (m.role === 'system' && contents.length === 0) {
      system.push(syntheticText(m));
      continue;
    }
    if (m.synthetic) {
      push('user', [{ text: syntheticText(m) }]);
      continue;
    }
    const role = m.role === 'assistant' ? 'model' : 'user';
    const parts: AnyObj[] = [];
    const results: AnyObj[] = [];
    let pendingSignature: string | undefined;
    for (const b of m.blocks) {
      if (b.kind === 'reasoning') {
        // Only an untouched signature can be replayed; it rides on the part that follows.
        if (isUntouchedSigned(b) && keep && role === 'model') pendingSignature = b.opaque;
        else if (b.opaque) dropped.push(`reasoning ${b.id}: ${keep ? 'edited or misplaced' : 'signed by another provider'}, thought signature dropped`);
        continue;
      }
      if (b.kind === 'tool_result') {
        if (!called.has(b.callId)) {
          dropped.push(`tool result ${b.callId} without a call before it: sent as text`);
          parts.push({ text: `[tool result ${b.name ?? ''}] ${b.content}` });
          continue;
        }
        results.push({ functionResponse: { id: b.callId, name: b.name ?? called.get(b.callId) ?? '', response: b.isError ? { error: b.content } : { output: b.content } } });
        continue;
      }
      const p = freshPart(b, false, dropped);
      if (!p) continue;
      if (pendingSignature !== undefined) {
        p.thoughtSignature = pendingSignature;
        pendingSignature = undefined;
      }
      parts.push(p);
      if (b.kind === 'tool_call') {
        called.set(b.callId, b.name);
        if (!answered.has(b.callId)) {
          dropped.push(`tool call ${b.callId} had no result: answered with an error response`);
          results.push({ functionResponse: { id: b.callId, name: b.name, response: { error: '[no result recorded]' } } });
        }
      }
    }
    push(role, parts);
    // Function responses go in a user turn right after the calls.
    push('user', results);
  }
  const decls = input.tools.map((t) => ({ name: t.name, ...(t.description && { description: t.description }), ...(isObject(t.parameters) && { parameters: t.parameters }) }));
  const doc: AnyObj = {
    ...(input.model && { model: input.model }),
    ...(system.length && { systemInstruction: { parts: [{ text: system.join('\n\n') }] } }),
    contents,
    ...(decls.length && { tools: [{ functionDeclarations: decls }] }),
  };
  return { text: JSON.stringify(doc, null, 2) + '\n', fileName: `${input.baseName}.gemini.json`, mimeType: 'application/json', dropped };
}

export const geminiApi: FormatModule = {
  id: 'gemini-api',
  label: 'Gemini API (generateContent)',
  specUrl: 'https://ai.google.dev/api/generate-content',
  extensions: ['.json', '.responses', '.jsonl'],
  detect,
  parse,
  serialize,
  fromMessages,
};

export default geminiApi;
