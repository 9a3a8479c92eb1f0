/**
 * Per-tool compaction hints (RFD D17 `request`/`response`, RFD 036 `response = remove`, `dedup`,
 * subsumption; seed 004 retention) and sven's output categories, as data.
 *
 * The defaults are the RFD tables (fs_read_file, fs_grep_files, cargo_*, fs_create_file,
 * fs_modify_file, git_*) mapped onto the tool names of the harnesses we import: Claude Code,
 * Codex, OpenHands, SWE-agent, Gemini CLI and generic function-calling agents. A user's config
 * (lib/compaction/config.ts) overrides them tool by tool.
 */
import type { OutputCategory } from './truncate-text';

export type RequestMode = 'keep' | 'strip';
export type ResponseMode = 'keep' | 'strip' | 'remove';

export interface RetentionHint {
  /** 'age': the full result lives `turns` turns; 'count': the newest `keep` results of this tool live. */
  mode: 'age' | 'count';
  turns?: number;
  keep?: number;
  /** Durable facts: never expire (seed 004). */
  neverEvict?: boolean;
}

/**
 * How a read-like tool's arguments map to the lines it returned (for subsumption): where an
 * `offset` counts from, and how many lines a call without `limit` returns. Claude Code's Read
 * returns at most 2,000 lines from `offset` (1-based), so a plain Read covers lines 1–2000, not
 * the whole file. Absent = a call without an end reads to the end of the file.
 */
export interface LineSemantics {
  offsetBase: 0 | 1;
  defaultLimit?: number;
}

export interface ToolHint {
  request?: RequestMode;
  response?: ResponseMode;
  /**
   * Identical later calls (or subsuming ones) make older ones redundant. 'read-only': only when
   * the call is a shell command known to change nothing (`cat`, `ls`, `grep`, `git status`, …):
   * an earlier `git push` or `npm install` is an action, never a duplicate.
   */
  dedup?: boolean | 'read-only';
  /** Which subsumption rule applies beyond equality. */
  subsumes?: 'line-range';
  /** The line semantics of the tool's range arguments (with `subsumes: 'line-range'`). */
  lines?: LineSemantics;
  retention?: RetentionHint;
  /** sven's OutputCategory, for truncate-tool-results. */
  category?: OutputCategory;
}

export type ToolHints = Record<string, ToolHint>;

// Families: one hint per family, names per harness (case-insensitive lookup). Retention (seed 004):
// repeatedly-called tools whose newest calls are what matters keep their newest N results
// (count); others live N turns (age, the seed's default); durable facts never expire.
const READ: ToolHint = { request: 'keep', response: 'strip', dedup: true, subsumes: 'line-range', retention: { mode: 'count', keep: 8 }, category: 'file-content' };
/** Claude Code `Read` {file_path, offset (1-based), limit}: at most 2,000 lines per call. */
const CC_READ: ToolHint = { ...READ, lines: { offsetBase: 1, defaultLimit: 2000 } };
const SEARCH: ToolHint = { request: 'keep', response: 'strip', dedup: true, retention: { mode: 'count', keep: 5 }, category: 'match-list' };
const LIST: ToolHint = { request: 'keep', response: 'strip', dedup: true, retention: { mode: 'count', keep: 5 }, category: 'match-list' };
/** Build/check tools (JP cargo_check, cargo_test): a later identical run supersedes an earlier one. */
const BUILD: ToolHint = { request: 'keep', response: 'strip', dedup: true, retention: { mode: 'count', keep: 3 }, category: 'head-tail' };
/** Shells run anything: a command is deduplicated only when it is known to be read-only. */
const SHELL: ToolHint = { request: 'keep', response: 'strip', dedup: 'read-only', retention: { mode: 'count', keep: 10 }, category: 'head-tail' };
/** Interpreters and debuggers: state changes with every call, never a duplicate. */
const INTERPRETER: ToolHint = { request: 'keep', response: 'strip', dedup: false, retention: { mode: 'count', keep: 10 }, category: 'head-tail' };
const CREATE: ToolHint = { request: 'strip', response: 'keep', dedup: false, retention: { mode: 'age', turns: 5 }, category: 'generic' };
const MODIFY: ToolHint = { request: 'strip', response: 'strip', dedup: false, retention: { mode: 'age', turns: 5 }, category: 'generic' };
const WEB: ToolHint = { request: 'keep', response: 'strip', dedup: true, retention: { mode: 'count', keep: 3 }, category: 'generic' };
const COMMIT: ToolHint = { request: 'strip', response: 'keep', dedup: false, retention: { mode: 'age', turns: 5 }, category: 'generic' };
const DIFF: ToolHint = { request: 'keep', response: 'strip', dedup: true, retention: { mode: 'count', keep: 3 }, category: 'head-tail' };
/** Sub-agent results are the distilled outcome of a whole side chain: durable. */
const AGENT: ToolHint = { request: 'keep', response: 'keep', dedup: false, retention: { mode: 'age', neverEvict: true }, category: 'generic' };
/** Memory tools hold what the agent chose to remember: durable facts, never evicted. */
const MEMORY: ToolHint = { request: 'keep', response: 'keep', dedup: false, retention: { mode: 'age', neverEvict: true }, category: 'generic' };
/** SWE-agent's windowed viewer: a re-open of the same window is a duplicate, but a window is not a line range we can compare. */
const WINDOW: ToolHint = { request: 'keep', response: 'strip', dedup: true, retention: { mode: 'count', keep: 5 }, category: 'file-content' };
/**
 * Multi-command editors (OpenHands str_replace_editor, Anthropic's text editor): edits are actions
 * (never deduplicated), `view` commands are reads (deduplicated and subsumed by line range).
 */
