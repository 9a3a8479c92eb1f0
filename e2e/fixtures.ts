import { test as base } from '@playwright/test';
import fs from 'node:fs';
import path from 'node:path';
import { importBytes } from '../lib/formats/import';
import { InspectorPage } from './pages/InspectorPage';
import { LibraryPage } from './pages/LibraryPage';

/** The shared corpus, read in place (never copied into the repo). */
export const CORPUS = path.resolve(process.env.CONTEXTSCOPE_CORPUS ?? path.join(process.cwd(), '../shared/corpus'));
export const corpusFile = (family: string, name: string) => path.join(CORPUS, family, name);

export const SCREENSHOTS = path.join(process.cwd(), 'reports', 'screenshots');

/** What the importer itself says about a file, in the test process: the truth the UI must show. */
export function expectedTurns(file: string, conversation?: number): number {
  const bytes = new Uint8Array(fs.readFileSync(file));
  return importBytes(path.basename(file), bytes, conversation === undefined ? {} : { conversation }).transcript.turnCount;
}

export const test = base.extend<{ library: LibraryPage; inspector: InspectorPage; failOnPageErrors: void }>({
  /** Every test fails on an uncaught exception in the page or the worker: a crash is never a pass. */
  failOnPageErrors: [
    async ({ page }, use) => {
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('worker', (w) => w.on('console', (m) => m.type() === 'error' && errors.push(`worker: ${m.text()}`)));
      if (process.env.CONTEXTSCOPE_WORKER_LOG) page.on('worker', (w) => w.on('console', (m) => console.log(m.text())));
      await use();
      base.expect(errors, 'uncaught errors in the page').toEqual([]);
    },
    { auto: true },
  ],
  library: async ({ page }, use) => {
    await use(new LibraryPage(page));
  },
  inspector: async ({ page }, use) => {
    await use(new InspectorPage(page));
  },
});

export { expect } from '@playwright/test';
