/**
 * The lines of a tool result that an agent needs after compaction: what failed, and where.
 * Stubs (strip-tool-results, tool-hints, tool-retention), smart truncation, the offline summarizer,
 * the lost report and the corpus retention test all use these patterns, so "kept the error" means
 * the same thing everywhere.
 *
 * Each line of a result (trimmed) is tested against the patterns below, in this order; the first
 * that matches gives its kind.
 *
 *  kind      pattern (examples)
 *  --------  -----------------------------------------------------------------------------------
 *  test      a failing test: `FAILED tests/a.py::test_x - …` (pytest), `FAIL src/a.test.ts` (Jest,
 *            Vitest, Go), `--- FAIL: TestX` (Go), `test x ... FAILED` (cargo, unittest `... ERROR`),
 *            `not ok 3 - name` (TAP), `✗ / ✕ / × / ✖ name` (mocha, Jest, Vitest), a tally with a
 *            non-zero failure count (`2 failed, 10 passed`, `Tests: 1 failed`, `test result: FAILED`)
 *  assert    an assertion message: pytest's `E   …` lines, `AssertionError…`, `assertion … failed`
 *            (Rust), `Expected: …` / `Received: …` (Jest), `expected … to …` (Chai)
 *  error     an exception or error line: `TypeError: …`, `java.lang.IllegalStateException: …`
 *            (a dotted name ending in Error/Exception/Fault, then `:` or end of line);
 *            `error: …`, `error[E0308]: …`, `src/a.ts(3,5): error TS2322: …`, `a.c:3:5: error: …`,
 *            `fatal: …`, `panic: …`, `npm ERR! …`, a log level `ERROR` / `FATAL` / `CRITICAL`;
 *            system failures (`No such file or directory`, `Permission denied`, `command not found`,
 *            `Segmentation fault`, `Cannot find module`, `ENOENT` / `EACCES` / `ECONNREFUSED` /
 *            `EADDRINUSE`, `Traceback (most recent call last)` is not one: the exception line is);
 *            a harness's own tool error (`<tool_use_error>`, `Error executing tool`)
 *  exit      a non-zero exit code: `Exit code: 1`, `exit status 2`, `exited with code 1`,
 *            `"exit_code": 1`, `returncode=1`, `Command failed with exit code 2`
 *  location  where it broke, kept only when the result has a line of another kind: `File "a.py",
 *            line 3, in f` (Python), `--> src/main.rs:3:5` (Rust), `at f (src/a.ts:3:5)` (JS)
 *
 * A numbered file line (`  12→…`, `12\t…`, `12: …`: a viewer showing a file) is never a signal.
 * By output category (sven's, from the tool hints): shells and generic tools (`head-tail`,
 * `generic`) use every pattern. Searches and listings (`match-list`) print other files' text: a
 * match line (`path:12:…`) is never a signal, and only `exit` and `error` patterns apply. File reads
 * (`file-content`) only yield the tool's own failures (the system-failure and harness patterns of
 * `error`): the file's text itself may say anything.
 */
import { resultLinesText } from './decode-result';

/** sven's output categories (how a tool's output reads): the signal scan depends on them, so they live here. */
export type OutputCategory = 'head-tail' | 'match-list' | 'file-content' | 'generic';

export type SignalKind = 'test' | 'assert' | 'error' | 'exit' | 'location';

export interface SignalLine {
  kind: SignalKind;
  /** 0-based line index in the result. */
  line: number;
  /** The line, trimmed (not clipped). */
  text: string;
}