const EDITOR: ToolHint = { request: 'strip', response: 'strip', dedup: false, subsumes: 'line-range', retention: { mode: 'count', keep: 8 }, category: 'file-content' };
/**
 * sven's `fs` tool {operation, path, text}: FileContent (seed 003); its `read` operation is a
 * read (deduplicated, subsumed: a later whole-file read covers it), write/append are actions.
 */
const FS: ToolHint = { request: 'keep', response: 'strip', dedup: false, subsumes: 'line-range', retention: { mode: 'count', keep: 8 }, category: 'file-content' };
/** Todo lists: every call restates the whole list, so older inputs are obsolete. */
const TODO: ToolHint = { request: 'strip', response: 'keep', dedup: false, retention: { mode: 'count', keep: 1 }, category: 'generic' };

const FAMILIES: Array<[ToolHint, string[]]> = [
  [READ, ['fs_read_file', 'read_file', 'NotebookRead', 'view', 'cat_file', 'view_file', 'read_many_files', 'open_file']],
  [CC_READ, ['Read']],
  [SEARCH, ['fs_grep_files', 'grep', 'Grep', 'search_codebase', 'read_lints', 'search_dir', 'search_file', 'find_file', 'search_file_content', 'codebase_search', 'grep_search', 'ripgrep', 'file_search']],
  [LIST, ['fs_list_files', 'list_files', 'Glob', 'glob', 'LS', 'ls', 'list_dir', 'list_directory', 'find', 'find_files']],
  [BUILD, ['cargo_check', 'cargo_test']],
  [SHELL, ['Bash', 'bash', 'shell', 'exec_command', 'local_shell', 'container.exec', 'execute_bash', 'run_terminal_command', 'run_shell_command', 'run_command', 'terminal', 'execute_command']],
  [INTERPRETER, ['BashOutput', 'write_stdin', 'python', 'execute_ipython_cell', 'gdb_command', 'gdb_interrupt', 'gdb_wait_stopped']],
  [MEMORY, ['memory', 'save_memory', 'add_memory', 'remember', 'recall', 'read_memory', 'memory_read', 'memory_write', 'create_entities', 'add_observations', 'read_graph', 'search_nodes', 'open_nodes']],
  [CREATE, ['fs_create_file', 'Write', 'write_file', 'create_file', 'create', 'write_to_file', 'NotebookWrite']],
  [MODIFY, ['fs_modify_file', 'Edit', 'MultiEdit', 'NotebookEdit', 'apply_patch', 'edit', 'edit_file', 'replace', 'str_replace', 'insert', 'replace_in_file', 'edit_linting']],
  [EDITOR, ['str_replace_editor', 'str_replace_based_edit_tool', 'text_editor']],
  [FS, ['fs']],
  [WINDOW, ['open', 'goto', 'scroll_up', 'scroll_down']],
  [WEB, ['WebFetch', 'WebSearch', 'web_fetch', 'web_search', 'google_web_search', 'fetch', 'browser', 'web_browser']],
  [COMMIT, ['git_commit']],
  [DIFF, ['git_diff', 'git_status', 'git_log']],
  [AGENT, ['Task', 'Agent', 'delegate', 'spawn_agent']],
  [TODO, ['TodoWrite', 'TodoRead', 'update_plan', 'write_todos', 'todo_write']],
];

