/**
 * An encoding evaluated on its first count, for the lazy variants of `#bpe` (bpe.browser.ts for the
 * app, bpe.cli.ts for the built CLI). Each variant passes its own loaders: the bundler only keeps a
 * `require('gpt-tokenizer/…')` it can see written out in that file.
 */
import type { BpeCount } from './bpe';

export function lazyBpeCount(load: { o200k: () => BpeCount; cl100k: () => BpeCount }): { o200k: BpeCount; cl100k: BpeCount } {
  let o200k: BpeCount | undefined;
  let cl100k: BpeCount | undefined;
  return {
    o200k: (text, options) => (o200k ??= load.o200k())(text, options),
    cl100k: (text, options) => (cl100k ??= load.cl100k())(text, options),
  };
}
