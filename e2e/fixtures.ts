import { test as base, type ConsoleMessage, type Worker } from '@playwright/test';
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
  /**
   * Every test fails on an uncaught exception in the page or the worker: a crash is never a pass.
   * The listeners come off when the test ends, and the workers already running are watched too:
   * a spec may hand its tests one page per Playwright worker (e2e/formats.spec.ts), whose engine
   * workers started in an earlier test.
   */
  failOnPageErrors: [
    async ({ page }, use) => {
      const errors: string[] = [];
      const onPageError = (e: Error) => errors.push(e.message);
      const onConsole = (m: ConsoleMessage) => m.type() === 'error' && errors.push(`worker: ${m.text()}`);
      const log = (m: ConsoleMessage) => console.log(m.text());
      const watch = (w: Worker) => {
        w.on('console', onConsole);
        if (process.env.CONTEXTSCOPE_WORKER_LOG) w.on('console', log);
      };
      page.on('pageerror', onPageError);
      page.workers().forEach(watch);
      page.on('worker', watch);
      await use();
      page.off('pageerror', onPageError);
      page.off('worker', watch);
      for (const w of page.workers()) w.off('console', onConsole).off('console', log);
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
