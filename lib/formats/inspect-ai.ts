/**
 * Inspect AI eval logs (FORMATS.md §7d; UKGovernmentBEIS/inspect_ai:src/inspect_ai/model/_chat_message.py,
 * src/inspect_ai/log/_log.py). Two containers:
 *  - `.json`: `{version, eval, samples:[{messages, events, attachments, …}], …}`;
 *  - `.eval`: a zip archive with `header.json` and `samples/<id>_epoch_<n>.json`.
 * Each sample is a conversation (`listConversations`, default 0). Records are the elements of the
 * sample's `messages`, so the sample (and, for `.json`, the whole file) round-trips byte for byte;
 * a `.eval` export with no projection returns the original archive bytes.
 * Long strings appear as `attachment://<hash>` references into `sample.attachments`: resolved for
 * display and token counts, never in the records (an export re-emits the reference).
 */
import { Unzip, UnzipInflate, UnzipPassThrough, Zip, ZipDeflate, unzipSync } from 'fflate';
import type { ProjectedMessage, Projection } from '../model/projection';
import { ImportError } from '../errors';
import { TranscriptBuilder, type DraftBlock } from '../model/builder';
import { CallOccurrences } from '../model/pairing';
import type { JsonStyle, Message, SourceRecord, Transcript } from '../model/types';
import { formatPath, readJsonDocument, spanAt, stringifyLike, type JsonPath } from '../read/json-doc';
import { joinRecords } from '../read/jsonl';
import type { SourceFile } from '../read/source';
import { parsedRoot } from './detect';
import { cloneJson, decodingWarnings, isObj, num, own, projectedText, requireObj, serializeRecordDocument, str, structureError, type Obj } from './traj-shared';
import type { ConversationInfo, DetectInput, FormatModule, ParseOptions, ParseResult, SerializeResult } from './types';
import { imageFields, thumbnailOfDataUrl } from './images';

// ---------------------------------------------------------------------------------------------
// Zip reading with zip-bomb limits (declared sizes are checked before anything is inflated).

/** Total uncompressed bytes we agree to inflate from one archive. */
export const MAX_ZIP_TOTAL_BYTES = 512 * 1024 * 1024;
/** Entries above this size must not compress better than MAX_ZIP_RATIO:1 (JSON logs compress ~5–20×). */
const RATIO_CHECK_FROM = 1024 * 1024;
export const MAX_ZIP_RATIO = 1000;

/** Inflate the entries whose names pass `want`, refusing archives that would expand past the limits. */
function inflateEntries(bytes: Uint8Array, fileName: string, want: (name: string) => boolean): Map<string, Uint8Array> {
  let total = 0;
  let refused: ImportError | null = null;
  let out: Record<string, Uint8Array>;
  const names: string[] = [];
  try {
    out = unzipSync(bytes, {
      filter: (f) => {
        if (refused || !want(f.name)) return false;
        names.push(f.name);
        const where = { file: fileName, path: f.name };
        if (f.originalSize > MAX_ZIP_TOTAL_BYTES || total + f.originalSize > MAX_ZIP_TOTAL_BYTES) {
          refused = new ImportError('too-large:zip', `The archive entry "${f.name.slice(0, 120)}" declares ${(f.originalSize / 1e6).toFixed(0)} MB uncompressed, past the ${MAX_ZIP_TOTAL_BYTES / 1024 / 1024} MB limit.`, where, `an archive under ${MAX_ZIP_TOTAL_BYTES / 1024 / 1024} MB uncompressed`);
          return false;
        }
        if (f.originalSize > RATIO_CHECK_FROM && f.originalSize / Math.max(1, f.size) > MAX_ZIP_RATIO) {
          refused = new ImportError('malformed:zip-bomb', `The archive entry "${f.name.slice(0, 120)}" expands ${Math.round(f.originalSize / Math.max(1, f.size))}:1, which no eval log does: refused as a zip bomb.`, where, `compression ratios under ${MAX_ZIP_RATIO}:1`);
          return false;
        }
        total += f.originalSize;
        return true;
      },
    });
  } catch (e) {
    if (e instanceof ImportError) throw e;
    throw new ImportError('malformed:zip', `The zip archive cannot be read (${(e as Error).message}).`, { file: fileName }, 'a valid zip archive (.eval)', { cause: e });
  }
  if (refused) throw refused;
  // fflate returns a plain object: an entry named "__proto__" sets its prototype instead of a key
  // and vanishes. Such entries are read again by name through the streaming reader.
  const result = new Map<string, Uint8Array>();
  const missing = names.filter((n) => !Object.prototype.hasOwnProperty.call(out, n));
  const streamed = missing.length ? streamEntries(bytes, new Set(missing)) : new Map<string, Uint8Array>();
  for (const n of names) {
    const data = Object.prototype.hasOwnProperty.call(out, n) ? out[n] : streamed.get(n);
    if (data && !n.endsWith('/')) result.set(n, data);
  }
  return result;
}

