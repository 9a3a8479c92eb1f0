/**
 * Issue 30 "Numbers that agree, steps that say what they did": the UI items, on real corpus files.
 * One bill for one session (the Replay link and the Policies overlay), one "context" (the Plan
 * card and the turn header), call-range steps labelled as calls (Versions, Report), Undo on the
 * call axis keeping its selection, the export note before Download, keyboard (skip link, `p`, `a`,
 * focus after import), drop anywhere, two tabs, and the display fixes (policy colour, no "$0.0000",
 * the Replay table at 1024 px, human reducer labels).
 */
import fs from 'node:fs';
import path from 'node:path';
import { corpusFile, expect, SCREENSHOTS, test } from './fixtures';
import { TimelineCanvas } from './pages/TimelineCanvas';
import { Workbench } from './pages/Workbench';
import { LibraryPage } from './pages/LibraryPage';

test.beforeAll(() => fs.mkdirSync(SCREENSHOTS, { recursive: true }));

const GEMINI = corpusFile('gemini-cli', 'vibecodingtracker_gemini_session.jsonl');
const SLOP = corpusFile('claude-code', 'slopometry_transcript_opus45_compact.jsonl');
const CODEX = corpusFile('codex-cli', 'codex-session-view_rollout-2025-11-17_cli0.58.0.jsonl');

test('Gemini CLI: the Replay link and the Policies overlay give one bill; the policy line is not the window red', async ({ library, inspector, page }) => {
  test.setTimeout(120_000);
  await library.openInInspector(GEMINI, inspector);
  // The top bar's link carries no model the user did not pick (it priced every call as Pro: +131.9 %).
  await expect(page.getByTestId('open-replay')).not.toHaveAttribute('href', /[?&]m=/);
  await page.goto(page.url() + '&pol=gemini-cli,recorded');
  await inspector.waitLoaded();
  const chip = page.locator('[data-testid=policy-chip][data-policy=gemini-cli]');
  await expect(chip).toBeVisible({ timeout: 60_000 });
  const overlayUsd = Number(await chip.getAttribute('data-usd'));
  expect(overlayUsd).toBeGreaterThan(0);
  // The window line is #dc2626 (components/timeline/draw.ts); the policy's swatch is another colour.
  const swatch = await chip.locator('span[aria-hidden=true]').evaluate((el) => getComputedStyle(el).backgroundColor);
  expect(swatch).not.toBe('rgb(220, 38, 38)');
  await page.getByTestId('open-replay').click();
  const row = page.locator('[data-testid=replay-row][data-policy=gemini-cli]');
  await expect(row).toBeVisible({ timeout: 60_000 });
  expect(Number(await row.getAttribute('data-usd'))).toBeCloseTo(overlayUsd, 4);
  // The overlay's "full table" link goes to the same bill.
  await page.goBack();
  await inspector.waitLoaded();
  await expect(page.getByTestId('policy-full-table')).not.toHaveAttribute('href', /[?&]m=/);
});

test('Replay at 1024 px: the table fits; a model without a price shows "no price", never "$0.0000"', async ({ library, inspector, page }) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1024, height: 768 });
  await library.openInInspector(SLOP, inspector);
  await page.getByTestId('open-replay').click();
  const table = page.getByTestId('replay-table');
  await expect(table).toBeVisible({ timeout: 60_000 });
  // The table shows each part's rows as it comes (issue 31): wait for the last part.
  await expect(page.getByTestId('replay-table')).toHaveAttribute('data-complete', 'true', { timeout: 60_000 });
  const fit = await table.evaluate((t) => ({ table: t.scrollWidth, box: t.parentElement!.clientWidth }));
  expect(fit.table, 'the table is not cut off on the right').toBeLessThanOrEqual(fit.box);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'issue30-replay-1024.png'), fullPage: true });
  // A model the catalog has no price for: no "$0.0000" anywhere on the page.
  await page.goto(page.url().replace(/&m=[^&]*/, '') + '&m=no-such-model');
  await expect(page.getByTestId('replay-table')).toBeVisible({ timeout: 60_000 });
  // The table shows each part's rows as it comes (issue 31): wait for the last part.
  await expect(page.getByTestId('replay-table')).toHaveAttribute('data-complete', 'true', { timeout: 60_000 });
  // Unconditional: the catalog has no 'no-such-model' (lookupModel → undefined, priced false).
  await expect(page.getByTestId('replay-summary')).toContainText('no price for this model');
  await expect(page.locator('[data-testid=replay-row] [data-col=usd]').first()).toHaveText('no price');
  await expect(page.getByTestId('replay')).not.toContainText('$0.0000');
});

