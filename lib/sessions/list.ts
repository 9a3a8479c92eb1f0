/**
 * The session list: every session of the agents' stores and of the folders named, described from
 * its first and last bytes only (a head of 64 KiB, grown once to 256 KiB when the first prompt or
 * the id is not in it, and a tail of 64 KiB). A file is never read in full to be listed unless it
 * is smaller than those windows; what lies between them is not counted (`scanned: 'head-tail'`:
 * the agent's own compactions are then a lower bound).
 */
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import type { AgentId, Lineage, ResumeAgent, SessionEntry, SessionList } from './contract';
import { SESSION_EXTENSIONS, storeRoots, type Stores } from './stores';
import { isGeminiHarnessText } from '../categories/tools';

export const HEAD_BYTES = 64 * 1024;
export const HEAD_MAX_BYTES = 256 * 1024;
export const TAIL_BYTES = 64 * 1024;
/** The sidecar a fork's lineage is written to when the format has no place for it. */
export const SIDECAR_SUFFIX = '.contextscope.json';

export interface ListStats {
  files: number;
  bytesRead: number;
}

export interface ListOptions {
  /** Counts what the listing read (tests bound it). */
  stats?: ListStats;
  /** Entries of earlier lists: a file whose size and mtime are unchanged is not read again. */
  cache?: ListCache;
}

/** The server's memory of entries, by path, valid while the file's size and mtime stay the same. */
export class ListCache {
  private readonly byPath = new Map<string, { size: number; mtimeMs: number; entry: SessionEntry }>();
  get(file: string, st: fs.Stats): SessionEntry | undefined {
    const c = this.byPath.get(file);
    return c && c.size === st.size && c.mtimeMs === st.mtimeMs ? c.entry : undefined;
  }
  set(file: string, st: fs.Stats, entry: SessionEntry): void {
    this.byPath.set(file, { size: st.size, mtimeMs: st.mtimeMs, entry });
  }
  /** Keeps only the paths of the last list (deleted sessions leave the cache). */
  retain(paths: ReadonlySet<string>): void {
    for (const p of this.byPath.keys()) if (!paths.has(p)) this.byPath.delete(p);
  }
  /** Entries whose compactions were counted in the head and tail only. */
  partial(): Array<{ file: string; size: number; mtimeMs: number; entry: SessionEntry }> {
    return [...this.byPath.entries()].filter(([, c]) => c.entry.scanned === 'head-tail').map(([file, c]) => ({ file, ...c }));
  }
  /** A whole-file count for an entry, if the file is still the one that was counted. */
  settle(file: string, size: number, mtimeMs: number, compactions: number): boolean {
    const c = this.byPath.get(file);
    if (!c || c.size !== size || c.mtimeMs !== mtimeMs) return false;
    c.entry = { ...c.entry, compactions, scanned: 'whole' };
    return true;
  }
}

/** What marks a compaction the agent made, as the bytes of a record (unescaped: never inside a string). */
const COMPACTION_MARKERS: Partial<Record<string, Buffer>> = {
  'claude-code': Buffer.from('"subtype":"compact_boundary"'),
  'codex-cli': Buffer.from('"type":"compacted"'),
};

/**
 * The agent's compactions over the whole file, by a byte search for its marker (no JSON parse),
 * read in 1 MiB chunks with a yield between them: the server runs it in the background after a
 * list, so the next list has exact counts.
 */