/** The default hint table, keyed by lower-cased tool name. */
export const DEFAULT_TOOL_HINTS: Readonly<ToolHints> = Object.freeze(
  Object.fromEntries(FAMILIES.flatMap(([hint, names]) => names.map((n) => [n.toLowerCase(), Object.freeze({ ...hint })]))),
);

/** `mcp__server__tool` → `tool` (Claude Code MCP naming), so a wrapped read_file is still a read. */
function bareName(name: string): string {
  const mcp = /^mcp__[^_]+(?:_[^_]+)*?__(.+)$/.exec(name);
  return (mcp ? mcp[1] : name).toLowerCase();
}

/**
 * The hint for a tool: the user's entry (exact name first, then case-insensitive) merged over the
 * default family entry. Absent fields stay absent: the reducer's own options fill them (RFD D17:
 * "when absent, the field inherits from the profile").
 */
/** The empty hints table, one object (caches keyed by the table hit across previews). */
export const NO_HINTS: ToolHints = Object.freeze({});
const NO_HINT: ToolHint = Object.freeze(shaped({}));
/** Hints by overrides object (a plan's, immutable), then by name: asked once per tool call by several reducers. */
const hintCache = new WeakMap<ToolHints, Map<string, ToolHint>>();

export function hintFor(name: string | undefined, overrides: ToolHints = NO_HINTS, useDefaults = true): ToolHint {
  if (!name) return NO_HINT;
  let byName = hintCache.get(overrides);
  if (!byName) hintCache.set(overrides, (byName = new Map()));
  const key = useDefaults ? name : '\u0000' + name;
  let hint = byName.get(key);
  if (!hint) byName.set(key, (hint = Object.freeze(shaped(hintOf(name, overrides, useDefaults)))));
  return hint;
}

/**
 * Every hint with the same fields (absent ones undefined), so one hidden class: code reading the
 * hints of a log's tools saw a class per family and was compiled again when a new log brought them
 * in another order (a reducer of 1,400 bytecodes recompiled for a field read once per tool).
 */
function shaped(h: ToolHint): ToolHint {
  return { request: h.request, response: h.response, dedup: h.dedup, subsumes: h.subsumes, lines: h.lines, retention: h.retention, category: h.category };
}

function hintOf(name: string, overrides: ToolHints, useDefaults: boolean): ToolHint {
  const lower = bareName(name);
  const base = useDefaults ? DEFAULT_TOOL_HINTS[lower] ?? {} : {};
  const user = overrides[name] ?? Object.entries(overrides).find(([k]) => k.toLowerCase() === lower)?.[1] ?? {};
  return { ...base, ...user, ...(base.retention || user.retention ? { retention: { ...base.retention, ...user.retention } as RetentionHint } : {}) };
}

/**
 * Did the user's own table say `dedup = false` for this tool? Line-range subsumption (a later read
 * covering an earlier one) is a kind of dedup: a tool the user took out of dedup is out of it too.
 * (The editor family's default `dedup: false` is not the user's: its `view` reads still subsume.)
 */
export function dedupOffByUser(name: string | undefined, overrides: ToolHints = NO_HINTS): boolean {
  if (!name || overrides === NO_HINTS) return false;
  const lower = bareName(name);
  const user = overrides[name] ?? Object.entries(overrides).find(([k]) => k.toLowerCase() === lower)?.[1];
  return user?.dedup === false;
}

/**
 * Is this call a file read (its result is a file's lines, which `read_file` with offset/limit can
 * show again)? A file-content tool, but not an editor's edit command nor `fs` writing.
 */
export function isFileRead(name: string | undefined, input: unknown, overrides: ToolHints = NO_HINTS): boolean {
  if (!name || outputCategoryFor(name, overrides) !== 'file-content') return false;
  const lower = bareName(name);
  const a = input !== null && typeof input === 'object' ? (input as Record<string, unknown>) : {};
  if (lower === 'str_replace_editor' || lower === 'str_replace_based_edit_tool' || lower === 'text_editor') return a.command === 'view';
  if (lower === 'fs') return a.operation === 'read';
  return true;
}

export function outputCategoryFor(name: string | undefined, overrides: ToolHints = NO_HINTS): OutputCategory {
  return hintFor(name, overrides).category ?? 'generic';
}

