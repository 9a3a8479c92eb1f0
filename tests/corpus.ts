/** The shared corpus lives beside the project root (../shared/corpus); it is never copied in. */
import fs from 'node:fs';
import path from 'node:path';

export const CORPUS_DIR = path.resolve(process.env.CONTEXTSCOPE_CORPUS ?? path.join(process.cwd(), '../shared/corpus'));

/** Every corpus file of a family (a folder under corpus/). */
export function corpusFiles(family: string): string[] {
  const dir = path.join(CORPUS_DIR, family);
  return fs
    .readdirSync(dir)
    .filter((f) => !f.startsWith('.'))
    .sort()
    .map((f) => path.join(dir, f));
}

export function allCorpusFiles(): string[] {
  return fs
    .readdirSync(CORPUS_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => corpusFiles(d.name));
}
