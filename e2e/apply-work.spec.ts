/**
 * Issue 31: Apply and the export dialog, counted in the browser (never timed). Every call the page
 * sends an engine worker (Comlink's messages, read off Worker.prototype.postMessage before the app
 * starts) and every worker started are counted, so the spec holds on any build.
 *
 * Apply → the new version shown asks the worker for one preview (the new version's, whose
 * projection is the applied preview's), and starts no worker. Before the fix the page previewed the
 * old version with a fresh step id while the router's URL update was on its way (a projection
 * nobody asked for); cancelling it stopped the warm preview worker, and the new version's preview
 * went to a fresh one, which read the log back and projected it again.
 * The export dialog's note and file go to the worker that previewed and applied (lib/engine/client.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { makeClaudeCodeSession } from '../bench/generate';
import { expect, test } from './fixtures';
import { TimelineCanvas } from './pages/TimelineCanvas';

const TURNS = 300;

let file = '';
test.beforeAll(() => {
  file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cs-apply-work-')), `cc-${TURNS}.jsonl`);
  fs.writeFileSync(file, makeClaudeCodeSession(TURNS));
});
test.afterAll(() => {
  if (file) fs.rmSync(path.dirname(file), { recursive: true, force: true });
});

interface Sent {
  worker: number;
  method: string;
  args: unknown[];
}
declare global {
  interface Window {
    __sent?: Sent[];
    __workers?: number;
  }
}

/** Count, from the first script on, the workers started and each Comlink call sent to one (its method and arguments). */
async function countWorkerCalls(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const sent: Sent[] = (window.__sent = []);
    window.__workers = 0;
    const ids = new WeakMap<Worker, number>();
    const NativeWorker = window.Worker;
    window.Worker = class extends NativeWorker {
      constructor(url: string | URL, options?: WorkerOptions) {
        super(url, options);
        ids.set(this, ++window.__workers!);
      }
    } as typeof Worker;
    const post = NativeWorker.prototype.postMessage;
    NativeWorker.prototype.postMessage = function (this: Worker, message: unknown, ...rest: unknown[]) {
      const m = message as { type?: string; path?: string[]; argumentList?: Array<{ value?: unknown }> } | null;
      if (m && m.type === 'APPLY' && Array.isArray(m.path)) sent.push({ worker: ids.get(this) ?? 0, method: m.path.join('.'), args: (m.argumentList ?? []).map((a) => a?.value) });
      return (post as (...a: unknown[]) => void).call(this, message, ...rest);
    } as typeof post;
  });
}

const waitIn = (page: Page, predicate: (arg: string) => boolean, arg = '') => page.waitForFunction(predicate as (arg: unknown) => boolean, arg, { polling: 'raf', timeout: 120_000 });
const workerIdle = (page: Page) => waitIn(page, () => document.querySelector('[data-testid=worker-activity]')?.getAttribute('data-busy') === 'no');
/** The Plan panel's numbers are settled for `range` ('' = the whole context). */
const settled = (page: Page, range: string) =>
  waitIn(page, (r) => {
    const t = document.querySelector('[data-testid=selection-totals]');
    return t?.getAttribute('data-preview') === 'settled' && (t.getAttribute('data-range') ?? '') === r;
  }, range);

test('Apply asks for one preview, of the new version, on the warm worker; the export dialog runs there too (issue 31)', async ({ library, inspector, page }) => {
  test.setTimeout(300_000);
  await countWorkerCalls(page);
  await library.goto();
  await library.importFile(file);
  await library.open(await library.waitForRow(path.basename(file)));
  await inspector.waitLoaded();
  await inspector.useTurnAxis();
  await waitIn(page, (n) => Number(document.querySelector('[data-testid=timeline]')?.getAttribute('data-turns') ?? 0) >= Number(n), String(TURNS));
  await page.getByRole('tab', { name: 'Plan', exact: true }).click();
  await workerIdle(page);

  // A range's preview (Auto at 50 %, the panel's default).
  const timeline = new TimelineCanvas(page);
  const p = await timeline.pointOf(60);
  const q = await timeline.pointOf(180);
  await page.mouse.move(p.x, p.y);
  await page.mouse.down();
  await page.mouse.move(q.x, q.y, { steps: 8 });
  await page.mouse.up();
  const range = (await timeline.wrap.getAttribute('data-selection')) ?? '';
  expect(range).toMatch(/^\d+-\d+$/);
  await settled(page, range);
  await workerIdle(page);
  const previewWorker = await page.evaluate(() => [...window.__sent!].reverse().find((s) => s.method === 'preview')!.worker);

  // Apply → the new version shown.
  const before = await page.evaluate(() => ({ sent: window.__sent!.length, workers: window.__workers! }));
  await page.getByRole('button', { name: 'Apply', exact: true }).click();
  await waitIn(page, () => new URL(location.href).searchParams.has('v'));
  await settled(page, '');
  await workerIdle(page);
  // Anything late (a stale preview's grace is 1.5 s) would show within this.
  await page.waitForTimeout(2000);
  await workerIdle(page);
  const versionId = new URL(page.url()).searchParams.get('v')!;
  const after = await page.evaluate((n) => ({ sent: window.__sent!.slice(n), workers: window.__workers! }), before.sent);
  const previews = after.sent.filter((s) => s.method === 'preview');
  expect(previews.map((s) => (s.args[1] as { versionId: string; draft?: unknown }) ?? {}).map((r) => ({ versionId: r.versionId, draft: r.draft ?? null }))).toEqual([{ versionId, draft: null }]);
  expect(after.workers).toBe(before.workers);
  expect(previews[0].worker).toBe(previewWorker);
  expect(after.sent.find((s) => s.method === 'applyStep')!.worker).toBe(previewWorker);
  // The timeline's ledger strip (same worker) asks after the new version's numbers, not before them.
  const methods = after.sent.map((s) => s.method);
  expect(methods).toContain('compactionLedger');
  expect(methods.indexOf('preview')).toBeLessThan(methods.indexOf('compactionLedger'));

  // The export dialog: the note, then the file, on that same worker.
  const mark = await page.evaluate(() => window.__sent!.length);
  await page.getByTestId('export').click();
  await expect(page.getByTestId('history-left-out')).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('export-download')).toBeEnabled();
  const download = page.waitForEvent('download', { predicate: (d) => !d.suggestedFilename().endsWith('.audit.json') });
  await page.getByTestId('export-download').click();
  await download;
  const dialogCalls = await page.evaluate((n) => window.__sent!.slice(n).filter((s) => s.method === 'historyLeftOut' || s.method === 'exportVersion'), mark);
  expect(dialogCalls.map((s) => s.method)).toEqual(['historyLeftOut', 'exportVersion']);
  for (const s of dialogCalls) expect(s.worker, s.method).toBe(previewWorker);
  expect(await page.evaluate(() => window.__workers!)).toBe(before.workers);
});