/** A read of part of a file, for line-range subsumption (RFD 036 `Subsumes`). */
export interface LineRangeRead {
  path: string;
  /** 1-based first line. */
  start: number;
  /** Last line, inclusive; Infinity = to the end of the file. */
  end: number;
}

function num(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && /^\d+$/.test(v)) return Number(v);
  return undefined;
}

/**
 * Read the path and line range out of a read-like call's arguments, across harnesses:
 * Claude Code Read {file_path, offset, limit}; JP fs_read_file {path, start_line, end_line};
 * str_replace_editor/str_replace_based_edit_tool {command: "view", path, view_range: [a, b|-1]};
 * generic read_file {path|target_file, start_line|line_start|offset, end_line|line_end|limit}.
 * Returns undefined when the call is not a plain file read (e.g. an edit command).
 */
export function lineRangeOf(name: string, input: unknown, lines: LineSemantics | undefined = hintFor(name).lines): LineRangeRead | undefined {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return undefined;
  const a = input as Record<string, unknown>;
  const lower = bareName(name);
  if ((lower === 'str_replace_editor' || lower === 'str_replace_based_edit_tool') && a.command !== 'view') return undefined;
  if (lower === 'fs' && a.operation !== 'read') return undefined;
  const path = [a.file_path, a.path, a.target_file, a.filename, a.file].find((p): p is string => typeof p === 'string' && p.length > 0);
  if (!path) return undefined;
  if (Array.isArray(a.view_range)) {
    const s = num(a.view_range[0]) ?? 1;
    const e = num(a.view_range[1]);
    return { path, start: s, end: e === undefined || e < 0 ? Infinity : e };
  }
  const offset = num(a.offset);
  const limit = num(a.limit) ?? lines?.defaultLimit;
  if (offset !== undefined || limit !== undefined) {
    // The tool's declared semantics: a 1-based offset (Claude Code; 0 read as 1) or a 0-based one.
    const start = offset === undefined ? 1 : lines?.offsetBase === 0 ? offset + 1 : Math.max(1, offset);
    return { path, start, end: limit === undefined ? Infinity : start + limit - 1 };
  }
  const start = num(a.start_line) ?? num(a.line_start) ?? num(a.startLine) ?? 1;
  const end = num(a.end_line) ?? num(a.line_end) ?? num(a.endLine);
  return { path, start, end: end === undefined || end < 0 ? Infinity : end };
}

/** Does the later read cover everything the earlier one returned? */
export function rangeSubsumes(earlier: LineRangeRead, later: LineRangeRead): boolean {
  return earlier.path === later.path && later.start <= earlier.start && later.end >= earlier.end;
}

/** Canonical arguments by input object: inputs are frozen log values, asked again at every preview. */
const canonicalCache = new WeakMap<object, string>();

/** Canonical JSON (sorted keys) for exact-argument equality. */
export function canonicalArgs(input: unknown): string {
  if (input !== null && typeof input === 'object') {
    let c = canonicalCache.get(input);
    if (c === undefined) canonicalCache.set(input, (c = canonicalArgsOnce(input)));
    return c;
  }
  return canonicalArgsOnce(input);
}

/** canonicalArgs without its cache, for a caller that asks once per input (dedup-tools' index of a log). */
export function canonicalArgsOnce(input: unknown): string {
  if (input !== null && typeof input === 'object') return (isFlatSorted(input) ? JSON.stringify(input) : JSON.stringify(sortKeys(input))) ?? 'undefined';
  if (typeof input === 'string') {
    // OpenAI arguments that did not parse stay strings; parse here when they do, so {"a":1} == { "a": 1 }.
    try {
      return canonicalArgsOnce(JSON.parse(input) as unknown);
    } catch {
      return JSON.stringify(input);
    }
  }
  return JSON.stringify(sortKeys(input)) ?? 'undefined';
}

/**
 * A plain object whose keys are already in order and whose values are not objects: its JSON is
 * already canonical (most tool arguments: {file_path}, {command}, {path, start_line}), so it needs
 * no sorted copy.
 */
function isFlatSorted(o: object): boolean {
  if (Array.isArray(o)) return false;
  let prev = '';
  for (const k in o) {
    if (!Object.prototype.hasOwnProperty.call(o, k)) return false;
    if (k < prev) return false;
    const v = (o as Record<string, unknown>)[k];
    if (v !== null && typeof v === 'object') return false;
    prev = k;
  }
  return true;
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(o)
        .sort()
        .map((k) => [k, sortKeys(o[k])]),
    );
  }
  return v;
}

