/**
 * Helpers shared by the agent-trajectory formats (SWE-agent, mini-swe-agent, OpenHands, Inspect):
 * untrusted-value guards that throw located ImportErrors, OpenAI-like message content reading,
 * and the projection export for documents whose records each carry (at most) one message.
 */
import { ImportError, type ErrorWhere } from '../errors';
import type { DraftBlock } from '../model/builder';
import type { Message, SourceRecord, Transcript } from '../model/types';
import type { ProjectedMessage, Projection } from '../model/projection';
import { parseJsonString, stringifyLike } from '../read/json-doc';
import { countReplacementChars } from '../read/source';
import type { ImportWarning } from '../model/types';

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** "an array", "a number", "null" … for error messages about untrusted values. */
export function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return 'a string';
  if (typeof v === 'number') return 'a number';
  if (typeof v === 'boolean') return 'a boolean';
  return typeof v;
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** Own-property read: never walks the prototype chain (a `__proto__` key in data is just a key). */
export function own(o: Obj, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(o, key) ? o[key] : undefined;
}

export function structureError(file: string, path: string, expected: string, got: unknown, line?: number): ImportError {
  return new ImportError('malformed:structure', `Expected ${expected} at ${path}, found ${typeName(got)}.`, { file, path, ...(line !== undefined && { line }) }, expected);
}

export function requireArray(v: unknown, file: string, path: string, line?: number): unknown[] {
  if (!Array.isArray(v)) throw structureError(file, path, 'an array', v, line);
  return v;
}

export function requireObj(v: unknown, file: string, path: string, line?: number): Obj {
  if (!isObj(v)) throw structureError(file, path, 'an object', v, line);
  return v;
}

/**
 * Content of an OpenAI-like message: a string, null, or a list of parts. Returns draft blocks
 * (text / attachment / opaque). Throws a located error for any other type.
 */
export function chatContentBlocks(content: unknown, file: string, path: string, line?: number): DraftBlock[] {
  if (content === null || content === undefined) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ kind: 'text', text: content }];
  if (!Array.isArray(content)) throw structureError(file, path, 'a string or an array of content parts', content, line);
  const out: DraftBlock[] = [];
  content.forEach((p, i) => {
    if (typeof p === 'string') {
      out.push({ kind: 'text', text: p });
      return;
    }
    if (!isObj(p)) throw structureError(file, `${path}[${i}]`, 'a content part object', p, line);
    const type = str(p.type) ?? 'unknown';
    const text = str(p.text);
    if ((type === 'text' || type === 'input_text' || type === 'output_text') && text !== undefined) out.push({ kind: 'text', text });
    else if (type === 'image_url' || type === 'image' || type === 'input_image') out.push({ kind: 'attachment', mediaType: 'image/*' });
    else out.push({ kind: 'opaque', type, text: text ?? JSON.stringify(p) });
  });
  return out;
}

/** Plain text of a content value (for tool results, which are one string in the canonical model). */
export function contentText(content: unknown, file: string, path: string, line?: number): string {
  return chatContentBlocks(content, file, path, line)
    .map((b) => (b.kind === 'text' || b.kind === 'opaque' ? b.text : b.kind === 'attachment' ? `[${b.mediaType}]` : ''))
    .join('\n');
}

/** Parsed arguments when they parse as JSON, else the raw string (FORMATS.md §1: keep verbatim). */
export function parseArgs(raw: string, where?: ErrorWhere): unknown {
  return parseJsonString(raw, where);
}

/** The projected message is the log message untouched: every block is the very same object. */
export function isUntouched(pm: ProjectedMessage, src: Message): boolean {
  return pm.blocks.length === src.blocks.length && pm.blocks.every((b, i) => b === src.blocks[i]);
}

/** The text a synthetic message carries (summary or notice). */
export function projectedText(pm: ProjectedMessage): string {
  return pm.blocks
    .map((b) => (b.kind === 'text' || b.kind === 'summary' || b.kind === 'opaque' || b.kind === 'reasoning' ? b.text : b.kind === 'tool_result' ? b.content : ''))
    .filter((s) => s !== '')
    .join('\n\n');
}