test('slopometry: "whole context" on the Plan card is the turn header\'s "context" (overhead included)', async ({ library, inspector, page }) => {
  test.setTimeout(120_000);
  await library.openInInspector(SLOP, inspector);
  await inspector.useTurnAxis();
  const n = await inspector.turns();
  const timeline = new TimelineCanvas(page);
  await timeline.dragSelect(n - 5, n - 3);
  const wb = new Workbench(page);
  await wb.pickReducers('strip-tool-results');
  await wb.previewTokens();
  const whole = page.getByTestId('plan-whole-context');
  await expect(whole).toBeVisible();
  const planContext = Number(await whole.getAttribute('data-context'));
  await inspector.clickTurn(n - 1);
  const header = page.locator(`[data-testid=turn-header][data-turn="${n - 1}"] [data-testid=turn-context]`);
  await expect(header).toBeVisible({ timeout: 30_000 });
  expect(Number(await header.getAttribute('data-context'))).toBe(planContext);
  await expect(whole).toContainText(`whole context ${planContext.toLocaleString('en-US')}`);
  // Reducers are named for people (the id stays beside it for the README and the CLI).
  const report = await wb.tab('Report');
  await expect(report.locator('[data-testid=report-row][data-reducer=strip-tool-results] td').first()).toHaveText('Stub tool results');
  await wb.tab('Plan');
  await page.screenshot({ path: path.join(SCREENSHOTS, 'issue30-plan-card.png') });
});

test('a call range: Report and Versions say calls, Undo keeps the selection and sel=', async ({ library, inspector, page }) => {
  test.setTimeout(150_000);
  await library.openInInspector(GEMINI, inspector);
  const timeline = new TimelineCanvas(page);
  await expect(timeline.wrap).toHaveAttribute('data-unit', 'call');
  await timeline.dragSelect(1, 3);
  await expect(page).toHaveURL(/sel=c2-4(&|$)/);
  const wb = new Workbench(page);
  await wb.pickReducers('summarize');
  await wb.keepLast(0);
  await expect(page.getByTestId('previewing')).toHaveCount(0, { timeout: 30_000 });
  const report = await wb.tab('Report');
  const row = report.locator('[data-testid=report-row][data-reducer=summarize]');
  await expect(row).toContainText(/summarized calls 2–4 of turn 1 \(3 call\(s\)/);
  await expect(row).not.toContainText('turn(s))');
  await wb.tab('Plan');
  await wb.apply();
  await expect(page.getByText(/: 1 step$/)).toBeVisible({ timeout: 30_000 });
  const versions = await wb.tab('Versions');
  await expect(versions).toContainText('Summarize · calls 2–4');
  await expect(versions).not.toContainText('after last compaction');
  await page.screenshot({ path: path.join(SCREENSHOTS, 'issue30-versions-calls.png') });
  await wb.tab('Plan');
  await wb.undo();
  await expect(page).toHaveURL(/sel=c2-4(&|$)/, { timeout: 30_000 });
  await expect(timeline.wrap).toHaveAttribute('data-unit', 'call');
  await timeline.expectSelection([1, 3]);
});

test('the export note is there before Download is enabled; the done message compares like with like', async ({ library, inspector, page }) => {
  test.setTimeout(150_000);
  await library.openInInspector(CODEX, inspector);
  await inspector.useTurnAxis();
  const wb = new Workbench(page);
  await wb.pickReducers('strip-tool-results');
  await wb.keepLast(0);
  await wb.apply();
  await expect(page.getByText(/: 1 step$/)).toBeVisible({ timeout: 30_000 });
  // Watch every frame from the moment the dialog opens: Download is never enabled without the note.
  await page.evaluate(() => {
    const w = window as unknown as { __early?: boolean; __busy?: boolean };
    w.__early = false;
    w.__busy = false;
    const tick = () => {
      const button = document.querySelector<HTMLButtonElement>('[data-testid=export-download]');
      if (button) {
        const note = document.querySelector('[data-testid=history-left-out], [data-testid=conversion-losses]');
        if (!button.disabled && !note) w.__early = true;
        if (button.disabled && button.getAttribute('aria-busy') === 'true') w.__busy = true;
      }
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  await page.getByTestId('export').click();
  const download = page.getByTestId('export-download');
  await expect(download).toBeEnabled({ timeout: 30_000 });
  await expect(page.getByTestId('history-left-out')).toBeVisible();
  expect(await page.evaluate(() => (window as unknown as { __early: boolean }).__early), 'Download enabled before the note').toBe(false);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'issue30-export-dialog.png') });
  await download.click();
  await expect(page.getByTestId('export-done')).toContainText(/tokens the model sees on resume \(was [\d,]+, −[\d.]+ %\)/, { timeout: 30_000 });
});

test('keyboard: a skip link and `p` reach the Plan, `a` applies the auto plan, focus after an import is on the new row', async ({ library, inspector, page }) => {
  test.setTimeout(150_000);
  await library.goto();
  await library.importFile(SLOP);
  await library.waitForRow(path.basename(SLOP));
  await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.tagName)).toBe('open-transcript');
  await page.keyboard.press('Enter');
  await inspector.waitLoaded();
  // On a fresh page the first Tab reaches the skip link; Enter lands in the Plan.
  await page.reload();
  await inspector.waitLoaded();
  await page.keyboard.press('Tab');
  await expect(page.getByTestId('skip-to-plan')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect.poll(() => page.evaluate(() => !!document.activeElement?.closest('[data-testid=inspector-tabs]'))).toBe(true);
  // From the timeline, one key.
  await page.getByTestId('timeline').focus();
  await expect(page.getByTestId('timeline')).toBeFocused();
  await page.keyboard.press('p');
  await expect.poll(() => page.evaluate(() => !!document.activeElement?.closest('[data-testid=inspector-tabs]'))).toBe(true);
  // `a` acts: the auto plan is applied once its preview is in.
  await inspector.useTurnAxis();
  const n = await inspector.turns();
  await new TimelineCanvas(page).dragSelect(n - 8, n - 3);
  await page.getByTestId('timeline').focus();
  await page.keyboard.press('a');
  await expect(page.getByText(/: 1 step$/)).toBeVisible({ timeout: 60_000 });
});

