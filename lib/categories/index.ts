/**
 * The five categories of what an agent needs after a compaction, extracted in ONE place so that
 * stubs, summaries, the lost report (Report → Lost, `compact --report-json`) and the compaction
 * ledger count the same things the same way:
 *
 *  category      one item per distinct …                                  `text` of the item
 *  ------------  ------------------------------------------------------   --------------------------
 *  instructions  message the user typed (not harness-injected: system      the whole message, trimmed
 *                reminders, command output, `meta` and side-chain text
 *                are not; lib/categories/tools.ts isHarnessText)
 *  paths         file a tool call touched: read, edited, created, deleted,  the path as the call gave it
 *                searched or listed (tools.ts fileEffectsOfCall: every
 *                harness's file tools, shell verbs, apply_patch, editors)
 *  commands      shell command run (a call of a shell tool: Bash,            the command, whitespace
 *                exec_command, run_shell_command, …)                          collapsed
 *  errors        error line of a tool result (lib/categories/signal.ts:      the line, trimmed
 *                failing tests, assertions, errors, non-zero exit codes).
 *                A result the format flags as failed (`isError`) is read as
 *                plain output whatever its tool; otherwise by the tool's
 *                output category, so a file that merely holds the word
 *                `Error` is not an error
 *  figures       measured figure in the output of a shell or generic tool   the figure as printed:
 *                (not file text, not search matches): pass/fail counts,       "17 passed", "0.67s",
 *                durations and sizes on a line that reports a run, coverage   "1.2 MB", "87%"
 *                percentages
 *
 * Usage:
 *
 *   const items = extractCategories(log.messages.slice(a, b));       // or a projection's messages
 *   const s = survivalOf(items, modelTextOf(projection.messages));   // what the model is still sent
 *   s.commands.kept / s.commands.of;  s.errors.lost;                 // per category
 *
 * `extractCategories` takes log messages (lib/model/types Message) or projected ones
 * (lib/model/projection ProjectedMessage): anything shaped like SpanMessage. It skips side chains and
 * the messages a projection made (summaries, notices): those are what is sent, not what happened.
 * Items are deduplicated by `key` (category + normalized text), first occurrence first, and carry
 * where they first appeared (`messageId`: the log message id or a projected message's `sourceId`;
 * `blockId`: the log block id; `turn`, 0-based) and, for commands, errors and figures, the tool.
 *
 * `survivalOf(items, modelText)` tells, per category, how many items are still present in
 * `modelText` (the text the model is sent; `modelTextOf` renders projected messages to it, or pass an
 * export's text) and which are lost. Presence is a word-level match, case-insensitive, blind to
 * punctuation, quoting and line breaks (a summary that writes a command in backticks or quotes a
 * message after "> " keeps it):
 *  - instructions: every word of the message, in order (all its 4-word runs);
 *  - paths: the file's name (its last path segment) appears as a word or as a path's last segment:
 *    a file name counts as kept (a summary may shorten `/repo/src/a.ts` to `src/a.ts` or `a.ts`);
 *  - commands: the command in compact form: its first 100 characters, whitespace collapsed (a long
 *    command's tail is a heredoc body or an argument list; the offline summary quotes that head);
 *  - errors: the line's first 150 characters (stubs clip a line at 200);
 *  - figures: the figure as printed ("17 passed").
 * `survivalIndex(modelText)` builds the lookup once when several item lists are checked against one
 * text (the ledger, per compaction); `survivalOf` accepts it in place of the text.
 *
 * No model, no clock, no randomness; transcript text is untrusted and never evaluated; every
 * extracted string is bounded. Below lib/compaction and lib/summarize: imports neither.
 */
import { errorLinesOf, formatRecordsErrors, resultCategory, type OutputCategory } from './signal';
import { decodeResult, resultLinesText } from './decode-result';
import { callArguments, callSubject, defaultOutputCategory, fileEffectsOfCall, isShellTool, isTypedByUser } from './tools';
export { hasTypedText, isTypedByUser } from './tools';

export type Category = 'instructions' | 'paths' | 'commands' | 'errors' | 'figures';

/** The categories in the order reports list them. */
export const CATEGORIES: readonly Category[] = Object.freeze(['instructions', 'paths', 'commands', 'errors', 'figures'] as const);

