/**
 * The built CLI's bpe.ts (scripts/build-cli.mjs resolves #bpe to this file): the same
 * gpt-tokenizer encodings, each loaded on its first count, so `--help` and a session counted as
 * chars/4 start without parsing 3.6 MB of rank tables.
 */
import { createRequire } from 'node:module';
import type { BpeCount } from './bpe';
import { lazyBpeCount } from './bpe-lazy';

const require = createRequire(import.meta.url);

export const bpeCount = lazyBpeCount({
  o200k: () => (require('gpt-tokenizer/encoding/o200k_base') as { countTokens: BpeCount }).countTokens,
  cl100k: () => (require('gpt-tokenizer/encoding/cl100k_base') as { countTokens: BpeCount }).countTokens,
});