const TEST_RE: RegExp[] = [
  /^FAILED\s+\S/, // pytest short summary
  /^FAIL(?::|\s)\s*\S/, // Jest, Vitest, Go package
  /^--- FAIL: /, // go test
  /\.\.\.\s*(?:FAILED|FAIL|ERROR)$/, // cargo test, unittest, Django
  /^not ok \d+/, // TAP
  /^(?:[✗✕×✖❌]|\d+\))\s+\S.*(?:fail|error|✗|✕|×|✖)/i, // mocha "1) name" with a failure word, marks
  /^[✗✕×✖❌]\s+\S/, // Jest / Vitest failing test mark
  /\b[1-9]\d* (?:failed|failing|failures?)\b/, // tallies: "2 failed, 10 passed", "3 failing"
  /^test result: FAILED/, // cargo
  /^ERROR\s+\S+::\S/, // pytest collection errors
];
const ASSERT_RE: RegExp[] = [
  /^E\s{2,}\S/, // pytest
  /\bAssertionError\b/,
  /\bassertion\b.*\bfailed\b/i, // Rust assert!, C assert
  /^(?:Expected|Received|expected|received|Actual|actual)(?: value| substring| length)?\s*:/, // Jest
  /^(?:AssertionError: )?expected .+ to (?:be|equal|have|include|deep|match|contain|throw)/i, // Chai
];
const ERROR_RE: RegExp[] = [
  /^(?:[\w$]+\.)*[A-Z][\w$]*(?:Error|Exception|Fault)(?::|$|\s+\()/, // TypeError: x / java.lang.FooException: x
  /(?:^|[\s:)\]])(?:error|fatal|panic)(?:\[[\w-]+\])?(?:\s+[A-Z]+\d+)?\s*:(?!\/)/i, // error: / error[E0308]: / error TS2322:
  /^npm ERR!/,
  /(?:^|[\s\]|])(?:ERROR|FATAL|CRITICAL)\b(?![-_])/, // log levels
  /\b(?:No such file or directory|Permission denied|command not found|Segmentation fault|core dumped|Cannot find module|ModuleNotFoundError|ENOENT|EACCES|ECONNREFUSED|EADDRINUSE)\b/,
  /<tool_use_error>|\bError executing tool\b|\bInputValidationError\b/,
];
const EXIT_RE = /(?:exit(?:ed)?[ _-]?(?:with )?(?:code|status)|Exit code|return ?code)["'\s:=]*(-?[1-9]\d*)\b/i;
const LOCATION_RE: RegExp[] = [
  /^File "[^"]+", line \d+/, // Python traceback
  /^-->\s+\S+:\d+:\d+/, // Rust
  /^at\s+(?:.+\s+\()?\S+:\d+:\d+\)?$/, // JS stack frame
];
/** A grep-style match (`path:12:…`, `path-12-…`). */
const MATCH_LINE_RE = /^[^\s:]+[:-]\d+[:-]/;
/** A numbered file line (`  12→…`, `  12\t…`, `12:…`, `12|…`): file text shown by a viewer, never a signal. */
const NUMBERED_LINE_RE = /^\d+(?:[→\t|]|:\s)/;
/** A tool's own failure (what a file read or search can say about itself). */
const OWN_ERROR_RE: RegExp[] = ERROR_RE.slice(4);

/** The head of a one-line stub (`[compacted] Bash: error — `) or a kept line's mark (`[line 57] `). */
const OWN_MARK_RE = /^\[compacted\] [^\n—]{0,200}? — |^\[line \d+\] /;

/** A result longer than this is scanned in its first and last halves of this size only. */
const SCAN_CHARS = 400_000;
const MAX_LINE = 2_000;

const SIGNAL_WORDS = String.raw`fail|error|exception|fault|fatal|panic|critical|assert|expected|received|actual|exit|return|not ok|no such|permission denied|not found|core dumped|cannot find|enoent|eacces|econnrefused|eaddrinuse|[✗✕×✖❌]`;
/** The words that count only at a line's start (trimmed). */
const SIGNAL_STARTS = String.raw`npm ERR|E\s|File "|-->|at\s`;
/**
 * A line can match a pattern above only if it holds one of these words or starts like one of the
 * anchored patterns: one test rules out most lines of an output (scanning 10k results of an agent
 * run took 123 ms through every pattern). Each alternative stands for the patterns that need it;
 * a corpus test checks that no line any pattern matches is ruled out.
 */
export const MAY_SIGNAL_RE = new RegExp(`${SIGNAL_WORDS}|^(?:${SIGNAL_STARTS})`, 'i');

/**
 * MAY_SIGNAL_RE for a whole text: a line MAY_SIGNAL_RE passes (trimmed, our own mark taken off)
 * holds a match of this one. Its line-start words may follow the text's start, a newline, a stub's
 * "— " or a mark's "] ", after blanks other than a newline, so a match lies within one line but
 * for a newline it may start on. Broader, never narrower: what it lets through is tested line by
 * line as before.
 */
export const TEXT_MAY_SIGNAL_RE = new RegExp(`${SIGNAL_WORDS}|(?:^|\\n|— |\\] )[^\\S\\n]*(?:${SIGNAL_STARTS})`, 'gi');

/**
 * The same for a file read (`file-content`), whose lines can only be the tool's own failures: a
 * line the patterns give a kind holds a match of one of OWN_ERROR_RE, case and all, so those are
 * the pre-test (a third of an agent run's output is file text; one pass over it is 3× faster so).
 */
const TEXT_OWN_ERROR_RE = new RegExp(OWN_ERROR_RE.map((r) => r.source).join('|'), OWN_ERROR_RE.some((r) => r.ignoreCase) ? 'gi' : 'g');

