/**
 * Resume as a fork: an exported session (our export, in the agent's own format) written into the
 * agent's store as a NEW session, where the agent looks for it, with a new id everywhere the
 * format carries one. The original is never opened for writing: the new file is created with
 * O_EXCL|O_NOFOLLOW, in folders checked one by one below the store's root (no symlink, nothing
 * outside the store).
 *
 * - Claude Code: `<config>/projects/<cwd, non-alphanumerics → '-'>/<id>.jsonl`, every record's
 *   `sessionId` = id (`claude --resume <id>` looks up the file of that name in the project folder of
 *   the folder it runs in). Lineage: a sidecar `<file>.contextscope.json`.
 * - Codex: `<codex home>/sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<id>.jsonl` (local time,
 *   as codex-rs names it), the `session_meta` id = id (`codex resume <id>` finds the file by the id
 *   in its name). Lineage: a sidecar.
 * - Gemini CLI: `<gemini>/tmp/<project slug>/chats/session-<YYYY-MM-DDTHH-MM>-<id8>.jsonl` (or .json
 *   for the legacy single-document format), the header's `sessionId` = id and `projectHash` =
 *   sha256(project folder). The slug: projects.json's, else the folder whose `.project_root` names
 *   the project, else a new one claimed the way the client claims it (a `.project_root` marker,
 *   a new file; projects.json is not edited: the client adds the slug itself on its next run).
 *   Lineage: in the header (`contextscope`): a sidecar named session-*.json would be read as a session.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Lineage, ResumeAgent, ResumeRequest, ResumeResult } from './contract';
import { SIDECAR_SUFFIX, listSessions } from './list';
import { PathRefused, isInside, writeRoot, type Stores } from './stores';

export class ResumeInputError extends Error {
  readonly status = 400;
  constructor(message: string) {
    super(message);
    this.name = 'ResumeInputError';
  }
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export const RESUME_AGENTS: readonly ResumeAgent[] = ['claude-code', 'codex-cli', 'gemini-cli'];

/** A UUID v7 (time-ordered), the kind Codex gives its threads. */
export function uuidv7(now = Date.now()): string {
  const b = crypto.randomBytes(16);
  b.writeUIntBE(now, 0, 6);
  b[6] = (b[6] & 0x0f) | 0x70;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Claude Code's project folder name for a cwd (its own rule: non-alphanumerics → '-', long names cut at 200 + a hash). */
export function claudeProjectName(cwd: string): string {
  const n = cwd.replace(/[^a-zA-Z0-9]/g, '-');
  if (n.length <= 200) return n;
  let h = 0;
  for (let i = 0; i < cwd.length; i++) h = ((h << 5) - h + cwd.charCodeAt(i)) | 0;
  return `${n.slice(0, 200)}-${Math.abs(h).toString(36)}`;
}

/** Lines of a JSONL text, each parsed (a line that is not JSON is a specific 400). */
function jsonlRecords(content: string, what: string): Array<{ raw: string; value: unknown }> {
  const out: Array<{ raw: string; value: unknown }> = [];
  const lines = content.split('\n');
  lines.forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    if (!line.trim()) return;
    try {
      out.push({ raw: line, value: JSON.parse(line) as unknown });
    } catch {
      throw new ResumeInputError(`content: line ${i + 1} is not JSON, so this is not a ${what} session (an export in that agent's format is needed).`);
    }
  });
  if (out.length === 0) throw new ResumeInputError(`content: empty, no ${what} session in it.`);
  return out;
}

