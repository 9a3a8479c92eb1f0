/**
 * gpt-tokenizer's two exact encodings, loaded with the module: what vitest and tsx (bench) get for
 * `#bpe` (package.json "imports"). The app's bundles get bpe.browser.ts and the built CLI bpe.cli.ts
 * (scripts/build-cli.mjs), each of which loads an encoding on its first count: 3.6 MB of rank
 * tables took half of the CLI's start-up and a third of a second of each app worker's, and a
 * Claude or Gemini session (counted as chars/4) never needs them.
 */
import { countTokens as o200k } from 'gpt-tokenizer/encoding/o200k_base';
import { countTokens as cl100k } from 'gpt-tokenizer/encoding/cl100k_base';

export type BpeCount = (text: string, options: { disallowedSpecial: Set<string> }) => number;
export const bpeCount: { o200k: BpeCount; cl100k: BpeCount } = { o200k, cl100k };
