#!/usr/bin/env -S npx tsx
/**
 * `npm run test:clients` — resume original and compacted exports of corpus sessions in the REAL
 * agents (Claude Code, Codex CLI, Gemini CLI, installed from the npm registry into `.clients/`,
 * pinned in scripts/clients/clients.ts), each pointed at a mock model server on 127.0.0.1 that
 * records what the client sends. For every case it checks the request the client sent the model:
 *
 *   accepted   the client exited 0 and sent the conversation
 *   pairs      every tool call in the request is answered (as the API requires)
 *   summary    our summary reached the model (compacted cases that made one)
 *   prompt     the session's latest user prompt reached the model
 *   size       the conversation sent shrank in proportion to what compaction claims
 *
 * Cases per session: the original file, `compact --budget ⌊T/2⌋`, `--budget ⌊T/4⌋` and
 * `--strategy summarize --budget ⌊T/4⌋` (T = the tokens the model sees when the session resumes),
 * each produced by our CLI (`npm run -s cli -- compact …`). Prints a table and `N passed, N failed`.
 *
 * `pointers`: `compact --pointers --budget ⌊T/4⌋`; every pointer the export holds (to the source
 * file's line and uuid, lib/compaction/pointers.ts) is in the request the client sends.
 *
 * `fork` (the first session of each client, full runs): the user's way back. The original session
 * sits in the client's store (HOME), `compact --strategy summarize --budget ⌊T/4⌋` compacts it, our
 * `resume FILE --agent A --cwd WORK --json` writes the result into the store as a new session,
 * and the client resumes THAT id (the command `resume` printed). Checked as the summarize case,
 * and: the fork has a new id, and the original file in the store is byte-identical afterwards.
 *
 * Options: --subset (one session per client, original + half: what `npm test` runs),
 * --cases K[,K] (only these cases: original, half, quarter, summarize, fork, pointers),
 * --only CLIENT[,CLIENT], --session TEXT (sessions whose path contains it), --timeout SECONDS (per client run, default 120), --keep (keep the temp
 * folders), --json FILE (the table as JSON). All traffic stays on 127.0.0.1.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { importFile } from '../lib/formats/import';
import { sourceFromBytes } from '../lib/read/source';
import { modelViewTotals } from '../lib/compaction/project';
import type { Transcript } from '../lib/model/types';
import { CLIENTS, CLIENT_PACKAGES, baseEnv, conversationTokens, squash, stringsOf, type ClientId } from './clients/clients';
import { startMockServer, type MockServer, type RecordedRequest } from './clients/mock-server';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
/**
 * Our CLI as users run it (`npm run cli`): the built bundle, rebuilt first when older than its
 * sources. ~0.5 s of CPU per start where `tsx lib/cli/main.ts` took ~3 s (two starts per session).
 */
const CLI = path.join(root, 'scripts', 'cli.mjs');
const corpus = path.resolve(process.env.CONTEXTSCOPE_CORPUS ?? path.join(root, '../shared/corpus'));
/** Where the clients are installed (git-ignored); CONTEXTSCOPE_CLIENTS_DIR moves it (a cache kept across clones). */
const installDir = path.resolve(process.env.CONTEXTSCOPE_CLIENTS_DIR ?? path.join(root, '.clients'));

const SESSIONS: Record<ClientId, string[]> = {
  'claude-code': ['claude-code/vibecodingtracker_claude_code_v1.0.95.jsonl', 'claude-code/slopometry_transcript_opus45_compact.jsonl', 'claude-code/claude-code-viewer_5c0375b4.jsonl'],
  codex: ['codex-cli/localpush_rollout-2026-02-23_sanitized_compacted.jsonl', 'codex-cli/vibecodingtracker_codex_0.39.0.jsonl', 'codex-cli/codex-session-view_rollout-2025-11-17_cli0.58.0.jsonl'],
  'gemini-cli': ['gemini-cli/vibecodingtracker_gemini_session.jsonl', 'gemini-cli/vibecodingtracker_gemini_session_legacy.json'],
};