/** Commands that only read (the first word, or `git` + subcommand). */
const READ_ONLY_COMMANDS = new Set(['cat', 'head', 'tail', 'less', 'more', 'ls', 'll', 'tree', 'pwd', 'grep', 'egrep', 'fgrep', 'rg', 'ag', 'ack', 'wc', 'file', 'stat', 'du', 'df', 'which', 'whereis', 'type', 'echo', 'printf', 'nl', 'sort', 'uniq', 'cut', 'diff', 'cmp', 'md5sum', 'sha256sum', 'basename', 'dirname', 'realpath', 'readlink', 'date', 'whoami', 'uname', 'printenv', 'id', 'hostname', 'jq', 'true', 'test', 'cd', 'fd']);
/**
 * Checks whose later run supersedes an earlier one (RFD D17 ships cargo_check / cargo_test with
 * dedup): test runners, type checkers and linters — they report on the code and change nothing
 * the agent relies on. Installers, builds that write artifacts, pushes and scripts are not here.
 */
const CHECK_COMMANDS: ReadonlyArray<RegExp> = [
  /^pytest\b/,
  /^python3? -m (pytest|unittest|mypy|ruff|flake8|pylint)\b/,
  /^(mypy|ruff check|flake8|pylint|eslint|tsc --noEmit|tsc -p \S+ --noEmit|go vet|go test|cargo (test|check|clippy)|npm (run )?test|npx (vitest|jest|tsc --noEmit|eslint)|yarn test|pnpm test|jest|vitest run|make (test|check|lint))\b/,
];
const READ_ONLY_GIT = new Set(['status', 'diff', 'log', 'show', 'blame', 'ls-files', 'rev-parse', 'describe', 'shortlog', 'grep', 'ls-tree', 'cat-file', 'reflog']);

/** The shell command a shell tool call runs: `command`/`cmd` string, or an argv (Codex `["bash", "-lc", "…"]`). */
export function shellCommandOf(input: unknown): string | undefined {
  if (typeof input === 'string') {
    try {
      return shellCommandOf(JSON.parse(input) as unknown);
    } catch {
      return input;
    }
  }
  if (input === null || typeof input !== 'object') return undefined;
  const a = input as Record<string, unknown>;
  const c = a.command ?? a.cmd ?? a.script;
  if (typeof c === 'string') return c;
  if (Array.isArray(c) && c.every((x) => typeof x === 'string')) {
    const argv = c as string[];
    const i = argv.findIndex((x) => x === '-c' || x === '-lc');
    return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : argv.join(' ');
  }
  return undefined;
}

/**
 * Wrappers that run another command: read-only only if the command they run is (`env X=1 rm -rf
 * build` is `rm -rf build`). Per wrapper, the options that take a value (so the value is not read
 * as the command) and those that make it write or start a shell (never read-only).
 */
const WRAPPERS: Record<string, { valued: RegExp; unsafe?: RegExp; positional?: number; bare: boolean }> = {
  // `env` alone prints the environment; -S splits a string we do not parse.
  env: { valued: /^(-u|--unset|-C|--chdir)$/, unsafe: /^(-S|--split-string)/, bare: true },
  // `time -o FILE` writes the timing to a file.
  time: { valued: /^(-f|--format)$/, unsafe: /^(-o|--output|-a|--append)/, bare: false },
  nice: { valued: /^(-n|--adjustment)$/, bare: true },
  // timeout DURATION COMMAND.
  timeout: { valued: /^(-s|--signal|-k|--kill-after)$/, positional: 1, bare: false },
  // `xargs` alone runs echo; -a reads its arguments from a file (fine), -I/-n/-P/-L/-d/-E/-s take values.
  xargs: { valued: /^(-I|-i|-n|-P|-L|-l|-d|-E|-e|-s|-a|--max-args|--max-procs|--max-lines|--delimiter|--eof|--max-chars|--arg-file|--replace)$/, bare: true },
  // `sudo -s` / `sudo -i` without a command start a shell; -e edits files.
  sudo: { valued: /^(-u|-g|-C|-D|-h|-p|-r|-t|-U|--user|--group|--close-from|--chdir|--host|--prompt|--role|--type|--other-user)$/, unsafe: /^(-e|--edit|-s|--shell|-i|--login)$/, bare: false },
};

/**
 * The command a part of a pipeline really runs: leading `VAR=value` assignments and wrappers
 * taken off. undefined when a wrapper makes it unsafe; [] when a wrapper alone runs nothing that
 * writes (`env`, `nice`, `xargs` alone).
 */