function kindOf(l: string, category: OutputCategory): SignalKind | undefined {
  return MAY_SIGNAL_RE.test(l) ? patternKindOf(l, category) : undefined;
}

/** The kind the patterns give a line, without the pre-test (exported for the test that checks the pre-test against them). */
export function patternKindOf(l: string, category: OutputCategory): SignalKind | undefined {
  if (l.length < 3 || NUMBERED_LINE_RE.test(l)) return undefined;
  if (category === 'file-content') return OWN_ERROR_RE.some((r) => r.test(l)) ? 'error' : undefined;
  const foreign = category === 'match-list';
  if (foreign && MATCH_LINE_RE.test(l)) return undefined;
  if (EXIT_RE.test(l)) return 'exit';
  if (!foreign) {
    if (TEST_RE.some((r) => r.test(l))) return 'test';
    if (ASSERT_RE.some((r) => r.test(l))) return 'assert';
  }
  if (ERROR_RE.some((r) => r.test(l))) return 'error';
  if (!foreign && LOCATION_RE.some((r) => r.test(l))) return 'location';
  return undefined;
}

/** Every signal line of a result, in order (locations only when another kind is present). */
export function signalLines(content: string, category: OutputCategory = 'generic'): readonly SignalLine[] {
  if (!content) return [];
  return remembered(content, category).lines;
}

/**
 * The lines a stub of this result carries: its signal lines picked under STUB_SIGNAL and clipped
 * (util.ts resultStub, withSignal). Remembered like signalLines: every preview stubs the same
 * thousands of results again.
 */
export function stubSignal(content: string, category: OutputCategory = 'generic'): readonly string[] {
  if (!content) return [];
  const e = remembered(content, category, true);
  return (e.stub ??= Object.freeze(pickSignal(e.lines, STUB_SIGNAL).map((s) => clipLine(s.text, STUB_SIGNAL.lineChars))));
}

const SIGNAL_CACHE = 250_000;
const SIGNAL_CACHE_CHARS = 64 * 1024;
/** Outside a log's scope (a summary prompt, a test calling a reducer alone): a small shared cache. */
const SHARED_CACHE = 20_000;

/** What a result's text gives: its signal lines, and the lines of its stub once asked for. */
interface Remembered {
  readonly lines: readonly SignalLine[];
  stub?: readonly string[];
}

/** Per category (raw lines) and `decoded:` category (the lines of resultLinesText), by content. */
type SignalCache = Map<string, Map<string, Remembered>>;
const perLog = new WeakMap<object, SignalCache>();
const shared: SignalCache = new Map();
let scoped: SignalCache | undefined;

/**
 * Run `fn` with the signal cache of `owner` (a log): what its results give is remembered as long
 * as the log lives, and no longer. One cache for every log kept the texts of logs long closed
 * (up to 250k entries per category): a 100k-turn log's first run then marked the last log's
 * texts in its collections, and a closed log's results stayed in memory.
 */
export function withSignalCache<T>(owner: object, fn: () => T): T {
  const outer = scoped;
  let cache = perLog.get(owner);
  if (!cache) perLog.set(owner, (cache = new Map()));
  scoped = cache;
  try {
    return fn();
  } finally {
    scoped = outer;
  }
}

/** Entries of `owner`'s signal cache (or the shared one's), for tests. */
export function signalCacheEntries(owner?: object): number {
  const cache = owner ? perLog.get(owner) : shared;
  let n = 0;
  if (cache) for (const m of cache.values()) n += m.size;
  return n;
}

/**
 * What a result's text gives, remembered: the same results are scanned by several reducers and
 * again at every preview. Up to SIGNAL_CACHE results of up to SIGNAL_CACHE_CHARS (a huge output
 * is not kept alive by the cache) per category and log, keyed by the content itself (a string's
 * hash is computed once and kept); one entry per text for its lines and its stub (one lookup each,
 * not two); frozen, as a result's text never changes.
 */
function remembered(content: string, category: OutputCategory, decoded = false): Remembered {
  const cache = scoped ?? shared;
  const key = decoded ? `decoded:${category}` : category;
  let byContent = cache.get(key);
  if (!byContent) cache.set(key, (byContent = new Map()));
  const hit = byContent.get(content);
  if (hit) return hit;
  // `decoded`: the lines of what the result says (a Codex JSON string's output and exit code,
  // resultLinesText), for error lines and stubs; line numbers then count in that text. The raw
  // lines (signalLines) are what smart truncation cuts.
  const entry: Remembered = { lines: Object.freeze(signalLinesUncached(decoded ? resultLinesText(content) : content, category)) };
  if (content.length > SIGNAL_CACHE_CHARS) return entry;
  if (byContent.size >= (cache === shared ? SHARED_CACHE : SIGNAL_CACHE)) byContent.clear();
  byContent.set(content, entry);
  return entry;
}