/** Entries by name through fflate's streaming reader (names never become object keys). */
function streamEntries(bytes: Uint8Array, wanted: ReadonlySet<string>): Map<string, Uint8Array> {
  const got = new Map<string, Uint8Array>();
  const unzip = new Unzip();
  unzip.register(UnzipInflate);
  unzip.register(UnzipPassThrough);
  unzip.onfile = (file) => {
    if (!wanted.has(file.name)) return;
    const parts: Uint8Array[] = [];
    file.ondata = (err, data, final) => {
      if (err) throw err;
      parts.push(data);
      if (final) {
        const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
        let o = 0;
        for (const p of parts) (all.set(p, o), (o += p.length));
        got.set(file.name, all);
      }
    };
    file.start();
  };
  unzip.push(bytes, true);
  return got;
}

/** A zip from (name, bytes) pairs in order, through fflate's streaming writer (any name, "__proto__" too). */
function zipEntries(entries: Iterable<[string, Uint8Array]>, level: 6): Uint8Array {
  const chunks: Uint8Array[] = [];
  let failed: Error | null = null;
  const zip = new Zip((err, chunk) => {
    if (err) failed = err;
    else chunks.push(chunk);
  });
  for (const [name, data] of entries) {
    const f = new ZipDeflate(name, { level });
    zip.add(f);
    f.push(data, true);
  }
  zip.end();
  if (failed) throw failed;
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let o = 0;
  for (const c of chunks) (out.set(c, o), (o += c.length));
  return out;
}

function decodeUtf8(b: Uint8Array): string {
  const s = new TextDecoder('utf-8', { fatal: false }).decode(b);
  return s.charCodeAt(0) === 0xfeff ? s.slice(1) : s;
}

