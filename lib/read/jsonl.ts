/**
 * JSONL → records, losslessly: every byte of the file is either inside a record's `text` or in
 * the `frame` between records, so `joinRecords` re-creates the file exactly (FORMATS.md §0).
 * Tolerates blank lines, CRLF, and a truncated last line (sessions are appended live).
 */
import { ImportError } from '../errors';
import { depthExceededAt, tooDeepError } from './json-doc';
import type { ImportWarning, JsonStyle, SourceRecord } from '../model/types';
import type { SourceFile } from './source';

export interface RecordSet {
  records: SourceRecord[];
  /** frame[i] precedes records[i]; frame[records.length] follows the last. */
  frame: string[];
  style: JsonStyle;
  warnings: ImportWarning[];
}

export interface JsonlOptions {
  /** Stop after this many records (detection reads a head only). */
  limit?: number;
  /** Interior lines that fail to parse: 'warn' keeps them in the frame; 'throw' rejects the file. */
  onBadLine?: 'warn' | 'throw';
}

// A file's whole read, per bad-line policy: detection, the importer's layout check and a container's
// conversation list all read the same file (a 40 MB one-line request was parsed six times). A
// read under a limit that reached the end of the file is the whole read too. Read it, never change it.
const wholeReads = new WeakMap<SourceFile, Map<string, RecordSet>>();

/** The whole read of a file already made (readJsonl without a limit, or one that reached the end), if any. */
export function wholeJsonlRead(file: SourceFile, onBadLine: JsonlOptions['onBadLine'] = 'warn'): RecordSet | undefined {
  return wholeReads.get(file)?.get(onBadLine);
}

export function readJsonl(file: SourceFile, options: JsonlOptions = {}): RecordSet {
  const policy = options.onBadLine ?? 'warn';
  const whole = wholeJsonlRead(file, policy);
  if (whole && (options.limit === undefined || whole.records.length <= options.limit)) return whole;
  const set = readJsonlUncached(file, options);
  if (!set.stoppedEarly) {
    let byPolicy = wholeReads.get(file);
    if (!byPolicy) wholeReads.set(file, (byPolicy = new Map()));
    byPolicy.set(policy, set.result);
  }
  return set.result;
}

function readJsonlUncached(file: SourceFile, options: JsonlOptions): { result: RecordSet; stoppedEarly: boolean } {
  let stoppedEarly = false;
  const records: SourceRecord[] = [];
  const frame: string[] = [''];
  const warnings: ImportWarning[] = [];
  let crlf = 0;
  let lf = 0;
  let pendingBad: { text: string; line: number; error: string } | null = null;
  let badCount = 0;
  let lastEol: '' | '\n' | '\r\n' = '';

  for (const line of file.lines()) {
    if (line.eol === '\r\n') crlf++;
    else if (line.eol === '\n') lf++;
    lastEol = line.eol;
    if (pendingBad) {
      // A bad line that is not the last one: garbage in the middle of the file.
      if (options.onBadLine === 'throw') {
        throw new ImportError('malformed:jsonl', `Line ${pendingBad.line} is not valid JSON (${pendingBad.error}).`, { file: file.name, line: pendingBad.line }, 'one JSON object per line');
      }
      badCount++;
      warnings.push({ code: 'skipped:line', message: `Line ${pendingBad.line} is not valid JSON and was skipped (kept for export).`, line: pendingBad.line });
      pendingBad = null;
    }
    const trimmed = line.text.trim();
    if (trimmed === '') {
      frame[frame.length - 1] += line.text + line.eol;
      continue;
    }
    let value: unknown;
    if (depthExceededAt(line.text) >= 0) throw tooDeepError(file.name, line.line);
    try {
      value = JSON.parse(line.text);
    } catch (e) {
      pendingBad = { text: line.text, line: line.line, error: (e as Error).message };
      frame[frame.length - 1] += line.text + line.eol;
      continue;
    }
    records.push({ text: line.text, value, line: line.line });
    frame.push(line.eol);
    if (options.limit !== undefined && records.length >= options.limit) {
      stoppedEarly = true;
      break;
    }
  }
  if (pendingBad) {
    // The last line failed to parse: a session cut off mid-write. Keep its bytes, warn.
    warnings.push({
      code: 'truncated:last-line',
      message: `The last line (${pendingBad.line}) is incomplete JSON and was ignored; the session was probably still being written.`,
      line: pendingBad.line,
    });
  }
  if (records.length > 0 && badCount > records.length) {
    throw new ImportError('malformed:jsonl', `Most lines are not valid JSON (${badCount} bad, ${records.length} good).`, { file: file.name }, 'one JSON object per line');
  }
  const style: JsonStyle = {
    container: 'jsonl',
    indent: 0,
    eol: crlf > lf ? '\r\n' : '\n',
    finalNewline: lastEol !== '',
    bom: file.bom,
  };
  return { result: { records, frame, style, warnings }, stoppedEarly };
}