function signalLinesUncached(content: string, category: OutputCategory): SignalLine[] {
  if (category !== 'file-content') return scanBounded(content, category);
  // A file read: only the tool's own failures count in a file's text (it may say anything). But
  // the lines of a viewer that numbers the file's lines (`  12→…`, `12\t…`) are told apart: every
  // other line is the tool's own, read with every pattern (a numbered line never is a signal). And
  // a result of one line that reads as an error (`Error: …`, `TypeError: …`) is the tool's message:
  // a tool whose format has no error flag says it failed so, instead of the file (issue 27).
  if (NUMBERED_RE.test(content.length > 4_000 ? content.slice(0, 4_000) : content)) return scanBounded(content, 'generic');
  const lines = scanBounded(content, category);
  if (content.trim().includes('\n')) return lines;
  const head = firstLineOf(content);
  if (!head || lines.some((l) => l.line === head.line)) return lines;
  const k = lineKind(head.text, 'generic');
  if (!k || k.kind !== 'error') return lines;
  return [{ kind: k.kind, line: head.line, text: k.text }, ...lines];
}

/** A numbered file line (a viewer showing a file), at any line start. */
const NUMBERED_RE = /(?:^|\n)\s*\d+(?:[→\t|]|:\s)/;

function firstLineOf(content: string): { line: number; text: string } | undefined {
  let start = 0;
  for (let line = 0; start < content.length && line < 20; line++) {
    const nl = content.indexOf('\n', start);
    const end = nl === -1 ? content.length : nl;
    const text = content.slice(start, Math.min(end, start + MAX_LINE + 1)).trim();
    if (text) return { line, text };
    if (nl === -1) return undefined;
    start = nl + 1;
  }
  return undefined;
}

/**
 * The category a result is read in: a result the format flags as failed (`isError`) is read as
 * plain output whatever its tool, so its error lines count even where the tool's output is file
 * text or search matches (an expired failed `Read` kept no error line: issue 27).
 */
export function resultCategory(r: { isError?: boolean }, category: OutputCategory): OutputCategory {
  return r.isError ? 'generic' : category;
}

function scanBounded(content: string, category: OutputCategory): SignalLine[] {
  if (content.length > 2 * SCAN_CHARS) {
    // Huge output: scan the head and the tail (where failures and tallies print).
    const head = content.slice(0, SCAN_CHARS);
    const tail = content.slice(content.length - SCAN_CHARS);
    const offset = (content.slice(0, content.length - SCAN_CHARS).match(/\n/g) ?? []).length;
    return [...scan(head, category, 0), ...scan(tail, category, offset)];
  }
  return scan(content, category, 0);
}

/**
 * The signal lines of a text. Only the lines holding a match of TEXT_MAY_SIGNAL_RE are read (an
 * output's other lines can hold none): one regular-expression pass over the text instead of a
 * split and a test per line (10k results of an agent run: 52 → 25 ms). The same
 * lines, kinds and numbers as `scanLines`, which the tests hold it to.
 */
function scan(text: string, category: OutputCategory, offset: number): SignalLine[] {
  const out: SignalLine[] = [];
  let other = false;
  const re = category === 'file-content' ? TEXT_OWN_ERROR_RE : TEXT_MAY_SIGNAL_RE;
  re.lastIndex = 0;
  let line = 0; // line number of `lineStart`
  let lineStart = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    // The line holding the match's last character (a match starting at a newline belongs to the next line).
    const at = m.index + m[0].length - 1;
    let nl = text.indexOf('\n', lineStart);
    while (nl !== -1 && nl < at) {
      line++;
      lineStart = nl + 1;
      nl = text.indexOf('\n', lineStart);
    }
    const end = nl === -1 ? text.length : nl;
    const kind = lineKind(text.slice(lineStart, end), category);
    if (kind) {
      if (kind.kind !== 'location') other = true;
      out.push({ kind: kind.kind, line: line + offset, text: kind.text });
    }
    if (nl === -1) break;
    // Go on from this line's newline, so a next line's line-start words can match.
    re.lastIndex = end;
  }
  re.lastIndex = 0;
  return other ? out : [];
}