export interface CategoryItem {
  category: Category;
  /** What the item is, as the log has it (see the table above); bounded (MAX_TEXT characters). */
  text: string;
  /** `${category}:${normalized text}`: one item per key. */
  key: string;
  /** Where it first appeared: the log message id (a projected message's `sourceId`). */
  messageId?: string;
  /** The log block it first appeared in (a projected block's `sourceBlockId`, else its id). */
  blockId?: string;
  /** 0-based turn of its first appearance. */
  turn?: number;
  /** Turns (0-based) where it appeared, in order, without repeats (at most 50). */
  turns?: number[];
  /** Commands, errors, figures: the tool that ran it or printed it. */
  tool?: string;
  /** Commands: how its latest run ended, when the result says (see CommandOutcome). */
  outcome?: CommandOutcome;
  /** Errors: whether the result holding it is flagged as failed by the format. */
  flagged?: boolean;
}

/** How a command's run ended, read from its result. */
export interface CommandOutcome {
  /** 'error': flagged by the format or a non-zero exit code; 'ok': exit code 0 or a success flag the format records; else 'unknown'. */
  status: 'ok' | 'error' | 'unknown';
  exitCode?: number;
  /** The pass/fail counts the output reports ("3 failed, 12 passed"), when it does. */
  tally?: string;
  /** The one line that says how it ended: the tally line, else the last error line, else the last non-empty line (clipped to 200). */
  line?: string;
}

/** The fields of a message extractCategories reads: a log Message or a ProjectedMessage. */
export interface SpanMessage {
  id?: string;
  sourceId?: string;
  role: string;
  turn: number;
  blocks: readonly SpanBlock[];
  meta?: boolean;
  sidechain?: boolean;
  synthetic?: 'summary' | 'notice';
}

export type SpanBlock =
  | { kind: 'text' | 'reasoning' | 'summary' | 'opaque'; id: string; text: string; sourceBlockId?: string }
  | { kind: 'tool_call'; id: string; callId: string; name: string; input: unknown; rawInput?: string; sourceBlockId?: string }
  | { kind: 'tool_result'; id: string; callId: string; name?: string; content: string; isError: boolean; sourceBlockId?: string }
  | { kind: 'attachment'; id: string; text?: string; sourceBlockId?: string };

export interface ExtractOptions {
  /** The output category of a tool (default: the default tool hints'); pass `(n) => outputCategoryFor(n, hints)` to honour a user's hints. */
  categoryOf?: (tool: string | undefined) => OutputCategory;
  /** The log's format id: where it records failures (signal.ts formatRecordsErrors), a command without the flag ended ok. */
  format?: string;
}

/** An item's text is bounded: a user message is kept whole up to this, anything else is clipped far below it. */
const MAX_TEXT = 100_000;
const MAX_LINE = 300;
const MAX_TURNS = 50;

// ---------------------------------------------------------------------------------------------
// Figures

const COUNT_WORDS = String.raw`passed|failed|failing|passing|skipped|errors?|xfailed|xpassed|deselected|warnings?|tests?|pending|todo|total|suites?|assertions?|examples?|specs?|checks?|ok|succeeded|failures?`;
/** A pass/fail count: "17 passed", "3 failed", "Tests: 12 total", "Ran 4 tests", "2 failures". */
const COUNT_RE = new RegExp(String.raw`\b\d[\d,]*\s(?:${COUNT_WORDS})\b`, 'gi');
/** Lines that hold a tally (the line a run ends with). */
const TALLY_LINE_RE = new RegExp(String.raw`\b\d[\d,]*\s(?:passed|failed|failing|passing|skipped|errors?|tests?|failures?|succeeded)\b|^test result:|^Tests?:|^Test Files|^Ran \d+ tests?|^OK\b|^FAILED \(`, 'i');
/** A duration or size with its unit. */
const MEASURE_RE = /(?<![\w.:/-])\d+(?:\.\d+)?\s?(?:ms|µs|us|ns|s|sec|secs|seconds|min|mins|minutes|h|KB|kB|KiB|MB|MiB|GB|GiB|B|bytes|tokens?\/s|ops\/s|req\/s|it\/s)(?![\w/])/g;
/** A line that reports a run (a duration or a size there is a measurement, not a timestamp or an argument). */
const MEASURE_LINE_RE = /\b(?:in|took|duration|time|elapsed|real|user|sys|done|finished|completed|ran|passed|failed|total|size|bundle|built|wrote|compiled|speed|throughput|latency|mean|median|avg|average|p\d\d|min|max|memory|rss|heap)\b/i;
/** A coverage figure: a percentage on a coverage line. */
const COVERAGE_LINE_RE = /\bcover(?:age|ed)?\b|^TOTAL\b|^All files\b|\bStmts\b|\bStatements\b|\bBranches\b|\bLines\s*:/i;
const PERCENT_RE = /(?<![\w.])\d+(?:\.\d+)?%/g;
/** Lines longer than this are not summary lines (minified output, data). */
const FIGURE_LINE_MAX = 400;
/** At most this many figures per result (a benchmark table prints hundreds). */
const FIGURES_PER_RESULT = 40;

