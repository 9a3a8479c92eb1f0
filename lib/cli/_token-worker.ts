/**
 * A worker thread of the CLI's tokenizer pool (lib/cli/_token-pool.ts): receives {id, tokenizer,
 * texts} and answers with the exact counts, as lib/tokens/count.ts counts them in-process.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { counterById, type ExactId } from '../tokens/count';
import { TOKEN_WORKER_MARK } from './_token-pool';

if (parentPort && (workerData as Record<string, unknown> | undefined)?.[TOKEN_WORKER_MARK] === true) {
  const port = parentPort;
  port.on('message', (job: { id: number; tokenizer: ExactId; texts: string[] }) => {
    const counter = counterById(job.tokenizer);
    const counts = new Uint32Array(job.texts.length);
    for (let i = 0; i < job.texts.length; i++) counts[i] = counter.count(job.texts[i]);
    port.postMessage({ id: job.id, counts }, [counts.buffer]);
  });
}
