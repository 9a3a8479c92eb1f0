/**
 * `compact DIR --out DIR2 --jobs N` and `compact --stream`: the same compaction as
 * `compact FILE` (compactBytes), over many transcripts.
 *
 * Batch: every file under DIR (recursively, dot files skipped) is compacted into DIR2 at the same
 * relative path by a pool of worker threads (default os.availableParallelism(); --jobs 1 runs in
 * this thread). Progress goes to stderr, one line per file as it finishes; a summary table to
 * stdout; exit 1 if any file failed.
 *
 * Stream: one transcript per stdin line, one JSON result per stdout line, in input order — so an
 * engine that fans lines out over machines (GNU parallel --pipe, Spark RDD.pipe, Ray Data) can
 * run it unchanged. Lines are processed one after another; parallelism is the engine's.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import type { Worker } from 'node:worker_threads';
import { startCliWorker } from './_worker';
import { readInputFile } from './_files';
import { userMessage } from '../errors';
import { providerFromEnvOrFlags, type CliProvider } from '../summarize/cli-provider';
import { compactBytes, parseCompactArgs, type CompactArgs, type CompactRow, type Io } from './compact';

export const WORKER_MARK = 'contextscopeCompactWorker';

export interface WorkerJob {
  /** The command line as given (FILE, --out and --jobs are replaced per job). */
  args: string[];
  file: string;
  out: string;
  /** The file's path relative to DIR, as shown in the progress and the table. */
  label: string;
}

const quiet: Io = { out: () => {}, err: () => {} };

/** Compact one file of a batch, as `compact FILE --out OUT` with the same arguments would. */
export async function runJob(job: WorkerJob, io: Io = quiet): Promise<CompactRow> {
  try {
    const cli = providerFromEnvOrFlags(job.args, process.env, { modelFlag: '--summary-model' });
    const a: CompactArgs = { ...parseCompactArgs(cli.rest), file: job.file, out: job.out, jobs: undefined };
    fs.mkdirSync(path.dirname(job.out), { recursive: true });
    const bytes = readInputFile(job.file);
    return { ...(await compactBytes(a, job.file, bytes, cli, io, undefined, job.args)), file: job.label };
  } catch (e) {
    return { file: job.label, code: 1, ms: 0, error: userMessage(e) };
  }
}

/**
 * Every file under dir (recursively; dot files and dot directories skipped), sorted. Entries that
 * are not regular files or folders (symlinks, which could lead out of DIR or to a device; FIFOs,
 * sockets, devices, which may never end) are not read: each goes to `skipped` with what it is.
 */
export function listFiles(dir: string, skipped: string[] = []): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((x, y) => (x.name < y.name ? -1 : 1))) {
      if (e.name.startsWith('.')) continue;
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.push(p);
      else {
        const kind = e.isSymbolicLink() ? 'a symlink' : e.isFIFO() ? 'a FIFO' : e.isSocket() ? 'a socket' : e.isCharacterDevice() || e.isBlockDevice() ? 'a device' : 'not a regular file';
        skipped.push(`${path.relative(dir, p)} (${kind})`);
      }
    }
  };
  walk(dir);
  return out;
}

/** A worker thread running lib/cli/_compact-worker: the built file next to the bundle, or the .ts source through tsx. */
function startWorker(): Worker {
  return startCliWorker(import.meta.url, 'compact-worker', './_compact-worker.ts', WORKER_MARK);
}

const fmt = (n: number | undefined) => (n === undefined ? '-' : n.toLocaleString('en-US'));
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export function summaryTable(rows: CompactRow[]): string {
  const head = ['file', 'format', 'turns', 'before', 'after', 'budget', 'status', 'time'];
  const body = rows.map((r) => [r.file, r.format ?? '-', fmt(r.turns), fmt(r.tokensBefore), fmt(r.tokensAfter), fmt(r.budget), r.code === 0 ? 'ok' : `FAILED: ${r.error ?? `exit ${r.code}`}`, secs(r.ms)]);
  const width = head.map((h, i) => Math.max(h.length, ...body.map((b) => (i === 6 ? 0 : b[i].length))));
  const right = new Set([2, 3, 4, 5, 7]);
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 6 ? c : right.has(i) ? c.padStart(width[i]) : c.padEnd(width[i])))
      .join('  ')
      .trimEnd();
  return [line(head), ...body.map(line)].join('\n');
}