/** Deep copy of a parsed JSON value (records are frozen; rewrites work on copies). */
export function cloneJson<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

export interface RecordRewriteHooks {
  /** Nesting depth of the records in the document (for stringifyLike's indentation). */
  depth: number;
  /** A changed message: the new value of its record (from a copy of the record's value). null drops the record. */
  rewrite(record: SourceRecord, pm: ProjectedMessage, src: Message): unknown | null;
  /** A synthetic message (summary / notice): the record value(s) to insert. */
  synthetic(pm: ProjectedMessage): unknown[];
}

/**
 * Export of a document whose records are the elements of one array (FORMATS.md §0, the preamble's
 * export rule): walk the projection in order; untouched messages re-emit their source records
 * verbatim, changed ones are re-written in the file's style, records carrying no message stay in
 * place, records of messages absent from the projection are dropped, synthetic messages are
 * inserted where they sit. The frame around the array is kept.
 */
export function serializeRecordDocument(t: Transcript, projection: Projection, hooks: RecordRewriteHooks): string {
  const owner = new Map<number, number>();
  t.messages.forEach((m) => m.recordRefs.forEach((r) => owner.set(r, m.index)));
  const byId = new Map(t.messages.map((m) => [m.id, m] as const));
  const texts: string[] = [];
  const emitted = new Set<number>();
  let cursor = 0;
  // Records that carry no message, up to (not including) record index `until`, stay in place.
  const flushFree = (until: number) => {
    for (; cursor < until; cursor++) if (!owner.has(cursor) && !emitted.has(cursor)) {
      emitted.add(cursor);
      texts.push(t.records[cursor].text);
    }
  };
  for (const pm of projection.messages) {
    const src = pm.sourceId !== undefined ? byId.get(pm.sourceId) : undefined;
    if (!src) {
      for (const v of hooks.synthetic(pm)) texts.push(stringifyLike(v, t.style, hooks.depth));
      continue;
    }
    const refs = src.recordRefs;
    if (refs.length === 0) continue;
    flushFree(Math.min(...refs));
    const untouched = isUntouched(pm, src);
    for (const r of refs) {
      if (emitted.has(r)) continue;
      emitted.add(r);
      if (untouched) texts.push(t.records[r].text);
      else {
        const v = hooks.rewrite(t.records[r], pm, src);
        if (v !== null) texts.push(stringifyLike(v, t.style, hooks.depth));
      }
    }
    cursor = Math.max(cursor, Math.max(...refs) + 1);
  }
  flushFree(t.records.length);
  return joinWithFrame(t, texts, hooks.depth);
}

/** Re-join a changed list of record texts inside the original frame (head, separator, tail). */
export function joinWithFrame(t: Transcript, texts: readonly string[], depth = 1): string {
  const n = t.records.length;
  if (n === 0) return t.frame.join('');
  const head = t.frame[0];
  const tail = t.frame[n];
  const nl = t.style.eol;
  const unit = t.style.indent === '\t' ? '\t' : ' '.repeat(typeof t.style.indent === 'number' ? t.style.indent : 0);
  const sep = n >= 2 ? t.frame[1] : t.style.indent === 0 ? (t.style.spacedSeparators ? ', ' : ',') : ',' + nl + unit.repeat(depth);
  return head + texts.join(sep) + tail;
}

/** A model name as written, when it is a non-empty string. */
export function modelName(v: unknown): string | undefined {
  const s = str(v);
  return s && s.trim() !== '' ? s : undefined;
}

/** Invalid UTF-8 in the source was decoded as U+FFFD: say so (the text is usable, the bytes were not). */
export function decodingWarnings(text: string, file: string): ImportWarning[] {
  const n = countReplacementChars(text);
  return n > 0 ? [{ code: 'decoding:invalid-utf8', message: `${file} holds ${n} byte sequence(s) that are not valid UTF-8; they are shown as \uFFFD.` }] : [];
}
