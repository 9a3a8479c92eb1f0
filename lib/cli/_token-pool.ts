/**
 * Exact token counts on every core (issue 12): a pool of worker threads, one per core
 * (`os.availableParallelism()`), each counting a share of the texts with gpt-tokenizer. Counts are
 * the ones lib/tokens/count.ts gives in-process (the same function runs in each thread).
 *
 * `importPooled` uses it for a large import whose model counts exactly (OpenAI's): a first pass
 * parses the file and collects the texts without counting them, the pool counts them in
 * parallel, and a second pass builds the transcript with those counts. Small imports (under
 * POOL_MIN_CHARS of exact-counted text) are counted in-process: starting threads costs more.
 */
import os from 'node:os';
import type { Worker } from 'node:worker_threads';
import { startCliWorker } from './_worker';
import { importFile, type ImportOptions, type ImportResult } from '../formats/import';
import type { SourceFile } from '../read/source';
import { blockText, counterById, toolSchemaText, withExactCounts, type ExactId } from '../tokens/count';
import { deepFreeze } from '../model/builder';

export const TOKEN_WORKER_MARK = '__contextscopeTokenWorker';
/** Below this many characters of exact-counted text, one thread counts faster than a pool starts. */
export const POOL_MIN_CHARS = 2_000_000;

export interface TokenizerPool {
  size: number;
  count(texts: readonly string[], tokenizer: ExactId): Promise<Uint32Array>;
  close(): Promise<void>;
}

function startWorker(): Worker {
  return startCliWorker(import.meta.url, 'token-worker', './_token-worker.ts', TOKEN_WORKER_MARK);
}

export function createTokenizerPool(size = os.availableParallelism()): TokenizerPool {
  const workers = Array.from({ length: Math.max(1, size) }, () => startWorker());
  let next = 0;
  const pending = new Map<number, (c: Uint32Array) => void>();
  for (const w of workers) {
    w.on('message', (m: { id: number; counts: Uint32Array }) => {
      pending.get(m.id)?.(m.counts);
      pending.delete(m.id);
    });
  }
  const run = (w: Worker, tokenizer: ExactId, texts: string[]) =>
    new Promise<Uint32Array>((resolve, reject) => {
      const id = next++;
      pending.set(id, resolve);
      w.once('error', reject);
      w.postMessage({ id, tokenizer, texts });
    });
  return {
    size: workers.length,
    async count(texts, tokenizer) {
      // Shares of about equal characters, in order (each thread counts a contiguous slice).
      let total = 0;
      for (const t of texts) total += t.length;
      const share = total / workers.length;
      const slices: Array<[number, number]> = [];
      let from = 0;
      let acc = 0;
      for (let i = 0; i < texts.length && slices.length < workers.length - 1; i++) {
        acc += texts[i].length;
        if (acc >= share * (slices.length + 1)) {
          slices.push([from, i + 1]);
          from = i + 1;
        }
      }
      slices.push([from, texts.length]);
      const parts = await Promise.all(slices.map(([a, b], k) => run(workers[k], tokenizer, texts.slice(a, b) as string[])));
      const out = new Uint32Array(texts.length);
      let at = 0;
      for (const p of parts) {
        out.set(p, at);
        at += p.length;
      }
      return out;
    },
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

/**
 * importFile, with the exact token counts of a large import done by the pool (the same result).
 * One parse: the import runs with exact counting deferred (the texts are collected, their counts
 * left at 0), the pool counts the collected texts, and the blocks and tool schemas get their counts
 * (the transcript is rebuilt shallowly and frozen again). Under `minChars` of exact-counted text
 * the counts are made in this thread: starting threads would cost more.
 */
export async function importPooled(source: SourceFile, options: ImportOptions = {}, poolSize = tokenThreads(), minChars = POOL_MIN_CHARS): Promise<ImportResult> {
  if (poolSize < 2) return importFile(source, options);
  const collect: Record<ExactId, string[]> = { o200k: [], cl100k: [] };
  const deferred = withExactCounts({ collect }, () => importFile(source, options));
  const id: ExactId | undefined = collect.o200k.length ? 'o200k' : collect.cl100k.length ? 'cl100k' : undefined;
  if (!id) return deferred; // nothing was counted exactly (chars/4): the import is final
  const texts = [...new Set(collect[id])];
  const chars = texts.reduce((n, t) => n + t.length, 0);
  let counts: ArrayLike<number>;
  if (chars < minChars) {
    const c = counterById(id);
    counts = texts.map((t) => c.count(t));
  } else {
    const pool = createTokenizerPool(poolSize);
    try {
      counts = await pool.count(texts, id);
    } finally {
      await pool.close();
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
  return { ...deferred, transcript };
}