export async function runBatch(args: string[], a: CompactArgs, io: Io): Promise<number> {
  const dir = a.file!;
  const outDir = a.out!;
  if (path.resolve(outDir) === path.resolve(dir) || path.resolve(outDir).startsWith(path.resolve(dir) + path.sep)) {
    io.err(`--out ${outDir} is inside ${dir}: the compacted files would be read as inputs. Pick a directory outside it.\n`);
    return 2;
  }
  const skipped: string[] = [];
  const files = listFiles(dir, skipped);
  // Said, not skipped in silence (issue 30): only regular files are compacted.
  if (skipped.length) io.err(`skipped ${skipped.length} entr${skipped.length === 1 ? 'y' : 'ies'} that ${skipped.length === 1 ? 'is' : 'are'} not a regular file (only regular files are read; a symlink may lead outside ${dir} or to a device): ${skipped.slice(0, 20).join(', ')}${skipped.length > 20 ? `, … and ${skipped.length - 20} more` : ''}\n`);
  if (files.length === 0) {
    io.err(`${dir} holds no files.\n`);
    return 2;
  }
  const jobs: WorkerJob[] = files.map((f) => {
    const label = path.relative(dir, f);
    return { args, file: f, out: path.join(outDir, label), label };
  });
  // At most one worker thread per core: more only share the cores, each with a heap of its own.
  const cores = os.availableParallelism();
  if (a.jobs !== undefined && a.jobs > cores) io.err(`note: --jobs ${a.jobs} capped at ${cores}, the cores here.\n`);
  const threads = Math.min(a.jobs ?? cores, cores, jobs.length);
  const t0 = performance.now();
  const rows: CompactRow[] = new Array(jobs.length);
  let done = 0;
  const progress = (i: number, r: CompactRow) => {
    rows[i] = r;
    done++;
    const what = r.code === 0 ? `ok  ${fmt(r.tokensBefore)} → ${fmt(r.tokensAfter)} tokens` : `FAILED  ${r.error ?? `exit ${r.code}`}`;
    io.err(`[${done}/${jobs.length}] ${r.file}  ${what}  ${secs(r.ms)}\n`);
  };
  io.err(`compacting ${jobs.length} file(s) of ${dir} into ${outDir} with ${threads} ${threads === 1 ? 'job (this thread)' : 'worker threads'}\n`);
  if (threads <= 1) {
    for (let i = 0; i < jobs.length; i++) progress(i, await runJob(jobs[i]));
  } else {
    let next = 0;
    await Promise.all(
      Array.from({ length: threads }, () =>
        new Promise<void>((resolve, reject) => {
          const w = startWorker();
          let current = -1;
          const feed = () => {
            if (next >= jobs.length) {
              void w.terminate().then(() => resolve());
              return;
            }
            current = next++;
            w.postMessage(jobs[current]);
          };
          w.on('message', (row: CompactRow) => {
            progress(current, row);
            feed();
          });
          w.on('error', (e) => {
            // A crashed thread fails its file; the others go on.
            if (current >= 0 && rows[current] === undefined) progress(current, { file: jobs[current].label, code: 1, ms: 0, error: `worker crashed: ${userMessage(e)}` });
            reject(e);
          });
          feed();
        }),
      ),
    ).catch(() => undefined);
    // Files a crashed thread never reached run here.
    for (let i = 0; i < jobs.length; i++) if (rows[i] === undefined) progress(i, await runJob(jobs[i]));
  }
  const failed = rows.filter((r) => r.code !== 0).length;
  io.out(summaryTable(rows) + '\n');
  io.out(`${rows.length - failed} compacted, ${failed} failed in ${secs(performance.now() - t0)} (${threads} ${threads === 1 ? 'job' : 'jobs'})\n`);
  return failed ? 1 : 0;
}

// ── Stream mode ──────────────────────────────────────────────────────────────────────────────

interface StreamInput {
  id?: unknown;
  name: string;
  bytes: Uint8Array;
}

