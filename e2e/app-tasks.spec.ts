/**
 * Issue 31, "no main-thread task over 50 ms" where `npm run bench -- app` found them: importing a
 * large session (the file input → its library row; the bench's "open" starts there: the File read
 * on the page was a task of 83–167 ms CPU at 10,000 turns, and the inspector's route prefetched
 * after it, one 295 KB module compiled at its first call, 55–64 ms), opening it (the library's Open
 * → a timeline of every turn), Export of an applied version
 * (Export → Download enabled → the file) and the Replay page (the link → every policy's row), on a
 * generated Claude Code session (bench/generate.ts) imported through the file input as the bench
 * does. Each task of the page's main thread is judged by its CPU time (the DevTools trace's thread
 * duration, scripts/trace-tasks.mjs), never by wall time, which a busy machine stretches.
 *
 *   APP_TASKS_TURNS=10000 … playwright test e2e/app-tasks.spec.ts   another size
 *   CONTEXTSCOPE_TRACE=trace.json …                                   keep the trace (with V8's JS samples)
 *   CS_TRACE_MORE=,v8,disabled-by-default-v8.compile …               more trace categories (V8's compile and parse)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { makeClaudeCodeSession } from '../bench/generate';
import { judgeTrace, summarize } from '../scripts/trace-tasks.mjs';
import { REPLAY_POLICIES } from '../lib/simulate/policies/replay';
import { markPhase, startTrace } from './task-watch';
import { expect, test } from './fixtures';

const LONG_TASK_MS = 50;
/**
 * Opening (issue 31, session 15). It was allowed two tasks under 200 ms: the timeline's first draw
 * (its canvases and the overview sized and painted in one animation frame, then rasterized at the
 * compositor commit: 72 and 46 ms CPU at 10,000 turns) and the inspector's first render (49–81 ms).
 * Now the canvases are painted a piece a frame (components/timeline/frame-queue.ts) and the
 * inspector's data and its chart and side panel render in transitions: 32–49 ms at 10,000 turns in
 * three runs. At 2,000 turns four runs measured 50; 49; 67; 53 and 53 ms (a timer task of React's
 * script, and the frame of the chart's mount: its layout, paint and the commit of its new
 * canvases), so opening may hold two tasks of 50 ms or more, each under 100 ms; a third fails.
 */
const OPEN_LONG_TASKS = 2;
const OPEN_TASK_MS = 100;

/**
 * The sessions and what each judges: the Replay page at 2,000 turns (the size of the issue's target;
 * at 10,000 the replay of 18 policies takes minutes of the worker), Export at 10,000 turns (where
 * the bench found its long task); opening in both.
 */
const CASES: Array<{ turns: number; replay: boolean; exportFile: boolean }> = process.env.APP_TASKS_TURNS
  ? [{ turns: Number(process.env.APP_TASKS_TURNS), replay: process.env.APP_TASKS_REPLAY !== '0', exportFile: process.env.APP_TASKS_EXPORT !== '0' }]
  : [
      { turns: 2000, replay: true, exportFile: false },
      { turns: 10000, replay: false, exportFile: true },
    ];

test.use({ trace: 'off' });

// A folder per test, removed after it: with fullyParallel the file's afterAll runs after each test,
// and a folder made once per worker was gone for the worker's second test (CI: ENOENT, passed on
// its retry in a new worker).
let dir = '';
test.beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-app-tasks-'));
});
test.afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Poll in the page once a frame (a Playwright expect would snapshot the page on its main thread). */
async function waitInPage(page: Page, what: string, predicate: (arg: string) => boolean, arg = '', timeout = 240_000): Promise<void> {
  try {
    await page.waitForFunction(predicate as (arg: unknown) => boolean, arg, { polling: 'raf', timeout });
  } catch (e) {
    throw new Error(`timed out waiting for ${what}: ${(e as Error).message}`);
  }
}
const workerIdle = (page: Page) => waitInPage(page, 'the engine worker to settle', () => document.querySelector('[data-testid=worker-activity]')?.getAttribute('data-busy') !== 'yes');