test('drop anywhere on the library imports the file and stays in the app; a drop in the inspector never navigates', async ({ library, inspector, page }) => {
  test.setTimeout(120_000);
  await library.goto();
  const base64 = fs.readFileSync(GEMINI).toString('base64');
  const prevented = await page.evaluate(
    ({ base64, name }) => {
      const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], name, { type: 'application/json' }));
      const target = document.querySelector('main h2') ?? document.querySelector('main')!;
      target.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
      const drop = new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true });
      target.dispatchEvent(drop);
      return drop.defaultPrevented;
    },
    { base64, name: path.basename(GEMINI) },
  );
  expect(prevented, 'the browser does not open the file in place of the app').toBe(true);
  const row = await library.waitForRow(path.basename(GEMINI));
  await expect(page).toHaveURL(/\/$/);
  await library.open(row);
  await inspector.waitLoaded();
  const inInspector = await page.evaluate(() => {
    const dt = new DataTransfer();
    dt.items.add(new File(['{}'], 'x.json', { type: 'application/json' }));
    const drop = new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true });
    document.body.dispatchEvent(drop);
    return drop.defaultPrevented;
  });
  expect(inInspector).toBe(true);
});

test('two tabs: the library list follows another tab\'s import; a transcript deleted in another tab says so', async ({ library, inspector, page, context }) => {
  test.setTimeout(150_000);
  await library.goto();
  const other = await context.newPage();
  const second = new LibraryPage(other);
  await second.goto();
  await second.importFile(GEMINI);
  await second.waitForRow(path.basename(GEMINI));
  // The first tab's list shows it without a reload.
  const row = await library.waitForRow(path.basename(GEMINI));
  await library.open(row);
  await inspector.waitLoaded();
  await second.delete(second.row(path.basename(GEMINI)));
  await expect(page.getByTestId('deleted-elsewhere')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('deleted-elsewhere')).toContainText('deleted in another tab');
  await other.close();
});

test('Codex tool results are shown decoded: the output text, not a JSON string with escapes', async ({ library, inspector, page }) => {
  test.setTimeout(120_000);
  await library.openInInspector(CODEX, inspector);
  const result = page.getByTestId('tool-result').first();
  await expect(result).toBeVisible({ timeout: 30_000 });
  await expect(result).not.toContainText('{"output":');
  await expect(result).not.toContainText('\\n');
  await expect(result.getByTestId('result-meta')).toContainText(/exit \d+/);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'issue30-codex-results.png') });
});