/** A line's kind and its text as a signal line (trimmed, our own mark taken off), or undefined. */
function lineKind(raw: string, category: OutputCategory): { kind: SignalKind; text: string } | undefined {
  // Our own stubs and truncation marks: the line they carry is the signal (idempotent).
  const trimmed = raw.trim();
  const l = trimmed.charCodeAt(0) === 0x5b /* [ */ ? trimmed.replace(OWN_MARK_RE, '') : trimmed;
  if (!l || l.length > MAX_LINE) return undefined;
  const kind = kindOf(l, category);
  return kind && { kind, text: l };
}

/** The reference scan: every line split out and tested (what `scan` must equal; exported for its test). */
export function scanLines(text: string, category: OutputCategory, offset = 0): SignalLine[] {
  const out: SignalLine[] = [];
  let other = false;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const k = lineKind(lines[i], category);
    if (!k) continue;
    if (k.kind !== 'location') other = true;
    out.push({ kind: k.kind, line: i + offset, text: k.text });
  }
  return other ? out : [];
}

/** `scan` as the module uses it (exported for the test that holds it to `scanLines`). */
export const scanText = (text: string, category: OutputCategory): SignalLine[] => scan(text, category, 0);

/** The lines counted as "error lines" (everything but locations), distinct, for retention tests. */
export function errorLinesOf(content: string, category: OutputCategory = 'generic'): string[] {
  if (!content) return [];
  return [...new Set(remembered(content, category, true).lines.filter((s) => s.kind !== 'location').map((s) => s.text))];
}

const PRIORITY: Record<SignalKind, number> = { test: 0, assert: 1, error: 2, exit: 3, location: 4 };

export interface PickOptions {
  maxLines: number;
  maxChars: number;
  /** A kept line longer than this is clipped (with "…"). */
  lineChars: number;
}

/** A stub's cap: a few lines, a few hundred characters (≈ 150 tokens at most). */
export const STUB_SIGNAL: PickOptions = { maxLines: 6, maxChars: 600, lineChars: 200 };

export function clipLine(text: string, max: number): string {
  return text.length > max ? text.slice(0, max - 1) + '…' : text;
}

/**
 * The signal lines worth keeping under a cap: distinct texts, the most telling kinds first (failing
 * tests, assertions, errors, exit codes, then locations), within a kind the last ones first (tests,
 * compilers and tracebacks end with the reason); returned in source order.
 */
export function pickSignal(lines: readonly SignalLine[], cap: PickOptions): SignalLine[] {
  const distinct = new Map<string, SignalLine>();
  for (const s of lines) if (!distinct.has(s.text)) distinct.set(s.text, s);
  const ranked = [...distinct.values()].sort((a, b) => PRIORITY[a.kind] - PRIORITY[b.kind] || b.line - a.line);
  const picked: SignalLine[] = [];
  let chars = 0;
  for (const s of ranked) {
    if (picked.length >= cap.maxLines) break;
    const len = Math.min(s.text.length, cap.lineChars) + 1;
    if (chars + len > cap.maxChars) continue;
    picked.push(s);
    chars += len;
  }
  return picked.sort((a, b) => a.line - b.line);
}

/**
 * Formats whose tool results record whether they failed (an `is_error` flag, a status, an error
 * field): only there does "ok" mean something. Elsewhere (OpenAI Chat, SWE-agent, mini-swe-agent,
 * Codex / Responses outputs without a status) a result is only known to have failed or succeeded
 * when it says so itself (an exit code).
 */
const RECORDS_ERRORS = new Set(['claude-code', 'claude-code-web', 'claude-code-sdk', 'anthropic-messages', 'gemini-api', 'gemini-cli', 'openhands', 'inspect-ai', 'test']);

export function formatRecordsErrors(format: string | undefined): boolean {
  return format !== undefined && RECORDS_ERRORS.has(format);
}

const ANY_EXIT_RE = /(?:exit(?:ed)?[ _-]?(?:with )?(?:code|status)|Exit code|return ?code)["'\s:=]*(-?\d+)\b/i;

/** 'error' / 'ok' when known (the format's flag, or an exit code the output states), else undefined. */
export function resultStatus(r: { isError: boolean; content: string }, format: string | undefined): 'ok' | 'error' | undefined {
  if (r.isError) return 'error';
  const m = ANY_EXIT_RE.exec(r.content.length > 20_000 ? r.content.slice(0, 10_000) + '\n' + r.content.slice(-10_000) : r.content);
  if (m) return Number(m[1]) === 0 ? 'ok' : 'error';
  return formatRecordsErrors(format) ? 'ok' : undefined;
}
