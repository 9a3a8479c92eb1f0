/**
 * Very long lists keep estimated row heights (MessageList FIXED_HEIGHTS_ABOVE): a row whose content
 * outgrows its estimate must grow, not be clipped. On a generated 8,000-turn transcript (over 20k
 * rows) with an 80-line tool result every 200 turns: a search hit in the folded part of such a
 * result unfolds it, and the marked line is on screen; "show less" folds it again; no row overlaps
 * the next.
 */
import fs from 'node:fs';
import type { Locator, Page } from '@playwright/test';
import { LONG_RESULT_LINES, writeLongTranscript } from '../scripts/make-long-transcript';
import { expect, test } from './fixtures';

let file = '';
test.beforeAll(() => {
  file = writeLongTranscript({ turns: 8_000, longResultEvery: 50 });
});
test.afterAll(() => {
  if (file) fs.rmSync(file, { force: true });
});

/** The list row (positioned box) holding `inner`, and the one after it. */
async function rowBoxes(page: Page, inner: Locator) {
  const index = Number(await inner.evaluate((el) => el.closest('[data-index]:not([data-testid=message])')?.getAttribute('data-index')));
  const box = async (i: number) => (await page.locator(`[data-testid=message-list] [data-index="${i}"]:not([data-testid=message])`).boundingBox())!;
  const row = await box(index);
  const next = await box(index + 1);
  return { index, row, next };
}

test('a very long list grows a row to its content: a hit in a folded result unfolds it on screen, nothing is clipped or overlaps', async ({ library, inspector, page }) => {
  test.setTimeout(120_000);
  await library.openInInspector(file, inspector);
  await expect(inspector.list).toHaveAttribute('data-fixed-heights', 'yes');

  // The last line of item 4000's result: in the folded part of an 80-line result, mid-list.
  const needle = `line ${LONG_RESULT_LINES} of item 4000`;
  await page.keyboard.press('/');
  await page.keyboard.type(needle);
  await expect(page.getByTestId('search-count')).toHaveText('1 / 1');
  const active = page.locator('[data-search-hit=active]');
  const mark = active.getByTestId('search-mark').first();
  await expect(mark).toHaveText(needle);
  // Unfolded and grown: the mark is on screen, not cut off by its row's box.
  await expect(mark).toBeInViewport();
  await expect(active.getByTestId('show-all')).toHaveText('show less');
  let { row, next } = await rowBoxes(page, active);
  const content = (await active.boundingBox())!;
  expect(row.height).toBeGreaterThanOrEqual(content.height - 1);
  expect(next.y).toBeGreaterThanOrEqual(row.y + row.height - 1);
  const unfolded = row.height;

  // "show less" folds it; the row shrinks back, the button stays on screen where it was clicked,
  // and the next row follows it.
  const button = active.getByTestId('show-all');
  const before = (await button.boundingBox())!;
  await button.click();
  await expect(button).toHaveText(/^show all/);
  await expect(button).toBeInViewport();
  await expect.poll(async () => Math.abs((await button.boundingBox())!.y - before.y)).toBeLessThan(2);
  await expect.poll(async () => (await rowBoxes(page, active)).row.height).toBeLessThan(unfolded / 2);
  ({ row, next } = await rowBoxes(page, active));
  expect(next.y).toBeGreaterThanOrEqual(row.y + row.height - 1);
  expect(row.height).toBeGreaterThanOrEqual((await active.boundingBox())!.height - 1);
});
