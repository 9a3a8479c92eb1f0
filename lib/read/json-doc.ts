/**
 * A single JSON document → records, losslessly. The records are the elements of one array in the
 * document (found by a path: [] for a bare array, ['messages'], ['samples', 0, 'messages'] …);
 * everything around them is kept verbatim in the frame, so an untouched export is byte-identical
 * and a changed record is re-written in the document's own style (indent, separators, escapes).
 */
import { ImportError, type ErrorWhere } from '../errors';
import type { JsonStyle, SourceRecord } from '../model/types';
import type { RecordSet } from './jsonl';

export type JsonPath = ReadonlyArray<string | number>;

/**
 * Deepest nesting accepted. Real transcripts nest a few dozen levels; hostile input nests 100,000
 * (`[[[[…`), which JSON.parse accepts but every recursive walk after it (deep-freeze, structured
 * clone, rendering) overflows the stack on. Refused here, at the seam, with a located error.
 */
export const MAX_JSON_DEPTH = 1000;

/** Offset where nesting first exceeds `max` (strings skipped), or -1. */
export function depthExceededAt(text: string, max = MAX_JSON_DEPTH): number {
  // Nesting deeper than `max` needs more than `max` opening brackets: most texts have far fewer,
  // and counting them (native indexOf) costs a fraction of the character-by-character walk below.
  if (!hasMoreOpenersThan(text, max)) return -1;
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      i = skipString(text, i) - 1;
    } else if (c === 91 || c === 123) {
      if (++depth > max) return i;
    } else if (c === 93 || c === 125) depth--;
  }
  return -1;
}

function hasMoreOpenersThan(text: string, max: number): boolean {
  let n = 0;
  for (let i = text.indexOf('{'); i >= 0; i = text.indexOf('{', i + 1)) if (++n > max) return true;
  for (let i = text.indexOf('['); i >= 0; i = text.indexOf('[', i + 1)) if (++n > max) return true;
  return false;
}

export function tooDeepError(fileName: string, line: number): ImportError {
  return new ImportError('too-deep:json', `The JSON nests more than ${MAX_JSON_DEPTH} levels deep.`, { file: fileName, line }, `JSON nested at most ${MAX_JSON_DEPTH} levels deep`);
}

/**
 * JSON held in a string (tool-call `arguments`): parsed for display when it is JSON, else kept as
 * the raw string. JSON.parse alone would accept 50,000 levels and leave the stack overflow to the
 * first recursive walk after it ("Maximum call stack size exceeded", no file, no place), so the
 * depth limit of whole documents applies here too, and the error names the place it is given.
 */
