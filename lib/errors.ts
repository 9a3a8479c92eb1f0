/**
 * Typed errors and the one place that maps them to what a user reads (STYLE.md §14).
 * Codes are `${kind}:${surface}`, e.g. "malformed:jsonl", "empty:file", "unsupported:format".
 */

export interface ErrorWhere {
  file?: string;
  /** 1-based line in the file. */
  line?: number;
  /** JSON path inside the record or document, e.g. "$.messages[3].content". */
  path?: string;
}

export class ImportError extends Error {
  readonly code: string;
  readonly where: ErrorWhere;
  /** What was expected at that place, in words. */
  readonly expected?: string;

  constructor(code: string, message: string, where: ErrorWhere = {}, expected?: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ImportError';
    this.code = code;
    this.where = where;
    this.expected = expected;
  }

  /** Plain data for crossing the worker boundary (Comlink clones errors poorly). */
  toJSON(): SerializedError {
    return { name: this.name, code: this.code, message: this.message, where: this.where, expected: this.expected };
  }
}

export class ExportError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ExportError';
    this.code = code;
  }
}

export interface SerializedError {
  name: string;
  code: string;
  message: string;
  where?: ErrorWhere;
  expected?: string;
}

export function isAbortError(e: unknown): boolean {
  return e instanceof Error ? e.name === 'AbortError' : typeof e === 'object' && e !== null && (e as { name?: string }).name === 'AbortError';
}

export function serializeError(e: unknown): SerializedError {
  if (e instanceof ImportError) return e.toJSON();
  if (e instanceof ExportError) return { name: e.name, code: e.code, message: e.message };
  if (e && typeof e === 'object' && 'code' in e && 'message' in e && 'name' in e) {
    const o = e as SerializedError;
    return { name: String(o.name), code: String(o.code), message: String(o.message), where: o.where, expected: o.expected };
  }
  if (e instanceof Error) return { name: e.name, code: 'internal:error', message: e.message };
  return { name: 'Error', code: 'internal:error', message: String(e) };
}

/** "file.jsonl, line 12, at $.message.content: expected an array of content blocks" */
export function describeWhere(where: ErrorWhere | undefined): string {
  if (!where) return '';
  const parts: string[] = [];
  if (where.file) parts.push(where.file);
  if (where.line !== undefined) parts.push(`line ${where.line}`);
  if (where.path) parts.push(`at ${where.path}`);
  return parts.join(', ');
}

/** The user-facing text of any error. */
export function userMessage(e: unknown): string {
  const s = serializeError(e);
  const where = describeWhere(s.where);
  const expected = s.expected ? ` Expected ${s.expected}.` : '';
  return `${where ? `${where}: ` : ''}${s.message}${expected}`;
}