type CaseId = 'original' | 'half' | 'quarter' | 'summarize' | 'fork' | 'pointers';
const CASES: CaseId[] = ['original', 'half', 'quarter', 'summarize', 'fork', 'pointers'];
/** A pointer `compact --pointers` writes into a stub or summary (lib/compaction/pointers.ts formatPointer). */
const POINTER = /\[full text of [^\]]*?: \/[^\]]+? lines? \d+(?:-\d+)?(?:, uuid [\w-]+)?\]/g;
const PROMPT = 'Continue where we left off.';

interface Options {
  subset: boolean;
  only?: ClientId[];
  timeout: number;
  keep: boolean;
  json?: string;
  /** Only sessions whose corpus path contains this. */
  session?: string;
  cases?: CaseId[];
  /** Install the clients and stop (npm test runs this beside its unit stage). */
  installOnly?: boolean;
}

class OptionError extends Error {}

export const USAGE = `npm run test:clients [-- OPTIONS]: resume our exports of corpus sessions in the real Claude Code, Codex CLI
and Gemini CLI (installed from the npm registry into .clients/, or CONTEXTSCOPE_CLIENTS_DIR), each
pointed at a mock model server on 127.0.0.1, and check what each sends the model.

  --subset             one session per client, the original and a compaction to half (what npm test runs)
  --cases K[,K]        only these cases: ${CASES.join(', ')}
  --only C[,C]         only these clients: ${Object.keys(CLIENTS).join(', ')}
  --session TEXT       only the sessions whose path contains TEXT
  --timeout SECONDS    per client run (default 120)
  --keep               keep the temporary folders
  --json FILE          write the table as JSON
  --install-only       install the clients (if missing) and exit: 0 when they are there
  --help               this text`;

function parseArgs(argv: string[]): Options | 'help' {
  const o: Options = { subset: false, timeout: 120, keep: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--help' || a === '-h') return 'help';
    if (a === '--subset') o.subset = true;
    else if (a === '--keep') o.keep = true;
    else if (a === '--install-only') o.installOnly = true;
    else if (a === '--only') o.only = argv[++i].split(',') as ClientId[];
    else if (a === '--timeout') o.timeout = Number(argv[++i]);
    else if (a === '--json') o.json = argv[++i];
    else if (a === '--session') o.session = argv[++i];
    else if (a === '--cases') o.cases = argv[++i].split(',') as CaseId[];
    else throw new OptionError(`Unknown option ${a}.\n\n${USAGE}`);
  }
  for (const c of o.only ?? []) if (!(c in CLIENTS)) throw new OptionError(`Unknown client "${c}" (one of ${Object.keys(CLIENTS).join(', ')}).`);
  for (const c of o.cases ?? []) if (!CASES.includes(c)) throw new OptionError(`Unknown case "${c}" (one of ${CASES.join(', ')}).`);
  return o;
}

// ---------------------------------------------------------------------------------------------
// Install

