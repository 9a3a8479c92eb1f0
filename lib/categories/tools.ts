/**
 * Reading what a tool call did, whatever the harness: its parsed arguments, its shell command, the
 * files it read, edited, created or deleted, its exit code; and which user text a harness injected.
 * Below lib/compaction and lib/summarize (both use it through lib/categories): no import of either.
 *
 * Transcript text is untrusted: nothing here evaluates it, and every extracted string is bounded.
 */

import type { OutputCategory } from './signal';

export type FileAction = 'read' | 'edited' | 'created' | 'deleted' | 'searched' | 'listed' | 'touched' | 'mentioned';

// ---------------------------------------------------------------------------------------------
// Tool input reading

/** Parsed arguments of a call: object inputs as they are, JSON strings parsed, other strings kept. */
export function callArguments(block: { input: unknown; rawInput?: string }): unknown {
  const input = block.input;
  if (typeof input === 'string') {
    const trimmed = input.trim();
    if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
      try {
        return JSON.parse(trimmed) as unknown;
      } catch {
        return input;
      }
    }
    return input;
  }
  return input;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/** A shell command from `command`/`cmd` given as a string or an argv array (`["bash","-lc","ls"]` → "ls"). */
export function commandText(v: unknown): string | undefined {
  if (typeof v === 'string') return v.length ? v : undefined;
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) {
    const argv = v as string[];
    if (argv.length >= 3 && /(^|\/)(ba|z|)sh$/.test(argv[0]) && /^-[a-z]*c$/.test(argv[1])) return argv.slice(2).join(' ');
    return argv.join(' ');
  }
  return undefined;
}

const SHELL_TOOLS = new Set([
  'bash',
  'shell',
  'exec_command',
  'execute_bash',
  'execute_command',
  'run_terminal_command',
  'run_terminal_cmd',
  'run_shell_command',
  'run_command',
  'local_shell',
  'terminal',
  'cmd',
  'container.exec',
  'bashoutput',
  'python',
  'execute_ipython_cell',
]);

export function lowerName(name: string): string {
  // MCP tools are "mcp__server__tool": classify by the last part.
  const parts = name.toLowerCase().split('__');
  return parts[parts.length - 1];
}

export function isShellTool(name: string): boolean {
  return SHELL_TOOLS.has(lowerName(name));
}

const PATH_KEYS = ['file_path', 'filepath', 'path', 'filename', 'file_name', 'file', 'notebook_path', 'target_file', 'absolute_path', 'relative_path', 'dir_path', 'directory', 'dir'];
const DIR_KEYS = new Set(['dir_path', 'directory', 'dir']);
const PATH_LIST_KEYS = ['paths', 'files', 'file_paths', 'absolute_paths'];

/** What a generic tool does to the file it names, from its name. */
function actionFromToolName(name: string): FileAction {
  const n = lowerName(name);
  if (/(^|_)(multi)?edit|replace|patch|insert|modify|update|apply|append/.test(n)) return 'edited';
  if (/write|create|new_file|save/.test(n)) return 'created';
  if (/delete|remove|(^|_)rm$/.test(n)) return 'deleted';
  if (/grep|search|find|glob/.test(n)) return 'searched';
  if (/(^|_)ls$|list|tree|dir/.test(n)) return 'listed';
  if (/read|view|open|cat|get|fetch|show|load/.test(n)) return 'read';
  return 'touched';
}

export interface FileEffect {
  path: string;
  action: FileAction;
}

/** Files named in an apply_patch body (`*** Update File: path`, Add, Delete, Move to). */
export function filesFromPatch(patch: string): FileEffect[] {
  const out: FileEffect[] = [];
  const re = /^\*\*\* (Update|Add|Delete) File: (.+?)\s*$|^\*\*\* Move to: (.+?)\s*$/gm;
  let m: RegExpExecArray | null;
  while ((m = re.exec(patch))) {
    if (m[3]) out.push({ path: m[3], action: 'created' });
    else out.push({ path: m[2], action: m[1] === 'Update' ? 'edited' : m[1] === 'Add' ? 'created' : 'deleted' });
  }
  // Unified diffs: "+++ b/path".
  const diff = /^\+\+\+ (?:b\/)?(\S+)/gm;
  while ((m = diff.exec(patch))) if (m[1] !== '/dev/null') out.push({ path: m[1], action: 'edited' });
  return out;
}

