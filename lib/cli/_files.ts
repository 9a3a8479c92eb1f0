/**
 * What the CLI reads and writes, with the checks a path given on the command line needs: only
 * regular files are read (a device or a FIFO never ends: /dev/zero grew to 19.5 GB), what is read
 * is capped, a file whose import would need more memory than Node's heap is refused before it
 * runs out, and an --out that is a directory or sits in a missing folder is named as such.
 * (A helper, not a verb: main.ts lists only names without an underscore.)
 */
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { gzipSync } from 'fflate';
import { ImportError } from '../errors';
import { formatBytes, sourceFromBytes, type SourceFile } from '../read/source';

/** Exit codes of every verb (documented in --help). */
export const EXIT = { ok: 0, missedTarget: 1, badInput: 2 } as const;

export const EXIT_CODES_HELP = `Exit codes: 0 success, 1 the compaction (or check) missed its target, 2 bad input (file, option, format).`;

/** Largest file any verb reads (compressed size on disk; gzip has its own cap on what it expands to). */
export const MAX_INPUT_BYTES = 2 * 1024 * 1024 * 1024;
/**
 * What an import needs of the JS heap, estimated from two measured shapes (V8's "heap out of
 * memory" is an abort, not an error, so the estimate is checked before the import starts):
 * large records cost ~2 bytes of heap per byte (a 216 MB Claude Code session: 344 MB heap used,
 * fails at --max-old-space-size=300, works at 450), tiny records ~1 KB per JSON object (300k
 * two-field messages on one line, 9.75 MB: 383–473 MB heap). The larger of the two is used;
 * objects are counted as "{" bytes.
 * Per object, counted again (issue 30: 10M records took 11.4 GB resident against the 9.3 GB the
 * old 1,000 bytes estimated): tests/hostile/import-memory.ts measures 990–1,195 bytes of heap
 * and 990–1,180 of resident memory per object at the end of an import of 100k–400k records,
 * before any collection (it depends on when the collector last ran); the estimate is 1,250, and a
 * test holds it at most 35 % above the measured heap, never below it.
 */
export const HEAP_BYTES_PER_INPUT_BYTE = 2;
export const HEAP_BYTES_PER_OBJECT = 1250;
/** How far the estimate may be from what an import uses (said in the message). */
export const MEMORY_ESTIMATE_ERROR = '−0/+35 %';

/** "{" bytes in the file (native byte search; ~0.1 s per 200 MB). */
function countOpenBraces(bytes: Uint8Array): number {
  let n = 0;
  for (let i = bytes.indexOf(0x7b); i >= 0; i = bytes.indexOf(0x7b, i + 1)) n++;
  return n;
}

let limitsForTests: { maxInputBytes?: number; heapLimit?: number } | null = null;
/** Test-only: small limits, so the guards are tested without gigabytes. */
export async function withCliLimits<T>(limits: { maxInputBytes?: number; heapLimit?: number }, fn: () => Promise<T>): Promise<T> {
  const prev = limitsForTests;
  limitsForTests = { ...prev, ...limits };
  try {
    return await fn();
  } finally {
    limitsForTests = prev;
  }
}

function fileError(file: string, message: string, expected: string, code = 'unreadable:file'): ImportError {
  return new ImportError(code, message, { file }, expected);
}

/** The bytes of a FILE argument: a regular file under the size cap, else a specific error. */
export function readInputFile(file: string, role = 'FILE'): Uint8Array {
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw fileError(file, `${role} does not exist.`, 'the path of a transcript file');
    if (code === 'EACCES') throw fileError(file, `${role} cannot be read (permission denied).`, 'a readable file');
    throw fileError(file, `${role} cannot be read (${code ?? (e as Error).message}).`, 'a readable file');
  }
  if (st.isDirectory()) throw fileError(file, `${role} is a directory, not a file.`, 'the path of a transcript file (for many files: roundtrip FILE...)');
  if (!st.isFile()) {
    const kind = st.isFIFO() ? 'a FIFO (named pipe)' : st.isCharacterDevice() ? 'a character device' : st.isBlockDevice() ? 'a block device' : st.isSocket() ? 'a socket' : 'not a regular file';
    throw fileError(file, `${role} is ${kind}: only regular files are read (a device or pipe may never end).`, 'a regular file');
  }
  const max = limitsForTests?.maxInputBytes ?? MAX_INPUT_BYTES;
  if (st.size > max) throw fileError(file, `${role} is ${formatBytes(st.size)}, more than the ${formatBytes(max)} one file may be.`, `a file under ${formatBytes(max)}`, 'too-large:file');
  // Read at most max + 1 bytes: a file that grows while it is read is still capped.
  const fd = fs.openSync(file, 'r');
  try {
    const buf = new Uint8Array(Math.min(st.size, max) + 1);
    let n = 0;
    for (;;) {
      const r = fs.readSync(fd, buf, n, buf.length - n, null);
      if (r === 0) break;
      n += r;
      if (n === buf.length) break;
    }
    if (n > max) throw fileError(file, `${role} grew past ${formatBytes(max)} while it was read.`, `a file under ${formatBytes(max)}`, 'too-large:file');
    return buf.subarray(0, n);
  } finally {
    fs.closeSync(fd);
  }
}

/** The heap this process may use (Node's --max-old-space-size, or its default for the machine). */
export function heapLimit(): number {
  return limitsForTests?.heapLimit ?? v8.getHeapStatistics().heap_size_limit;
}

