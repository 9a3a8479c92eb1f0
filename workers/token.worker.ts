/**
 * A counting thread of the browser's tokenizer pool (lib/engine/token-pool.ts), started by the
 * engine's worker: receives {id, tokenizer, texts} and answers with the exact counts, as
 * lib/tokens/count.ts counts them in any other thread.
 */
import { counterById, type ExactId } from '../lib/tokens/count';

self.onmessage = (e: MessageEvent<{ id: number; tokenizer: ExactId; texts: string[] }>) => {
  const { id, tokenizer, texts } = e.data;
  const counter = counterById(tokenizer);
  const counts = new Uint32Array(texts.length);
  for (let i = 0; i < texts.length; i++) counts[i] = counter.count(texts[i]);
  (self as unknown as Worker).postMessage({ id, counts }, [counts.buffer]);
};
