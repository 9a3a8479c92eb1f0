/**
 * The three real agent clients `npm run test:clients` resumes sessions in: where each keeps a
 * session on disk, how it is pointed at a model server on 127.0.0.1, how it is told to resume, and
 * how the one request that carries the conversation is read back from what the mock recorded.
 *
 * Facts this relies on (found by running the clients; Codex and Gemini CLI sources agree):
 * - Claude Code: `claude -p --resume <sessionId> PROMPT --output-format json`, the session at
 *   `$HOME/.claude/projects/<cwd, non-alphanumerics → '-'>/<sessionId>.jsonl`, `ANTHROPIC_BASE_URL`.
 * - Codex: a custom model provider is refused on resume, so the built-in one is pointed at the
 *   mock with `openai_base_url` in `$HOME/.codex/config.toml`; `codex exec --skip-git-repo-check
 *   resume <id> PROMPT` finds `$HOME/.codex/sessions/YYYY/MM/DD/rollout-<ts>-<id>.jsonl` by id.
 *   It tries a WebSocket first (the mock refuses the upgrade, so it falls back at once).
 * - Gemini CLI: `security.auth.selectedType = "gemini-api-key"` in `settings.json`,
 *   `GOOGLE_GEMINI_BASE_URL`, `GEMINI_API_KEY`, the folder trusted by `GEMINI_CLI_TRUST_WORKSPACE`,
 *   the session in `$HOME/.gemini/tmp/<project slug>/chats/session-*.json[l]` (slug from
 *   `projects.json`), `gemini -p PROMPT --resume latest`.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { RecordedRequest } from './mock-server';
import { IMAGE_TOKENS } from '../../lib/tokens/count';

export type ClientId = 'claude-code' | 'codex' | 'gemini-cli';

/** Pinned versions (checked with `npm view`): the test installs exactly these. */
export const CLIENT_PACKAGES: Record<ClientId, { pkg: string; version: string; bin: string }> = {
  'claude-code': { pkg: '@anthropic-ai/claude-code', version: '2.1.330', bin: 'claude' },
  codex: { pkg: '@openai/codex', version: '0.169.0', bin: 'codex' },
  'gemini-cli': { pkg: '@google/gemini-cli', version: '0.61.0', bin: 'gemini' },
};

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface RunDirs {
  home: string;
  work: string;
}

export interface Invocation {
  args: string[];
  env: Record<string, string>;
}

export interface ClientSpec {
  id: ClientId;
  /**
   * Put the session file where the client looks for it; returns how to resume it. With no file:
   * a new session (what the client sends of its own: instructions, reminders, the prompt).
   */
  place(file: string | undefined, dirs: RunDirs, mockUrl: string, prompt: string): Invocation;
  /** The recorded request that carries the conversation (the largest model call). */
  pick(requests: readonly RecordedRequest[]): RecordedRequest | undefined;
  /** The conversation array of a request (messages / input / contents). */
  conversation(body: Obj): unknown[];
  /** Tool calls in the conversation, and those without a result where the API wants one. */
  pairing(conversation: readonly unknown[]): { calls: number; unanswered: string[] };
}

function lastJsonlValue(file: string, pick: (v: Obj) => string | undefined): string | undefined {
  let found: string | undefined;
  for (const line of fs.readFileSync(file, 'utf8').split(/\r?\n/)) {
    if (!line.trim()) continue;
    try {
      const v = JSON.parse(line) as unknown;
      if (isObj(v)) found = pick(v) ?? found;
    } catch {
      /* not a JSON line: the client will say so */
    }
  }
  return found;
}

function firstJsonValue(file: string): Obj {
  const text = fs.readFileSync(file, 'utf8');
  try {
    const v = JSON.parse(text) as unknown;
    if (isObj(v)) return v;
  } catch {
    /* JSONL: the first line */
  }
  const v = JSON.parse(text.split(/\r?\n/, 1)[0]) as unknown;
  return isObj(v) ? v : {};
}

function largest(requests: readonly RecordedRequest[], match: (r: RecordedRequest) => boolean, size: (b: Obj) => number): RecordedRequest | undefined {
  let best: RecordedRequest | undefined;
  for (const r of requests) {
    if (!match(r) || !isObj(r.body)) continue;
    if (!best || size(r.body) > size(best.body as Obj)) best = r;
  }
  return best;
}

/** Clean environment: nothing of the caller's (no real keys), any proxy pointed at a dead local port. */
export function baseEnv(home: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    NO_COLOR: '1',
    CI: '1',
    TMPDIR: path.join(home, 'tmp'),
    // Anything that honours a proxy and is not for 127.0.0.1 goes nowhere.
    HTTPS_PROXY: 'http://127.0.0.1:9',
    HTTP_PROXY: 'http://127.0.0.1:9',
    NO_PROXY: '127.0.0.1,localhost',
  };
}