/** The measured figures a tool output prints, in order, distinct (see the table above). */
export function figuresOf(content: string): string[] {
  if (!content) return [];
  const out = new Set<string>();
  const text = content.length > 400_000 ? content.slice(0, 200_000) + '\n' + content.slice(-200_000) : content;
  for (const raw of text.split('\n')) {
    if (out.size >= FIGURES_PER_RESULT) break;
    const line = raw.trim();
    if (line.length < 3 || line.length > FIGURE_LINE_MAX || !/\d/.test(line)) continue;
    // A numbered file line (a viewer showing a file) is file text.
    if (/^\d+(?:[→\t|]|:\s)/.test(line)) continue;
    const tally = TALLY_LINE_RE.test(line);
    if (tally) for (const m of line.matchAll(COUNT_RE)) out.add(m[0].replace(/\s+/g, ' '));
    if (tally || MEASURE_LINE_RE.test(line)) for (const m of line.matchAll(MEASURE_RE)) out.add(m[0].replace(/\s+/g, ' '));
    if (COVERAGE_LINE_RE.test(line)) for (const m of line.matchAll(PERCENT_RE)) out.add(m[0]);
  }
  return [...out].slice(0, FIGURES_PER_RESULT);
}

/** The last line of an output that reports a tally (`==== 17 passed in 0.67s ====`), trimmed and clipped to 200, when one does. */
export function tallyLineOf(content: string): string | undefined {
  const lines = content.length > 40_000 ? content.slice(-40_000).split('\n') : content.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const l = lines[i].trim();
    if (l && l.length <= FIGURE_LINE_MAX && TALLY_LINE_RE.test(l) && COUNT_RE.test(l)) {
      COUNT_RE.lastIndex = 0;
      return clipText(l, 200);
    }
    COUNT_RE.lastIndex = 0;
  }
  return undefined;
}

/** The pass/fail tally of an output ("3 failed, 12 passed"), from its last tally line. */
export function tallyOf(content: string): string | undefined {
  const lines = content.length > 40_000 ? content.slice(-40_000).split('\n') : content.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const l = lines[i].trim();
    if (!l || l.length > FIGURE_LINE_MAX || !TALLY_LINE_RE.test(l)) continue;
    const counts = [...l.matchAll(COUNT_RE)].map((m) => m[0].replace(/\s+/g, ' '));
    if (counts.length) return counts.join(', ');
  }
  return undefined;
}

