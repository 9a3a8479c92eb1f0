/**
 * The inspector's workbench around the three paths, on a real Claude Code session: a step applied
 * to a drag-selected range makes a version; the Lost list links to turns; the URL carries the
 * transcript, the version and the selection across a reload; versions are renamed, forked, given
 * a step of their own and compared side by side; the keyboard opens the shortcut sheet and the
 * export dialog and undoes a step. The imported log never changes: the Original stays selectable
 * with its own total.
 */
import fs from 'node:fs';
import path from 'node:path';
import { corpusFile, expect, SCREENSHOTS, test } from './fixtures';
import { cliInspect } from './pages/cli';
import { TimelineCanvas } from './pages/TimelineCanvas';
import { Workbench } from './pages/Workbench';

test.beforeAll(() => fs.mkdirSync(SCREENSHOTS, { recursive: true }));

test('versions, URL state, Lost links and keys: apply, reload, rename, fork, compare, undo', async ({ library, inspector, page }) => {
  test.setTimeout(150_000);
  const file = corpusFile('claude-code', 'vibecodingtracker_claude_code_v1.0.95.jsonl');
  const expected = cliInspect(file);
  expect(expected.turns).toBeGreaterThanOrEqual(8);

  await library.openInInspector(file, inspector);
  const timeline = new TimelineCanvas(page);
  const wb = new Workbench(page);
  const versionOf = () => new URL(page.url()).searchParams.get('v');

  // A step: strip-tool-results over turns 1–6.
  await timeline.dragSelect(0, 5);
  await expect(page).toHaveURL(/sel=1-6(&|$)/);
  await wb.pickReducers('strip-tool-results');
  const preview = await wb.previewTokens();
  expect(preview.after).toBeLessThan(preview.before);
  await wb.apply();
  await expect(page).toHaveURL(/[?&]v=/);
  const stubbed = versionOf()!;
  const stubbedTokens = await wb.contextTokens();
  expect(stubbedTokens.after).toBeLessThan(stubbedTokens.before);

  // Lost: each identifier links to the turn it was compacted out of.
  const lost = await wb.tab('Lost');
  const item = lost.getByRole('button', { name: /./ }).first();
  const lostTurn = Number(/Show turn (\d+)/.exec((await item.getAttribute('title')) ?? '')?.[1]);
  expect(lostTurn).toBeGreaterThanOrEqual(1);
  expect(lostTurn).toBeLessThanOrEqual(6);
  await item.click();
  await expect(page.locator(`[data-testid=turn-header][data-turn="${lostTurn - 1}"]`)).toBeInViewport();

  // The URL carries the version and a new selection across a reload.
  await timeline.dragSelect(1, 3);
  await expect(page).toHaveURL(/sel=2-4(&|$)/);
  await page.reload();
  await inspector.waitLoaded();
  await expect(page.getByTestId('inspector')).toHaveAttribute('data-version', stubbed);
  await expect(page.getByTestId('version-select')).toHaveValue(stubbed);
  await timeline.expectSelection([1, 3]);
  await expect(page.getByTestId('selection-summary')).toContainText('Turns 2–4');
  await page.getByTestId('clear-selection').click();
  await expect(page).not.toHaveURL(/sel=/);

  // Rename it; fork it; give the fork a step of its own (Auto to half the context).
  let versions = await wb.tab('Versions');
  const stubbedRow = versions.locator(`[data-testid=version][data-version="${stubbed}"]`);
  await stubbedRow.getByRole('button', { name: 'Rename' }).click();
  await versions.getByLabel('Version name').fill('results stubbed');
  await versions.getByRole('button', { name: 'Save' }).click();
  await expect(stubbedRow.getByRole('button', { name: 'results stubbed' })).toBeVisible();
  // The top bar's version menu names it too, with its step count.
  await expect(page.getByTestId('version-select').locator('option:checked')).toHaveText('results stubbed (1)');
  await stubbedRow.getByRole('button', { name: 'Fork' }).click();
  await expect.poll(versionOf).not.toBe(stubbed);
  const fork = versionOf()!;
  await expect(versions.getByTestId('version')).toHaveCount(3);
  await wb.autoHalf();
  await wb.apply();
  versions = await wb.tab('Versions');
  const forkRow = versions.locator(`[data-testid=version][data-version="${fork}"]`);
  await expect(forkRow).toContainText('2 steps');
  await expect(stubbedRow).toContainText('1 step');
  // The context line re-renders once the worker has projected the new step: poll, do not read once.
  await expect.poll(async () => (await wb.contextTokens()).after, { timeout: 30_000 }).toBeLessThan(stubbedTokens.after);

  // Compare side by side: both totals, and the difference between them.
  await stubbedRow.getByLabel('Compare with results stubbed').check();
  const comparison = page.getByTestId('comparison');
  await expect(comparison.getByRole('table')).toBeVisible({ timeout: 30_000 });
  await expect(comparison).toContainText('results stubbed');
  await expect(page.getByTestId('compare-delta')).toContainText('−');
  await page.screenshot({ path: path.join(SCREENSHOTS, 'inspector-versions.png') });

  // Keys (not while typing): ? opens the shortcut sheet, e the export dialog, z undoes the fork's last step.
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.keyboard.press('?');
  await expect(page.getByTestId('help-overlay')).toBeVisible();
  await expect(page.getByTestId('help-overlay')).toContainText('Undo the last step');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('help-overlay')).toBeHidden();
  await page.keyboard.press('e');
  await expect(page.getByTestId('export-dialog')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('export-dialog')).toBeHidden();
  await page.keyboard.press('z');
  await expect(forkRow).toContainText('1 step');
  await expect.poll(async () => (await wb.contextTokens()).after).toBe(stubbedTokens.after);

  // The Original is still there, untouched: no compaction shown in it.
  await page.getByTestId('version-select').selectOption({ label: 'Original' });
  await expect(page.getByTestId('inspector')).toHaveAttribute('data-version', 'original');
  await expect(wb.fates).toHaveCount(0);
});
