/**
 * Tests only: a temporary HOME holding real corpus sessions of the three agents, each placed where
 * that agent keeps it (file names and folders as the agents write them). Used by the unit tests of
 * lib/sessions and lib/cli, and by e2e tests of the library (through `serve.mjs --api` with HOME).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const CORPUS = path.resolve(process.env.CONTEXTSCOPE_CORPUS ?? path.join(__dirname, '..', '..', '..', 'shared', 'corpus'));

export interface PlacedSession {
  agent: 'claude-code' | 'codex-cli' | 'gemini-cli';
  /** The corpus file it was copied from. */
  source: string;
  /** Where it was placed. */
  path: string;
  sessionId: string;
  cwd: string;
  parent?: string;
}

export interface FakeHome {
  home: string;
  sessions: PlacedSession[];
  /** The Gemini CLI project folder registered for the slug used. */
  geminiProject: string;
  cleanup(): void;
}

function put(file: string, source: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.copyFileSync(source, file);
}

const claudeDir = (cwd: string) => cwd.replace(/[^a-zA-Z0-9]/g, '-');

/** Builds the HOME (under os.tmpdir(), or `base`). */
export function makeFakeHome(base: string = os.tmpdir()): FakeHome {
  const home = fs.mkdtempSync(path.join(base, 'cs-home-'));
  const sessions: PlacedSession[] = [];
  const c = (rel: string) => path.join(CORPUS, rel);
  // Claude Code: projects/<cwd → '-'>/<sessionId>.jsonl, a sub-agent under <sessionId>/subagents/.
  const claude = [
    { rel: 'claude-code/vibecodingtracker_claude_code_v1.0.95.jsonl', id: 'e9f146fa-3b20-48d0-9be4-d99ca901cae4', cwd: '/home/wei/repo/claude-code' },
    { rel: 'claude-code/slopometry_transcript_opus45_compact.jsonl', id: '0f112eb4-a676-476d-8986-d6c78693cd5b', cwd: '/Users/tensortemplar/code/slopometry' },
    { rel: 'claude-code/claude-code-viewer_5c0375b4.jsonl', id: '5c0375b4-57a5-4f26-b12d-d022ee4e51b7', cwd: '' },
  ];
  const viewerCwd = /"cwd":"([^"]+)"/.exec(fs.readFileSync(c(claude[2].rel), 'utf8'))?.[1] ?? '/home/user/sample-project';
  claude[2].cwd = viewerCwd;
  for (const s of claude) {
    const file = path.join(home, '.claude', 'projects', claudeDir(s.cwd), `${s.id}.jsonl`);
    put(file, c(s.rel));
    sessions.push({ agent: 'claude-code', source: c(s.rel), path: file, sessionId: s.id, cwd: s.cwd });
  }
  const parent = sessions[1];
  const sub = path.join(path.dirname(parent.path), parent.sessionId, 'subagents', 'agent-a1b2c3d4.jsonl');
  put(sub, c('claude-code/simonw_sample_session.jsonl'));
  sessions.push({ agent: 'claude-code', source: c('claude-code/simonw_sample_session.jsonl'), path: sub, sessionId: 'agent-a1b2c3d4', cwd: '', parent: parent.path });
  // Codex: sessions/YYYY/MM/DD/rollout-<ts>-<id>.jsonl and archived_sessions/rollout-*.jsonl.
  const codex = [
    { rel: 'codex-cli/vibecodingtracker_codex_0.39.0.jsonl', dir: 'sessions/2025/09/19', ts: '2025-09-19T09-02-12', id: '01996135-afde-7911-97f0-d863511eca56', cwd: '/proj/ds906659/gai/claude-code' },
    { rel: 'codex-cli/codex-session-view_rollout-2025-11-17_cli0.58.0.jsonl', dir: 'sessions/2025/11/17', ts: '2025-11-17T15-30-28', id: '019a93b9-f380-7600-98ff-940e6b99603c', cwd: '' },
    { rel: 'codex-cli/localpush_rollout-2026-02-23_sanitized_compacted.jsonl', dir: 'archived_sessions', ts: '2026-02-23T12-54-34', id: '019c8a59-e9dd-71f0-9ae3-4079fe9726a9', cwd: '/redacted/path/59b923df4d' },
  ];
  for (const s of codex) {
    const file = path.join(home, '.codex', s.dir, `rollout-${s.ts}-${s.id}.jsonl`);
    put(file, c(s.rel));
    const cwd = s.cwd || (/"cwd":"([^"]+)"/.exec(fs.readFileSync(c(s.rel), 'utf8').split('\n', 1)[0])?.[1] ?? '');
    sessions.push({ agent: 'codex-cli', source: c(s.rel), path: file, sessionId: s.id, cwd });
  }
  // Gemini CLI: tmp/<slug>/chats/session-<YYYY-MM-DDTHH-MM>-<id8>.json[l]; the slug in projects.json and .project_root.
  const geminiProject = '/home/mai/repo/discordbot';
  const slug = 'discordbot';
  const tmp = path.join(home, '.gemini', 'tmp', slug);
  fs.mkdirSync(path.join(tmp, 'chats'), { recursive: true });
  fs.writeFileSync(path.join(tmp, '.project_root'), geminiProject);
  fs.writeFileSync(path.join(home, '.gemini', 'projects.json'), JSON.stringify({ projects: { [geminiProject]: slug } }, null, 2));
  for (const rel of ['gemini-cli/vibecodingtracker_gemini_session.jsonl', 'gemini-cli/vibecodingtracker_gemini_session_legacy.json']) {
    const text = fs.readFileSync(c(rel), 'utf8');
    const id = /"sessionId"\s*:\s*"([^"]+)"/.exec(text)![1];
    const start = /"startTime"\s*:\s*"([^"]+)"/.exec(text)![1];
    const file = path.join(tmp, 'chats', `session-${start.slice(0, 16).replace(/:/g, '-')}-${id.slice(0, 8)}${path.extname(rel)}`);
    put(file, c(rel));
    sessions.push({ agent: 'gemini-cli', source: c(rel), path: file, sessionId: id, cwd: geminiProject });
  }
  return { home, sessions, geminiProject, cleanup: () => fs.rmSync(home, { recursive: true, force: true }) };
}

export function sha256File(file: string): string {
  return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}
