import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { writeLongTranscript } from '../scripts/make-long-transcript';
import { judgeTrace } from '../scripts/trace-tasks.mjs';
import { markPhase, readTaskWatch, startTaskWatch, startTrace } from './task-watch';
import { expect, SCREENSHOTS, test } from './fixtures';
import { TimelineCanvas } from './pages/TimelineCanvas';

const TURNS = 100_000;
/**
 * Chromium reports every task of 50 ms or more as a 'longtask' entry: the budget for one frame of
 * interaction. Held to the CPU time of the page's main thread in each task (the trace's thread
 * duration), not its wall time: on a machine whose cores are busy with other work, a task's wall
 * time counts the time the thread waited for a core (issue 30: this spec failed, with its retry,
 * on a fresh clone whose two cores were busy). scripts/trace-tasks.mjs judges the trace.
 */
const LONG_TASK_MS = 50;
/** Opening's guard (see the end of the test). */
const OPEN_TASK_MS = 200;


/**
 * Waits are two minutes: on a machine whose cores are busy with other work a 100k-turn step's wall
 * time is many times its CPU (15 s was not enough under load, issue 30); what is judged is CPU.
 * Wait for a condition inside the watched phases without Playwright's `expect`: a retried expect
 * takes an ARIA snapshot of the whole page (for its error report) on the page's main thread, and
 * those tasks (40–80 ms under 4× CPU throttling) would be counted as the app's. waitForFunction
 * polls a few property reads per frame instead.
 */
async function waitInPage<A extends string | number | null>(page: Page, what: string, predicate: (arg: A) => boolean, arg: A, timeout = 120_000): Promise<void> {
  try {
    await page.waitForFunction(predicate as (arg: unknown) => boolean, arg as unknown, { polling: 'raf', timeout });
  } catch (e) {
    throw new Error(`timed out waiting for ${what}: ${(e as Error).message}`);
  }
}
const selectionIs = (page: Page, want: string | null) =>
  waitInPage(page, `the timeline's selection to be ${want ?? 'set'}`, (w) => {
    const v = document.querySelector('[data-testid=timeline]')?.getAttribute('data-selection') ?? '';
    return w === null ? v !== '' : v === w;
  }, want);

/**
 * Let the worker's answers to the last interaction arrive before the next one starts, so a phase's
 * tasks are its own (the page's tasks on those answers are still watched: they land in the phase
 * that caused them) and the next interaction does not share the 2 cores with that worker's run.
 */
const workerIdle = (page: Page) =>
  waitInPage(page, 'the engine worker to settle', () => document.querySelector('[data-testid=worker-activity]')?.getAttribute('data-busy') === 'no', null);

// Playwright's trace recorder snapshots the whole DOM on the page's main thread before and after
// every action: its tasks would be counted as the app's long tasks.
test.use({ trace: 'off' });

let file = '';
test.beforeAll(() => {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  file = writeLongTranscript({ turns: TURNS });
});
test.afterAll(() => {
  if (file) fs.rmSync(file, { force: true });
});