function installedVersion(pkg: string): string | undefined {
  try {
    return (JSON.parse(fs.readFileSync(path.join(installDir, 'node_modules', pkg, 'package.json'), 'utf8')) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

/** Install the pinned clients into .clients/ (git-ignored) unless they are there already. */
export function ensureClients(ids: readonly ClientId[]): { ok: boolean; message: string } {
  const missing = ids.map((id) => CLIENT_PACKAGES[id]).filter((p) => installedVersion(p.pkg) !== p.version);
  if (missing.length === 0) return { ok: true, message: `clients already installed in ${path.relative(root, installDir)}/` };
  fs.mkdirSync(installDir, { recursive: true });
  if (!fs.existsSync(path.join(installDir, 'package.json'))) fs.writeFileSync(path.join(installDir, 'package.json'), JSON.stringify({ name: 'contextscope-test-clients', private: true }, null, 2) + '\n');
  const specs = missing.map((p) => `${p.pkg}@${p.version}`);
  const t0 = Date.now();
  console.log(`installing ${specs.join(' ')} into ${path.relative(root, installDir)}/ …`);
  const r = spawnSync('npm', ['install', '--prefix', installDir, '--no-audit', '--no-fund', '--loglevel=error', '--save-exact', ...specs], { stdio: ['ignore', 'inherit', 'inherit'], timeout: 600_000 });
  const bad = missing.filter((p) => installedVersion(p.pkg) !== p.version);
  if (r.status !== 0 || bad.length) return { ok: false, message: `npm install failed (exit ${r.status ?? r.signal}) for ${bad.map((p) => p.pkg).join(', ') || specs.join(', ')}` };
  return { ok: true, message: `installed in ${((Date.now() - t0) / 1000).toFixed(0)} s` };
}

// ---------------------------------------------------------------------------------------------
// Cases

interface CaseFile {
  file: string;
  /** Our summaries' texts (from the audit record). */
  summaries: string[];
  /** Conversation tokens (model view, without system and tool schemas) by our count. */
  tokens: number;
  compactExit?: number;
  compactMessage?: string;
}

function load(file: string): Transcript {
  return importFile(sourceFromBytes(path.basename(file), new Uint8Array(fs.readFileSync(file)))).transcript as Transcript;
}

function ourConversationTokens(t: Transcript): number {
  const v = modelViewTotals(t);
  return v.total - v.byKind.system - v.byKind.tools;
}

/** The session's latest prompt a user typed (not harness-injected text). */
function latestPrompt(t: Transcript): string | undefined {
  for (let i = t.messages.length - 1; i >= 0; i--) {
    const m = t.messages[i];
    if (m.role !== 'user' || m.meta || m.sidechain) continue;
    const text = m.blocks.flatMap((b) => (b.kind === 'text' ? [b.text] : [])).join('\n');
    if (squash(text).length >= 8 && !/^<(command|local-command|system-reminder|environment_context|user_instructions)/.test(text.trim())) return text;
  }
  return undefined;
}

/** A piece of a text that is distinctive enough to look for in a request (its longest line, clipped). */
function snippet(text: string, max = 60): string {
  const lines = text.split('\n').map(squash).filter((l) => l.length > 0);
  const best = lines.sort((a, b) => b.length - a.length)[0] ?? '';
  return best.slice(0, max);
}

function makeCase(source: string, kind: CaseId, budget: number, dir: string): CaseFile {
  if (kind === 'original') return { file: source, summaries: [], tokens: ourConversationTokens(load(source)) };
  const out = path.join(dir, `${kind}-${path.basename(source)}`);
  const report = path.join(dir, `${kind}-report.json`);
  const args = [CLI, 'compact', source, '--budget', String(budget), '--out', out, '--report-json', report, ...(kind === 'summarize' || kind === 'fork' ? ['--strategy', 'summarize'] : []), ...(kind === 'pointers' ? ['--pointers'] : [])];
  const r = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', timeout: 300_000 });
  const audit = fs.existsSync(report) ? (JSON.parse(fs.readFileSync(report, 'utf8')) as { summaries?: Array<{ text: string }> }) : {};
  const message = `${r.stderr ?? ''}`.trim().split('\n').slice(-1)[0];
  if (!fs.existsSync(out)) return { file: out, summaries: [], tokens: NaN, compactExit: r.status ?? -1, compactMessage: message || 'no output written' };
  return { file: out, summaries: (audit.summaries ?? []).map((s) => s.text), tokens: ourConversationTokens(load(out)), compactExit: r.status ?? -1, ...(r.status !== 0 && { compactMessage: message }) };
}

// ---------------------------------------------------------------------------------------------
// Running a client

/** After the client's session is placed: change how it is run (the fork case resumes another id). */
type Customize = (dirs: { home: string; work: string }, inv: { args: string[]; env: Record<string, string> }) => { args: string[]; env: Record<string, string> };

async function runClient(id: ClientId, file: string | undefined, mock: MockServer, timeoutS: number, customize?: Customize): Promise<{ exit: number | string; requests: RecordedRequest[]; seconds: number; log: string; dir: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `cs-${id}-`));
  const dirs = { home: path.join(dir, 'home'), work: path.join(dir, 'work') };
  for (const d of [dirs.home, dirs.work, path.join(dirs.home, 'tmp')]) fs.mkdirSync(d, { recursive: true });
  const placed = CLIENTS[id].place(file, dirs, mock.url, PROMPT);
  const inv = customize ? customize(dirs, placed) : placed;
  const bin = path.join(installDir, 'node_modules', '.bin', CLIENT_PACKAGES[id].bin);
  mock.reset();
  const t0 = Date.now();
  const logFile = path.join(dir, 'client.log');
  const log = fs.openSync(logFile, 'w');
  const child = spawn(bin, inv.args, { cwd: dirs.work, env: { ...baseEnv(dirs.home), ...inv.env } as unknown as NodeJS.ProcessEnv, stdio: ['ignore', log, log], detached: true });
  const exit = await new Promise<number | string>((resolve) => {
    const timer = setTimeout(() => {
      // The client and anything it started: its own process group.
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* already gone */
      }
      resolve(`timeout ${timeoutS}s`);
    }, timeoutS * 1000);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(code ?? `signal ${signal}`);
    });
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve(`spawn failed: ${e.message}`);
    });
  });
  fs.closeSync(log);
  return { exit, requests: [...mock.requests], seconds: (Date.now() - t0) / 1000, log: fs.readFileSync(logFile, 'utf8'), dir };
}

