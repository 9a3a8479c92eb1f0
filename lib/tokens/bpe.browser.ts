/**
 * The app's bpe.ts (package.json "imports": `#bpe` resolves here under the "browser" condition,
 * which the app's bundles and workers use): the same gpt-tokenizer encodings, each evaluated on
 * its first count. Evaluating one builds its rank tables (the o200k one has 200k entries): loaded
 * with the module, the two made every worker's start-up about 0.35 s longer (1.1–1.2 s instead of
 * 1.5 s before the engine worker could answer, measured in the built app on this machine), before
 * the library could list a single transcript; a Claude or Gemini session (counted as chars/4)
 * never needs them. The bundler keeps the code in the worker's chunks; `require` only runs it.
 */
import type { BpeCount } from './bpe';
import { lazyBpeCount } from './bpe-lazy';

declare const require: (id: string) => { countTokens: BpeCount };

export const bpeCount = lazyBpeCount({
  o200k: () => require('gpt-tokenizer/encoding/o200k_base').countTokens,
  cl100k: () => require('gpt-tokenizer/encoding/cl100k_base').countTokens,
});
