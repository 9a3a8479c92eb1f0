/**
 * A counting thread of the browser's tokenizer pool (lib/engine/token-pool.ts), started by the
 * engine's worker: receives {id, tokenizer, texts} and answers with the exact counts, as
 * lib/tokens/count.ts counts them in any other thread.
 */
import { countJob, type CountJob } from '../lib/tokens/pool';

self.onmessage = (e: MessageEvent<CountJob>) => {
  const answer = countJob(e.data);
  (self as unknown as Worker).postMessage(answer, [answer.counts.buffer]);
};
