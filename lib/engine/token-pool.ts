/**
 * The browser's tokenizer pool (issue 12): Web Workers started by the engine's worker, one per
 * core (`navigator.hardwareConcurrency`, at most MAX_THREADS), counting chunks of a large import's
 * texts exactly (lib/tokens/pool.ts hands them out). The threads stay for IDLE_MS after a count,
 * so importing several files starts them once; then they are terminated.
 */
import { countOnPool, jobsInFlight, type CountAnswer, type CountPool } from '../tokens/pool';

export const MAX_THREADS = 8;
const IDLE_MS = 30_000;

/** Counting threads the browser offers: 1 where workers cannot be started (tests in Node, old browsers). */
export function browserThreads(): number {
  if (typeof Worker === 'undefined' || typeof navigator === 'undefined') return 1;
  return Math.max(1, Math.min(MAX_THREADS, navigator.hardwareConcurrency || 1));
}

interface Threads {
  workers: Worker[];
  jobs: ReturnType<typeof jobsInFlight>;
  idle?: ReturnType<typeof setTimeout>;
}
let threads: Threads | undefined;

/** webpack and Turbopack bundle a worker only when `new URL(…)` is written inline in `new Worker` (TOOLCHAIN.md #6). */
function startThread(t: Threads): Worker {
  const w = new Worker(new URL('../../workers/token.worker.ts', import.meta.url), { type: 'module' });
  w.onmessage = (e: MessageEvent<CountAnswer>) => t.jobs.answer(e.data);
  w.onerror = (e) => {
    e.preventDefault();
    t.jobs.fail(new Error(`A token-counting worker failed: ${e.message}`));
    stop();
  };
  return w;
}

function stop(): void {
  if (!threads) return;
  clearTimeout(threads.idle);
  for (const w of threads.workers) w.terminate();
  threads = undefined;
}

/** The pool, started (or kept) with `size` threads. close() releases it: the threads end after IDLE_MS unused. */
export function browserTokenPool(size = browserThreads()): CountPool {
  if (threads && threads.workers.length !== size) stop();
  if (!threads) {
    const t: Threads = { workers: [], jobs: jobsInFlight((thread, job) => t.workers[thread].postMessage(job)) };
    t.workers = Array.from({ length: size }, () => startThread(t));
    threads = t;
  }
  const t = threads;
  clearTimeout(t.idle);
  return {
    size,
    count: (texts, tokenizer) => countOnPool(texts, tokenizer, size, t.jobs.runJob),
    async close() {
      clearTimeout(t.idle);
      t.idle = setTimeout(() => {
        if (threads === t) stop();
      }, IDLE_MS);
    },
  };
}
