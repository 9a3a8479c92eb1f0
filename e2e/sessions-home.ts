/**
 * A temporary HOME holding real corpus sessions where each agent keeps them (issue 25), and the
 * local server (`contextscope open`) started on it with its own port: the URL it prints carries
 * the per-run secret.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { corpusFile } from './fixtures';

export interface PlacedSession {
  agent: 'claude-code' | 'codex-cli' | 'gemini-cli';
  /** The corpus file it is a copy of. */
  source: string;
  /** Where it lies in the temporary HOME. */
  path: string;
  sessionId: string;
  cwd: string;
}

function firstJson(file: string): Record<string, unknown> {
  const line = fs.readFileSync(file, 'utf8').split('\n', 1)[0];
  return JSON.parse(line) as Record<string, unknown>;
}

function lastWith<T>(file: string, pick: (v: Record<string, unknown>) => T | undefined): T | undefined {
  let out: T | undefined;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      out = pick(JSON.parse(line)) ?? out;
    } catch {
      /* not a record */
    }
  }
  return out;
}

/** Claude Code: `~/.claude/projects/<cwd, non-alphanumerics → '-'>/<sessionId>.jsonl`. */
export function placeClaude(home: string, family: string, name: string): PlacedSession {
  const source = corpusFile(family, name);
  const sessionId = lastWith(source, (v) => (typeof v.sessionId === 'string' ? v.sessionId : undefined));
  const cwd = lastWith(source, (v) => (typeof v.cwd === 'string' ? v.cwd : undefined)) ?? '/work/project';
  if (!sessionId) throw new Error(`${name}: no sessionId`);
  const dir = path.join(home, '.claude', 'projects', cwd.replace(/[^a-zA-Z0-9]/g, '-'));
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${sessionId}.jsonl`);
  fs.copyFileSync(source, file);
  return { agent: 'claude-code', source, path: file, sessionId, cwd };
}

/** Codex: `~/.codex/sessions/YYYY/MM/DD/rollout-<ts>-<id>.jsonl`. */
export function placeCodex(home: string, name: string): PlacedSession {
  const source = corpusFile('codex-cli', name);
  const meta = firstJson(source);
  const payload = (meta.payload ?? {}) as Record<string, unknown>;
  const id = String(payload.id);
  const iso = new Date(String(payload.timestamp ?? meta.timestamp)).toISOString();
  const dir = path.join(home, '.codex', 'sessions', iso.slice(0, 4), iso.slice(5, 7), iso.slice(8, 10));
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `rollout-${iso.slice(0, 19).replace(/:/g, '-')}-${id}.jsonl`);
  fs.copyFileSync(source, file);
  return { agent: 'codex-cli', source, path: file, sessionId: id, cwd: String(payload.cwd ?? '') };
}

/** Gemini CLI: `~/.gemini/tmp/<project>/chats/session-….jsonl`, the project's folder in projects.json. */
export function placeGemini(home: string, name: string, cwd = '/work/gemini-project'): PlacedSession {
  const source = corpusFile('gemini-cli', name);
  const header = firstJson(source);
  const sessionId = String(header.sessionId ?? 'session');
  const start = new Date(String(header.startTime ?? Date.now())).toISOString();
  const chats = path.join(home, '.gemini', 'tmp', 'gemini-project', 'chats');
  fs.mkdirSync(chats, { recursive: true });
  fs.writeFileSync(path.join(home, '.gemini', 'projects.json'), JSON.stringify({ projects: { [cwd]: 'gemini-project' } }));
  const file = path.join(chats, `session-${start.slice(0, 16).replace(/:/g, '-')}-${sessionId.slice(0, 8)}.jsonl`);
  fs.copyFileSync(source, file);
  return { agent: 'gemini-cli', source, path: file, sessionId, cwd };
}

export function tempHome(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'cs-home-'));
}

export function sha256(file: string): string {
  return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

export interface RunningServer {
  /** `http://127.0.0.1:PORT/#token=…`, as printed. */
  url: string;
  origin: string;
  token: string;
  stop: () => Promise<void>;
}

/**
 * `contextscope open` on `home` (HOME, CODEX_HOME unset, the built app in out/), on a free port,
 * without opening a browser. Resolves with the URL it prints.
 */
export function startServer(home: string, extraArgs: string[] = []): Promise<RunningServer> {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, USERPROFILE: home, BROWSER: 'none' };
  delete env.CODEX_HOME;
  delete env.CLAUDE_CONFIG_DIR;
  delete env.GEMINI_DIR;
  const command = process.env.CONTEXTSCOPE_OPEN_COMMAND?.split(' ') ?? [process.execPath, 'scripts/cli.mjs', 'open', '--port', '0', '--no-open'];
  const child: ChildProcess = spawn(command[0], [...command.slice(1), ...extraArgs], { cwd: process.cwd(), env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`contextscope open printed no URL in 60 s:\n${output}`));
    }, 60_000);
    let found = false;
    const onData = (chunk: Buffer) => {
      if (found) return;
      output += chunk.toString();
      const m = /(http:\/\/127\.0\.0\.1:\d+)\/?#token=([A-Za-z0-9_\-.~%]+)/.exec(output);
      if (!m) return;
      found = true;
      clearTimeout(timer);
      resolve({
        url: `${m[1]}/#token=${m[2]}`,
        origin: m[1],
        token: decodeURIComponent(m[2]),
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill();
          }),
      });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (c: Buffer) => {
      if (!found) output += c.toString();
    });
    child.once('exit', (code) => {
      if (found) return;
      clearTimeout(timer);
      reject(new Error(`contextscope open exited (${code}) before printing its URL:\n${output}`));
    });
  });
}
