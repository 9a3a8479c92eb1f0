/**
 * The local sessions API: the contract shared by the server (`contextscope open`, `npm start`),
 * the CLI (`contextscope sessions`, `contextscope resume`) and the app's library and export dialog.
 * Types only: the implementations live beside this file (server/CLI side) and in components/ (app).
 *
 * HTTP, served by the same process that serves the static app, on 127.0.0.1 only:
 * - every /api/ request carries `Authorization: Bearer <secret>` (a per-run secret; the URL that
 *   `open` prints and opens is `http://127.0.0.1:PORT/#token=<secret>`: the app reads the fragment,
 *   keeps it in sessionStorage and removes it from the address bar). No secret → 401.
 * - a request whose Host is not 127.0.0.1[:port], localhost[:port] or [::1][:port] → 403 (DNS rebinding).
 * - no CORS headers on any answer; a preflight (OPTIONS) is refused.
 * - GET  /api/health                      → { ok: true, version }              (the app probes this)
 * - GET  /api/sessions                    → SessionList
 * - GET  /api/session?path=ABS&offset=N   → the file's bytes from offset N (default 0), as
 *        application/octet-stream, with header `X-Session-Size: <bytes on disk now>`. Only a file
 *        inside an agent's store or a folder named on the command line; else 403.
 *        (Server notes:) exactly the bytes from N to the size reported, even while the agent
 *        appends — the last line may be cut where the writer is: keep it until its newline comes.
 *        N beyond the size → an empty body: the file was rewritten shorter (Gemini CLI's legacy
 *        .json is rewritten whole), read it again from 0. Also `X-Session-Mtime` (ISO 8601).
 * - POST /api/resume  (JSON ResumeRequest) → ResumeResult; 409 when the target exists, 403 for a
 *        symlink or a path outside the store, 400 for a bad body (a message naming the field).
 * Errors answer JSON `{ error: string }`.
 */

/** Which store a session was found in. `folder` = a folder named on the command line. */
export type AgentId = 'claude-code' | 'codex-cli' | 'gemini-cli' | 'folder';

/** Where a fork came from: written by resume (in the file where the format tolerates it, else a sidecar). */
export interface Lineage {
  /** The source session's id and path. */
  sourceSessionId?: string;
  sourcePath?: string;
  /** (Extension.) The exported file that was resumed (`contextscope resume FILE`), when it is not the source itself. */
  exportPath?: string;
  /** The inspector's version name and the steps applied (their labels), and the budget. */
  version?: string;
  steps?: string[];
  budget?: number;
  createdAt: string;
  tool: 'contextscope';
}

export interface SessionEntry {
  agent: AgentId;
  /** Absolute path on disk. */
  path: string;
  sessionId: string;
  /** The project folder the agent ran in, where recorded (Gemini CLI: from projects.json). */
  cwd?: string;
  /** The first message the user typed, at most 300 characters. */
  firstPrompt?: string;
  /** ISO 8601; updatedAt falls back to the file's mtime. */
  startedAt?: string;
  updatedAt: string;
  bytes: number;
  model?: string;
  /** The last recorded context (input + cache read + cache write) where usage exists. */
  tokens?: number;
  /** Compactions the agent itself made (compact_boundary, compacted, …). */
  compactions: number;
  /** A sub-agent's session: the path of its parent session. */
  parent?: string;
  /** A fork written by resume: where it came from. */
  derivedFrom?: Lineage;
  /**
   * (Extension.) Over how much of the file `compactions` was counted: 'whole', or 'head-tail' (its
   * first 64–256 KiB and last 64 KiB only: a lower bound). The server counts such files in full in
   * the background after a list; a later GET /api/sessions has them as 'whole'.
   */
  scanned?: 'whole' | 'head-tail';
  /** (Extension.) For `agent: 'folder'`: the agent format the file was recognised as, when it is one. */
  format?: ResumeAgent;
}

export interface SessionRoot {
  agent: AgentId;
  dir: string;
  exists: boolean;
}

export interface SessionList {
  sessions: SessionEntry[];
  roots: SessionRoot[];
  /** Files that could not be read, with the reason (never fatal to the list). */
  skipped?: { path: string; reason: string }[];
}

export type ResumeAgent = 'claude-code' | 'codex-cli' | 'gemini-cli';

export interface ResumeRequest {
  agent: ResumeAgent;
  /** The exported file's text, in that agent's format (the export dialog's output). */
  content: string;
  /** The project folder to resume in (Claude Code: decides the project folder); default: the session's own cwd. */
  cwd?: string;
  lineage?: Omit<Lineage, 'createdAt' | 'tool'>;
}

export interface ResumeResult {
  agent: ResumeAgent;
  /** The new session id, written everywhere the format carries one. */
  sessionId: string;
  /** The new file, inside the agent's store. */
  path: string;
  /** The one command that resumes it, e.g. `claude --resume <id>`, `codex resume <id>`, `gemini --resume <id>`. */
  command: string;
  /** (Extension.) The project folder the command runs in (Claude Code and Gemini CLI find a session by it; the command starts with `cd` to it). */
  cwd?: string;
  /** (Extension.) Where the lineage was written: the session file itself, or its sidecar `<path>.contextscope.json`. */
  lineagePath?: string;
}
