import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { writeLongTranscript } from '../scripts/make-long-transcript';
import { expect, SCREENSHOTS, test } from './fixtures';
import { TimelineCanvas } from './pages/TimelineCanvas';

const TURNS = 100_000;
/** Chromium reports every task of 50 ms or more as a 'longtask' entry: the budget for one frame of interaction. */
const LONG_TASK_MS = 50;

declare global {
  interface Window {
    __longTasks?: number[];
    __frameGaps?: { max: number; stop: boolean };
    __taskObserver?: PerformanceObserver;
  }
}

/** Start recording long tasks (not buffered: only what happens from now on) and the longest gap between frames. */
async function startTaskWatch(page: Page): Promise<void> {
  await page.evaluate(() => {
    window.__taskObserver?.disconnect();
    const tasks: number[] = (window.__longTasks = []);
    window.__taskObserver = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) tasks.push(e.duration);
    });
    window.__taskObserver.observe({ type: 'longtask', buffered: false });
    const gaps = (window.__frameGaps = { max: 0, stop: false });
    let last = performance.now();
    const tick = (now: number) => {
      gaps.max = Math.max(gaps.max, now - last);
      last = now;
      if (!gaps.stop) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
}

async function readTaskWatch(page: Page): Promise<{ longTasks: number[]; maxFrameGap: number }> {
  return page.evaluate(() => {
    window.__frameGaps!.stop = true;
    window.__taskObserver?.disconnect();
    return { longTasks: [...window.__longTasks!], maxFrameGap: window.__frameGaps!.max };
  });
}

let file = '';
test.beforeAll(() => {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  file = writeLongTranscript({ turns: TURNS });
});
test.afterAll(() => {
  if (file) fs.rmSync(file, { force: true });
});

test('100k turns: scroll, zoom, pan, drag-select and shift+arrows without a long task', async ({ library, inspector, page }) => {
  test.setTimeout(200_000);
  await library.goto();

  // Import runs in the worker: the page must stay responsive meanwhile (reported, not asserted:
  // the shared 2-core machine makes this phase noisy).
  await startTaskWatch(page);
  const started = Date.now();
  await library.importFile(file);
  const row = library.row(path.basename(file));
  await expect(row).toHaveCount(1, { timeout: 150_000 });
  const importMs = Date.now() - started;
  const duringImport = await readTaskWatch(page);
  expect(await library.rowTurns(row)).toBeGreaterThan(TURNS);

  const opening = Date.now();
  await library.open(row);
  await expect(inspector.timeline).toBeVisible({ timeout: 60_000 });
  await expect(inspector.messages.first()).toBeVisible({ timeout: 60_000 });
  const openMs = Date.now() - opening;
  expect(await inspector.turns()).toBeGreaterThan(TURNS);
  // No per-turn React nodes: the list is virtualized and renders a screenful.
  await expect(inspector.list).toHaveAttribute('data-virtual', 'yes');
  expect(await inspector.messages.count()).toBeLessThan(80);

  const timeline = new TimelineCanvas(page);
  const [first, last] = await timeline.view();
  expect(last - first).toBeGreaterThanOrEqual(TURNS);
  // Let the first paint settle, then watch every task from here on.
  await page.waitForTimeout(500);
  await startTaskWatch(page);

  // 1. Scroll the message list: wheel steps, then a jump to the middle and more wheel.
  const listBox = (await inspector.list.boundingBox())!;
  await page.mouse.move(listBox.x + listBox.width / 2, listBox.y + listBox.height / 2);
  for (let i = 0; i < 12; i++) await page.mouse.wheel(0, 700);
  await inspector.list.evaluate((el) => el.scrollTo({ top: el.scrollHeight / 2 }));
  for (let i = 0; i < 12; i++) await page.mouse.wheel(0, 700);
  await expect(inspector.messages.first()).toBeVisible();
  const middle = Number(await inspector.messages.first().getAttribute('data-index'));
  expect(middle).toBeGreaterThan(50_000);

  // 2. Wheel-zoom the timeline around the pointer.
  for (let i = 0; i < 8; i++) await timeline.wheel(-400, 0.7);
  const zoomed = await timeline.view();
  expect(zoomed[1] - zoomed[0]).toBeLessThan((last - first) / 4);

  // 3. Pan with shift-drag: the window moves, its width stays.
  await timeline.pan(-300);
  const panned = await timeline.view();
  expect(panned[0]).toBeGreaterThan(zoomed[0]);
  expect(panned[1] - panned[0]).toBe(zoomed[1] - zoomed[0]);

  // 4. Drag-select a range with the mouse, then extend it with shift+→.
  const span = panned[1] - panned[0];
  const from = panned[0] + Math.round(span * 0.3);
  const to = panned[0] + Math.round(span * 0.6);
  await timeline.dragSelect(from, to);
  await expect(timeline.wrap).not.toHaveAttribute('data-selection', '');
  const selected = (await timeline.selection())!;
  expect(Math.abs(selected[0] - from)).toBeLessThanOrEqual(1);
  expect(Math.abs(selected[1] - to)).toBeLessThanOrEqual(1);
  await timeline.wrap.focus();
  for (let i = 0; i < 10; i++) await page.keyboard.press('Shift+ArrowRight');
  await timeline.expectSelection([selected[0], selected[1] + 10]);
  // The list follows the selection's cursor.
  await expect(page.locator(`[data-testid=turn-header][data-turn="${selected[1] + 10}"]`)).toBeVisible();

  const watched = await readTaskWatch(page);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'inspector-long-100k.png') });
  const maxTask = Math.max(0, ...watched.longTasks);
  test.info().annotations.push(
    { type: 'import-ms', description: `${importMs} ms for ${fs.statSync(file).size} bytes (${TURNS} turns); long tasks on the page meanwhile: ${duringImport.longTasks.length}, max ${Math.round(Math.max(0, ...duringImport.longTasks))} ms` },
    { type: 'open-ms', description: `${openMs} ms to timeline and first messages` },
    { type: 'interaction', description: `long tasks: ${watched.longTasks.length} (max ${Math.round(maxTask)} ms); longest gap between frames ${Math.round(watched.maxFrameGap)} ms` },
  );
  console.log(`[long] ${test.info().annotations.map((a) => `${a.type}: ${a.description}`).join(' | ')}`);
  expect(watched.longTasks.filter((d) => d >= LONG_TASK_MS), 'long tasks (ms) while scrolling, zooming, panning and selecting').toEqual([]);
});
