/**
 * Exact token counts on every core (issue 12), in the CLI: a pool of worker threads, one per core
 * (`os.availableParallelism()`), each counting chunks of the texts with gpt-tokenizer
 * (lib/tokens/pool.ts hands the chunks out; the browser's pool is the same with Web Workers).
 * Counts are the ones lib/tokens/count.ts gives in-process (the same function runs in each thread).
 *
 * `importPooled` uses it for a large import whose model counts exactly (OpenAI's); small imports
 * (under POOL_MIN_CHARS of exact-counted text) are counted in-process: starting threads costs more.
 */
import os from 'node:os';
import type { Worker } from 'node:worker_threads';
import { startCliWorker } from './_worker';
import { importFile, type ImportOptions, type ImportResult } from '../formats/import';
import type { SourceFile } from '../read/source';
import { countOnPool, importWithPool, jobsInFlight, POOL_MIN_CHARS, type CountPool } from '../tokens/pool';

export { POOL_MIN_CHARS };
export const TOKEN_WORKER_MARK = '__contextscopeTokenWorker';

export type TokenizerPool = CountPool;

function startWorker(): Worker {
  return startCliWorker(import.meta.url, 'token-worker', './_token-worker.ts', TOKEN_WORKER_MARK);
}

export function createTokenizerPool(size = os.availableParallelism()): TokenizerPool {
  const workers = Array.from({ length: Math.max(1, size) }, () => startWorker());
  const jobs = jobsInFlight((thread, job) => workers[thread].postMessage(job));
  for (const w of workers) {
    w.on('message', jobs.answer);
    w.on('error', jobs.fail);
  }
  return {
    size: workers.length,
    count: (texts, tokenizer) => countOnPool(texts, tokenizer, workers.length, jobs.runJob),
    async close() {
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}

/** Threads for exact counts: CONTEXTSCOPE_TOKEN_THREADS, else one per core. */
export function tokenThreads(env: Record<string, string | undefined> = process.env): number {
  const n = Number(env.CONTEXTSCOPE_TOKEN_THREADS);
  return Number.isInteger(n) && n >= 1 ? n : os.availableParallelism();
}

/** importFile, with the exact token counts of a large import done by the pool (the same result). */
export async function importPooled(source: SourceFile, options: ImportOptions = {}, poolSize = tokenThreads(), minChars = POOL_MIN_CHARS): Promise<ImportResult> {
  if (poolSize < 2) return importFile(source, options);
  const { pool: _report, ...result } = await importWithPool(source, options, () => createTokenizerPool(poolSize), minChars);
  return result;
}
