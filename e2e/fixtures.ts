import { test as base, type Browser, type ConsoleMessage, type Page, type Worker, type WorkerInfo } from '@playwright/test';
import fs from 'node:fs';
import path from 'node:path';
import { importBytes } from '../lib/formats/import';
import { InspectorPage } from './pages/InspectorPage';
import { LibraryPage } from './pages/LibraryPage';
import { settle } from './pages/settle';

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

/**
 * One page per Playwright worker (session 20's formats.spec, shared since session 22): a spec whose
 * tests each import their own file and work on it alone hands them one browser context and page per
 * worker, so the app starts (page load, hydration, the engine workers compiling the engine) once per
 * worker instead of once per test. Each spec extends the test itself:
 *
 *   const test = base.extend<{}, { appPage: Page }>({ appPage: [onePagePerWorker, { scope: 'worker' }],
 *     page: pageOfWorker, library: libraryOfWorker });
 *
 * so its tests get workers of their own (Playwright keys a worker by its worker fixtures): two specs
 * that import the same file never share a library. A failed test still fails alone: Playwright ends
 * the worker after a failure and the next test gets a new worker, so a new page; a test run alone
 * (`-g`) gets a fresh page.
 */
export async function onePagePerWorker({ browser }: { browser: Browser }, use: (page: Page) => Promise<void>, workerInfo: WorkerInfo): Promise<void> {
  const u = workerInfo.project.use;
  const context = await browser.newContext({
    baseURL: u.baseURL,
    viewport: u.viewport,
    userAgent: u.userAgent,
    deviceScaleFactor: u.deviceScaleFactor,
    isMobile: u.isMobile,
    hasTouch: u.hasTouch,
    reducedMotion: u.reducedMotion,
    acceptDownloads: u.acceptDownloads,
  });
  await use(await context.newPage());
  await context.close();
}

export async function pageOfWorker({ appPage }: { appPage: Page }, use: (page: Page) => Promise<void>): Promise<void> {
  await use(appPage);
}

export async function libraryOfWorker({ appPage }: { appPage: Page }, use: (library: LibraryPage) => Promise<void>): Promise<void> {
  await use(new WorkerLibraryPage(appPage));
}

/**
 * The library on a worker's page: loaded by the worker's first test; a later test, which finds the
 * page on the inspector an earlier one left it on, goes back by the inspector's own link (no reload:
 * the app keeps running), and waits for the same things `goto` waits for.
 */
export class WorkerLibraryPage extends LibraryPage {
  override async goto(): Promise<void> {
    if (!new URL(this.page.url(), 'http://x').pathname.startsWith('/inspect')) return super.goto();
    await this.page.getByTestId('back-to-library').click();
    await settle(this.page, () => location.pathname === '/' && !!document.querySelector('[data-testid=transcript-row], [data-testid=library-empty]'));
    await base.expect(this.page).toHaveURL(/\/$/);
    await base.expect(this.dropZone).toBeVisible();
    await base.expect(this.rows.first().or(this.empty)).toBeVisible({ timeout: 30_000 });
  }
}