export async function countCompactionsWhole(file: string, format: string | undefined, stats?: ListStats): Promise<number | undefined> {
  const marker = format ? COMPACTION_MARKERS[format] : undefined;
  if (!marker) return format === 'gemini-cli' ? 0 : undefined;
  const fh = await fs.promises.open(file, 'r');
  try {
    const chunk = Buffer.allocUnsafe(1024 * 1024);
    let carry = Buffer.alloc(0);
    let pos = 0;
    let n = 0;
    for (;;) {
      const { bytesRead } = await fh.read(chunk, 0, chunk.length, pos);
      if (bytesRead === 0) break;
      if (stats) stats.bytesRead += bytesRead;
      pos += bytesRead;
      const buf = carry.length ? Buffer.concat([carry, chunk.subarray(0, bytesRead)]) : chunk.subarray(0, bytesRead);
      for (let i = buf.indexOf(marker); i >= 0; i = buf.indexOf(marker, i + marker.length)) n++;
      carry = Buffer.from(buf.subarray(Math.max(0, buf.length - marker.length + 1)));
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return n;
  } finally {
    await fh.close();
  }
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

interface Window {
  size: number;
  mtime: Date;
  /** Complete lines of the head (a cut last line dropped unless the head is the whole file). */
  head: string[];
  /** Complete lines of the tail (empty when the head covers the file). */
  tail: string[];
  /** The head's text, cut lines included (for fields of a first line longer than the head). */
  headText: string;
  tailText: string;
  whole: boolean;
}

function readAt(fd: number, start: number, length: number, stats?: ListStats): Buffer {
  const buf = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const n = fs.readSync(fd, buf, got, length - got, start + got);
    if (n === 0) break;
    got += n;
  }
  if (stats) stats.bytesRead += got;
  return buf.subarray(0, got);
}

function lines(text: string, cutStart: boolean, cutEnd: boolean): string[] {
  const all = text.split('\n');
  if (cutStart) all.shift();
  if (cutEnd) all.pop();
  return all.map((l) => l.replace(/\r$/, '')).filter((l) => l.trim().length > 0);
}

/** Reads a head and a tail; `wantMore(head)` asks for the grown head once. */
function readWindow(file: string, wantMore: (head: string[]) => boolean, stats?: ListStats): Window {
  const fd = fs.openSync(file, 'r');
  try {
    const st = fs.fstatSync(fd);
    if (stats) stats.files++;
    let headLen = Math.min(st.size, HEAD_BYTES);
    let headBuf = readAt(fd, 0, headLen, stats);
    let headWhole = headLen >= st.size;
    let head = lines(headBuf.toString('utf8'), false, !headWhole);
    if (!headWhole && st.size > headLen && wantMore(head)) {
      const more = readAt(fd, headLen, Math.min(st.size, HEAD_MAX_BYTES) - headLen, stats);
      headBuf = Buffer.concat([headBuf, more]);
      headLen = headBuf.length;
      headWhole = headLen >= st.size;
      head = lines(headBuf.toString('utf8'), false, !headWhole);
    }
    let tail: string[] = [];
    let tailText = '';
    if (!headWhole) {
      const start = Math.max(headLen, st.size - TAIL_BYTES);
      tailText = readAt(fd, start, st.size - start, stats).toString('utf8');
      tail = lines(tailText, start > headLen || !headBuf.toString('utf8').endsWith('\n'), false);
      // A tail that starts right where the head stopped continues the head's cut line: its first piece is dropped above.
    }
    return { size: st.size, mtime: st.mtime, head, tail, headText: headBuf.toString('utf8'), tailText, whole: headWhole || st.size <= headLen + TAIL_BYTES };
  } finally {
    fs.closeSync(fd);
  }
}

function parse(line: string): Obj | undefined {
  try {
    const v = JSON.parse(line) as unknown;
    return isObj(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

const clip = (s: string): string => {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > 300 ? t.slice(0, 299) + '…' : t;
};

function textOf(content: unknown, partKey: 'text' | 'input_text' = 'text'): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const parts = content.flatMap((p) => (isObj(p) && (p.type === undefined || p.type === 'text' || p.type === partKey) && typeof p.text === 'string' ? [p.text] : []));
  return parts.length ? parts.join('\n') : undefined;
}

/** Text the harness put in a user turn, not what the user typed. */
const HARNESS = /^\s*(<(command-|local-command|system-reminder|environment_context|user_instructions|user-prompt|permissions|INSTRUCTIONS)|Caveat: |# AGENTS\.md instructions)/;

function iso(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const t = Date.parse(v);
  return Number.isFinite(t) ? new Date(t).toISOString() : undefined;
}

/** A field of the first JSON line when that line is longer than the head: `"key":"value"`. */
function rawField(text: string, key: string): string | undefined {
  const m = new RegExp(`"${key}"\\s*:\\s*"((?:[^"\\\\]|\\\\.){1,400})"`).exec(text);
  if (!m) return undefined;
  try {
    return JSON.parse(`"${m[1]}"`) as string;
  } catch {
    return undefined;
  }
}

function lastRawField(text: string, key: string): string | undefined {
  const re = new RegExp(`"${key}"\\s*:\\s*"((?:[^"\\\\]|\\\\.){1,400})"`, 'g');
  let last: string | undefined;
  for (let m = re.exec(text); m; m = re.exec(text)) last = m[1];
  if (last === undefined) return undefined;
  try {
    return JSON.parse(`"${last}"`) as string;
  } catch {
    return undefined;
  }
}

interface Described {
  sessionId?: string;
  cwd?: string;
  firstPrompt?: string;
  startedAt?: string;
  updatedAt?: string;
  model?: string;
  tokens?: number;
  compactions: number;
}

// ---------------------------------------------------------------------------------------------
// Claude Code

function claudeNeedsMore(head: string[]): boolean {
  return !head.some((l) => l.includes('"type":"user"') && !l.includes('"tool_result"'));
}

function describeClaude(w: Window): Described {
  const d: Described = { compactions: 0 };
  const records = [...w.head, ...w.tail].map(parse);
  for (const r of records) {
    if (!r) continue;
    d.sessionId ??= str(r.sessionId);
    d.cwd ??= str(r.cwd);
    const ts = iso(r.timestamp);
    if (ts) {
      d.startedAt ??= ts;
      d.updatedAt = ts;
    }
    if (r.type === 'system' && r.subtype === 'compact_boundary') d.compactions++;
    const msg = isObj(r.message) ? r.message : undefined;
    if (r.type === 'user' && !d.firstPrompt && r.isMeta !== true && r.isCompactSummary !== true && msg) {
      const t = textOf(msg.content);
      if (t && t.trim() && !HARNESS.test(t)) d.firstPrompt = clip(t);
    }
    if (r.type === 'assistant' && msg) {
      const model = str(msg.model);
      if (model && model !== '<synthetic>') d.model = model;
      const u = isObj(msg.usage) ? msg.usage : undefined;
      if (u && typeof u.input_tokens === 'number') d.tokens = num(u.input_tokens) + num(u.cache_read_input_tokens) + num(u.cache_creation_input_tokens);
    }
  }
  return d;
}

// ---------------------------------------------------------------------------------------------
// Codex

function codexNeedsMore(head: string[]): boolean {
  return !head.some((l) => l.includes('"user_message"'));
}

function describeCodex(w: Window): Described {
  const d: Described = { compactions: 0 };
  let fallbackPrompt: string | undefined;
  for (const r of [...w.head, ...w.tail].map(parse)) {
    if (!r) continue;
    const p = isObj(r.payload) ? r.payload : {};
    const ts = iso(r.timestamp);
    if (ts) {
      d.startedAt ??= ts;
      d.updatedAt = ts;
    }
    if (r.type === 'session_meta') {
      d.sessionId ??= str(p.id);
      d.cwd ??= str(p.cwd);
      const start = iso(p.timestamp);
      if (start && !d.model) d.startedAt = d.startedAt && d.startedAt < start ? d.startedAt : start;
    } else if (r.type === 'turn_context') {
      d.model = str(p.model) ?? d.model;
      d.cwd ??= str(p.cwd);
    } else if (r.type === 'compacted') d.compactions++;
    else if (r.type === 'event_msg' && p.type === 'user_message' && !d.firstPrompt) {
      const t = str(p.message);
      if (t && !HARNESS.test(t)) d.firstPrompt = clip(t);
    } else if (r.type === 'event_msg' && p.type === 'token_count' && isObj(p.info) && isObj(p.info.last_token_usage)) {
      d.tokens = num(p.info.last_token_usage.input_tokens);
    } else if (r.type === 'response_item' && p.type === 'message' && p.role === 'user' && !fallbackPrompt) {
      const t = textOf(p.content, 'input_text');
      if (t && !HARNESS.test(t)) fallbackPrompt = clip(t);
    }
  }
  d.firstPrompt ??= fallbackPrompt;
  if (!d.sessionId && w.head.length === 0) {
    // A session_meta longer than the head (base instructions): its first fields are still in it.
    d.sessionId = rawField(w.headText, 'id');
    d.cwd ??= rawField(w.headText, 'cwd');
  }
  return d;
}

// ---------------------------------------------------------------------------------------------
// Gemini CLI

function geminiMessage(r: Obj, d: Described): void {
  const ts = iso(r.timestamp);
  if (ts) d.updatedAt = d.updatedAt && d.updatedAt > ts ? d.updatedAt : ts;
  if (r.type === 'user' && !d.firstPrompt) {
    const t = textOf(r.content);
    // Skip what Gemini CLI sends in the user's place ("System: Please continue.", /init's prompt).
    if (t && t.trim() && !HARNESS.test(t) && !isGeminiHarnessText(t)) d.firstPrompt = clip(t);
  }
  if (r.type === 'gemini') {
    d.model = str(r.model) ?? d.model;
    if (isObj(r.tokens) && typeof r.tokens.input === 'number') d.tokens = num(r.tokens.input);
  }
}

function describeGemini(w: Window, file: string): Described {
  const d: Described = { compactions: 0 };
  if (file.endsWith('.json')) {
    // Legacy: one JSON object, rewritten whole on every update.
    if (w.whole) {
      const doc = parse(w.headText);
      if (doc) {
        d.sessionId = str(doc.sessionId);
        d.startedAt = iso(doc.startTime);
        d.updatedAt = iso(doc.lastUpdated);
        for (const m of Array.isArray(doc.messages) ? doc.messages : []) if (isObj(m)) geminiMessage(m, d);
        d.updatedAt = iso(doc.lastUpdated) ?? d.updatedAt;
        return d;
      }
    }
    d.sessionId = rawField(w.headText, 'sessionId');
    d.startedAt = iso(rawField(w.headText, 'startTime'));
    d.updatedAt = iso(rawField(w.headText, 'lastUpdated'));
    for (const m of w.headText.matchAll(/"type"\s*:\s*"user"\s*,\s*"content"\s*:\s*(?:\[\s*\{\s*"text"\s*:\s*)?"((?:[^"\\]|\\.){1,2000})"/g)) {
      let t: string;
      try {
        t = JSON.parse(`"${m[1]}"`) as string;
      } catch {
        continue; /* cut escape */
      }
      if (!t.trim() || HARNESS.test(t) || isGeminiHarnessText(t)) continue;
      d.firstPrompt = clip(t);
      break;
    }
    d.model = lastRawField(w.tailText, 'model');
    return d;
  }
  for (const r of [...w.head, ...w.tail].map(parse)) {
    if (!r) continue;
    if (typeof r.sessionId === 'string' && typeof r.startTime === 'string' && !d.sessionId) {
      d.sessionId = r.sessionId;
      d.startedAt = iso(r.startTime);
      d.updatedAt = iso(r.lastUpdated) ?? d.updatedAt;
      continue;
    }
    if (isObj(r.$set)) {
      d.updatedAt = iso(r.$set.lastUpdated) ?? d.updatedAt;
      if (typeof r.$set.sessionId === 'string') d.sessionId = r.$set.sessionId;
      if (Array.isArray(r.$set.messages)) for (const m of r.$set.messages) if (isObj(m)) geminiMessage(m, d);
      continue;
    }
    geminiMessage(r, d);
  }
  return d;
}

/** The project folder of a Gemini CLI slug folder: its .project_root, projects.json, or a sha256 match. */
function geminiProjects(stores: Stores, stats?: ListStats): (slug: string) => string | undefined {
  let registry: Record<string, string> = {};
  try {
    const text = fs.readFileSync(path.join(stores.geminiDir, 'projects.json'), 'utf8');
    if (stats) stats.bytesRead += text.length;
    const v = JSON.parse(text) as unknown;
    if (isObj(v) && isObj(v.projects)) registry = Object.fromEntries(Object.entries(v.projects).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch {
    /* no registry */
  }
  const bySlug = new Map(Object.entries(registry).map(([p, slug]) => [slug, p]));
  const byHash = new Map(Object.keys(registry).map((p) => [crypto.createHash('sha256').update(p).digest('hex'), p]));
  const cache = new Map<string, string | undefined>();
  return (slug) => {
    if (cache.has(slug)) return cache.get(slug);
    let cwd: string | undefined;
    try {
      cwd = fs.readFileSync(path.join(stores.geminiTmp, slug, '.project_root'), 'utf8').trim() || undefined;
    } catch {
      /* no marker */
    }
    cwd ??= bySlug.get(slug) ?? byHash.get(slug);
    cache.set(slug, cwd);
    return cwd;
  };
}

// ---------------------------------------------------------------------------------------------
// Folders named on the command line: the agent told by the first line.

function sniff(w: Window): ResumeAgent | undefined {
  const first = w.head.length ? parse(w.head[0]) : undefined;
  if (first?.type === 'session_meta' || /^\s*\{"timestamp":"[^"]*","type":"session_meta"/.test(w.headText)) return 'codex-cli';
  if (first && typeof first.sessionId === 'string' && typeof first.projectHash === 'string') return 'gemini-cli';
  if (/^\s*\{\s*"sessionId"\s*:\s*"[^"]*"\s*,\s*"projectHash"/.test(w.headText)) return 'gemini-cli';
  if (w.head.slice(0, 20).some((l) => /"sessionId":"[^"]+"/.test(l) && /"type":"(user|assistant|summary|system)"/.test(l))) return 'claude-code';
  return undefined;
}

// ---------------------------------------------------------------------------------------------

interface Found {
  agent: AgentId;
  file: string;
  format: 'claude-code' | 'codex-cli' | 'gemini-cli' | undefined;
  parent?: string;
  /** Gemini CLI: the project slug folder. */
  slug?: string;
  /** Names in the file's folder (for the sidecar check). */
  siblings: Set<string>;
}

function readdir(dir: string): fs.Dirent[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

function walk(dir: string, visit: (dir: string, entries: fs.Dirent[]) => void, depth: number, skipDot = true): void {
  const entries = readdir(dir);
  visit(dir, entries);
  if (depth <= 0) return;
  for (const e of entries) if (e.isDirectory() && !(skipDot && e.name.startsWith('.')) && e.name !== 'node_modules') walk(path.join(dir, e.name), visit, depth - 1, skipDot);
}

function findAll(stores: Stores): Found[] {
  const found: Found[] = [];
  const names = (entries: fs.Dirent[]) => new Set(entries.map((e) => e.name));
  // Claude Code: projects/<p>/*.jsonl, projects/<p>/<session>/subagents/*.jsonl
  for (const p of readdir(stores.claudeProjects)) {
    if (!p.isDirectory()) continue;
    const pdir = path.join(stores.claudeProjects, p.name);
    const top = readdir(pdir);
    const sibs = names(top);
    for (const e of top) {
      if (e.isFile() && e.name.endsWith('.jsonl')) found.push({ agent: 'claude-code', format: 'claude-code', file: path.join(pdir, e.name), siblings: sibs });
      else if (e.isDirectory()) {
        // <sessionId>/subagents/*.jsonl: a sub-agent's transcript, shown under its parent session.
        const subDir = path.join(pdir, e.name, 'subagents');
        const subs = readdir(subDir);
        const subSibs = names(subs);
        for (const x of subs) if (x.isFile() && x.name.endsWith('.jsonl')) found.push({ agent: 'claude-code', format: 'claude-code', file: path.join(subDir, x.name), siblings: subSibs, parent: path.join(pdir, `${e.name}.jsonl`) });
      }
    }
  }
  // Codex: sessions/**/rollout-*.jsonl, archived_sessions/**/rollout-*.jsonl
  for (const root of [stores.codexSessions, stores.codexArchived])
    walk(
      root,
      (dir, entries) => {
        const sibs = names(entries);
        for (const e of entries) if (e.isFile() && e.name.startsWith('rollout-') && e.name.endsWith('.jsonl')) found.push({ agent: 'codex-cli', format: 'codex-cli', file: path.join(dir, e.name), siblings: sibs });
      },
      4,
    );
  // Gemini CLI: tmp/<slug>/chats/session-*.json[l], tmp/<slug>/chats/<parent id>/*.jsonl
  for (const s of readdir(stores.geminiTmp)) {
    if (!s.isDirectory()) continue;
    const chats = path.join(stores.geminiTmp, s.name, 'chats');
    const top = readdir(chats);
    const sibs = names(top);
    const mains = top.filter((e) => e.isFile() && e.name.startsWith('session-') && (e.name.endsWith('.jsonl') || e.name.endsWith('.json')) && !e.name.endsWith(SIDECAR_SUFFIX));
    for (const e of mains) found.push({ agent: 'gemini-cli', format: 'gemini-cli', file: path.join(chats, e.name), slug: s.name, siblings: sibs });
    for (const d of top) {
      if (!d.isDirectory()) continue;
      const parentFile = mains.find((m) => m.name.replace(/\.jsonl?$/, '').endsWith(`-${d.name.slice(0, 8)}`));
      const subEntries = readdir(path.join(chats, d.name));
      const subSibs = names(subEntries);
      for (const e of subEntries)
        if (e.isFile() && e.name.endsWith('.jsonl')) found.push({ agent: 'gemini-cli', format: 'gemini-cli', file: path.join(chats, d.name, e.name), slug: s.name, siblings: subSibs, ...(parentFile && { parent: path.join(chats, parentFile.name) }) });
    }
  }
  // Folders named: any transcript file, to depth 6, dot-folders inside skipped.
  for (const folder of stores.folders)
    walk(
      folder,
      (dir, entries) => {
        const sibs = names(entries);
        for (const e of entries) if (e.isFile() && SESSION_EXTENSIONS.some((x) => e.name.toLowerCase().endsWith(x)) && !e.name.endsWith(SIDECAR_SUFFIX)) found.push({ agent: 'folder', format: undefined, file: path.join(dir, e.name), siblings: sibs });
      },
      6,
    );
  return found;
}

function readLineage(file: string, stats?: ListStats): Lineage | undefined {
  try {
    const text = fs.readFileSync(file + SIDECAR_SUFFIX, 'utf8');
    if (stats) stats.bytesRead += text.length;
    const v = JSON.parse(text) as unknown;
    return isObj(v) && v.tool === 'contextscope' ? (v as unknown as Lineage) : undefined;
  } catch {
    return undefined;
  }
}

/** A Gemini CLI fork carries its lineage in the header (`contextscope`), since a sidecar named session-*.json would pass for a session. */
function inFileLineage(w: Window, file: string): Lineage | undefined {
  let l: unknown;
  if (file.endsWith('.json')) l = parse(jsonObjectAfter(w.headText, '"contextscope"') ?? '');
  else {
    const first = w.head.length ? parse(w.head[0]) : undefined;
    l = first?.contextscope;
  }
  return isObj(l) && l.tool === 'contextscope' ? (l as unknown as Lineage) : undefined;
}

/** The JSON object text that follows `key` in a document's text (strings skipped when matching braces). */
function jsonObjectAfter(text: string, key: string): string | undefined {
  const k = text.indexOf(key);
  if (k < 0) return undefined;
  const start = text.indexOf('{', k);
  if (start < 0) return undefined;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{') depth++;
    else if (ch === '}' && --depth === 0) return text.slice(start, i + 1);
  }
  return undefined;
}

/** Describe one file (exported for the server's single-file answers and for tests). */
export function describeSession(f: Found, geminiCwd: (slug: string) => string | undefined, stats?: ListStats): SessionEntry | undefined {
  let format = f.format;
  let w: Window;
  const needsMore = format === 'claude-code' ? claudeNeedsMore : format === 'codex-cli' ? codexNeedsMore : () => false;
  w = readWindow(f.file, needsMore, stats);
  if (!format && f.agent === 'folder') {
    format = sniff(w);
    if (format === 'claude-code' && claudeNeedsMore(w.head) && !w.whole) w = readWindow(f.file, claudeNeedsMore, stats);
  }
  const d: Described = format === 'claude-code' ? describeClaude(w) : format === 'codex-cli' ? describeCodex(w) : format === 'gemini-cli' ? describeGemini(w, f.file) : { compactions: 0 };
  const base = path.basename(f.file);
  // The id each agent resumes by: Claude Code's file name; Codex's session_meta id; Gemini CLI's header.
  const sessionId = (format === 'claude-code' ? base.replace(/\.jsonl$/, '') : d.sessionId) ?? (/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i.exec(base)?.[0] ?? base.replace(/\.[^.]+$/, ''));
  const derivedFrom = f.siblings.has(base + SIDECAR_SUFFIX) ? readLineage(f.file, stats) : format === 'gemini-cli' ? inFileLineage(w, f.file) : undefined;
  const cwd = format === 'gemini-cli' && f.slug ? geminiCwd(f.slug) : d.cwd;
  return {
    agent: f.agent,
    ...(f.agent === 'folder' && format && { format }),
    path: f.file,
    sessionId,
    ...(cwd && { cwd }),
    ...(d.firstPrompt && { firstPrompt: d.firstPrompt }),
    ...(d.startedAt && { startedAt: d.startedAt }),
    updatedAt: d.updatedAt ?? w.mtime.toISOString(),
    bytes: w.size,
    ...(d.model && { model: d.model }),
    ...(d.tokens !== undefined && d.tokens > 0 && { tokens: d.tokens }),
    compactions: d.compactions,
    scanned: w.whole ? 'whole' : 'head-tail',
    ...(f.parent && { parent: f.parent }),
    ...(derivedFrom && { derivedFrom }),
  };
}

/** Every session in the stores and folders, newest update first. Unreadable files are listed in `skipped`. */
export function listSessions(stores: Stores, opts: ListOptions = {}): SessionList {
  const roots = storeRoots(stores);
  const geminiCwd = geminiProjects(stores, opts.stats);
  const sessions: SessionEntry[] = [];
  const skipped: { path: string; reason: string }[] = [];
  const seen = new Set<string>();
  for (const f of findAll(stores)) {
    if (seen.has(f.file)) continue;
    seen.add(f.file);
    try {
      const st = opts.cache ? fs.statSync(f.file) : undefined;
      const cached = st && opts.cache!.get(f.file, st);
      // A fork's sidecar may come after its file was listed: looked up again (a name in the folder listing).
      if (cached && (cached.derivedFrom || !f.siblings.has(path.basename(f.file) + SIDECAR_SUFFIX))) {
        sessions.push(cached);
        continue;
      }
      const e = describeSession(f, geminiCwd, opts.stats);
      if (e) {
        sessions.push(e);
        if (st) opts.cache!.set(f.file, st, e);
      }
    } catch (err) {
      skipped.push({ path: f.file, reason: err instanceof Error ? err.message : String(err) });
    }
  }
  sessions.sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : a.path.localeCompare(b.path)));
  opts.cache?.retain(seen);
  return { sessions, roots, ...(skipped.length && { skipped }) };
}