/** Split a shell line into words, honouring simple quotes. Enough to find file arguments. */
function shellWords(segment: string): string[] {
  const words: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(segment))) words.push(m[1] ?? m[2] ?? m[3]);
  return words;
}

const PATHLIKE = /^(?:~|\.{1,2})?\/?[\w@.+-]+(?:\/[\w@.+-]*)*$/;

function looksLikePath(word: string, loose = false): boolean {
  if (!word || word.length > 300 || word.startsWith('-') || word.includes('$') || word.includes('*')) return false;
  if (!PATHLIKE.test(word)) return false;
  if (loose) return !/^\d+(:\d+)?$/.test(word);
  return word.includes('/') || /\.[A-Za-z0-9]{1,10}$/.test(word);
}

/**
 * Files a shell command line reads, writes or searches. Covers the reading verbs (cat, head, sed -n),
 * in-place edits (sed -i), redirections (`> file`, `tee file`), apply_patch heredocs, and the
 * SWE-agent / OpenHands editor commands (`open path`, `create path`, `str_replace_editor view path`).
 */
export function filesFromCommand(command: string, state: { currentFile?: string } = {}): FileEffect[] {
  const out: FileEffect[] = [];
  if (command.includes('*** Begin Patch')) out.push(...filesFromPatch(command));
  // Heredoc bodies are content, not commands: only scan the command lines.
  const lines = command.split('\n');
  const commandLines: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    commandLines.push(lines[i]);
    const here = /<<-?\s*['"]?(\w+)['"]?/.exec(lines[i]);
    if (here) {
      const end = lines.findIndex((l, j) => j > i && l.trim() === here[1]);
      if (end > i) i = end;
    }
  }
  for (const line of commandLines) {
    for (const segment of line.split(/&&|\|\||;|\|/)) {
      const words = shellWords(segment.trim());
      if (!words.length) continue;
      // Redirections write files.
      for (let i = 0; i < words.length; i++) {
        const w = words[i];
        const redirect = /^\d?>>?(.*)$/.exec(w);
        if (redirect) {
          const target = redirect[1] || words[i + 1];
          if (target && target !== '/dev/null' && !target.startsWith('&') && looksLikePath(target, true)) out.push({ path: target, action: 'created' });
        }
      }
      let [verb, ...rest] = words;
      if (verb === 'sudo' || verb === 'command' || verb === 'time') [verb, ...rest] = rest;
      if (!verb) continue;
      const args = rest.filter((w) => !w.startsWith('-') && !/^\d?>/.test(w));
      const argAfterRedirect = (w: string, i: number) => i > 0 && /^\d?>>?$/.test(rest[i - 1]);
      const plainArgs = rest.filter((w, i) => !w.startsWith('-') && !/^\d?>/.test(w) && !argAfterRedirect(w, i));
      switch (verb) {
        case 'cat':
        case 'head':
        case 'tail':
        case 'less':
        case 'more':
        case 'nl':
        case 'bat':
        case 'wc':
        case 'file':
        case 'stat':
          for (const a of plainArgs) if (looksLikePath(a, true)) out.push({ path: a, action: 'read' });
          break;
        case 'sed': {
          const inPlace = rest.some((w) => /^-i/.test(w) || w === '--in-place');
          const files = plainArgs.slice(1).filter((a) => looksLikePath(a));
          for (const f of files) out.push({ path: f, action: inPlace ? 'edited' : 'read' });
          break;
        }
        case 'tee':
          for (const a of plainArgs) if (looksLikePath(a, true)) out.push({ path: a, action: 'created' });
          break;
        case 'touch':
        case 'mkdir':
          for (const a of plainArgs) if (looksLikePath(a, true)) out.push({ path: a, action: 'created' });
          break;
        case 'rm':
        case 'rmdir':
          for (const a of plainArgs) if (looksLikePath(a, true)) out.push({ path: a, action: 'deleted' });
          break;
        case 'mv':
        case 'cp':
          if (plainArgs.length >= 2) {
            for (const a of plainArgs.slice(0, -1)) if (looksLikePath(a, true)) out.push({ path: a, action: verb === 'mv' ? 'deleted' : 'read' });
            const dest = plainArgs[plainArgs.length - 1];
            if (looksLikePath(dest, true)) out.push({ path: dest, action: 'created' });
          }
          break;
        case 'grep':
        case 'rg':
        case 'ag':
          for (const a of plainArgs.slice(1)) if (looksLikePath(a)) out.push({ path: a, action: 'searched' });
          break;
        case 'ls':
        case 'tree':
          for (const a of plainArgs) if (looksLikePath(a, true)) out.push({ path: a, action: 'listed' });
          break;
        // SWE-agent's editor commands.
        case 'open':
          if (args[0] && looksLikePath(args[0], true)) {
            out.push({ path: args[0], action: 'read' });
            state.currentFile = args[0];
          }
          break;
        case 'create':
          if (args[0] && looksLikePath(args[0], true)) {
            out.push({ path: args[0], action: 'created' });
            state.currentFile = args[0];
          }
          break;
        case 'edit':
        case 'insert':
          if (state.currentFile) out.push({ path: state.currentFile, action: 'edited' });
          break;
        case 'find_file':
        case 'search_dir':
        case 'search_file':
          for (const a of args.slice(1)) if (looksLikePath(a, true)) out.push({ path: a, action: 'searched' });
          break;
        case 'str_replace_editor':
        case 'edit_file': {
          const sub = args[0];
          const target = args[1];
          if (target && looksLikePath(target, true)) {
            out.push({ path: target, action: sub === 'view' ? 'read' : sub === 'create' ? 'created' : 'edited' });
            state.currentFile = target;
          }
          break;
        }
        case 'apply_patch':
          break;
        default:
          break;
      }
    }
  }
  return out;
}