// ---------------------------------------------------------------------------------------------
// Claude Code

const claude: ClientSpec = {
  id: 'claude-code',
  place(file, dirs, mockUrl, prompt) {
    let resume: string[] = [];
    if (file) {
      // The session id is the file's name; a resumed session's lines carry the latest one.
      const sessionId = lastJsonlValue(file, (v) => (typeof v.sessionId === 'string' ? v.sessionId : undefined));
      if (!sessionId) throw new Error(`${path.basename(file)}: no sessionId on any line`);
      const project = path.join(dirs.home, '.claude', 'projects', dirs.work.replace(/[^a-zA-Z0-9]/g, '-'));
      fs.mkdirSync(project, { recursive: true });
      fs.writeFileSync(path.join(project, `${sessionId}.jsonl`), fs.readFileSync(file));
      resume = ['--resume', sessionId];
    }
    return {
      args: ['-p', ...resume, prompt, '--output-format', 'json'],
      env: {
        ANTHROPIC_BASE_URL: mockUrl,
        ANTHROPIC_API_KEY: 'sk-ant-mock',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_AUTOUPDATER: '1',
        DISABLE_ERROR_REPORTING: '1',
      },
    };
  },
  pick: (requests) => largest(requests, (r) => r.method === 'POST' && /\/v1\/messages(\?|$)/.test(r.path), (b) => (Array.isArray(b.messages) ? b.messages.length : 0)),
  conversation: (body) => (Array.isArray(body.messages) ? body.messages : []),
  pairing(conv) {
    // Anthropic: every tool_use is answered by a tool_result in the next user message.
    let calls = 0;
    const unanswered: string[] = [];
    conv.forEach((m, i) => {
      if (!isObj(m) || m.role !== 'assistant' || !Array.isArray(m.content)) return;
      const next = conv.slice(i + 1).find((x) => isObj(x) && x.role !== 'system');
      const answered = new Set<string>();
      if (isObj(next) && next.role === 'user' && Array.isArray(next.content)) for (const p of next.content) if (isObj(p) && p.type === 'tool_result' && typeof p.tool_use_id === 'string') answered.add(p.tool_use_id);
      for (const p of m.content) {
        if (!isObj(p) || p.type !== 'tool_use') continue;
        calls++;
        if (!answered.has(String(p.id))) unanswered.push(String(p.id));
      }
    });
    return { calls, unanswered };
  },
};

// ---------------------------------------------------------------------------------------------
// Codex

const codex: ClientSpec = {
  id: 'codex',
  place(file, dirs, mockUrl, prompt) {
    let id: string | undefined;
    if (file) {
      const meta = firstJsonValue(file);
      const payload = isObj(meta.payload) ? meta.payload : {};
      id = typeof payload.id === 'string' ? payload.id : undefined;
      if (meta.type !== 'session_meta' || !id) throw new Error(`${path.basename(file)}: the first line is not a session_meta with an id`);
      const ts = new Date(typeof payload.timestamp === 'string' ? payload.timestamp : typeof meta.timestamp === 'string' ? meta.timestamp : Date.now());
      const iso = ts.toISOString();
      const dir = path.join(dirs.home, '.codex', 'sessions', iso.slice(0, 4), iso.slice(5, 7), iso.slice(8, 10));
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, `rollout-${iso.slice(0, 19).replace(/:/g, '-')}-${id}.jsonl`), fs.readFileSync(file));
    }
    fs.mkdirSync(path.join(dirs.home, '.codex'), { recursive: true });
    fs.writeFileSync(
      path.join(dirs.home, '.codex', 'config.toml'),
      [`openai_base_url = "${mockUrl}/v1"`, 'check_for_update_on_startup = false', '[analytics]', 'enabled = false', '[feedback]', 'enabled = false', ''].join('\n'),
    );
    return { args: ['exec', '--skip-git-repo-check', ...(id ? ['resume', id] : []), prompt], env: { CODEX_API_KEY: 'sk-mock', OPENAI_API_KEY: 'sk-mock' } };
  },
  pick: (requests) => largest(requests, (r) => r.method === 'POST' && /\/responses$/.test(r.path), (b) => (Array.isArray(b.input) ? b.input.length : 0)),
  conversation: (body) => (Array.isArray(body.input) ? body.input : []),
  pairing(conv) {
    // Responses: every function_call / custom_tool_call has an output with its call_id.
    const outputs = new Set<string>();
    for (const it of conv) if (isObj(it) && typeof it.type === 'string' && it.type.endsWith('_call_output') && typeof it.call_id === 'string') outputs.add(it.call_id);
    let calls = 0;
    const unanswered: string[] = [];
    for (const it of conv) {
      if (!isObj(it) || (it.type !== 'function_call' && it.type !== 'custom_tool_call' && it.type !== 'local_shell_call')) continue;
      calls++;
      const id = String(it.call_id ?? it.id);
      if (!outputs.has(id)) unanswered.push(id);
    }
    return { calls, unanswered };
  },
};