// ---------------------------------------------------------------------------------------------
// The fork case: our `resume` verb writes the compacted session into the client's store

const RESUME_ARGS: Record<ClientId, (id: string) => string[]> = {
  'claude-code': (sid) => ['-p', '--resume', sid, PROMPT, '--output-format', 'json'],
  codex: (sid) => ['exec', '--skip-git-repo-check', 'resume', sid, PROMPT],
  'gemini-cli': (sid) => ['-p', PROMPT, '--resume', sid],
};
const RESUME_AGENT: Record<ClientId, string> = { 'claude-code': 'claude-code', codex: 'codex-cli', 'gemini-cli': 'gemini-cli' };

function sha256(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

/** Every session file under a HOME's stores (the original the client's `place` put there). */
function storeFiles(home: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.existsSync(d) ? fs.readdirSync(d, { withFileTypes: true }) : []) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(jsonl|json)$/.test(e.name) && !e.name.endsWith('.contextscope.json')) out.push(p);
    }
  };
  for (const d of [path.join(home, '.claude', 'projects'), path.join(home, '.codex', 'sessions'), path.join(home, '.gemini', 'tmp')]) walk(d);
  return out;
}

function forkCase(id: ClientId, compacted: string, why: string[]): { customize: Customize; check: (why: string[]) => void } {
  let original: { file: string; hash: string } | undefined;
  let fork: { sessionId: string; path: string; command: string } | undefined;
  return {
    customize(dirs, inv) {
      const files = storeFiles(dirs.home);
      if (files.length !== 1) why.push(`expected the original alone in the store, found ${files.length} file(s)`);
      if (files[0]) original = { file: files[0], hash: sha256(files[0]) };
      if (id === 'gemini-cli') {
        // Gemini CLI deletes, when it starts, sessions last updated more than 30 days ago (its
        // general.sessionRetention default): the corpus original is months old and would go, by
        // the client's own hand. Off here, so the check below sees what our resume did to it.
        const settings = path.join(dirs.home, '.gemini', 'settings.json');
        const v = JSON.parse(fs.readFileSync(settings, 'utf8')) as Record<string, Record<string, unknown>>;
        fs.writeFileSync(settings, JSON.stringify({ ...v, general: { ...v.general, sessionRetention: { enabled: false } } }));
        // A project Gemini CLI's registry does not know (no projects.json): resume claims a slug
        // folder with a .project_root marker, the way the client claims one, and the client must
        // find the fork there by scanning the markers (projectRegistry.ts findExistingSlugForPath).
        fs.rmSync(path.join(dirs.home, '.gemini', 'projects.json'));
      }
      const env = { ...process.env, HOME: dirs.home, CLAUDE_CONFIG_DIR: '', CODEX_HOME: '', GEMINI_CLI_HOME: '' };
      const r = spawnSync(process.execPath, [CLI, 'resume', compacted, '--agent', RESUME_AGENT[id], '--cwd', dirs.work, '--json'], { cwd: root, encoding: 'utf8', env, timeout: 120_000 });
      try {
        fork = JSON.parse(r.stdout) as typeof fork;
      } catch {
        why.push(`resume exit ${r.status}: ${squash(r.stderr).slice(-300)}`);
        return inv;
      }
      if (!fork!.path.startsWith(dirs.home + path.sep)) why.push(`the fork was written outside the client's HOME: ${fork!.path}`);
      if (id === 'gemini-cli' && path.basename(path.dirname(path.dirname(fork!.path))) !== 'work-1') why.push(`the fork is not in a newly claimed slug folder (work-1): ${fork!.path}`);
      // The printed command is what the client is run as: in WORK (Claude Code and Gemini CLI look sessions up by folder), by the new id.
      const expected = id === 'codex' ? `codex resume ${fork!.sessionId}` : `cd ${dirs.work} && ${id === 'claude-code' ? 'claude' : 'gemini'} --resume ${fork!.sessionId}`;
      if (fork!.command !== expected) why.push(`the printed command is "${fork!.command}", not "${expected}"`);
      return { ...inv, args: RESUME_ARGS[id](fork!.sessionId) };
    },
    check(why) {
      if (!fork) return;
      if (original && !fs.existsSync(original.file)) why.push(`the original session file is gone: ${original.file}`);
      else if (original && sha256(original.file) !== original.hash) why.push(`the original session file changed: ${original.file}`);
      if (!fs.existsSync(fork.path)) why.push(`the fork file is gone: ${fork.path}`);
    },
  };
}

