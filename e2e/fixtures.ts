import { test as base, type Browser, type BrowserContext, type ConsoleMessage, type Page, type TestInfo, type Worker, type WorkerInfo } from '@playwright/test';
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
 * One page per Playwright worker and spec file (session 20's formats.spec, shared since session 22):
 * a spec whose tests each import their own file and work on it alone hands them one browser context
 * and page per worker, so the app starts (page load, hydration, the engine workers compiling the
 * engine) once per spec file in a worker instead of once per test. A spec extends the test with:
 *
 *   const test = base.extend<object, { appPage: WorkerPages }>({ appPage: [onePagePerWorker, { scope: 'worker' }],
 *     page: pageOfWorker, library: libraryOfWorker });
 *
 * The page is never handed from one spec file to another. Playwright keys a worker by the ids of its
 * worker fixtures, and a fixture's id is its function: every spec that registers this same
 * `onePagePerWorker` has the same key, so one Playwright worker runs tests of several such spec
 * files in turn (session 23 found this: inspector-export's Codex test left its applied version in
 * the page's IndexedDB, and inspector-compact's Codex test, next in the same worker, counted 2
 * versions after its Undo). So the first test of each spec file in a worker gets a new browser
 * context (its own, empty IndexedDB and storage) and the previous file's context is closed. Inside
 * one spec file the tests share the page and must not read each other's state: each imports its
 * own file and reads only its own row. A failed test still fails alone: Playwright ends the worker
 * after a failure and the next test gets a new worker, so a new page; a test run alone (`-g`) gets
 * a fresh page.
 */
export class WorkerPages {
  private context: BrowserContext | undefined;
  private page: Page | undefined;
  private file: string | undefined;

  constructor(
    private readonly browser: Browser,
    private readonly workerInfo: WorkerInfo,
  ) {}

  /** The page for a test of `file`: the one the file's earlier tests used, or a new context's. */
  async pageFor(file: string): Promise<Page> {
    if (this.page && this.file === file) return this.page;
    await this.close();
    const u = this.workerInfo.project.use;
    this.context = await this.browser.newContext({
      baseURL: u.baseURL,
      viewport: u.viewport,
      userAgent: u.userAgent,
      deviceScaleFactor: u.deviceScaleFactor,
      isMobile: u.isMobile,
      hasTouch: u.hasTouch,
      reducedMotion: u.reducedMotion,
      acceptDownloads: u.acceptDownloads,
    });
    this.page = await this.context.newPage();
    this.file = file;
    return this.page;
  }

  async close(): Promise<void> {
    const context = this.context;
    this.context = this.page = this.file = undefined;
    await context?.close();
  }
}

export async function onePagePerWorker({ browser }: { browser: Browser }, use: (pages: WorkerPages) => Promise<void>, workerInfo: WorkerInfo): Promise<void> {
  const pages = new WorkerPages(browser, workerInfo);
  await use(pages);
  await pages.close();
}

export async function pageOfWorker({ appPage }: { appPage: WorkerPages }, use: (page: Page) => Promise<void>, testInfo: TestInfo): Promise<void> {
  await use(await appPage.pageFor(testInfo.file));
}

export async function libraryOfWorker({ page }: { page: Page }, use: (library: LibraryPage) => Promise<void>): Promise<void> {
  await use(new WorkerLibraryPage(page));
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