// ---------------------------------------------------------------------------------------------
// Gemini CLI

const gemini: ClientSpec = {
  id: 'gemini-cli',
  place(file, dirs, mockUrl, prompt) {
    const gem = path.join(dirs.home, '.gemini');
    const chats = path.join(gem, 'tmp', 'work', 'chats');
    fs.mkdirSync(chats, { recursive: true });
    fs.writeFileSync(path.join(gem, 'projects.json'), JSON.stringify({ projects: { [dirs.work]: 'work' } }));
    fs.writeFileSync(path.join(gem, 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } }, privacy: { usageStatisticsEnabled: false }, telemetry: { enabled: false } }));
    if (file) {
      const header = firstJsonValue(file);
      const sessionId = typeof header.sessionId === 'string' ? header.sessionId : 'session';
      const start = new Date(typeof header.startTime === 'string' ? header.startTime : Date.now()).toISOString();
      const ext = file.endsWith('.jsonl') ? '.jsonl' : '.json';
      fs.writeFileSync(path.join(chats, `session-${start.slice(0, 16).replace(/:/g, '-')}-${sessionId.slice(0, 8)}${ext}`), fs.readFileSync(file));
    }
    return { args: ['-p', prompt, ...(file ? ['--resume', 'latest'] : [])], env: { GEMINI_API_KEY: 'mock-key', GOOGLE_GEMINI_BASE_URL: mockUrl, GEMINI_CLI_TRUST_WORKSPACE: 'true' } };
  },
  pick: (requests) => largest(requests, (r) => r.method === 'POST' && /:streamGenerateContent/.test(r.path), (b) => (Array.isArray(b.contents) ? b.contents.length : 0)),
  conversation: (body) => (Array.isArray(body.contents) ? body.contents : []),
  pairing(conv) {
    // Gemini: a model turn's functionCalls are answered by functionResponses in the next content.
    let calls = 0;
    const unanswered: string[] = [];
    conv.forEach((c, i) => {
      if (!isObj(c) || c.role !== 'model' || !Array.isArray(c.parts)) return;
      const next = conv[i + 1];
      const responses = isObj(next) && Array.isArray(next.parts) ? next.parts.filter((p) => isObj(p) && isObj(p.functionResponse)).map((p) => (p as Obj).functionResponse as Obj) : [];
      const left = [...responses];
      for (const p of c.parts) {
        if (!isObj(p) || !isObj(p.functionCall)) continue;
        calls++;
        const fc = p.functionCall;
        const k = left.findIndex((r) => (fc.id !== undefined && r.id !== undefined ? r.id === fc.id : r.name === fc.name));
        if (k >= 0) left.splice(k, 1);
        else unanswered.push(String(fc.id ?? fc.name));
      }
    });
    return { calls, unanswered };
  },
};

export const CLIENTS: Record<ClientId, ClientSpec> = { 'claude-code': claude, codex, 'gemini-cli': gemini };

/** Every string of a JSON value, skipping opaque payloads (signatures, encrypted reasoning, base64). */
export function stringsOf(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) stringsOf(v, out);
  else if (isObj(value)) for (const [k, v] of Object.entries(value)) if (!OPAQUE_KEYS.has(k)) stringsOf(v, out);
  return out;
}

/**
 * Tokens of a conversation as sent, counted the way our importers count a transcript: text at
 * chars / 4, an image as a flat IMAGE_TOKENS (its bytes are not text the model reads as such),
 * opaque payloads (signatures, encrypted reasoning) left out.
 */
export function conversationTokens(value: unknown): number {
  let chars = 0;
  let images = 0;
  const walk = (v: unknown): void => {
    if (typeof v === 'string') chars += v.length;
    else if (Array.isArray(v)) v.forEach(walk);
    else if (isObj(v)) {
      if (v.type === 'input_image' || v.type === 'image' || isObj(v.inlineData)) {
        images++;
        return;
      }
      for (const [k, x] of Object.entries(v)) if (!OPAQUE_KEYS.has(k) && !(typeof x === 'string' && STRUCTURE_KEYS.has(k))) walk(x);
    }
  };
  walk(value);
  return Math.round(chars / 4) + images * IMAGE_TOKENS;
}

/** Keys whose string values are the request's structure, not content the model reads as text. */
const STRUCTURE_KEYS = new Set(['type', 'role', 'status', 'phase', 'name', 'media_type', 'mimeType', 'model', 'cache_control']);

const OPAQUE_KEYS = new Set(['signature', 'encrypted_content', 'thoughtSignature', 'data', 'id', 'call_id', 'tool_use_id']);

/** Whitespace collapsed, for "does this text appear in the request" checks. */
export function squash(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}