function unwrap(words: string[]): string[] | undefined {
  let w = words;
  for (let guard = 0; guard < 8; guard++) {
    while (w.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(w[0])) w = w.slice(1);
    const spec = w.length ? WRAPPERS[w[0]] : undefined;
    if (!spec) return w;
    let i = 1;
    let positional = spec.positional ?? 0;
    while (i < w.length) {
      const x = w[i];
      if (spec.unsafe?.test(x)) return undefined;
      if (x === '--') {
        i++;
        break;
      }
      if (x.startsWith('-') && x.length > 1) {
        i += spec.valued.test(x) ? 2 : 1;
        continue;
      }
      // env's assignments, then timeout's duration.
      if (w[0] === 'env' && /^[A-Za-z_][A-Za-z0-9_]*=/.test(x)) {
        i++;
        continue;
      }
      if (positional > 0) {
        positional--;
        i++;
        continue;
      }
      break;
    }
    const rest = w.slice(i);
    if (rest.length === 0) return spec.bare ? [] : undefined;
    w = rest;
  }
  return undefined;
}

/** Words of `cmd`'s arguments that are not options (and not the values of `valued` options). */
function positionals(args: string[], valued: RegExp): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a.startsWith('-') && a.length > 1) {
      if (valued.test(a)) i++;
      continue;
    }
    out.push(a);
  }
  return out;
}

/** A read-only command name that can still write through its arguments: an output file, a clock set. */
function writesThroughArgs(cmd: string, args: string[]): boolean {
  if (cmd === 'sort') return args.some((a) => a === '-o' || /^-[a-zA-Z]*o/.test(a) || a.startsWith('--output'));
  // uniq [INPUT [OUTPUT]]: a second operand is a file uniq writes.
  if (cmd === 'uniq') return positionals(args, /^(-f|-s|-w|--skip-fields|--skip-chars|--check-chars)$/).length >= 2;
  // date -s / --set sets the clock, and so does `date MMDDhhmm` (an operand that is not +FORMAT).
  if (cmd === 'date') return args.some((a) => /^-[uR]*s/.test(a) || a.startsWith('--set')) || positionals(args, /^(-d|--date|-r|--reference|-f|--file|-I)$/).some((a) => !a.startsWith('+'));
  return false;
}

/**
 * Is this shell command known to change nothing (or a check a later run supersedes: tests, type
 * checks, linters)? Every part of a pipeline or `&&`/`;` chain must be read-only: the command a
 * wrapper runs (`env`, `time`, `nice`, `timeout`, `xargs`, `sudo`) rather than the wrapper, a
 * read-only command (`git` with a read-only subcommand) or a check, with no output file (no
 * redirection, `sort -o`, `uniq IN OUT`, `date -s`), no command substitution and no
 * `find -delete/-exec`, `sed -i`. Unknown = not read-only.
 */
export function isReadOnlyCommand(command: string): boolean {
  const cleaned = command.replace(/2>&1|>\s*\/dev\/null|2>\s*\/dev\/null/g, ' ');
  if (/[>`]|\$\(|<\(/.test(cleaned)) return false;
  const parts = cleaned.split(/&&|\|\||;|\||&|\n/).map((p) => p.trim()).filter(Boolean);
  if (parts.length === 0) return false;
  return parts.every((part) => {
    const words = unwrap(part.split(/\s+/).filter(Boolean));
    if (words === undefined) return false;
    if (words.length === 0) return true;
    const [cmd, sub] = words;
    if (cmd === 'git') return sub !== undefined && READ_ONLY_GIT.has(sub);
    if (CHECK_COMMANDS.some((re) => re.test(words.join(' ')))) return true;
    if (cmd === 'sed') return words.includes('-n') && !words.some((w) => w.startsWith('-i'));
    if (cmd === 'find') return !words.some((w) => w === '-delete' || w === '-exec' || w === '-execdir' || w === '-ok' || w.startsWith('-fprint'));
    return READ_ONLY_COMMANDS.has(cmd) && !writesThroughArgs(cmd, words.slice(1));
  });
}

/** May an older call of this tool with these arguments be dropped as a duplicate? */
export function dedupAllowed(hint: ToolHint, input: unknown): boolean {
  if (hint.dedup === 'read-only') {
    const c = shellCommandOf(input);
    return c !== undefined && isReadOnlyCommand(c);
  }
  return hint.dedup !== false;
}