for (const { turns: TURNS, replay, exportFile } of CASES) test(`${TURNS} turns: open${exportFile ? ', Export' : ''}${replay ? ', the Replay page' : ''} without a long task`, async ({ library, page }) => {
  test.setTimeout(900_000);
  const file = path.join(dir, `cc-${TURNS}.jsonl`);
  fs.writeFileSync(file, makeClaudeCodeSession(TURNS));
  await library.goto();
  const cdp = await page.context().newCDPSession(page);
  const traceTo = process.env.CONTEXTSCOPE_TRACE?.replace(/\.json$/, `-${TURNS}.json`);
  const stopTrace = await startTrace(cdp, traceTo ? ',v8.execute,disabled-by-default-v8.cpu_profiler' + (process.env.CS_TRACE_MORE ?? '') : '');
  const times: Record<string, number> = {};

  // import: the file input → the library's row (the bench's "open" starts here).
  await markPhase(page, 'import');
  const ti = Date.now();
  await library.importFile(file);
  const base = path.basename(file);
  await expect(library.row(base)).toHaveCount(1, { timeout: 300_000 });
  await waitInPage(page, 'the import to end', () => !document.querySelector('[data-testid=import-progress]'));
  times.import = Date.now() - ti;
  await workerIdle(page);
  await markPhase(page, 'imported');
  await page.waitForTimeout(300);

  // open: the library's Open → a timeline of every turn and the first messages.
  await markPhase(page, 'open');
  const t0 = Date.now();
  await library.row(base).getByTestId('open-transcript').click();
  await waitInPage(page, 'a timeline of every turn', (n) => Number(document.querySelector('[data-testid=timeline]')?.getAttribute('data-turns') ?? 0) >= Number(n) && !!document.querySelector('[data-testid=message]'), String(TURNS));
  times.open = Date.now() - t0;
  await workerIdle(page);
  await markPhase(page, 'settled');
  await page.waitForTimeout(500);
  await workerIdle(page);

  if (exportFile) {
    // The plan (not judged): Auto at 50 %, Apply, so Export has a compacted version and its note.
    await markPhase(page, 'plan');
    await page.getByRole('tab', { name: 'Plan', exact: true }).click();
    await page.getByRole('radio', { name: 'Auto' }).click();
    await page.getByRole('button', { name: '50 %' }).click();
    await waitInPage(page, 'the whole-context preview', () => document.querySelector('[data-testid=selection-totals]')?.getAttribute('data-preview') === 'settled');
    await workerIdle(page);
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    await waitInPage(page, 'the applied version', () => new URL(location.href).searchParams.has('v') && document.querySelector('[data-testid=selection-totals]')?.getAttribute('data-preview') === 'settled');
    await workerIdle(page);

    // export: Export → Download enabled → the file.
    await markPhase(page, 'export');
    const t1 = Date.now();
    await page.getByTestId('export').click();
    await waitInPage(page, 'Download to be enabled', () => !!document.querySelector('[data-testid=export-download]') && !(document.querySelector('[data-testid=export-download]') as HTMLButtonElement).disabled);
    const download = page.waitForEvent('download', { predicate: (d) => !d.suggestedFilename().endsWith('.audit.json'), timeout: 240_000 });
    await page.getByTestId('export-download').click();
    const downloaded = await download;
    times.export = Date.now() - t1;
    expect(fs.statSync((await downloaded.path())!).size).toBeGreaterThan(1000);
    await markPhase(page, 'export-closed');
    await page.keyboard.press('Escape');
    await waitInPage(page, 'the export dialog to close', () => !(document.querySelector('[data-testid=export-dialog]') as HTMLDialogElement | null)?.open);
    await workerIdle(page);
  }

  if (replay) {
    // replay: the Replay link → every policy's row.
    await markPhase(page, 'replay');
    const t2 = Date.now();
    await page.getByTestId('open-replay').click();
    await waitInPage(page, "every policy's row", (n) => document.querySelectorAll('[data-testid=replay-row]').length >= Number(n), String(REPLAY_POLICIES.length));
    times.replay = Date.now() - t2;
    await page.waitForTimeout(500);
  }
  await markPhase(page, 'done');

  const traceEvents = await stopTrace();
  if (traceTo) fs.writeFileSync(traceTo, JSON.stringify({ traceEvents }));
  // Not judged: the trace's own start ('before'), the plan and Apply (e2e/preview-speed.spec.ts
  // judges them), closing the dialog, the quiet end.
  const judged = judgeTrace(traceEvents, { default: LONG_TASK_MS, before: Infinity, plan: Infinity, 'export-closed': Infinity, done: Infinity, open: OPEN_TASK_MS });
  const openLong = judged.tasks.filter((t) => t.phase === 'open' && t.cpuMs >= LONG_TASK_MS);
  const busiest = (phase: string) => judged.tasks.filter((t) => t.phase === phase).reduce((a, t) => Math.max(a, t.cpuMs), 0);
  const report = `${TURNS} turns: import ${times.import} ms (longest task ${busiest('import').toFixed(0)} ms CPU), open ${times.open} ms (longest task ${busiest('open').toFixed(0)} ms CPU, then ${busiest('settled').toFixed(0)} ms settling)${exportFile ? `, export ${times.export} ms (${busiest('export').toFixed(0)} ms)` : ''}${replay ? `, Replay page ${times.replay} ms (${busiest('replay').toFixed(0)} ms)` : ''}`;
  console.log(report);
  test.info().annotations.push({ type: 'app-tasks', description: report });
  if (judged.long.length || openLong.length > OPEN_LONG_TASKS) console.log(summarize(traceEvents, LONG_TASK_MS));
  expect(judged.long.map((t) => `${t.phase} ${t.cpuMs.toFixed(0)} ms CPU`), 'main-thread tasks over their phase’s limit (CPU)').toEqual([]);
  expect(openLong.length, `tasks of 50 ms CPU or more while opening (at most ${OPEN_LONG_TASKS}): ${openLong.map((t) => `${t.cpuMs.toFixed(0)} ms`).join(', ')}`).toBeLessThanOrEqual(OPEN_LONG_TASKS);
});