const ANY_EXIT_RE = /(?:exit(?:ed)?[ _-]?(?:with )?(?:code|status)|Exit code|return ?code)["'\s:=]*(-?\d+)\b/i;

/** How a command's result says it ended (see CommandOutcome). `recordsErrors`: the format records failures, so "not flagged" means ok. */
export function commandOutcome(content: string, isError: boolean, recordsErrors = false): CommandOutcome {
  const bounded = content.length > 40_000 ? content.slice(0, 20_000) + '\n' + content.slice(-20_000) : content;
  const exit = ANY_EXIT_RE.exec(bounded);
  const exitCode = exit ? Number(exit[1]) : undefined;
  const status: CommandOutcome['status'] = isError || (exitCode !== undefined && exitCode !== 0) ? 'error' : exitCode === 0 || recordsErrors ? 'ok' : 'unknown';
  // A Codex shell result is a JSON string ({"output": …, "metadata": …}): its lines are the output's.
  const text = decodeResult(bounded).text;
  const tally = tallyOf(text);
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
  let line: string | undefined;
  for (let i = lines.length - 1; i >= 0 && !line; i--) if (lines[i].length <= FIGURE_LINE_MAX && TALLY_LINE_RE.test(lines[i])) line = lines[i];
  if (!line && status === 'error') line = errorLinesOf(text, 'generic').at(-1);
  line ??= lines.at(-1);
  return { status, ...(exitCode !== undefined ? { exitCode } : {}), ...(tally ? { tally } : {}), ...(line ? { line: clipText(line, 200) } : {}) };
}

// ---------------------------------------------------------------------------------------------
// Extraction

function clipText(s: string, max: number): string {
  return s.length > max ? s.slice(0, max - 1) + '…' : s;
}

function normalize(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/**
 * Every item of the five categories in `messages`, deduplicated by key, first appearance first
 * (all instructions, then paths, commands, errors, figures: within a category in log order).
 */
export function extractCategories(messages: readonly SpanMessage[], options: ExtractOptions = {}): CategoryItem[] {
  const categoryOf = options.categoryOf ?? defaultOutputCategory;
  const recordsErrors = formatRecordsErrors(options.format);
  const byCategory: Record<Category, Map<string, CategoryItem>> = { instructions: new Map(), paths: new Map(), commands: new Map(), errors: new Map(), figures: new Map() };
  const calls = new Map<string, { name: string; command?: CategoryItem }>();
  const editorState: { currentFile?: string } = {};
  const add = (category: Category, text: string, where: { messageId?: string; blockId?: string; turn: number; tool?: string }, extra: Partial<CategoryItem> = {}): CategoryItem => {
    const norm = normalize(text);
    const key = `${category}:${category === 'paths' ? norm : norm.toLowerCase()}`;
    const map = byCategory[category];
    let item = map.get(key);
    if (!item) {
      item = { category, text: clipText(category === 'instructions' ? text.trim() : norm, category === 'instructions' ? MAX_TEXT : MAX_LINE * 4), key, ...where, turns: [where.turn], ...extra };
      if (where.tool === undefined) delete item.tool;
      map.set(key, item);
    } else {
      if (item.turns!.at(-1) !== where.turn && item.turns!.length < MAX_TURNS) item.turns!.push(where.turn);
      Object.assign(item, extra);
    }
    return item;
  };
  for (const m of messages) {
    if (m.sidechain || m.synthetic) continue;
    const messageId = m.sourceId ?? m.id;
    for (const b of m.blocks) {
      const where = { messageId, blockId: b.sourceBlockId ?? b.id, turn: m.turn };
      if (b.kind === 'text') {
        if (isTypedByUser(m, b)) add('instructions', b.text, where);
      } else if (b.kind === 'tool_call') {
        const args = callArguments(b);
        const call: { name: string; command?: CategoryItem } = { name: b.name };
        calls.set(b.callId, call);
        for (const e of fileEffectsOfCall(b.name, args, editorState)) if (e.action !== 'mentioned' && e.path.trim() && e.path.length <= 500) add('paths', e.path.trim(), where);
        if (isShellTool(b.name)) {
          const command = callSubject(b.name, args);
          if (command.trim()) call.command = add('commands', command, { ...where, tool: b.name });
        }
      } else if (b.kind === 'tool_result') {
        const name = calls.get(b.callId)?.name ?? b.name;
        const content = b.content ?? '';
        const category = resultCategory(b, categoryOf(name));
        for (const line of errorLinesOf(content, category)) add('errors', line, { ...where, tool: name }, b.isError ? { flagged: true } : {});
        if (category === 'head-tail' || category === 'generic') for (const f of figuresOf(resultLinesText(content))) add('figures', f, { ...where, tool: name });
        const command = calls.get(b.callId)?.command;
        if (command) command.outcome = commandOutcome(content, b.isError, recordsErrors);
      }
    }
  }
  return CATEGORIES.flatMap((c) => [...byCategory[c].values()]);
}

// ---------------------------------------------------------------------------------------------
// Survival

/** Words as presence compares them: lower-cased, split at anything but letters, digits and `_ . / @ - %`, edge dots and dashes dropped. */
export function presenceWords(s: string): string[] {
  return s
    .toLowerCase()
    .split(/[^\p{L}\p{N}_./@%-]+/u)
    .map((w) => w.replace(/^[.\-]+|[.\-]+$/g, ''))
    .filter(Boolean);
}

const SHINGLE = 4;
/** Error lines are matched on their first this many characters, commands on COMMAND_CHARS (see the file comment). */
const MATCH_CHARS = 150;
const COMMAND_CHARS = 100;

/** What isPresent asks of an index: membership. */
export interface Lookup {
  has(key: string): boolean;
}

/** A text indexed for survivalOf: word runs of 1–4 words (runs[n]: the n-word runs), and file names. */
export interface SurvivalIndex {
  readonly runs: readonly Lookup[];
  readonly names: Lookup;
}

/** Index `modelText` once for several survivalOf calls. */
export function survivalIndex(modelText: string): SurvivalIndex {
  const runs = [new Set<string>(), new Set<string>(), new Set<string>(), new Set<string>(), new Set<string>()];
  const names = new Set<string>();
  const w = presenceWords(modelText);
  for (let i = 0; i < w.length; i++) {
    const word = w[i];
    const bare = word.endsWith('/') ? word.replace(/\/+$/, '') : word;
    const slash = bare.lastIndexOf('/');
    names.add(slash >= 0 ? bare.slice(slash + 1) : bare);
    let run = word;
    runs[1].add(run);
    for (let n = 2; n <= SHINGLE && i + n <= w.length; n++) {
      run += ' ' + w[i + n - 1];
      runs[n].add(run);
    }
  }
  return { runs, names };
}

/** The words isPresent looks up for an item: its word runs (of the length hasWords reads) and, for a path, its file name. */
export function queriesOf(item: CategoryItem): { runs: string[]; name?: string } {
  const words = (text: string): string[] => {
    const w = presenceWords(text);
    const n = Math.min(SHINGLE, w.length);
    const out: string[] = [];
    for (let i = 0; i + n <= w.length; i++) out.push(w.slice(i, i + n).join(' '));
    return out;
  };
  switch (item.category) {
    case 'paths': {
      const name = presenceWords(item.text.split('/').filter(Boolean).at(-1) ?? item.text).join(' ');
      return { runs: words(name), name };
    }
    case 'commands':
      return { runs: words(head(item.text, COMMAND_CHARS)) };
    case 'errors':
      return { runs: words(head(item.text, MATCH_CHARS)) };
    default:
      return { runs: words(item.text) };
  }
}

/** The runs (by length) and file names a set of items looks up, and the first words of those runs. */
export interface SurvivalWanted {
  readonly runs: readonly Set<string>[];
  readonly names: Set<string>;
  readonly firsts: Set<string>;
}

export function survivalWanted(items: readonly CategoryItem[]): SurvivalWanted {
  const runs = [new Set<string>(), new Set<string>(), new Set<string>(), new Set<string>(), new Set<string>()];
  const names = new Set<string>();
  const firsts = new Set<string>();
  for (const item of items) {
    const q = queriesOf(item);
    if (q.name) names.add(q.name);
    for (const r of q.runs) {
      const sp = r.indexOf(' ');
      firsts.add(sp < 0 ? r : r.slice(0, sp));
      runs[r.split(' ').length].add(r);
    }
  }
  return { runs, names, firsts };
}

/**
 * Every wanted run and file name `w` holds: `onRun(n, run)` for an n-word run, `onName(name)` for a
 * file name (a run is built only where the words have the first word of a wanted run).
 */
export function scanWanted(w: readonly string[], wanted: SurvivalWanted, onRun: (n: number, run: string) => void, onName: (name: string) => void): void {
  const { runs, names, firsts } = wanted;
  if (firsts.size === 0 && names.size === 0) return;
  for (let i = 0; i < w.length; i++) {
    const word = w[i];
    if (names.size) {
      const bare = word.endsWith('/') ? word.replace(/\/+$/, '') : word;
      const slash = bare.lastIndexOf('/');
      const name = slash >= 0 ? bare.slice(slash + 1) : bare;
      if (names.has(name)) onName(name);
    }
    if (!firsts.has(word)) continue;
    let run = word;
    if (runs[1].has(run)) onRun(1, run);
    for (let n = 2; n <= SHINGLE && i + n <= w.length; n++) {
      run += ' ' + w[i + n - 1];
      if (runs[n].has(run)) onRun(n, run);
    }
  }
}

/**
 * survivalIndex restricted to what `items` look up (issue 31): the same answers for those items,
 * without a set entry for every 1–4 word run of the whole model text (most of a 3,000-turn
 * preview's time). A run is built only where the text has the first word of a wanted run.
 */
export function survivalIndexFor(items: readonly CategoryItem[], modelText: string | readonly string[]): SurvivalIndex {
  const wanted = survivalWanted(items);
  const runs = [new Set<string>(), new Set<string>(), new Set<string>(), new Set<string>(), new Set<string>()];
  const names = new Set<string>();
  if (wanted.firsts.size === 0 && wanted.names.size === 0) return { runs, names };
  const w = typeof modelText === 'string' ? presenceWords(modelText) : modelText;
  scanWanted(w, wanted, (n, run) => runs[n].add(run), (name) => names.add(name));
  return { runs, names };
}

function hasWords(index: SurvivalIndex, text: string): boolean {
  const w = presenceWords(text);
  if (w.length === 0) return true;
  const n = Math.min(SHINGLE, w.length);
  const set = index.runs[n];
  for (let i = 0; i + n <= w.length; i++) if (!set.has(w.slice(i, i + n).join(' '))) return false;
  return true;
}

/** Cut at the last whole word within `max` characters. */
function head(text: string, max: number): string {
  const first = text.split('\n')[0];
  if (first.length <= max) return first;
  const cut = first.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return space > max / 2 ? cut.slice(0, space) : cut;
}

/** Whether an item is still present in the indexed text (the rules of the file comment). */
export function isPresent(item: CategoryItem, index: SurvivalIndex): boolean {
  switch (item.category) {
    case 'paths': {
      const name = presenceWords(item.text.split('/').filter(Boolean).at(-1) ?? item.text).join(' ');
      return name === '' || index.names.has(name) || hasWords(index, name);
    }
    case 'commands':
      return hasWords(index, head(item.text, COMMAND_CHARS));
    case 'errors':
      return hasWords(index, head(item.text, MATCH_CHARS));
    default:
      return hasWords(index, item.text);
  }
}

export type Survival = Record<Category, { kept: number; of: number; lost: CategoryItem[] }>;

/** Per category: how many of `items` are still present in the text the model is sent, and which are lost (in item order). */
export function survivalOf(items: readonly CategoryItem[], modelText: string | SurvivalIndex): Survival {
  const index = typeof modelText === 'string' ? survivalIndexFor(items, modelText) : modelText;
  const out = Object.fromEntries(CATEGORIES.map((c) => [c, { kept: 0, of: 0, lost: [] as CategoryItem[] }])) as Survival;
  for (const item of items) {
    const s = out[item.category];
    s.of++;
    if (isPresent(item, index)) s.kept++;
    else s.lost.push(item);
  }
  return out;
}

/** The string values of a call's arguments, joined (what a model reads of them, without JSON escapes). */
function argumentText(input: unknown, depth = 0): string {
  if (typeof input === 'string') return input;
  if (depth > 6 || input === null || typeof input !== 'object') return input === undefined || input === null ? '' : String(input);
  const parts: string[] = [];
  for (const v of Array.isArray(input) ? input : Object.values(input as Record<string, unknown>)) {
    const t = argumentText(v, depth + 1);
    if (t) parts.push(t);
  }
  return parts.join('\n');
}

/**
 * The text the model is sent, for survivalOf: every block of every message but side chains (tool
 * calls as their name and argument values, results as their content), one after the other.
 */
export function modelTextOf(messages: readonly SpanMessage[]): string {
  const parts: string[] = [];
  for (const m of messages) {
    if (m.sidechain) continue;
    for (const b of m.blocks) parts.push(blockModelText(b));
  }
  return parts.join('\n');
}

function blockModelText(b: SpanMessage['blocks'][number]): string {
  if (b.kind === 'tool_call') return b.name + '\n' + argumentText(typeof b.input === 'string' ? b.input : callArguments(b));
  if (b.kind === 'tool_result') return b.content;
  if (b.kind === 'attachment') return b.text ?? '';
  return b.text;
}

const blockWords = new WeakMap<object, readonly string[]>();

/**
 * presenceWords(modelTextOf(messages)), from words cached per block (issue 31: a preview's blocks
 * are mostly the log's, the same objects from one preview to the next). The same words: the parts
 * are joined by a newline, which presenceWords splits on.
 */
export function modelWordsOf(messages: readonly SpanMessage[]): string[] {
  const out: string[] = [];
  for (const m of messages) {
    if (m.sidechain) continue;
    for (const b of m.blocks) {
      const w = blockPresenceWords(b);
      for (let i = 0; i < w.length; i++) out.push(w[i]);
    }
  }
  return out;
}

/** presenceWords of the text the model is sent of one block, cached per block object. */
export function blockPresenceWords(b: SpanMessage['blocks'][number]): readonly string[] {
  let w = blockWords.get(b);
  if (!w) blockWords.set(b, (w = presenceWords(blockModelText(b))));
  return w;
}

export type { OutputCategory } from './signal';
