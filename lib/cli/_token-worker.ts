/**
 * A worker thread of the CLI's tokenizer pool (lib/cli/_token-pool.ts): receives {id, tokenizer,
 * texts} and answers with the exact counts, as lib/tokens/count.ts counts them in-process.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { countJob, type CountJob } from '../tokens/pool';
import { TOKEN_WORKER_MARK } from './_token-pool';

if (parentPort && (workerData as Record<string, unknown> | undefined)?.[TOKEN_WORKER_MARK] === true) {
  const port = parentPort;
  port.on('message', (job: CountJob) => {
    const answer = countJob(job);
    port.postMessage(answer, [answer.counts.buffer]);
  });
}