const ENVELOPE_KEYS = new Set(['id', 'name', 'path', 'text', 'base64']);

/** One stdin line → the transcript it names or holds. Throws a message naming the line. */
export function parseStreamLine(line: string, n: number): StreamInput {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch (e) {
    throw new Error(`stdin line ${n}: not JSON (${(e as Error).message}). Each line is {"path": …}, {"text": …}, {"base64": …} or a transcript as one JSON document.`);
  }
  const o = v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  const sources = o ? ['path', 'text', 'base64'].filter((k) => k in o) : [];
  const envelope = o !== undefined && sources.length === 1 && Object.keys(o).every((k) => ENVELOPE_KEYS.has(k));
  if (!envelope) return { name: `line-${n}.json`, bytes: new TextEncoder().encode(line) };
  const name = typeof o.name === 'string' && o.name ? o.name : undefined;
  const id = o.id;
  const field = sources[0];
  const value = o[field];
  if (typeof value !== 'string') throw new Error(`stdin line ${n}: "${field}" must be a string (got ${value === null ? 'null' : typeof value}).`);
  // The same checks as FILE (issue 30: /dev/zero, directly or through a symlink, read without
  // bound; a FIFO hung): a regular file under the size cap, or a message naming the line.
  if (field === 'path') return { id, name: name ?? path.basename(value), bytes: readInputFile(value, `the "path" of stdin line ${n}`) };
  if (field === 'text') return { id, name: name ?? `line-${n}.jsonl`, bytes: new TextEncoder().encode(value) };
  if (!name) throw new Error(`stdin line ${n}: "base64" needs a "name" (its extension tells .eval archives and .gz apart).`);
  return { id, name, bytes: new Uint8Array(Buffer.from(value, 'base64')) };
}

/** The id and name a stdin line gave, when it is a JSON object carrying them. */
function envelopeOf(line: string): { id?: unknown; name?: string } {
  try {
    const v: unknown = JSON.parse(line);
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return {};
    const o = v as Record<string, unknown>;
    return { ...('id' in o && { id: o.id }), ...(typeof o.name === 'string' && o.name && { name: o.name }) };
  } catch {
    return {};
  }
}

/** The written file for a JSON line: text when it is UTF-8 text, else base64 (.eval archives, UTF-16). */
function encodeResult(bytes: Uint8Array): { text: string } | { base64: string } {
  if (!bytes.includes(0)) {
    try {
      return { text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes) };
    } catch {
      // not UTF-8
    }
  }
  return { base64: Buffer.from(bytes).toString('base64') };
}

export async function runStream(a: CompactArgs, cli: CliProvider, input: NodeJS.ReadableStream, io: Io, args: readonly string[] = []): Promise<number> {
  const rl = readline.createInterface({ input, crlfDelay: Infinity });
  let n = 0;
  let failed = 0;
  for await (const raw of rl) {
    n++;
    const line = raw.trim();
    if (!line) continue;
    let result: Record<string, unknown>;
    try {
      const src = parseStreamLine(line, n);
      let written: Uint8Array | undefined;
      const notes: string[] = [];
      const row = await compactBytes({ ...a, file: src.name, out: undefined }, src.name, src.bytes, cli, { out: () => {}, err: (s) => void notes.push(s.trimEnd()) }, (b) => (written = b), args);
      result = {
        ...(src.id !== undefined && { id: src.id }),
        name: src.name,
        ok: row.code === 0,
        format: row.format,
        turns: row.turns,
        tokensBefore: row.tokensBefore,
        tokensAfter: row.tokensAfter,
        budget: row.budget,
        ms: Math.round(row.ms),
        ...(written && encodeResult(written)),
        ...(row.error !== undefined && { error: row.error }),
      };
    } catch (e) {
      // A line refused before it was compacted keeps the id (and name) it gave, so the caller can match it.
      const { id, name } = envelopeOf(line);
      result = { ...(id !== undefined && { id }), name: name ?? `line-${n}`, ok: false, error: userMessage(e) };
    }
    if (result.ok !== true) failed++;
    io.out(JSON.stringify(result) + '\n');
  }
  if (n === 0) io.err('compact --stream: stdin was empty.\n');
  return failed ? 1 : 0;
}