/** File effects of one tool call, by tool shape (Claude Code, Codex, OpenHands, SWE-agent, generic). */
export function fileEffectsOfCall(name: string, args: unknown, state: { currentFile?: string } = {}): FileEffect[] {
  const n = lowerName(name);
  const out: FileEffect[] = [];
  if (typeof args === 'string') {
    if (n === 'apply_patch' || args.includes('*** Begin Patch')) return filesFromPatch(args);
    // SWE-agent actions and freeform shell: the whole string is a command line. A non-shell tool
    // called with a bare string (`open path`) is read the same way.
    // SWE-agent importers name the call after the action's first word and keep the whole action.
    const line = isShellTool(name) || args.trimStart().startsWith(n) ? args : `${n} ${args}`;
    return filesFromCommand(line, state);
  }
  if (!isRecord(args)) return out;
  // Codex apply_patch given as {input}/{patch}.
  const patch = str(args.patch) ?? (n === 'apply_patch' ? str(args.input) : undefined);
  if (patch) out.push(...filesFromPatch(patch));
  const cmd = commandText(args.command) ?? commandText(args.cmd);
  if (n === 'str_replace_editor' || n === 'str_replace_based_edit_tool' || n === 'text_editor' || n === 'edit_file' && typeof args.command === 'string' && str(args.path)) {
    const sub = str(args.command);
    const path = str(args.path);
    if (path) out.push({ path, action: sub === 'view' ? 'read' : sub === 'create' ? 'created' : sub ? 'edited' : 'touched' });
    return out;
  }
  if (cmd && (isShellTool(name) || !PATH_KEYS.some((k) => str(args[k])))) out.push(...filesFromCommand(cmd, state));
  const action = n === 'write' ? 'created' : n === 'read' ? 'read' : actionFromToolName(name);
  let named = false;
  for (const k of PATH_KEYS) {
    const p = str(args[k]);
    if (p && p.length <= 500 && !p.includes('\n')) {
      const isDir = DIR_KEYS.has(k);
      out.push({ path: p, action: isDir ? (action === 'read' ? 'listed' : action) : action });
      if (!isDir) {
        named = true;
        // SWE-agent's editor keeps a current file: `open`/`create` set it, `edit`/`insert` act on it.
        if (n === 'open' || n === 'create' || n === 'goto') state.currentFile = p;
      }
    }
  }
  if (!named && (n === 'edit' || n === 'insert' || n === 'scroll_up' || n === 'scroll_down' || n === 'goto') && state.currentFile) {
    out.push({ path: state.currentFile, action: n === 'edit' || n === 'insert' ? 'edited' : 'read' });
  }
  for (const k of PATH_LIST_KEYS) {
    const list = args[k];
    if (Array.isArray(list)) for (const p of list) if (typeof p === 'string' && p.length <= 500) out.push({ path: p, action });
  }
  // MultiEdit / multi-file edits: {edits: [{file_path}]}.
  if (Array.isArray(args.edits)) for (const e of args.edits) if (isRecord(e) && str(e.file_path ?? e.path)) out.push({ path: (e.file_path ?? e.path) as string, action: 'edited' });
  return out;
}

