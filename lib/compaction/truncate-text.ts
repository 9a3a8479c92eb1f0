/**
 * sven's smart truncation (seed 003, layer 4): cut a tool result to a token cap according to the
 * shape of its output, and say what was cut.
 *
 *  - head-tail (shells): keep the first 60 and the last 40 lines (seed 003: "Keep first 60 + last
 *    40 lines") — the command preamble and the final result both stay visible; when even those
 *    100 lines exceed the cap, fewer in the same 60/40 ratio;
 *  - match-list (grep, search): keep the leading matches only;
 *  - file-content (read_file): a balanced head + tail, imports/declarations and the end of file;
 *  - generic: cut at the nearest line boundary.
 * The notice is `[... N lines / B bytes omitted ...]` (+ a hint to re-read, for file reads only).
 * The signal lines of the omitted middle (failing tests, assertions, errors, exit codes and their
 * locations: lib/compaction/signal.ts) follow the notice, each marked `[line N]` with its 1-based
 * line number, inside the same cap (at most 20 lines, and half the cap's characters): a test run
 * whose failure sits between its preamble and its tally still says what failed.
 * The number of lines kept is the largest that fits the cap (binary search), so a short cap on a
 * long-lined file still fits; a single line longer than the cap is cut at a character boundary.
 */
import { clipLine, pickSignal, signalLines, type PickOptions, type SignalLine } from './signal';

export type { OutputCategory } from '../categories/signal';
import type { OutputCategory } from '../categories/signal';

/** Share of kept lines taken from the head. */
const HEAD_SHARE: Record<OutputCategory, number> = { 'head-tail': 0.6, 'match-list': 1, 'file-content': 0.5, generic: 1 };

export interface TruncatedText {
  text: string;
  keptHead: number;
  keptTail: number;
  omittedLines: number;
  omittedBytes: number;
}

export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** The omission notice; the re-read hint only where the result is a file read (`readHint`, default: file-content). */
export function omissionNotice(lines: number, bytes: number, category: OutputCategory, readHint = category === 'file-content'): string {
  const base = `[... ${lines} lines / ${bytes} bytes omitted ...]`;
  return readHint ? `${base}\n[... use read_file with offset/limit to see more ...]` : base;
}

/** Seed 003 HeadTail: the first 60 and the last 40 lines. */
export const HEAD_TAIL_LINES: readonly [number, number] = [60, 40];

function assemble(lines: string[], head: number, tail: number, category: OutputCategory, signal: readonly SignalLine[] = [], signalCap?: PickOptions, readHint?: boolean): TruncatedText {
  const omitted = lines.slice(head, lines.length - tail);
  // Bytes of the omitted lines with their line breaks.
  const bytes = utf8Length(omitted.join('\n')) + omitted.length;
  const notice = omissionNotice(omitted.length, bytes, category, readHint);
  const inMiddle = signalCap ? pickSignal(signal.filter((x) => x.line >= head && x.line < lines.length - tail), signalCap) : [];
  const kept = inMiddle.map((x) => `[line ${x.line + 1}] ${clipLine(x.text, signalCap!.lineChars)}`);
  const parts = [...lines.slice(0, head), notice, ...kept, ...lines.slice(lines.length - tail)];
  return { text: parts.join('\n'), keptHead: head, keptTail: tail, omittedLines: omitted.length, omittedBytes: bytes };
}

function split(kept: number, category: OutputCategory): [number, number] {
  const head = Math.ceil(kept * HEAD_SHARE[category]);
  return [head, kept - head];
}

/**
 * Truncate `text` to at most `capTokens` (as counted by `count`), or return undefined when it
 * already fits. The result always fits the cap unless the cap cannot even hold the notice.
 */
export function truncateToCap(text: string, category: OutputCategory, capTokens: number, count: (s: string) => number, readHint = category === 'file-content'): TruncatedText | undefined {
  if (count(text) <= capTokens) return undefined;
  const lines = text.split('\n');
  const signal = signalLines(text, category);
  const signalCap: PickOptions = { maxLines: 20, maxChars: Math.min(4000, capTokens * 2), lineChars: 300 };
  // Largest number of kept lines (< all) whose assembly fits; head-tail keeps at most 60 + 40.
  let lo = 0;
  let hi = category === 'head-tail' ? Math.min(lines.length - 1, HEAD_TAIL_LINES[0] + HEAD_TAIL_LINES[1]) : lines.length - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    const [h, t] = split(mid, category);
    if (count(assemble(lines, h, t, category, signal, signalCap, readHint).text) <= capTokens) lo = mid;
    else hi = mid - 1;
  }
  if (lo > 0) {
    const [h, t] = split(lo, category);
    return assemble(lines, h, t, category, signal, signalCap, readHint);
  }
  // Not even one line beside the kept signal: try the notice and the signal alone.
  if (signal.length) {
    const alone = assemble(lines, 0, 0, category, signal, signalCap, readHint);
    if (count(alone.text) <= capTokens) return alone;
  }
  // Not even one whole line fits: keep a character prefix of the first line.
  const first = lines[0];
  const restBytes = utf8Length(text) - utf8Length(first);
  let a = 0;
  let b = first.length;
  const make = (chars: number): string =>
    first.slice(0, chars) + '\n' + `[... ${lines.length} lines / ${utf8Length(first.slice(chars)) + restBytes} bytes omitted ...]`;
  while (a < b) {
    const mid = Math.ceil((a + b) / 2);
    if (count(make(mid)) <= capTokens) a = mid;
    else b = mid - 1;
  }
  const omittedBytes = utf8Length(first.slice(a)) + restBytes;
  return { text: make(a), keptHead: a > 0 ? 1 : 0, keptTail: 0, omittedLines: lines.length - (a > 0 ? 1 : 0), omittedBytes };
}