/** Refuse, with the limit named, a (decompressed) file the import would need more heap for than Node has. */
export function checkFitsInMemory(source: SourceFile): void {
  const limit = heapLimit();
  const bytesNeed = source.bytes.length * HEAP_BYTES_PER_INPUT_BYTE;
  if (bytesNeed > limit) throw tooBig(source, bytesNeed, limit, '');
  const objects = source.encoding === 'utf-8' ? countOpenBraces(source.bytes) : 0;
  const objectsNeed = objects * HEAP_BYTES_PER_OBJECT;
  if (objectsNeed > limit) throw tooBig(source, objectsNeed, limit, ` and ${objects.toLocaleString('en-US')} JSON objects`);
}

function tooBig(source: SourceFile, need: number, limit: number, objects: string): ImportError {
  return new ImportError(
    'too-large:memory',
    `The file is ${formatBytes(source.bytes.length)}${source.gzip ? ' uncompressed' : ''}${objects}; importing it takes about ${formatBytes(need)} of memory (an estimate, ${MEMORY_ESTIMATE_ERROR}), more than Node's heap limit here (${formatBytes(limit)}). ` +
      `Raise the limit (NODE_OPTIONS=--max-old-space-size=${Math.ceil((need * 1.5) / (1024 * 1024))}) or split the file.`,
    { file: source.name },
    objects ? `at most about ${Math.floor(limit / HEAP_BYTES_PER_OBJECT).toLocaleString('en-US')} JSON objects at this heap limit` : `a file under ${formatBytes(Math.floor(limit / HEAP_BYTES_PER_INPUT_BYTE))} at this heap limit`,
  );
}

/** readInputFile + decompression + the memory check: the SourceFile every verb imports. */
export function readSource(file: string): SourceFile {
  const source = sourceFromBytes(path.basename(file), readInputFile(file));
  checkFitsInMemory(source);
  return source;
}

/** Checked before any work: an --out (or --report-json) that cannot be written is named now, not after. */
export function checkOutPath(out: string, flag = '--out'): void {
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(out);
  } catch {
    st = undefined;
  }
  if (st?.isDirectory()) throw fileError(out, `${flag} is a directory.`, `a file path for ${flag} (e.g. ${path.join(out, 'out.jsonl')})`, 'unwritable:out');
  const dir = path.dirname(path.resolve(out));
  let dst: fs.Stats | undefined;
  try {
    dst = fs.statSync(dir);
  } catch {
    dst = undefined;
  }
  if (!dst) throw fileError(out, `${flag}: the folder ${dir} does not exist.`, `an existing folder (mkdir -p ${dir})`, 'unwritable:out');
  if (!dst.isDirectory()) throw fileError(out, `${flag}: ${dir} is not a folder.`, 'a path inside an existing folder', 'unwritable:out');
}

/**
 * Write a file, with the reason in words when it cannot be written. A name ending in .gz is
 * written gzipped (issue 30: a .jsonl.gz input came out as plain JSONL under the .gz name). The
 * bytes go to a temporary name beside OUT, renamed onto OUT once complete: a run killed mid-write
 * leaves no part of a file under OUT's name (it left a 2 MB remnant of 150 MB that re-imported with
 * only an "incomplete last line" warning).
 */
export function writeOutput(out: string, data: string | Uint8Array, flag = '--out'): void {
  checkOutPath(out, flag);
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  const gz = /\.gz$/i.test(out) && !(bytes[0] === 0x1f && bytes[1] === 0x8b) ? gzipSync(bytes, { level: 6 }) : bytes;
  const tmp = path.join(path.dirname(out), `.${path.basename(out)}.${process.pid}-${Math.random().toString(36).slice(2, 8)}.partial`);
  try {
    fs.writeFileSync(tmp, gz);
    fs.renameSync(tmp, out);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'ENOSPC' ? 'the disk is full' : code === 'EROFS' ? 'a read-only file system' : (code ?? (e as Error).message);
    throw fileError(out, `${flag} cannot be written (${why}).`, 'a writable path', 'unwritable:out');
  }
}

/** V8's longest string (2^29 − 24 UTF-16 units on 64-bit): an export as one string cannot be longer. */
export const MAX_STRING_CHARS = 2 ** 29 - 24;

const STRING_LIMIT = /Invalid string length|Array buffer allocation failed/i;

/** V8's string-limit RangeError, thrown or wrapped (an error's `cause`, at any depth: convert wraps the writer's errors). */
function hitStringLimit(e: unknown): boolean {
  for (let x = e, depth = 0; x !== undefined && x !== null && depth < 10; x = (x as { cause?: unknown }).cause, depth++)
    if (x instanceof RangeError && STRING_LIMIT.test(x.message)) return true;
  return false;
}

/**
 * An export that outgrew one JavaScript string dies with V8's bare "Invalid string length": said
 * with the limit, and what to do, instead — also when the RangeError arrives wrapped (issue 30:
 * `convert` printed "Writing OpenAI Chat failed: Invalid string length").
 */
export function explainExportError(e: unknown, what: string): unknown {
  if (hitStringLimit(e)) {
    return new ImportError(
      'too-large:export',
      `The ${what} is longer than one string can hold here (V8's limit is ${MAX_STRING_CHARS.toLocaleString('en-US')} characters, about 512 MB of text); nothing was written.`,
      {},
      'a smaller file (compact or split it first, e.g. one conversation with --conversation)',
    );
  }
  return e;
}

/** The first of `dirs` that is not an existing folder (the sessions, census and open verbs refuse it), or undefined. */
export function firstNonFolder(dirs: readonly string[]): string | undefined {
  return dirs.find((d) => {
    try {
      return !fs.statSync(d).isDirectory();
    } catch {
      return true;
    }
  });
}
