/** The shared corpus lives beside the project root (../shared/corpus); it is never copied in. */
import fs from 'node:fs';
import path from 'node:path';
import { importFile } from '../lib/formats/import';
import type { Transcript } from '../lib/model/types';
import { sourceFromBytes } from '../lib/read/source';

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

/**
 * Every corpus file that imports as one transcript, imported (container files import per
 * conversation and are covered by their importer tests; notes and SSE streams are left out).
 * Imports lazily, one file at a time.
 */
export function* importedCorpus(): Generator<{ name: string; log: Transcript }> {
  for (const f of allCorpusFiles().filter((x) => !x.endsWith('.md') && !x.endsWith('.chunks.txt'))) {
    let log: Transcript;
    try {
      log = importFile(sourceFromBytes(path.basename(f), new Uint8Array(fs.readFileSync(f)))).transcript;
    } catch {
      continue;
    }
    yield { name: path.basename(f), log };
  }
}