// ---------------------------------------------------------------------------------------------

/** The conversation sent: bytes of the array as JSON, and its tokens counted as our importers count (conversationTokens). */
function conversationSize(conv: readonly unknown[]): { bytes: number; tokens: number } {
  return { bytes: Buffer.byteLength(JSON.stringify(conv)), tokens: conversationTokens(conv) };
}

function isSystemItem(item: unknown): boolean {
  const role = typeof item === 'object' && item !== null ? (item as { role?: unknown }).role : undefined;
  return role === 'system' || role === 'developer';
}

/** An item as the client would send it in any session: ids dropped, the run's own folder named alike. */
function itemKey(item: unknown, dir: string): string {
  return JSON.stringify(item, (k, v: unknown) => (k === 'id' ? undefined : typeof v === 'string' ? v.split(dir).join('<run>') : v));
}

interface Row {
  client: ClientId;
  session: string;
  kind: CaseId;
  accepted: boolean;
  exit: number | string;
  calls: number;
  unanswered: number;
  /** true / false, or null when the case made no summary. */
  summary: boolean | null;
  prompt: boolean | null;
  /** Conversation sent: bytes of the array, tokens ≈ chars/4 of its text. */
  bytes: number;
  tokens: number;
  /** Sent vs the original's request, and what our counts claim. */
  ratio: number;
  expected: number;
  sizeOk: boolean;
  seconds: number;
  pass: boolean;
  why: string[];
}

function fmtRatio(x: number): string {
  return Number.isFinite(x) ? x.toFixed(2) : '—';
}

