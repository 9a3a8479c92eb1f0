/**
 * A worker thread of the CLI: the built file next to the bundle (dist/cli/NAME.mjs), or, from
 * source, the .ts module through tsx's loader. Used by `compact DIR --jobs N` and the tokenizer pool.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/** `here`: the caller's import.meta.url; `built`: NAME of dist/cli/NAME.mjs; `source`: the .ts file beside the caller. */
export function startCliWorker(here: string, built: string, source: string, mark: string): Worker {
  const workerData = { [mark]: true };
  if (!here.endsWith('.ts')) {
    // The bundle: dist/cli/NAME.mjs, the caller being dist/cli/chunks/*.mjs or dist/cli/*.mjs.
    const dir = path.dirname(fileURLToPath(here));
    const file = [path.join(dir, `${built}.mjs`), path.join(dir, '..', `${built}.mjs`)].find((f) => fs.existsSync(f));
    if (!file) throw new Error(`The CLI bundle has no ${built}.mjs next to ${dir}: rebuild it (node scripts/build-cli.mjs).`);
    return new Worker(file, { workerData });
  }
  // From source: the worker registers tsx's loader, then imports the .ts module.
  const tsxDir = path.dirname(createRequire(here).resolve('tsx/package.json'));
  const api = pathToFileURL(path.join(tsxDir, 'dist', 'esm', 'api', 'index.mjs')).href;
  const target = new URL(source, here).href;
  return new Worker(`import(${JSON.stringify(api)}).then((t) => { t.register(); return import(${JSON.stringify(target)}); });`, { eval: true, workerData });
}