export function parseJsonString(raw: string, where: ErrorWhere = {}): unknown {
  const at = depthExceededAt(raw);
  if (at >= 0) throw tooDeepInString(where);
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

export function tooDeepInString(where: ErrorWhere = {}): ImportError {
  return new ImportError('too-deep:json', `The tool-call arguments (JSON in a string) nest more than ${MAX_JSON_DEPTH} levels deep.`, where, `arguments nested at most ${MAX_JSON_DEPTH} levels deep`);
}

/** The same error with a place added where it had none (helpers that see one item; their caller knows the line). */
export function withPlace(e: unknown, where: ErrorWhere): unknown {
  if (!(e instanceof ImportError)) return e;
  if (e.where.line !== undefined && e.where.file !== undefined && e.where.path !== undefined) return e;
  const merged: ErrorWhere = { ...where, ...Object.fromEntries(Object.entries(e.where).filter(([, v]) => v !== undefined)) };
  return new ImportError(e.code, e.message, merged, e.expected, { cause: e.cause });
}

/** `$.a[0].b` for error messages. */
export function pathText(path: JsonPath): string {
  return '$' + path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('');
}

/** A JSON object (not an array, not null). */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Parse the whole document, with the error located by line and column. */
export function parseJsonText(text: string, fileName: string): unknown {
  const tooDeep = depthExceededAt(text);
  if (tooDeep >= 0) throw tooDeepError(fileName, lineAt(text, tooDeep));
  try {
    return JSON.parse(text);
  } catch (e) {
    const msg = (e as Error).message;
    const m = /position (\d+)/.exec(msg);
    let where: { file: string; line?: number } = { file: fileName };
    if (m) {
      const pos = Number(m[1]);
      where = { file: fileName, line: lineAt(text, pos) };
    }
    const truncated = /Unexpected end|Unterminated/i.test(msg);
    throw new ImportError(
      truncated ? 'truncated:json' : 'malformed:json',
      truncated ? 'The JSON document ends before it is complete (the file was probably cut off).' : `The file is not valid JSON (${msg}).`,
      where,
      'a complete JSON document',
      { cause: e },
    );
  }
}

export function lineAt(text: string, pos: number): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < pos; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** Detect how the document was written. */
export function detectJsonStyle(text: string, bom = false): JsonStyle {
  const eol: '\n' | '\r\n' = /\r\n/.test(text.slice(0, 65536)) ? '\r\n' : '\n';
  const finalNewline = /\n$/.test(text);
  let indent: number | '\t' = 0;
  const m = /^[[{]\r?\n([ \t]+)\S/m.exec(text.trimStart().slice(0, 65536));
  if (m) indent = m[1].startsWith('\t') ? '\t' : m[1].length;
  const head = text.slice(0, 65536);
  const spacedSeparators = indent === 0 && /"\s*:\s/.test(head) && /,\s"/.test(head);
  // Python's json.dumps escapes non-ASCII by default; raw UTF-8 writers never do.
  const asciiEscapes = /\\u00[89a-f][0-9a-f]|\\u0[1-9a-f][0-9a-f]{2}|\\u[1-9a-f][0-9a-f]{3}/i.test(text) && !/[^\x00-\x7f]/.test(text);
  return { container: 'json', indent, eol, finalNewline, spacedSeparators, asciiEscapes, bom };
}

// ---------------------------------------------------------------------------------------------
// A tiny scanner over JSON text that finds the byte span of a value, without building it.

function skipWs(t: string, i: number): number {
  for (;;) {
    const c = t.charCodeAt(i);
    if (c === 32 || c === 10 || c === 13 || c === 9) i++;
    else return i;
  }
}

function skipString(t: string, i: number): number {
  // t[i] === '"'
  i++;
  for (;;) {
    const q = t.indexOf('"', i);
    if (q < 0) return t.length;
    // count preceding backslashes
    let b = q - 1;
    while (t.charCodeAt(b) === 92) b--;
    if ((q - 1 - b) % 2 === 0) return q + 1;
    i = q + 1;
  }
}

/** Returns the index just past the value starting at i (i at a non-whitespace char). */
function skipValue(t: string, i: number): number {
  const c = t.charCodeAt(i);
  if (c === 34) return skipString(t, i);
  if (c === 123 || c === 91) {
    let depth = 0;
    for (;;) {
      const ch = t.charCodeAt(i);
      if (Number.isNaN(ch)) return t.length;
      if (ch === 34) {
        i = skipString(t, i);
        continue;
      }
      if (ch === 123 || ch === 91) depth++;
      else if (ch === 125 || ch === 93) {
        depth--;
        if (depth === 0) return i + 1;
      }
      i++;
    }
  }
  // number, true, false, null
  while (i < t.length) {
    const ch = t.charCodeAt(i);
    if (ch === 44 || ch === 125 || ch === 93 || ch === 32 || ch === 10 || ch === 13 || ch === 9) break;
    i++;
  }
  return i;
}

/** Span [start, end) of the value at `path`, or null when the path does not exist. */
export function spanAt(t: string, path: JsonPath, from = skipWs(t, 0)): [number, number] | null {
  let i = from;
  for (const seg of path) {
    i = skipWs(t, i);
    const c = t.charCodeAt(i);
    if (typeof seg === 'number') {
      if (c !== 91) return null;
      i = skipWs(t, i + 1);
      let k = 0;
      if (t.charCodeAt(i) === 93) return null;
      for (;;) {
        if (k === seg) break;
        i = skipWs(t, skipValue(t, i));
        if (t.charCodeAt(i) !== 44) return null;
        i = skipWs(t, i + 1);
        k++;
      }
    } else {
      if (c !== 123) return null;
      i = skipWs(t, i + 1);
      let found = false;
      while (t.charCodeAt(i) === 34) {
        const keyEnd = skipString(t, i);
        const key = JSON.parse(t.slice(i, keyEnd)) as string;
        i = skipWs(t, keyEnd);
        i = skipWs(t, i + 1); // past ':'
        if (key === seg) {
          found = true;
          break;
        }
        i = skipWs(t, skipValue(t, i));
        if (t.charCodeAt(i) === 44) i = skipWs(t, i + 1);
      }
      if (!found) return null;
    }
  }
  i = skipWs(t, i);
  return [i, skipValue(t, i)];
}

/** Spans of the elements of the array at [start, end). */
export function elementSpans(t: string, start: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let i = skipWs(t, start + 1);
  if (t.charCodeAt(i) === 93) return out;
  for (;;) {
    const end = skipValue(t, i);
    out.push([i, end]);
    i = skipWs(t, end);
    if (t.charCodeAt(i) !== 44) break;
    i = skipWs(t, i + 1);
  }
  return out;
}

function getAt(root: unknown, path: JsonPath): unknown {
  let v: unknown = root;
  for (const seg of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string | number, unknown>)[seg as string];
  }
  return v;
}

/**
 * Split a JSON document into records at `path`. `path === null` makes the whole document one
 * record. The root value is returned too (formats read top-level fields from it).
 */
export function readJsonDocument(text: string, fileName: string, path: JsonPath | null, root = parseJsonText(text, fileName), bom = false): RecordSet & { root: unknown } {
  const style = detectJsonStyle(text, bom);
  if (path === null) {
    const start = skipWs(text, 0);
    const end = skipValue(text, start);
    return { root, style, warnings: [], records: [{ text: text.slice(start, end), value: root, line: lineAt(text, start) }], frame: [text.slice(0, start), text.slice(end)] };
  }
  const arr = getAt(root, path);
  const span = spanAt(text, path);
  if (!Array.isArray(arr) || !span || text.charCodeAt(span[0]) !== 91) {
    throw new ImportError('malformed:structure', `Expected an array at ${formatPath(path)}.`, { file: fileName, path: formatPath(path) }, 'an array of records');
  }
  const spans = elementSpans(text, span[0]);
  if (spans.length !== arr.length) {
    throw new ImportError('internal:scan', `Scanner found ${spans.length} records, JSON.parse ${arr.length}.`, { file: fileName, path: formatPath(path) });
  }
  const records: SourceRecord[] = [];
  const frame: string[] = [];
  let prev = 0;
  // Line numbers in one pass: `nextNl` is the first newline not yet counted. Counting from the
  // previous record with an unbounded indexOf scanned to the end of a one-line (minified) document
  // for every record: quadratic (issue #16, 206 s for a 10,000-turn request, 6 s pretty-printed).
  let line = 1;
  let nextNl = text.indexOf('\n');
  for (let k = 0; k < spans.length; k++) {
    const [s, e] = spans[k];
    frame.push(text.slice(prev, s));
    while (nextNl >= 0 && nextNl < s) {
      line++;
      nextNl = text.indexOf('\n', nextNl + 1);
    }
    records.push({ text: text.slice(s, e), value: arr[k], line });
    prev = e;
  }
  frame.push(text.slice(prev));
  if (spans.length === 0) {
    // keep the empty array's text intact: frame[0] is the whole file
    return { root, style, warnings: [], records, frame: [text] };
  }
  return { root, style, warnings: [], records, frame };
}

export function formatPath(path: JsonPath): string {
  return '$' + path.map((p) => (typeof p === 'number' ? `[${p}]` : /^[A-Za-z_$][\w$]*$/.test(p) ? `.${p}` : `[${JSON.stringify(p)}]`)).join('');
}

/**
 * JSON.stringify in the document's style, for a value placed at nesting `depth` (the number of
 * containers around it), so a re-written record sits in the file as if the original writer wrote it.
 */
export function stringifyLike(value: unknown, style: JsonStyle, depth = 0): string {
  let out: string;
  if (style.indent === 0) {
    out = style.spacedSeparators ? stringifySpaced(value) : JSON.stringify(value);
  } else {
    const unit = style.indent === '\t' ? '\t' : ' '.repeat(style.indent);
    out = JSON.stringify(value, null, unit);
    if (depth > 0) out = out.split('\n').join('\n' + unit.repeat(depth));
    if (style.eol === '\r\n') out = out.split('\n').join('\r\n');
  }
  if (style.asciiEscapes) out = out.replace(/[\u0080-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
  return out;
}

/** Python json.dumps default: `{"a": 1, "b": [1, 2]}`. */
function stringifySpaced(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return '[' + v.map((x) => stringifySpaced(x === undefined ? null : x)).join(', ') + ']';
  const parts: string[] = [];
  for (const [k, x] of Object.entries(v)) if (x !== undefined) parts.push(JSON.stringify(k) + ': ' + stringifySpaced(x));
  return '{' + parts.join(', ') + '}';
}
