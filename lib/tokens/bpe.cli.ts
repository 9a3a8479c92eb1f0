/**
 * The built CLI's bpe.ts (scripts/build-cli.mjs resolves ./bpe to this file): the same
 * gpt-tokenizer encodings, each loaded on its first count, so `--help` and a session counted as
 * chars/4 start without parsing 3.6 MB of rank tables.
 */
import { createRequire } from 'node:module';
import type { BpeCount } from './bpe';

const require = createRequire(import.meta.url);
let o200k: BpeCount | undefined;
let cl100k: BpeCount | undefined;

export const bpeCount: { o200k: BpeCount; cl100k: BpeCount } = {
  o200k: (text, options) => (o200k ??= (require('gpt-tokenizer/encoding/o200k_base') as { countTokens: BpeCount }).countTokens)(text, options),
  cl100k: (text, options) => (cl100k ??= (require('gpt-tokenizer/encoding/cl100k_base') as { countTokens: BpeCount }).countTokens)(text, options),
};
