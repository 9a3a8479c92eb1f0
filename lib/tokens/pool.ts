/**
 * Exact token counts on every core (issue 12), shared by the CLI (worker threads) and the browser
 * (Web Workers started by the engine's worker). Nothing here touches Node or the DOM: a pool is
 * `size` counting threads behind one `runJob`, and this file decides what each counts.
 *
 * - `countOnPool` hands the texts out in chunks of about CHUNK_CHARS characters, each to the next
 *   idle thread, so a thread that drew slow text (long code lines, CJK) does not leave the others
 *   idle at the end, as one contiguous share per thread did.
 * - `importWithPool` runs an import once with exact counting deferred (texts collected, counts
 *   left at 0), counts the distinct texts on the pool, and gives every block and tool schema its
 *   count: the transcript is the one `importFile` returns, counted on every core.
 */
import { importFile, type ImportOptions, type ImportResult } from '../formats/import';
import type { SourceFile } from '../read/source';
import { deepFreeze } from '../model/builder';
import { blockText, counterById, toolSchemaText, withExactCounts, type ExactId } from './count';

/** A counting thread's answer to one job: the counts of its texts, in order. */
export type RunJob = (thread: number, tokenizer: ExactId, texts: string[]) => Promise<Uint32Array>;

export interface CountPool {
  /** Counting threads. */
  size: number;
  count(texts: readonly string[], tokenizer: ExactId): Promise<Uint32Array>;
  close(): Promise<void>;
}

/** A job posted to a counting thread, and its answer. */
export interface CountJob {
  id: number;
  tokenizer: ExactId;
  texts: string[];
}
export interface CountAnswer {
  id: number;
  counts: Uint32Array<ArrayBuffer>;
}

/** What a counting thread runs on each job (the CLI's worker threads and the browser's Web Workers). */
export function countJob(job: CountJob): CountAnswer {
  return { id: job.id, counts: countAll(job.texts, job.tokenizer) };
}

function countAll(texts: readonly string[], tokenizer: ExactId): Uint32Array<ArrayBuffer> {
  const counter = counterById(tokenizer);
  const counts = new Uint32Array(texts.length);
  for (let i = 0; i < texts.length; i++) counts[i] = counter.count(texts[i]);
  return counts;
}

/**
 * The jobs in flight on a pool's threads: `runJob` posts one (through `post`) and resolves when
 * `answer` receives its counts; `fail` rejects every job in flight (a thread died).
 */
export function jobsInFlight(post: (thread: number, job: CountJob) => void): { runJob: RunJob; answer(a: CountAnswer): void; fail(e: unknown): void } {
  let next = 0;
  const pending = new Map<number, { resolve: (c: Uint32Array) => void; reject: (e: unknown) => void }>();
  return {
    runJob: (thread, tokenizer, texts) =>
      new Promise<Uint32Array>((resolve, reject) => {
        const id = next++;
        pending.set(id, { resolve, reject });
        post(thread, { id, tokenizer, texts });
      }),
    answer(a) {
      pending.get(a.id)?.resolve(a.counts);
      pending.delete(a.id);
    },
    fail(e) {
      for (const p of pending.values()) p.reject(e);
      pending.clear();
    },
  };
}

/** Characters per job: large enough that posting is cheap, small enough to balance the threads. */
export const CHUNK_CHARS = 256 * 1024;
/** Below this many characters of exact-counted text, one thread counts faster than a pool starts. */
export const POOL_MIN_CHARS = 2_000_000;

/** Counts `texts` on `size` threads, chunk by chunk, each chunk to the next idle thread. */
export async function countOnPool(texts: readonly string[], tokenizer: ExactId, size: number, runJob: RunJob, chunkChars = CHUNK_CHARS): Promise<Uint32Array> {
  const out = new Uint32Array(texts.length);
  const chunks: Array<[number, number]> = [];
  for (let from = 0, i = 0, chars = 0; i < texts.length; i++) {
    chars += texts[i].length;
    if (chars >= chunkChars || i === texts.length - 1) {
      chunks.push([from, i + 1]);
      from = i + 1;
      chars = 0;
    }
  }
  let next = 0;
  const drain = async (thread: number) => {
    while (next < chunks.length) {
      const [a, b] = chunks[next++];
      const counts = await runJob(thread, tokenizer, texts.slice(a, b) as string[]);
      if (counts.length !== b - a) throw new Error(`A counting thread answered ${counts.length} counts for ${b - a} texts.`);
      out.set(counts, a);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(size, chunks.length)) }, (_, k) => drain(k)));
  return out;
}

/** What a pooled import did, for the Info panel and the CLI's figures. */
export interface PoolReport {
  /** Threads that counted (1: counted in this thread). */
  threads: number;
  tokenizer?: ExactId;
  /** Distinct texts and their characters counted exactly. */
  texts: number;
  chars: number;
}

/**
 * importFile, with the exact counts of a large import made on the pool (the same result). Under
 * `minChars` of exact-counted text the counts are made in this thread; `pool` is only started
 * (by calling it) when the pool is worth it.
 */
export async function importWithPool(
  source: SourceFile,
  options: ImportOptions,
  pool: () => CountPool | Promise<CountPool>,
  minChars = POOL_MIN_CHARS,
): Promise<ImportResult & { pool: PoolReport }> {
  const collect: Record<ExactId, string[]> = { o200k: [], cl100k: [] };
  const deferred = withExactCounts({ collect }, () => importFile(source, options));
  const id: ExactId | undefined = collect.o200k.length ? 'o200k' : collect.cl100k.length ? 'cl100k' : undefined;
  if (!id) return { ...deferred, pool: { threads: 1, texts: 0, chars: 0 } }; // nothing counted exactly (chars/4): final
  const texts = [...new Set(collect[id])];
  const chars = texts.reduce((n, t) => n + t.length, 0);
  let counts: ArrayLike<number>;
  let threads = 1;
  if (chars < minChars) counts = countAll(texts, id);
  else {
    const p = await pool();
    threads = p.size;
    try {
      counts = await p.count(texts, id);
    } finally {
      await p.close();
    }
  }
  const byText = new Map<string, number>();
  texts.forEach((t, i) => byText.set(t, counts[i]));
  const counted = (text: string) => (text.length === 0 ? 0 : byText.get(text) ?? counterById(id).count(text));
  const t = deferred.transcript;
  const transcript = deepFreeze({
    ...t,
    messages: t.messages.map((m) => ({
      ...m,
      blocks: m.blocks.map((b) => (b.kind === 'attachment' && b.text === undefined ? b : { ...b, tokens: counted(blockText(b)) })),
    })),
    tools: t.tools.map((x) => ({ ...x, tokens: counted(toolSchemaText(x)) })),
  }) as typeof t;
  return { ...deferred, transcript, pool: { threads, tokenizer: id, texts: texts.length, chars } };
}