async function main(): Promise<number> {
  const o = parseArgs(process.argv.slice(2));
  if (o === 'help') {
    console.log(USAGE);
    return 0;
  }
  const ids = (o.only ?? (Object.keys(CLIENTS) as ClientId[])).filter((id) => id in SESSIONS);
  const inst = ensureClients(ids);
  console.log(inst.message);
  if (o.installOnly) return inst.ok ? 0 : 1;
  if (!inst.ok) {
    console.log(`0 passed, 1 failed`);
    return 1;
  }
  const mock = await startMockServer();
  console.log(`mock model server on ${mock.url}`);
  const rows: Row[] = [];
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-cases-'));
  try {
    for (const id of ids) {
      // What the client sends of its own in a new session (instructions, tool lists, reminders,
      // the prompt): taken off both sides of the size comparison.
      const fresh = await runClient(id, undefined, mock, o.timeout);
      const freshReq = CLIENTS[id].pick(fresh.requests);
      const freshConv = freshReq && typeof freshReq.body === 'object' && freshReq.body !== null ? CLIENTS[id].conversation(freshReq.body as Record<string, unknown>) : [];
      const own = new Set(freshConv.map((item) => itemKey(item, fresh.dir)));
      fs.rmSync(fresh.dir, { recursive: true, force: true });
      console.log(`${id}: a new session sends ${freshConv.length} item(s), ${conversationTokens(freshConv)} tokens of its own${fresh.exit === 0 ? '' : ` (exit ${fresh.exit})`}`);
      const sessions = (o.subset ? SESSIONS[id].slice(0, 1) : SESSIONS[id]).filter((f) => !o.session || f.includes(o.session));
      for (const rel of sessions) {
        const source = path.join(corpus, rel);
        const t = load(source);
        const mv = modelViewTotals(t).total;
        const prompt = latestPrompt(t);
        const budgets: Record<CaseId, number> = { original: mv, half: Math.floor(mv / 2), quarter: Math.floor(mv / 4), summarize: Math.floor(mv / 4), fork: Math.floor(mv / 4), pointers: Math.floor(mv / 4) };
        let reference: { bytes: number; tokens: number; ours: number } | undefined;
        const kinds = (o.subset ? (['original', 'half'] as CaseId[]) : CASES).filter((k) => (!o.cases || o.cases.includes(k)) && (k !== 'fork' || rel === SESSIONS[id][0]));
        for (const kind of kinds) {
          const dir = fs.mkdtempSync(path.join(work, `${id}-${kind}-`));
          const c = makeCase(source, kind, budgets[kind], dir);
          const why: string[] = [];
          if (c.compactExit !== undefined && c.compactExit !== 0) why.push(`compact exit ${c.compactExit}: ${c.compactMessage}`);
          const spec = CLIENTS[id];
          const fork = kind === 'fork' && fs.existsSync(c.file) ? forkCase(id, c.file, why) : undefined;
          // The fork case places the ORIGINAL in the store (as the user has it) and resumes the fork written beside it.
          const run = fs.existsSync(c.file) ? await runClient(id, fork ? source : c.file, mock, o.timeout, fork?.customize) : undefined;
          if (fork && run) fork.check(why);
          const req = run ? spec.pick(run.requests) : undefined;
          const body = req && typeof req.body === 'object' && req.body !== null ? (req.body as Record<string, unknown>) : undefined;
          const conv = body ? spec.conversation(body) : [];
          if (run && req) fs.writeFileSync(path.join(run.dir, 'request.json'), JSON.stringify(req.body, null, 1));
          const accepted = run !== undefined && run.exit === 0 && req !== undefined;
          if (run && !accepted) why.push(`client exit ${run.exit}${req ? '' : ', no model request recorded'}: ${squash(run.log).slice(-300)}`);
          const pairing = spec.pairing(conv);
          if (pairing.unanswered.length) why.push(`${pairing.unanswered.length} tool call(s) unanswered (first ${pairing.unanswered[0]})`);
          const text = squash(stringsOf(conv).join('\n'));
          const summary = c.summaries.length === 0 ? null : c.summaries.every((s) => text.includes(snippet(s)));
          if (summary === false) why.push('our summary is not in the request');
          const promptOk = prompt === undefined ? null : text.includes(squash(prompt).slice(0, 80));
          // --pointers: every pointer the export holds reaches the model, so the resumed agent can read the full text back.
          if (kind === 'pointers' && fs.existsSync(c.file)) {
            const pointers = [...new Set(fs.readFileSync(c.file, 'utf8').match(POINTER) ?? [])];
            const sent = pointers.filter((p) => text.includes(squash(p)));
            if (pointers.length === 0) why.push('the export holds no pointer');
            else if (sent.length < pointers.length) why.push(`${pointers.length - sent.length} of ${pointers.length} pointer(s) not in the request (first: ${pointers.find((p) => !text.includes(squash(p)))})`);
            else console.log(`  ${sent.length} pointer(s) in the request, e.g. ${sent[0]}`);
          }
          if (promptOk === false) why.push(`the latest user prompt ("${squash(prompt!).slice(0, 40)}…") is not in the request`);
          // What the request carries over from the session: the items a new session also sends
          // (the client's instructions, tool lists, environment, the new prompt) are left out.
          // System and developer messages are left out on both sides (our count leaves out system text:
          // Codex sends a session's base instructions apart from its input).
          const carried = run ? conv.filter((item) => !own.has(itemKey(item, run.dir)) && !isSystemItem(item)) : [];
          const { bytes, tokens } = conversationSize(carried);
          if (kind === 'original' && accepted) reference = { bytes, tokens, ours: c.tokens };
          const ratio = reference ? tokens / Math.max(1, reference.tokens) : NaN;
          const expected = reference ? c.tokens / reference.ours : NaN;
          // In proportion: the conversation sent shrinks as our counts say, within what the client
          // adds itself (its reminders and the new prompt) — neither more (content left behind)
          // nor less (content lost on the way).
          const sizeOk = kind === 'original' ? accepted : Number.isFinite(ratio) && Math.abs(ratio - expected) <= 0.1 + 0.25 * expected;
          if (kind !== 'original' && !sizeOk) why.push(`sent ${fmtRatio(ratio)} of the original's conversation, our counts claim ${fmtRatio(expected)}`);
          const pass = why.length === 0 && accepted && sizeOk;
          rows.push({ client: id, session: path.basename(rel), kind, accepted, exit: run?.exit ?? 'not run', calls: pairing.calls, unanswered: pairing.unanswered.length, summary, prompt: promptOk, bytes, tokens, ratio, expected, sizeOk, seconds: run?.seconds ?? 0, pass, why });
          const r = rows[rows.length - 1];
          console.log(`${r.pass ? 'PASS' : 'FAIL'} ${id} ${r.session} ${kind} (${r.seconds.toFixed(1)} s)${r.why.length ? ' — ' + r.why.join('; ') : ''}`);
          if (!o.keep && run) fs.rmSync(run.dir, { recursive: true, force: true });
          else if (run) console.log(`  kept ${run.dir} (case file: ${c.file})`);
        }
      }
    }
  } finally {
    await mock.close();
    if (!o.keep) fs.rmSync(work, { recursive: true, force: true });
    else console.log(`kept ${work}`);
  }
  printTable(rows);
  if (o.json) fs.writeFileSync(o.json, JSON.stringify(rows, null, 2) + '\n');
  const passed = rows.filter((r) => r.pass).length;
  const failed = rows.length - passed;
  console.log(`${passed} passed, ${failed} failed`);
  return failed > 0 ? 1 : 0;
}

function printTable(rows: readonly Row[]): void {
  const yn = (b: boolean | null) => (b === null ? '—' : b ? 'yes' : 'NO');
  const head = ['client', 'session', 'case', 'accepted', 'tool calls answered', 'summary', 'latest prompt', 'tokens carried', 'bytes carried', 'vs original', 'claimed', 'result'];
  const body = rows.map((r) => [
    r.client,
    r.session.replace(/\.(jsonl|json)$/, ''),
    r.kind,
    r.accepted ? 'yes' : `NO (${r.exit})`,
    `${r.calls - r.unanswered}/${r.calls}`,
    yn(r.summary),
    yn(r.prompt),
    String(r.tokens),
    String(r.bytes),
    fmtRatio(r.ratio),
    fmtRatio(r.expected),
    r.pass ? 'pass' : 'FAIL',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  console.log('\n' + line(head));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const b of body) console.log(line(b));
  console.log('');
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    // A bad option is the user's: its message, not a stack.
    console.error(e instanceof OptionError ? e.message : e instanceof Error ? e.stack ?? e.message : String(e));
    console.log('0 passed, 1 failed');
    process.exit(1);
  },
);
