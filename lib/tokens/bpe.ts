/**
 * gpt-tokenizer's two exact encodings, each loaded on its first count: what vitest and tsx (the
 * bench, the token pool's worker threads, scripts) get for `#bpe` (package.json "imports"). The
 * app's bundles get bpe.browser.ts and the built CLI bpe.cli.ts, lazy the same way. Evaluating an
 * encoding builds its rank tables (3.6 MB of source for the two): loaded with the module, they
 * cost every unit-test file that imports the engine 0.6–0.75 s of CPU, though most never count
 * exactly (a Claude or Gemini session is counted as chars/4). The CommonJS build is the same
 * source as the ES one; lib/tokens/bpe.test.ts checks the counts are identical.
 */
// The worker project (workers/tsconfig.json: lib webworker, no node types) checks this file too, as
// tsc resolves `#bpe` without the bundlers' "browser" condition (the worker's bundle gets
// bpe.browser.ts): there `node:module` has no types. The app's project checks it typed.
// @ts-ignore
import { createRequire } from 'node:module';
import { lazyBpeCount } from './bpe-lazy';

export type BpeCount = (text: string, options: { disallowedSpecial: Set<string> }) => number;

const require = createRequire(import.meta.url);

export const bpeCount: { o200k: BpeCount; cl100k: BpeCount } = lazyBpeCount({
  o200k: () => (require('gpt-tokenizer/encoding/o200k_base') as { countTokens: BpeCount }).countTokens,
  cl100k: () => (require('gpt-tokenizer/encoding/cl100k_base') as { countTokens: BpeCount }).countTokens,
});