test('100k turns: scroll, switch model, zoom, pan, drag-select and shift+arrows without a long task', async ({ library, inspector, page }) => {
  test.setTimeout(600_000); // a busy machine stretches every wait; the judgement is by CPU time
  await library.goto();

  // Import runs in the worker: the page must stay responsive meanwhile (reported, not asserted:
  // the shared 2-core machine makes this phase noisy).
  await startTaskWatch(page);
  const started = Date.now();
  await library.importFile(file);
  const row = library.row(path.basename(file));
  await expect(row).toHaveCount(1, { timeout: 300_000 });
  const importMs = Date.now() - started;
  const duringImport = await readTaskWatch(page);
  expect(await library.rowTurns(row)).toBeGreaterThan(TURNS);

  // From here on a trace records every task of the page's main thread with its CPU time.
  const cdp = await page.context().newCDPSession(page);
  // CONTEXTSCOPE_TRACE=file.json keeps the trace, with V8's categories too (scripts and GC):
  // `node scripts/trace-tasks.mjs file.json` lists the longest tasks and what filled them, or load
  // it in DevTools' Performance panel.
  const traceTo = process.env.CONTEXTSCOPE_TRACE;
  const stopTrace = await startTrace(cdp, traceTo ? ',v8.execute,v8,disabled-by-default-v8.gc' : '');
  const opening = Date.now();
  await startTaskWatch(page);
  await markPhase(page, 'open');
  await library.open(row);
  // The timeline is interactive once it draws every turn (it is stored at import: no message read).
  await page.waitForFunction((n) => Number(document.querySelector('[data-testid=timeline]')?.getAttribute('data-turns') ?? 0) > n, TURNS, { timeout: 120_000 });
  const timelineMs = Date.now() - opening;
  await expect(inspector.messages.first()).toBeVisible({ timeout: 120_000 });
  const openMs = Date.now() - opening;
  expect(await inspector.turns()).toBeGreaterThan(TURNS);
  // No per-turn React nodes: the list is virtualized and renders a screenful.
  await expect(inspector.list).toHaveAttribute('data-virtual', 'yes');
  expect(await inspector.messages.count()).toBeLessThan(80);

  const timeline = new TimelineCanvas(page);
  const [first, last] = await timeline.view();
  expect(last - first).toBeGreaterThanOrEqual(TURNS);
  // Opening goes on after the first paint (worker answers for versions, previews, totals): wait
  // until the page has been free of long tasks for 2 s, then watch every task from here on.
  // The opening's own long tasks (reported, not asserted) are counted on from the open click.
  const settling = Date.now();
  let seen = -1;
  for (let quiet = 0; quiet < 4 && Date.now() - settling < 60_000; ) {
    await page.waitForTimeout(500);
    const count = await page.evaluate(() => window.__longTasks!.length);
    quiet = count === seen ? quiet + 1 : 0;
    seen = count;
  }
  await workerIdle(page);
  const settleMs = Date.now() - settling;
  // Settled: every task from here is held to 50 ms, like the interactions'.
  await markPhase(page, 'settled');
  const duringOpen = await page.evaluate(() => (window.__longTasks ?? []).map((t) => Math.round(t.duration)));
  // CONTEXTSCOPE_CPU_THROTTLE=4 slows the page's CPU 4× (DevTools' throttling): a quick way to see
  // which interaction has the least headroom before it crosses 50 ms on a slower machine.
  const throttle = Number(process.env.CONTEXTSCOPE_CPU_THROTTLE ?? 1);
  if (throttle > 1) await cdp.send('Emulation.setCPUThrottlingRate', { rate: throttle });
  // CONTEXTSCOPE_CPU_PROFILE=file.cpuprofile records the interactions (open it in DevTools).
  const profileTo = process.env.CONTEXTSCOPE_CPU_PROFILE;
  if (profileTo) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
    await cdp.send('Profiler.start');
  }
  await startTaskWatch(page);
  const phases: Array<[string, number]> = [];

  // 1. Scroll the message list: wheel steps, then a jump to the middle and more wheel.
  phases.push(['scroll', await markPhase(page, 'scroll')]);
  const listBox = (await inspector.list.boundingBox())!;
  await page.mouse.move(listBox.x + listBox.width / 2, listBox.y + listBox.height / 2);
  for (let i = 0; i < 12; i++) await page.mouse.wheel(0, 700);
  phases.push(['jump', await markPhase(page, 'jump')]);
  await inspector.list.evaluate((el) => el.scrollTo({ top: el.scrollHeight / 2 }));
  await page.waitForTimeout(100);
  phases.push(['scroll', await markPhase(page, 'scroll')]);
  for (let i = 0; i < 12; i++) await page.mouse.wheel(0, 700);
  await waitInPage(page, 'messages in the list', () => document.querySelector('[data-testid=message]') !== null, null);
  const middle = Number(await inspector.messages.first().getAttribute('data-index'));
  expect(middle).toBeGreaterThan(50_000);
  await workerIdle(page);

  // 2. Switch the model: the window and budget lines move, the 100k-turn series is not rebuilt.
  phases.push(['model', await markPhase(page, 'model')]);
  const models = page.getByTestId('model-select');
  const current = await models.inputValue();
  const other = await models.locator('option').evaluateAll((opts, cur) => opts.map((o) => (o as HTMLOptionElement).value).find((v) => v && v !== cur) ?? '', current);
  await models.selectOption(other);
  await waitInPage(page, 'the model in the URL', (m) => new URL(location.href).searchParams.get('m') === m, other);

  await workerIdle(page);

  // 3. Wheel-zoom the timeline around the pointer.
  phases.push(['zoom', await markPhase(page, 'zoom')]);
  for (let i = 0; i < 8; i++) await timeline.wheel(-400, 0.7);
  const zoomed = await timeline.view();
  expect(zoomed[1] - zoomed[0]).toBeLessThan((last - first) / 4);

  // 4. Pan with shift-drag: the window moves, its width stays.
  phases.push(['pan', await markPhase(page, 'pan')]);
  await timeline.pan(-300);
  const panned = await timeline.view();
  expect(panned[0]).toBeGreaterThan(zoomed[0]);
  expect(panned[1] - panned[0]).toBe(zoomed[1] - zoomed[0]);

  // 5. Drag-select a range with the mouse, then extend it with shift+→.
  phases.push(['select', await markPhase(page, 'select')]);
  const span = panned[1] - panned[0];
  const from = panned[0] + Math.round(span * 0.3);
  const to = panned[0] + Math.round(span * 0.6);
  // Drag by hand so the release (where the page takes the selection) is its own phase.
  const p0 = await timeline.pointOf(from);
  const p1 = await timeline.pointOf(to);
  await page.mouse.move(p0.x, p0.y);
  await page.mouse.down();
  await page.mouse.move(p1.x, p1.y, { steps: 12 });
  phases.push(['hand-over', await markPhase(page, 'hand-over')]);
  await page.mouse.up();
  await page.waitForTimeout(300);
  phases.push(['select', await markPhase(page, 'select')]);
  await selectionIs(page, null);
  const selected = (await timeline.selection())!;
  expect(Math.abs(selected[0] - from)).toBeLessThanOrEqual(1);
  expect(Math.abs(selected[1] - to)).toBeLessThanOrEqual(1);
  await timeline.wrap.focus();
  for (let i = 0; i < 10; i++) await page.keyboard.press('Shift+ArrowRight');
  // The burst is drawn at once; the page gets the new selection (URL, preview, list scroll) when it ends.
  const burstEnd = await markPhase(page, 'hand-over');
  await selectionIs(page, `${selected[0]}-${selected[1] + 10}`);
  // The list follows the selection's cursor: its header is on screen.
  await waitInPage(page, `turn ${selected[1] + 10} on screen in the list`, (turn) => {
    const list = document.querySelector('[data-testid=message-list]')?.getBoundingClientRect();
    const header = document.querySelector(`[data-testid=turn-header][data-turn="${turn}"]`)?.getBoundingClientRect();
    return !!list && !!header && header.bottom > list.top && header.top < list.bottom;
  }, selected[1] + 10);

  const watched = await readTaskWatch(page);
  if (profileTo) fs.writeFileSync(profileTo, JSON.stringify((await cdp.send('Profiler.stop')).profile));
  const traceEvents = await stopTrace();
  if (traceTo) fs.writeFileSync(traceTo, JSON.stringify({ traceEvents }));
  // The opening (from the open click until the page settled) is held to 200 ms, every interaction
  // phase to 50 ms, each task by the CPU time of the page's main thread.
  const judged = judgeTrace(traceEvents, { default: LONG_TASK_MS, open: OPEN_TASK_MS, before: OPEN_TASK_MS });
  expect(judged.phases[0]).toBe('open');
  const round = (t: { phase: string; cpuMs: number; wallMs: number }) => `${t.phase} ${Math.round(t.cpuMs)} ms CPU (${Math.round(t.wallMs)} ms wall)`;
  const busiest = (phase: (p: string) => boolean) => judged.tasks.filter((t) => phase(t.phase)).reduce((a, t) => Math.max(a, t.cpuMs), 0);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'inspector-long-100k.png') });
  const phaseOf = (start: number) => (start >= burstEnd ? 'hand-over' : ([...phases].reverse().find(([, t]) => t <= start)?.[0] ?? 'settle'));
  // The Long Tasks API's entries (wall time): reported beside the trace's CPU figures, not judged.
  const tasks = watched.longTasks.map((t) => ({ phase: phaseOf(t.start), ms: Math.round(t.duration) }));
  test.info().annotations.push(
    { type: 'import-ms', description: `${importMs} ms for ${fs.statSync(file).size} bytes (${TURNS} turns); long tasks on the page meanwhile: ${duringImport.longTasks.length}, max ${Math.round(Math.max(0, ...duringImport.longTasks.map((t) => t.duration)))} ms` },
    { type: 'open-ms', description: `${openMs} ms to timeline and first messages (${timelineMs} ms to an interactive timeline), then ${settleMs} ms until no long task for 2 s; long tasks meanwhile: ${duringOpen.length}, max ${Math.max(0, ...duringOpen)} ms, total ${duringOpen.reduce((a, b) => a + b, 0)} ms` },
    {
      type: 'interaction',
      description: `long tasks (Long Tasks API, wall time) while scrolling (wheel, a jump to the middle), switching the model, zooming, panning, drag-selecting, pressing shift+arrows and handing the selection to the page: ${tasks.length}${tasks.length ? ` (${tasks.map((t) => `${t.phase} ${t.ms} ms`).join(', ')})` : ''}; longest gap between frames ${Math.round(watched.maxFrameGap)} ms${throttle > 1 ? `; CPU throttled ${throttle}×` : ''}`,
    },
    {
      type: 'trace',
      description: `${judged.tasks.length} main-thread tasks traced; the busiest: opening ${Math.round(busiest((p) => p === 'open' || p === 'before'))} ms CPU, interactions ${Math.round(busiest((p) => p !== 'open' && p !== 'before'))} ms CPU; over the limit: ${judged.long.length ? judged.long.map(round).join(', ') : 'none'}`,
    },
  );
  console.log(`[long] ${test.info().annotations.map((a) => `${a.type}: ${a.description}`).join(' | ')}`);
  // No task of 50 ms of the main thread's CPU while scrolling and selecting.
  expect(judged.long.filter((t) => t.phase !== 'open' && t.phase !== 'before').map(round), 'long tasks while scrolling and selecting').toEqual([]);
  // Opening is guarded against going back to one long decode: 0 tasks of 50 ms on a quiet machine
  // now (before the row windows and timeline slices: 4, up to 800 ms). The bound is loose because
  // the opening shares the 2 cores with the worker building the rows.
  expect(judged.long.filter((t) => t.phase === 'open' || t.phase === 'before').map(round), 'long tasks while opening').toEqual([]);
});