/** base64 without Buffer (runs in the worker too). */
function toBase64(b: Uint8Array): string {
  let s = '';
  for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000));
  return btoa(s);
}
function fromBase64(s: string): Uint8Array {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

const SAMPLE_ENTRY = /^samples\/(.+)_epoch_(\d+)\.json$/;

function sampleEntries(names: readonly string[]): string[] {
  const key = (n: string) => {
    const m = SAMPLE_ENTRY.exec(n)!;
    return { id: m[1], epoch: Number(m[2]) };
  };
  return names
    .filter((n) => SAMPLE_ENTRY.test(n))
    .sort((a, b) => {
      const x = key(a);
      const y = key(b);
      const nx = Number(x.id);
      const ny = Number(y.id);
      const byId = Number.isFinite(nx) && Number.isFinite(ny) ? nx - ny : x.id < y.id ? -1 : x.id > y.id ? 1 : 0;
      return byId !== 0 ? byId : x.epoch - y.epoch;
    });
}

function zipEntryNames(bytes: Uint8Array, fileName: string): string[] {
  const names: string[] = [];
  try {
    unzipSync(bytes, { filter: (f) => (names.push(f.name), false) });
  } catch (e) {
    throw new ImportError('malformed:zip', `The zip archive cannot be read (${(e as Error).message}).`, { file: fileName }, 'a valid zip archive (.eval)', { cause: e });
  }
  return names;
}

// ---------------------------------------------------------------------------------------------
// Detection

export function detectInspect(input: DetectInput): number | null {
  if (input.container === 'zip') {
    const names = input.zipEntries ?? [];
    return names.includes('header.json') && (names.some((n) => n.startsWith('samples/')) || names.includes('summaries.json') || names.some((n) => n.startsWith('_journal/'))) ? 0.98 : null;
  }
  // A document written on one line (json.dump without indent) reaches detection as one JSONL record.
  if (input.container !== 'json' && !(input.container === 'jsonl' && input.values.length === 1)) return null;
  const root = input.values[0];
  if (isObj(root) && Array.isArray(root.messages) && Array.isArray(root.events) && root.epoch !== undefined && root.id !== undefined && root.samples === undefined) return 0.9; // a sample entry
  if (!isObj(root) || typeof root.version !== 'number' || !isObj(root.eval)) return null;
  // {version, eval} is Inspect's own header: a log whose samples are broken is still Inspect's (parse says what is wrong).
  return Array.isArray(root.samples) || root.results !== undefined ? 0.98 : 0.9;
}

// ---------------------------------------------------------------------------------------------
// Parsing

interface InspectExtra {
  container: 'json' | 'eval';
  conversation: number;
  /** `.eval`: the sample entry the records come from, and the original archive (exact export). */
  entry?: string;
  archiveBase64?: string;
  /** JSON path of the sample inside the document (['samples', k] for .json, [] for a .eval entry). */
  samplePath: Array<string | number>;
}

/** Resolve `attachment://<hash>` strings (deeply) for display and counting; the records keep the reference. */
function resolver(attachments: Obj) {
  const one = (s: string): string => {
    if (!s.startsWith('attachment://')) return s;
    const v = own(attachments, s.slice('attachment://'.length));
    return typeof v === 'string' ? v : s;
  };
  const deep = (v: unknown, depth = 0): unknown => {
    if (typeof v === 'string') return one(v);
    if (depth > 64 || v === null || typeof v !== 'object') return v;
    if (Array.isArray(v)) return v.map((x) => deep(x, depth + 1));
    const o: Obj = {};
    for (const [k, x] of Object.entries(v)) Object.defineProperty(o, k, { value: deep(x, depth + 1), enumerable: true, writable: true, configurable: true });
    return o;
  };
  return { one, deep };
}

function contentBlocks(content: unknown, resolve: (s: string) => string, file: string, path: string, line: number): DraftBlock[] {
  if (content === null || content === undefined) return [];
  if (typeof content === 'string') {
    const text = resolve(content);
    return text === '' ? [] : [{ kind: 'text', text }];
  }
  if (!Array.isArray(content)) throw structureError(file, path, 'a string or an array of content parts', content, line);
  return content.map((p, i): DraftBlock => {
    if (!isObj(p)) throw structureError(file, `${path}[${i}]`, 'a content object', p, line);
    const type = str(p.type) ?? 'unknown';
    switch (type) {
      case 'text':
        return { kind: 'text', text: resolve(str(p.text) ?? '') };
      case 'reasoning': {
        const sig = str(p.signature);
        const redacted = p.redacted === true;
        const text = redacted ? str(p.summary) ?? '' : resolve(str(p.reasoning) ?? '') || (str(p.summary) ?? '');
        return { kind: 'reasoning', text, ...(sig !== undefined && { opaque: sig }), ...(redacted && { redacted: true, opaque: sig ?? str(p.reasoning) ?? '' }) };
      }
      case 'image': {
        const thumbnail = thumbnailOfDataUrl(p.image);
        return { kind: 'attachment', mediaType: thumbnail ? thumbnail.slice(5, thumbnail.indexOf(';')) : 'image/*', ...(typeof p.image === 'string' && p.image.startsWith('data:') && { bytes: Math.floor((p.image.length * 3) / 4) }), ...imageFields(thumbnail) };
      }
      case 'audio':
        return { kind: 'attachment', mediaType: `audio/${str(p.format) ?? '*'}` };
      case 'video':
        return { kind: 'attachment', mediaType: `video/${str(p.format) ?? '*'}` };
      case 'document':
        return { kind: 'attachment', mediaType: str(p.mime_type) ?? 'application/octet-stream', ...(str(p.filename) && { name: str(p.filename) }) };
      default:
        return { kind: 'opaque', type, text: resolve(str(p.text) ?? JSON.stringify(p)) };
    }
  });
}

function addMessages(records: SourceRecord[], sample: Obj, builder: TranscriptBuilder, file: string, messagesPath: string): Map<string, number> {
  const attachments = isObj(sample.attachments) ? sample.attachments : {};
  const { one, deep } = resolver(attachments);
  const byMessageId = new Map<string, number>();
  const occurrences = new CallOccurrences();
  records.forEach((rec, i) => {
    const path = `${messagesPath}[${i}]`;
    const m = requireObj(rec.value, file, path, rec.line);
    const role = m.role;
    const base = { recordRefs: [i] };
    const blocks = contentBlocks(own(m, 'content'), one, file, `${path}.content`, rec.line);
    let idx: number;
    if (role === 'system' || role === 'user') {
      idx = builder.addMessage({ role, blocks, ...base });
    } else if (role === 'assistant') {
      const calls = own(m, 'tool_calls');
      if (calls !== undefined && calls !== null && !Array.isArray(calls)) throw structureError(file, `${path}.tool_calls`, 'an array of tool calls', calls, rec.line);
      for (const [k, c] of (Array.isArray(calls) ? calls : []).entries()) {
        if (!isObj(c)) throw structureError(file, `${path}.tool_calls[${k}]`, 'a tool call object', c, rec.line);
        const id = str(c.id);
        if (id === undefined) throw structureError(file, `${path}.tool_calls[${k}].id`, 'a tool call id string', c.id, rec.line);
        const callId = occurrences.call(id, i);
        if (callId === `${id}#2`) builder.warn({ code: 'repaired:duplicate-call-id', message: `Tool call id "${id.slice(0, 60)}" is used by more than one call; each use is paired with the result that follows it.`, path, line: rec.line });
        const args = own(c, 'arguments');
        blocks.push({ kind: 'tool_call', callId, name: str(c.function) ?? '(unnamed)', input: deep(args ?? {}), ...(typeof args === 'string' && { rawInput: one(args) }) });
      }
      const model = str(m.model);
      idx = builder.addMessage({ role: 'assistant', blocks, ...base, ...(model && { model }) });
    } else if (role === 'tool') {
      const callRef = str(m.tool_call_id);
      const err = isObj(m.error) ? m.error : undefined;
      const text = blocks.map((b) => (b.kind === 'text' || b.kind === 'opaque' ? b.text : b.kind === 'attachment' ? `[${b.mediaType}]` : '')).join('\n');
      const content = text === '' && err ? str(err.message) ?? '' : text;
      if (callRef === undefined) builder.warn({ code: 'unpaired:tool-message', message: `Tool message at ${path} has no tool_call_id.`, path, line: rec.line });
      idx = builder.addMessage({ role: 'tool', blocks: [{ kind: 'tool_result', callId: callRef !== undefined ? occurrences.result(callRef) : `(none)#${i}`, content, isError: err !== undefined, ...(str(m.function) && { name: str(m.function) }) }], ...base });
    } else {
      throw new ImportError('malformed:role', `Unknown role ${JSON.stringify(role)?.slice(0, 40)} at ${path}.role.`, { file, path: `${path}.role`, line: rec.line }, 'system, user, assistant or tool');
    }
    const mid = str(m.id);
    if (mid !== undefined) byMessageId.set(mid, idx);
  });
  return byMessageId;
}

function addEvents(sample: Obj, builder: TranscriptBuilder, byMessageId: Map<string, number>, messageCount: number, file: string, eventsPath: string): void {
  const events = own(sample, 'events');
  if (events === undefined) return;
  if (!Array.isArray(events)) throw structureError(file, eventsPath, 'an array of events', events);
  let lastAssistant = -1;
  const assistantOrder: number[] = [];
  let modelCalls = 0;
  // Message i is sample.messages[i] (addMessages adds one message per record). Older logs carry no
  // message ids: a call's answer is then the next assistant message after the last one answered.
  const messages = Array.isArray(sample.messages) ? sample.messages : [];
  const nextAssistant = (after: number): number | undefined => {
    for (let i = after + 1; i < Math.min(messages.length, messageCount); i++) {
      const m = messages[i];
      if (isObj(m) && m.role === 'assistant') return i;
    }
    return undefined;
  };
  for (const e of events) {
    if (!isObj(e)) continue;
    if (e.event === 'model') {
      if (modelCalls === 0 && Array.isArray(e.tools)) {
        for (const t of e.tools) if (isObj(t) && typeof t.name === 'string') builder.addTool({ name: t.name, description: str(t.description), parameters: t.parameters });
      }
      modelCalls++;
      const out = isObj(e.output) ? e.output : {};
      const choice = Array.isArray(out.choices) && isObj(out.choices[0]) ? out.choices[0] : undefined;
      const msgId = choice && isObj(choice.message) ? str(choice.message.id) : undefined;
      const answered = choice && isObj(choice.message) && choice.message.role === 'assistant';
      const at = msgId !== undefined ? byMessageId.get(msgId) : answered ? nextAssistant(lastAssistant) : undefined;
      if (at !== undefined) lastAssistant = at;
      assistantOrder.push(at ?? lastAssistant);
      const u = isObj(out.usage) ? out.usage : undefined;
      if (u && (at ?? lastAssistant) >= 0) {
        const reasoning = num(u.reasoning_tokens);
        builder.addUsage({
          messageIndex: at ?? lastAssistant,
          ...(str(e.model) && { model: str(e.model) }),
          // Inspect's input_tokens excludes cache reads and writes (FORMATS.md §7d).
          input: num(u.input_tokens) ?? 0,
          cacheRead: num(u.input_tokens_cache_read) ?? 0,
          cacheWrite: num(u.input_tokens_cache_write) ?? 0,
          output: num(u.output_tokens) ?? 0,
          ...(reasoning !== undefined && { reasoning }),
        });
      }
    } else if (e.event === 'compaction') {
      const before = num(e.tokens_before);
      const after = num(e.tokens_after);
      const type = str(e.type);
      builder.addMarker({
        source: 'inspect-compaction',
        // The compaction ran before the next model call: it sits after the last answer seen.
        atMessage: Math.min(messageCount, lastAssistant + 1),
        ...(type && { trigger: type }),
        ...(before !== undefined && { tokensBefore: before }),
        ...(after !== undefined && { tokensAfter: after }),
        ...(str(e.summary) && { summary: str(e.summary) }),
      });
    }
  }
}

function buildSample(args: {
  file: string;
  text: string;
  root: unknown;
  samplePath: Array<string | number>;
  bom: boolean;
  evalInfo: Obj;
  extra: InspectExtra;
  warnings?: ParseResult['warnings'];
}): ParseResult {
  const { file, text, root, samplePath } = args;
  let sample: unknown = root;
  for (const seg of samplePath) sample = isObj(sample) || Array.isArray(sample) ? (sample as Record<string | number, unknown>)[seg] : undefined;
  const sp = formatPath(samplePath);
  const s = requireObj(sample, file, sp);
  if (!Array.isArray(s.messages)) throw structureError(file, `${sp === '$' ? '$' : sp}.messages`, 'an array of chat messages', s.messages);
  if (s.attachments !== undefined && !isObj(s.attachments)) throw structureError(file, `${sp}.attachments`, 'an object of attachments', s.attachments);
  const doc = readJsonDocument(text, file, [...samplePath, 'messages'], root, args.bom);
  const builder = new TranscriptBuilder();
  const messagesPath = formatPath([...samplePath, 'messages']);
  const byId = addMessages(doc.records, s, builder, file, messagesPath);
  addEvents(s, builder, byId, builder.messageCount, file, formatPath([...samplePath, 'events']));
  const model = str(args.evalInfo.model);
  const task = str(args.evalInfo.task) ?? 'inspect';
  const title = `${task} · sample ${String(s.id ?? args.extra.conversation)}${typeof s.epoch === 'number' && s.epoch !== 1 ? ` epoch ${s.epoch}` : ''}`;
  const transcript = builder.build({
    format: 'inspect-ai',
    fileName: file,
    title,
    model,
    records: doc.records,
    frame: doc.frame,
    style: doc.style,
    warnings: [...(args.warnings ?? []), ...decodingWarnings(text, file)],
    extra: args.extra as unknown as Record<string, unknown>,
  });
  return { transcript, warnings: [] };
}

function pickConversation(k: number | undefined, count: number, file: string): number {
  const i = k ?? 0;
  if (count === 0) throw new ImportError('empty:transcript', 'The log holds no samples: there is no conversation to inspect.', { file }, 'an eval log with at least one sample');
  if (!Number.isInteger(i) || i < 0 || i >= count) throw new ImportError('invalid:conversation', `Sample ${i} does not exist: the log holds ${count}.`, { file }, `a sample index from 0 to ${count - 1}`);
  return i;
}

function parseEval(file: SourceFile, options: ParseOptions): ParseResult {
  const names = zipEntryNames(file.bytes, file.name);
  const samples = sampleEntries(names);
  if (!names.includes('header.json')) throw new ImportError('malformed:structure', 'The archive has no header.json: it is not an Inspect .eval log.', { file: file.name }, 'an Inspect .eval archive (header.json + samples/)');
  const k = pickConversation(options.conversation, samples.length, file.name);
  const entry = samples[k];
  const got = inflateEntries(file.bytes, file.name, (n) => n === 'header.json' || n === entry);
  const headerText = decodeUtf8(got.get('header.json')!);
  let header: unknown;
  try {
    header = JSON.parse(headerText);
  } catch (e) {
    throw new ImportError('malformed:json', `header.json is not valid JSON (${(e as Error).message}).`, { file: file.name, path: 'header.json' }, 'a JSON header', { cause: e });
  }
  const evalInfo = isObj(header) && isObj(header.eval) ? header.eval : {};
  const text = decodeUtf8(got.get(entry)!);
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch (e) {
    throw new ImportError('malformed:json', `${entry} is not valid JSON (${(e as Error).message}).`, { file: file.name, path: entry }, 'a JSON sample', { cause: e });
  }
  const extra: InspectExtra = { container: 'eval', conversation: k, entry, archiveBase64: toBase64(file.bytes), samplePath: [] };
  return buildSample({ file: file.name, text, root, samplePath: [], bom: false, evalInfo, extra });
}

function parseJson(file: SourceFile, options: ParseOptions): ParseResult {
  const text = file.text();
  const root = parsedRoot(file);
  const r = requireObj(root, file.name, '$');
  if (r.samples === undefined && Array.isArray(r.messages) && r.eval === undefined) {
    // One sample document as stored inside a .eval archive (samples/<id>_epoch_<n>.json, or the
    // readable `text` of a .eval export).
    const extra: InspectExtra = { container: 'json', conversation: 0, samplePath: [] };
    return buildSample({ file: file.name, text, root, samplePath: [], bom: file.bom, evalInfo: {}, extra });
  }
  if (!Array.isArray(r.samples)) {
    if (r.samples === undefined) throw new ImportError('empty:transcript', 'The log holds no samples (a header-only log): there is no conversation to inspect.', { file: file.name, path: '$.samples' }, 'an eval log with samples');
    throw structureError(file.name, '$.samples', 'an array of samples', r.samples);
  }
  const k = pickConversation(options.conversation, r.samples.length, file.name);
  const evalInfo = isObj(r.eval) ? r.eval : {};
  const extra: InspectExtra = { container: 'json', conversation: k, samplePath: ['samples', k] };
  return buildSample({ file: file.name, text, root, samplePath: ['samples', k], bom: file.bom, evalInfo, extra });
}

function parse(file: SourceFile, options: ParseOptions = {}): ParseResult {
  return file.isZip ? parseEval(file, options) : parseJson(file, options);
}

function listConversations(file: SourceFile): ConversationInfo[] {
  if (file.isZip) {
    const entries = sampleEntries(zipEntryNames(file.bytes, file.name));
    const got = inflateEntries(file.bytes, file.name, (n) => entries.includes(n));
    return entries.map((name, index) => {
      let messages = 0;
      try {
        const v = JSON.parse(decodeUtf8(got.get(name)!));
        messages = isObj(v) && Array.isArray(v.messages) ? v.messages.length : 0;
      } catch {
        messages = 0;
      }
      const m = SAMPLE_ENTRY.exec(name)!;
      return { index, title: `sample ${m[1]} epoch ${m[2]}`, messages };
    });
  }
  const root = parsedRoot(file);
  const samples = isObj(root) && Array.isArray(root.samples) ? root.samples : [];
  return samples.map((s, index) => ({
    index,
    title: isObj(s) ? `sample ${String(s.id ?? index)} epoch ${String(s.epoch ?? 1)}` : `sample ${index}`,
    messages: isObj(s) && Array.isArray(s.messages) ? s.messages.length : 0,
  }));
}

// ---------------------------------------------------------------------------------------------
// Export

function rewriteMessage(record: SourceRecord, pm: ProjectedMessage, src: Message): unknown {
  const v = cloneJson(record.value) as Obj;
  const texts = pm.blocks.filter((b) => b.kind === 'text' || b.kind === 'summary' || b.kind === 'opaque').map((b) => ('text' in b ? b.text : ''));
  if (src.role === 'tool') {
    const r = pm.blocks.find((b) => b.kind === 'tool_result');
    const content = r && r.kind === 'tool_result' ? r.content : '';
    v.content = Array.isArray(v.content) ? [{ type: 'text', text: content }] : content;
    return v;
  }
  if (Array.isArray(v.content)) {
    // Keep the parts whose blocks are kept as-is (reasoning with its signature, images); replace text.
    const parts = v.content as unknown[];
    const kept: unknown[] = [];
    parts.forEach((p, i) => {
      const b = src.blocks[i];
      if (!b || b.kind === 'text' || b.kind === 'tool_call') return;
      if (pm.blocks.includes(b)) kept.push(p);
    });
    const text = texts.join('\n\n');
    v.content = text !== '' ? [...kept, { type: 'text', text }] : kept;
  } else {
    v.content = texts.join('\n\n');
  }
  if (Array.isArray(v.tool_calls)) {
    const srcCalls = src.blocks.filter((b) => b.kind === 'tool_call');
    const out: unknown[] = [];
    (v.tool_calls as unknown[]).forEach((c, j) => {
      const s = srcCalls[j];
      const kept = s && pm.blocks.find((b) => b.kind === 'tool_call' && b.callId === (s as { callId: string }).callId);
      if (!kept || kept.kind !== 'tool_call') return;
      if (kept !== s && isObj(c)) c.arguments = kept.input;
      out.push(c);
    });
    v.tool_calls = out;
    if (out.length === 0) delete v.tool_calls;
  }
  return v;
}

/** Insert one element at the end of the array at `path` in `text`, in the document's style. */
function appendToArray(text: string, path: JsonPath, value: unknown, style: JsonStyle): string {
  const span = spanAt(text, path);
  if (!span || text.charCodeAt(span[0]) !== 91) return text;
  const [s, e] = span;
  const depth = path.length; // containers around the array's elements, minus the array itself
  const unit = style.indent === 0 ? '' : style.indent === '\t' ? '\t' : ' '.repeat(style.indent);
  const nl = style.indent === 0 ? '' : style.eol;
  const item = stringifyLike(value, style, depth + 1);
  const inner = text.slice(s + 1, e - 1);
  if (inner.trim() === '') return text.slice(0, s) + '[' + nl + unit.repeat(depth + 1) + item + nl + unit.repeat(depth) + ']' + text.slice(e);
  let p = e - 2;
  while (p > s && /\s/.test(text[p])) p--;
  const sep = style.indent === 0 ? (style.spacedSeparators ? ', ' : ',') : ',' + nl + unit.repeat(depth + 1);
  return text.slice(0, p + 1) + sep + item + text.slice(p + 1);
}

function serializeSample(t: Transcript, projection: Projection, extra: InspectExtra): string {
  const base = extra.samplePath;
  let text = serializeRecordDocument(t, projection, {
    depth: base.length + 2,
    rewrite: rewriteMessage,
    synthetic: (pm) => [{ content: projectedText(pm), source: 'input', role: 'user' }],
  });
  // Inspect records its own compactions as events: add one for ours.
  const summaries = projection.messages.filter((m) => m.synthetic === 'summary');
  if (summaries.length > 0) {
    const event = {
      event: 'compaction',
      type: 'summary',
      tokens_before: projection.tokens.before.total,
      tokens_after: projection.tokens.after.total,
      source: 'contextscope',
    };
    text = appendToArray(text, [...base, 'events'], event, t.style);
  }
  return text;
}

function serialize(t: Transcript, projection?: Projection): SerializeResult {
  const extra = t.extra as unknown as InspectExtra;
  if (extra.container === 'json') {
    if (!projection) return { text: joinRecords(t.frame, t.records.map((r) => r.text)), fileName: t.fileName, mimeType: 'application/json', dropped: [] };
    return { text: serializeSample(t, projection, extra), fileName: t.fileName.replace(/(\.json)?$/, '.compacted.json'), mimeType: 'application/json', dropped: [] };
  }
  const archive = fromBase64(extra.archiveBase64 ?? '');
  if (!projection) return { text: joinRecords(t.frame, t.records.map((r) => r.text)), bytes: archive, fileName: t.fileName, mimeType: 'application/zip', dropped: [] };
  const sampleText = serializeSample(t, projection, extra);
  const entries = inflateEntries(archive, t.fileName, () => true);
  const bytes = zipEntries([...entries].map(([name, data]): [string, Uint8Array] => [name, name === extra.entry ? new TextEncoder().encode(sampleText) : data]), 6);
  return { text: sampleText, bytes, fileName: t.fileName.replace(/(\.eval)?$/, '.compacted.eval'), mimeType: 'application/zip', dropped: [] };
}

export const inspectAiFormat: FormatModule = {
  id: 'inspect-ai',
  label: 'Inspect AI eval log',
  specUrl: 'https://inspect.aisi.org.uk/eval-logs.html',
  extensions: ['.json', '.eval'],
  detect: detectInspect,
  parse,
  serialize,
  listConversations,
};

export default inspectAiFormat;