/** Re-create the file text from records and frame. `texts` overrides record texts (null = drop). */
export function joinRecords(frame: string[], texts: readonly string[]): string {
  let out = frame[0] ?? '';
  for (let i = 0; i < texts.length; i++) out += texts[i] + (frame[i + 1] ?? '');
  return out;
}

/** True when a text looks like JSONL: the first line is a complete object and the next non-empty line starts with `{` (FORMATS.md §8). */
export function looksLikeJsonl(head: string): boolean {
  const s = head.replace(/^\uFEFF/, '').trimStart();
  if (!s.startsWith('{')) return false;
  const nl = s.indexOf('\n');
  const first = (nl < 0 ? s : s.slice(0, nl)).trim();
  try {
    const v = JSON.parse(first);
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  } catch {
    return false;
  }
  if (nl < 0) return true; // a single-line file: one record
  const rest = s.slice(nl + 1).trimStart();
  return rest === '' || rest.startsWith('{');
}

/**
 * Lines of another format in a JSONL file (a Claude Code session and a Codex rollout pasted into
 * one file): the importer keeps them as records for export but shows nothing of them, so they are
 * said, once, with the first line and the count, instead of vanishing without a word.
 */
export function foreignLinesWarning(records: readonly SourceRecord[], isForeign: (v: Record<string, unknown>) => boolean, what: string, ours: string): ImportWarning[] {
  let n = 0;
  let first = 0;
  for (const r of records) {
    const v = r.value;
    if (typeof v !== 'object' || v === null || Array.isArray(v) || !isForeign(v as Record<string, unknown>)) continue;
    if (n++ === 0) first = r.line;
  }
  if (n === 0) return [];
  return [{ code: 'skipped:foreign-lines', message: `${n} line(s) are ${what}, not ${ours} (first: line ${first}); they are kept for export but not shown or counted.`, line: first }];
}

const CODEX_LINE_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);
/** A Codex rollout line: {timestamp, type: session_meta|response_item|…, payload}. */
export const isCodexLine = (v: Record<string, unknown>) => typeof v.type === 'string' && CODEX_LINE_TYPES.has(v.type) && 'payload' in v;
/** An OpenAI Chat request or fine-tuning line: {messages: [...]} (no `type`, which every Claude Code and Codex line has). */
export const isChatMessagesLine = (v: Record<string, unknown>) => !('type' in v) && Array.isArray(v.messages);
/** A line of no format we read as lines: an object without a string `type` (and not a chat line). */
export const isUntypedLine = (v: Record<string, unknown>) => typeof v.type !== 'string' && !isChatMessagesLine(v);
/** A Claude Code transcript line: {type: user|assistant, message, uuid?}. */
export const isClaudeCodeLine = (v: Record<string, unknown>) => (v.type === 'user' || v.type === 'assistant') && typeof v.message === 'object' && v.message !== null && !('payload' in v);