function quote(p: string): string {
  return /^[A-Za-z0-9_./@%+=:,-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`;
}

interface Planned {
  sessionId: string;
  sourceSessionId?: string;
  cwd?: string;
  /** Folders below the store root, then the file name. */
  dirs: string[];
  name: string;
  text: string;
  sidecar: boolean;
  command: string;
  /** Gemini CLI: a .project_root marker to create for a newly claimed slug. */
  marker?: { dirs: string[]; text: string };
}

function planClaude(content: string, cwdArg: string | undefined): Planned {
  const recs = jsonlRecords(content, 'Claude Code');
  const sessionId = crypto.randomUUID();
  let source: string | undefined;
  let cwd: string | undefined;
  let withId = 0;
  const lines = recs.map(({ raw, value }) => {
    if (!isObj(value) || typeof value.sessionId !== 'string') return raw;
    withId++;
    source = value.sessionId;
    if (typeof value.cwd === 'string') cwd = value.cwd;
    return JSON.stringify({ ...value, sessionId });
  });
  if (withId === 0) throw new ResumeInputError('content: no record carries a sessionId, so this is not a Claude Code session (export it as Claude Code).');
  const dir = cwdArg ?? cwd;
  if (!dir) throw new ResumeInputError('cwd: the session records no working folder; give one (--cwd).');
  if (!path.isAbsolute(dir)) throw new ResumeInputError(`cwd: "${dir}" is not an absolute path.`);
  return { sessionId, sourceSessionId: source, cwd: dir, dirs: [claudeProjectName(dir)], name: `${sessionId}.jsonl`, text: lines.join('\n') + '\n', sidecar: true, command: `cd ${quote(dir)} && claude --resume ${sessionId}` };
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

function planCodex(content: string, cwdArg: string | undefined, now: Date): Planned {
  const recs = jsonlRecords(content, 'Codex');
  const first = recs[0].value;
  const meta = isObj(first) && first.type === 'session_meta' && isObj(first.payload) ? first.payload : undefined;
  if (!meta || typeof meta.id !== 'string') throw new ResumeInputError('content: the first line is not a session_meta with an id, so this is not a Codex session (export it as Codex CLI).');
  if (cwdArg !== undefined && !path.isAbsolute(cwdArg)) throw new ResumeInputError(`cwd: "${cwdArg}" is not an absolute path.`);
  const source = meta.id;
  const sessionId = uuidv7(now.getTime());
  const lines = recs.map(({ raw, value }) => {
    if (!(isObj(value) && value.type === 'session_meta' && isObj(value.payload) && value.payload.id === source)) return raw;
    return JSON.stringify({ ...value, payload: { ...value.payload, id: sessionId, ...(cwdArg !== undefined && value === first && { cwd: cwdArg }) } });
  });
  const y = String(now.getFullYear());
  const stamp = `${y}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}T${pad(now.getHours())}-${pad(now.getMinutes())}-${pad(now.getSeconds())}`;
  const cwd = cwdArg ?? (typeof meta.cwd === 'string' ? meta.cwd : undefined);
  return { sessionId, sourceSessionId: source, ...(cwd && { cwd }), dirs: [y, pad(now.getMonth() + 1), pad(now.getDate())], name: `rollout-${stamp}-${sessionId}.jsonl`, text: lines.join('\n') + '\n', sidecar: true, command: `codex resume ${sessionId}` };
}

function readRegistry(stores: Stores): Record<string, string> {
  try {
    const v = JSON.parse(fs.readFileSync(path.join(stores.geminiDir, 'projects.json'), 'utf8')) as unknown;
    if (isObj(v) && isObj(v.projects)) return Object.fromEntries(Object.entries(v.projects).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch {
    /* none */
  }
  return {};
}

function markers(stores: Stores): Map<string, string> {
  const out = new Map<string, string>();
  let entries: fs.Dirent[] = [];
  try {
    entries = fs.readdirSync(stores.geminiTmp, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    if (!e.isDirectory()) continue;
    try {
      out.set(e.name, fs.readFileSync(path.join(stores.geminiTmp, e.name, '.project_root'), 'utf8').trim());
    } catch {
      /* no marker */
    }
  }
  return out;
}

const sha256 = (s: string) => crypto.createHash('sha256').update(s).digest('hex');

function planGemini(content: string, cwdArg: string | undefined, lineage: Lineage, stores: Stores, now: Date): Planned {
  let legacy: Obj | undefined;
  let recs: Array<{ raw: string; value: unknown }> | undefined;
  const trimmed = content.trimStart();
  try {
    const v = JSON.parse(trimmed) as unknown;
    if (isObj(v) && Array.isArray(v.messages)) legacy = v;
  } catch {
    /* JSONL */
  }
  if (!legacy) recs = jsonlRecords(content, 'Gemini CLI');
  const header = legacy ?? (recs && isObj(recs[0].value) ? (recs[0].value as Obj) : undefined);
  if (!header || typeof header.sessionId !== 'string') throw new ResumeInputError('content: no Gemini CLI session header ({sessionId, projectHash, startTime}) first, so this is not a Gemini CLI session (export it as Gemini CLI).');
  const source = header.sessionId;
  lineage.sourceSessionId ??= source;
  const registry = readRegistry(stores);
  const marked = markers(stores);
  let cwd = cwdArg;
  if (cwd === undefined && typeof header.projectHash === 'string') {
    const known = [...Object.keys(registry), ...marked.values()];
    cwd = known.find((p) => sha256(p) === header.projectHash);
  }
  if (!cwd) throw new ResumeInputError('cwd: a Gemini CLI session records only a hash of its project folder, and no project known here has it; give the folder (--cwd).');
  if (!path.isAbsolute(cwd)) throw new ResumeInputError(`cwd: "${cwd}" is not an absolute path.`);
  cwd = path.resolve(cwd);
  let slug = registry[cwd] ?? [...marked.entries()].find(([, p]) => p === cwd)?.[0];
  let marker: Planned['marker'];
  if (slug === undefined) {
    const base =
      path
        .basename(cwd)
        .toLowerCase()
        .replace(/[^a-z0-9]/g, '-')
        .replace(/-+/g, '-')
        .replace(/^-|-$/g, '') || 'project';
    const taken = new Set(Object.values(registry));
    for (let i = 0; ; i++) {
      const c = i === 0 ? base : `${base}-${i}`;
      if (taken.has(c) || fs.existsSync(path.join(stores.geminiTmp, c))) continue;
      slug = c;
      break;
    }
    marker = { dirs: [slug], text: cwd };
  }
  const sessionId = crypto.randomUUID();
  const projectHash = sha256(cwd);
  const stamp = now.toISOString().slice(0, 16).replace(/:/g, '-');
  let text: string;
  // Legacy: the lineage first, so a list that reads only the head finds it.
  // lastUpdated = now: Gemini CLI deletes sessions whose lastUpdated is older than its retention
  // (30 days by default) when it starts, and a fork is written now.
  const lastUpdated = now.toISOString();
  if (legacy) text = JSON.stringify({ contextscope: lineage, ...legacy, sessionId, projectHash, lastUpdated }, null, 2);
  else
    text =
      recs!
        .map(({ raw, value }, i) => {
          if (i === 0) return JSON.stringify({ ...(value as Obj), sessionId, projectHash, lastUpdated, contextscope: lineage });
          if (isObj(value) && isObj(value.$set) && typeof value.$set.sessionId === 'string') return JSON.stringify({ ...value, $set: { ...value.$set, sessionId } });
          return raw;
        })
        .join('\n') +
      '\n' +
      // A later `$set.lastUpdated` of the source would win over the header's: the last word is now.
      JSON.stringify({ $set: { lastUpdated } }) +
      '\n';
  return { sessionId, sourceSessionId: source, cwd, dirs: [slug, 'chats'], name: `session-${stamp}-${sessionId.slice(0, 8)}${legacy ? '.json' : '.jsonl'}`, text, sidecar: false, command: `cd ${quote(cwd)} && gemini --resume ${sessionId}`, ...(marker && { marker }) };
}

/**
 * Folders `dirs` below `root`, each checked: created when missing, refused when it is a symlink or
 * not a folder, and the whole path must stay inside the root. Returns the deepest folder.
 */
function safeDirs(root: string, dirs: readonly string[]): string {
  fs.mkdirSync(root, { recursive: true });
  let cur = root;
  for (const d of dirs) {
    if (!d || d === '.' || d === '..' || d.includes('/') || d.includes('\\') || d.includes('\0')) throw new PathRefused(`"${d}" would leave the store ${root}.`, 403);
    const next = path.join(cur, d);
    if (!isInside(root, next)) throw new PathRefused(`${next} is outside the store ${root}.`, 403);
    let st: fs.Stats | undefined;
    try {
      st = fs.lstatSync(next);
    } catch {
      st = undefined;
    }
    if (st?.isSymbolicLink()) throw new PathRefused(`${next} is a symlink: the store's folders must be real folders.`, 403);
    if (st && !st.isDirectory()) throw new PathRefused(`${next} is not a folder.`, 403);
    if (!st) fs.mkdirSync(next);
    cur = next;
  }
  return cur;
}