/** The main subject of a call, for listing it: its command, file, pattern or query. */
export function callSubject(name: string, args: unknown): string {
  if (typeof args === 'string') return args;
  if (!isRecord(args)) return args === undefined ? '' : JSON.stringify(args) ?? '';
  const cmd = commandText(args.command) ?? commandText(args.cmd);
  if (cmd && (isShellTool(name) || typeof args.command !== 'string' || !str(args.path))) return cmd;
  for (const k of [...PATH_KEYS, 'pattern', 'query', 'url', 'prompt', 'description']) {
    const v = str(args[k]);
    if (v) return v;
  }
  return JSON.stringify(args) ?? '';
}

/** The exit code a shell result reports, when it says. */
export function exitCodeOf(content: string): number | undefined {
  const m = /(?:exit[_ ]code|exited with code|Exit code|exit status)["'\s:=]*(-?\d+)/i.exec(content);
  return m ? Number(m[1]) : undefined;
}


// Text reading

/**
 * Harness-injected text inside a user turn: reminders, local command output, environment context.
 * A slash command or `!` shell input the user typed (`<command-name>`, `<command-message>`,
 * `<command-args>`, `<bash-input>`) is the user's own words, not harness text: it is kept verbatim.
 * (The command's expansion arrives as a separate `meta` message, which may be abbreviated.)
 */
export function isHarnessText(text: string): boolean {
  const t = text.trimStart();
  return (
    /^<(system-reminder|local-command-stdout|local-command-stderr|user-prompt-submit-hook|environment_context|user_instructions|ide_|bash-stdout|bash-stderr)/.test(t) ||
    t.startsWith('Caveat: The messages below were generated by the user') ||
    t.startsWith('# AGENTS.md instructions') ||
    t.startsWith('[Request interrupted by user')
  );
}

/**
 * The one test of "the user typed this" (issue #27 item 5), shared by the instructions category
 * (extractCategories), the context floor (lib/compaction/calls.ts contextFloor) and emergency
 * (lib/compaction/reducers/emergency.ts, which never drops such a block unless the user allows it):
 * a non-empty text block of a main-chain user message that the harness did not inject (`meta`,
 * isHarnessText) and a projection did not make (summaries, notices). A user-role record made only
 * of tool results (Claude Code's tool_result records) has no such block; the importers give tool
 * observations (mini-swe-agent, SWE-agent, OpenHands, Inspect) the tool role, so they have none.
 */
export function isTypedByUser(m: { role: string; meta?: boolean; sidechain?: boolean; synthetic?: string }, b: { kind: string; text?: string }): boolean {
  return m.role === 'user' && !m.meta && !m.sidechain && m.synthetic === undefined && b.kind === 'text' && typeof b.text === 'string' && b.text.trim() !== '' && !isHarnessText(b.text);
}

/** Whether a message holds words the user typed (any block passing isTypedByUser). */
export function hasTypedText(m: { role: string; meta?: boolean; sidechain?: boolean; synthetic?: string; blocks: readonly { kind: string; text?: string }[] }): boolean {
  return m.role === 'user' && m.blocks.some((b) => isTypedByUser(m, b));
}

/**
 * Text Gemini CLI records as a user message that the user did not type: its "System: Please
 * continue." nudge when the model stopped mid-task, and the prompt a built-in command sends in the
 * user's place (`/init`: "You are an AI agent that brings the power of Gemini…").
 */
export function isGeminiHarnessText(text: string): boolean {
  const t = text.trimStart();
  return t.startsWith('System: Please continue.') || t.startsWith('You are an AI agent that brings the power of Gemini directly into the terminal') || isHarnessText(t);
}

const TEXT_PATH_RE = /(?:^|[\s"'`(\[])((?:~|\.{1,2})?\/?[\w@.-]+(?:\/[\w@.-]+)+\.[A-Za-z0-9]{1,8})(?=$|[\s"'`)\],:;!?]|\.(?:\s|$))/gm;

/** File paths written in prose (with a directory and an extension: `src/a.ts`, `/repo/x.py`), URLs excluded. */
export function pathsInText(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(TEXT_PATH_RE)) {
    const p = m[1];
    const before = text.slice(Math.max(0, (m.index ?? 0) - 8), (m.index ?? 0) + 1);
    if (/:\/\/?$|https?:?$/.test(before) || p.startsWith('//')) continue;
    if (!out.includes(p)) out.push(p);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Output categories

/**
 * The output category (sven's) of the default tool hints (lib/compaction/hints.ts FAMILIES), by
 * tool name: what a caller without the user's hint overrides uses. A test holds it equal to
 * `outputCategoryFor(name)` for every name of the default table.
 */
const CATEGORY_NAMES: Array<[OutputCategory, string[]]> = [
  ['file-content', ['fs_read_file', 'read_file', 'NotebookRead', 'view', 'cat_file', 'view_file', 'read_many_files', 'open_file', 'Read', 'str_replace_editor', 'str_replace_based_edit_tool', 'text_editor', 'open', 'goto', 'scroll_up', 'scroll_down', 'fs']],
  ['match-list', ['fs_grep_files', 'grep', 'Grep', 'search_codebase', 'read_lints', 'search_dir', 'search_file', 'find_file', 'search_file_content', 'codebase_search', 'grep_search', 'ripgrep', 'file_search', 'fs_list_files', 'list_files', 'Glob', 'glob', 'LS', 'ls', 'list_dir', 'list_directory', 'find', 'find_files']],
  ['head-tail', ['cargo_check', 'cargo_test', 'Bash', 'bash', 'shell', 'exec_command', 'local_shell', 'container.exec', 'execute_bash', 'run_terminal_command', 'run_shell_command', 'run_command', 'terminal', 'execute_command', 'BashOutput', 'write_stdin', 'python', 'execute_ipython_cell', 'gdb_command', 'gdb_interrupt', 'gdb_wait_stopped', 'git_diff', 'git_status', 'git_log']],
];
const CATEGORY_OF = new Map<string, OutputCategory>(CATEGORY_NAMES.flatMap(([c, names]) => names.map((n) => [n.toLowerCase(), c] as [string, OutputCategory])));

/** The default output category of a tool (`mcp__server__read_file` is a `read_file`); 'generic' when unknown. */
export function defaultOutputCategory(name: string | undefined): OutputCategory {
  if (!name) return 'generic';
  const mcp = /^mcp__[^_]+(?:_[^_]+)*?__(.+)$/.exec(name);
  return CATEGORY_OF.get((mcp ? mcp[1] : name).toLowerCase()) ?? 'generic';
}
