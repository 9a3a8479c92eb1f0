/**
 * Where each agent keeps its sessions on this machine, and the path checks every read and write
 * of the local sessions API goes through. Node only (the server and the CLI).
 *
 * - Claude Code: `$CLAUDE_CONFIG_DIR` or `~/.claude`, sessions under `projects/<cwd, non-alphanumerics
 *   → '-'>/<sessionId>.jsonl`, sub-agents under `projects/<p>/<sessionId>/subagents/*.jsonl`.
 * - Codex: `$CODEX_HOME` or `~/.codex`: `sessions/YYYY/MM/DD/rollout-<local time>-<id>.jsonl` and
 *   `archived_sessions/rollout-*.jsonl` (codex-rs/rollout: SESSIONS_SUBDIR, ARCHIVED_SESSIONS_SUBDIR).
 * - Gemini CLI: `$GEMINI_CLI_HOME` or `~`, then `.gemini/tmp/<project slug>/chats/session-*.json[l]`;
 *   the slug's project folder is in `tmp/<slug>/.project_root` and in `.gemini/projects.json`
 *   (`{projects: {<abs path>: <slug>}}`, packages/core/src/config/projectRegistry.ts); older
 *   folders are named by sha256(project path).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AgentId, ResumeAgent, SessionRoot } from './contract';

export interface StoreEnv {
  HOME?: string;
  CLAUDE_CONFIG_DIR?: string;
  CODEX_HOME?: string;
  GEMINI_CLI_HOME?: string;
}

export interface Stores {
  claudeConfig: string;
  /** `<claude config>/projects` */
  claudeProjects: string;
  codexHome: string;
  codexSessions: string;
  codexArchived: string;
  geminiDir: string;
  /** `<gemini dir>/tmp` */
  geminiTmp: string;
  /** Folders named on the command line, absolute. */
  folders: string[];
}

function home(env: StoreEnv | NodeJS.ProcessEnv): string {
  return env.HOME && env.HOME.length > 0 ? env.HOME : os.homedir();
}

/** The stores as the agents themselves find them from this environment. */
export function resolveStores(env: StoreEnv | NodeJS.ProcessEnv = process.env, folders: readonly string[] = []): Stores {
  const h = home(env);
  const claudeConfig = path.resolve(env.CLAUDE_CONFIG_DIR || path.join(h, '.claude'));
  const codexHome = path.resolve(env.CODEX_HOME || path.join(h, '.codex'));
  const geminiDir = path.resolve(env.GEMINI_CLI_HOME || h, '.gemini');
  return {
    claudeConfig,
    claudeProjects: path.join(claudeConfig, 'projects'),
    codexHome,
    codexSessions: path.join(codexHome, 'sessions'),
    codexArchived: path.join(codexHome, 'archived_sessions'),
    geminiDir,
    geminiTmp: path.join(geminiDir, 'tmp'),
    folders: folders.map((f) => path.resolve(f)),
  };
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** Every folder the API may read from, with the agent it belongs to. */
export function storeRoots(s: Stores): SessionRoot[] {
  const roots: Array<{ agent: AgentId; dir: string }> = [
    { agent: 'claude-code', dir: s.claudeProjects },
    { agent: 'codex-cli', dir: s.codexSessions },
    { agent: 'codex-cli', dir: s.codexArchived },
    { agent: 'gemini-cli', dir: s.geminiTmp },
    ...s.folders.map((dir) => ({ agent: 'folder' as const, dir })),
  ];
  return roots.map((r) => ({ ...r, exists: isDir(r.dir) }));
}

/** The folder a resume of this agent writes under (created when missing). */
export function writeRoot(s: Stores, agent: ResumeAgent): string {
  return agent === 'claude-code' ? s.claudeProjects : agent === 'codex-cli' ? s.codexSessions : s.geminiTmp;
}

/** `child` is `parent` or inside it (both absolute, already resolved). */
export function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** File extensions a session (or a transcript in a named folder) may have: nothing else is served. */
export const SESSION_EXTENSIONS = ['.jsonl', '.json', '.traj', '.eval'];

export class PathRefused extends Error {
  constructor(
    message: string,
    readonly status: 403 | 404 | 409,
  ) {
    super(message);
    this.name = 'PathRefused';
  }
}

/**
 * A file the API may read: absolute, a session file's extension, a regular file whose real path
 * (symlinks resolved) lies inside the real path of one of the roots. Returns the real path.
 */
export function checkReadable(file: string, roots: readonly SessionRoot[]): string {
  if (!path.isAbsolute(file)) throw new PathRefused(`"${file}" is not an absolute path.`, 403);
  if (!SESSION_EXTENSIONS.some((e) => file.toLowerCase().endsWith(e))) throw new PathRefused(`"${file}" is not a session file (${SESSION_EXTENSIONS.join(', ')}).`, 403);
  const lexical = path.resolve(file);
  const realRoots = roots.flatMap((r) => {
    try {
      return [fs.realpathSync(r.dir)];
    } catch {
      return [];
    }
  });
  if (!roots.some((r) => isInside(r.dir, lexical)) && !realRoots.some((r) => isInside(r, lexical))) throw new PathRefused(`"${file}" is outside the agents' session stores and the folders named.`, 403);
  let real: string;
  try {
    real = fs.realpathSync(lexical);
  } catch {
    throw new PathRefused(`"${file}" does not exist.`, 404);
  }
  if (!realRoots.some((r) => isInside(r, real))) throw new PathRefused(`"${file}" leads outside the session stores (a symlink to ${real}).`, 403);
  if (!fs.statSync(real).isFile()) throw new PathRefused(`"${file}" is not a regular file.`, 403);
  return real;
}