function checkNew(file: string): void {
  let st: fs.Stats | undefined;
  try {
    st = fs.lstatSync(file);
  } catch {
    return;
  }
  if (st.isSymbolicLink()) throw new PathRefused(`${file} is a symlink: refused.`, 403);
  throw new PathRefused(`${file} exists already: a fork is always a new file.`, 409);
}

/** Creates `file` (never an existing one, never through a symlink). */
function createNew(file: string, text: string): void {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o600);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new PathRefused(`${file} exists already: a fork is always a new file.`, 409);
    if (code === 'ELOOP') throw new PathRefused(`${file} is a symlink: refused.`, 403);
    throw e;
  }
  try {
    fs.writeFileSync(fd, text);
  } finally {
    fs.closeSync(fd);
  }
}

/** The session ids an export carries (Claude Code: every record's, latest first; Codex and Gemini CLI: the header's). */
export function contentIds(agent: ResumeAgent, content: string): string[] {
  if (agent === 'claude-code') {
    const ids: string[] = [];
    for (const m of content.matchAll(/"sessionId":"([^"\\]{1,200})"/g)) if (!ids.includes(m[1])) ids.push(m[1]);
    return ids.reverse();
  }
  const m = agent === 'codex-cli' ? /"type":"session_meta","payload":\{[^]*?"id":"([^"\\]{1,200})"/.exec(content.slice(0, 1 << 20)) : /"sessionId"\s*:\s*"([^"\\]{1,200})"/.exec(content.slice(0, 1 << 16));
  return m ? [m[1]] : [];
}

/** The path of the store's session with one of these ids (the newest), if there is one. */
function findSource(stores: Stores, agent: ResumeAgent, ids: readonly string[]): string | undefined {
  if (ids.length === 0) return undefined;
  const sessions = listSessions({ ...stores, folders: [] }).sessions.filter((s) => s.agent === agent && !s.parent);
  for (const id of ids) {
    const hit = sessions.find((s) => s.sessionId === id);
    if (hit) return hit.path;
  }
  return undefined;
}

export interface ResumeOptions {
  now?: Date;
  /** Where the export came from (the CLI's FILE), recorded in the lineage when the request gives none. */
  sourcePath?: string;
}

function validate(req: unknown): ResumeRequest {
  if (!isObj(req)) throw new ResumeInputError('body: a JSON object {agent, content, cwd?, lineage?} is needed.');
  if (typeof req.agent !== 'string' || !RESUME_AGENTS.includes(req.agent as ResumeAgent)) throw new ResumeInputError(`agent: "${String(req.agent)}" is not one of ${RESUME_AGENTS.join(', ')}.`);
  if (typeof req.content !== 'string' || req.content.trim() === '') throw new ResumeInputError('content: the exported session text is missing (a non-empty string).');
  if (req.cwd !== undefined && (typeof req.cwd !== 'string' || !path.isAbsolute(req.cwd))) throw new ResumeInputError(`cwd: "${String(req.cwd)}" is not an absolute path.`);
  if (req.lineage !== undefined && !isObj(req.lineage)) throw new ResumeInputError('lineage: an object {sourceSessionId?, sourcePath?, version?, steps?, budget?} is needed.');
  const l = (req.lineage ?? {}) as Obj;
  for (const k of ['sourceSessionId', 'sourcePath', 'exportPath', 'version'] as const) if (l[k] !== undefined && typeof l[k] !== 'string') throw new ResumeInputError(`lineage.${k}: a string is needed.`);
  if (l.steps !== undefined && !(Array.isArray(l.steps) && l.steps.every((s) => typeof s === 'string'))) throw new ResumeInputError('lineage.steps: an array of strings is needed.');
  if (l.budget !== undefined && !(typeof l.budget === 'number' && Number.isFinite(l.budget) && l.budget >= 0)) throw new ResumeInputError('lineage.budget: a non-negative number is needed.');
  return req as unknown as ResumeRequest;
}

/** Writes the fork; throws ResumeInputError (400) or PathRefused (403/409). */
export function resumeFork(stores: Stores, body: unknown, opts: ResumeOptions = {}): ResumeResult {
  const req = validate(body);
  const now = opts.now ?? new Date();
  const given = req.lineage ?? {};
  const lineage: Lineage = { ...given, createdAt: now.toISOString(), tool: 'contextscope' };
  if (opts.sourcePath) lineage.exportPath = opts.sourcePath;
  // The session in the store the export came from (its id is in the export), so the library shows the fork under it.
  if (!lineage.sourcePath) {
    const found = findSource(stores, req.agent, contentIds(req.agent, req.content));
    if (found) lineage.sourcePath = found;
    else if (opts.sourcePath) lineage.sourcePath = opts.sourcePath;
  }
  const plan = req.agent === 'claude-code' ? planClaude(req.content, req.cwd) : req.agent === 'codex-cli' ? planCodex(req.content, req.cwd, now) : planGemini(req.content, req.cwd, lineage, stores, now);
  if (!lineage.sourceSessionId && plan.sourceSessionId) lineage.sourceSessionId = plan.sourceSessionId;
  const root = writeRoot(stores, req.agent);
  if (plan.marker) {
    const slugDir = safeDirs(root, plan.marker.dirs);
    createNew(path.join(slugDir, '.project_root'), plan.marker.text);
  }
  const dir = safeDirs(root, plan.dirs);
  const file = path.join(dir, plan.name);
  if (!isInside(root, file)) throw new PathRefused(`${file} is outside the store ${root}.`, 403);
  checkNew(file);
  if (plan.sidecar) checkNew(file + SIDECAR_SUFFIX);
  createNew(file, plan.text);
  if (plan.sidecar) createNew(file + SIDECAR_SUFFIX, JSON.stringify(lineage, null, 2) + '\n');
  return { agent: req.agent, sessionId: plan.sessionId, path: file, command: plan.command, ...(plan.cwd && { cwd: plan.cwd }), lineagePath: plan.sidecar ? file + SIDECAR_SUFFIX : file };
}
