/**
 * Issue #29: the Replay page marks the compactions that never paid back the cache they broke, with
 * their break-even. On slopometry (Opus 4.5, 187 calls) sven compacts often and small: several of
 * its compactions need more calls to pay back than the session had left; the cache-aware Auto has
 * none. The marks and the table's count are the CLI's `simulate --json` numbers.
 */
import path from 'node:path';
import { corpusFile, expect, SCREENSHOTS, test } from './fixtures';
import { cliSimulate } from './pages/cli';

test('replay: compactions that never paid back are marked, with their break-even', async ({ library, inspector, page }) => {
  test.setTimeout(150_000);
  const file = corpusFile('claude-code', 'slopometry_transcript_opus45_compact.jsonl');
  const cli = cliSimulate(file);
  const row = (id: string) => cli.rows.find((r) => r.policy === id)! as (typeof cli.rows)[number] & { compactionsNotPaidBack: number; compactionUsd: number };
  expect(row('sven').compactionsNotPaidBack).toBeGreaterThan(0);
  expect(row('contextscope-auto').compactionsNotPaidBack).toBe(0);

  await library.openInInspector(file, inspector);
  await page.getByTestId('open-replay').click();
  await expect(page.getByTestId('replay-table')).toBeVisible({ timeout: 60_000 });
  // The table shows each part's rows as it comes (issue 31): wait for the last part.
  await expect(page.getByTestId('replay-table')).toHaveAttribute('data-complete', 'true', { timeout: 60_000 });
  for (const id of ['sven', 'contextscope-auto', 'claude-code']) {
    const r = page.locator(`[data-testid=replay-row][data-policy="${id}"]`);
    await expect(r.locator('[data-col=compactionsNotPaidBack]')).toHaveText(String(row(id).compactionsNotPaidBack));
    await expect(r.locator('[data-col=compactionUsd]')).toHaveText(`$${row(id).compactionUsd.toFixed(4)}`);
  }
  await page.locator('[data-testid=replay-row][data-policy="sven"]').getByTestId('replay-toggle').check();
  const chart = page.getByTestId('replay-chart');
  const unpaid = chart.locator('[data-policy="sven"] [data-testid=replay-firing][data-paid=false]');
  await expect(unpaid).toHaveCount(row('sven').compactionsNotPaidBack);
  await expect(unpaid.first().locator('title')).toContainText(/break-even after \d+ calls?, the session made \d+ after it: never paid back|no break-even/);
  await expect(chart.locator('[data-policy="contextscope-auto"] [data-testid=replay-firing][data-paid=false]')).toHaveCount(0);
  await expect(chart.locator('[data-policy="contextscope-auto"] [data-testid=replay-firing]').first().locator('title')).toContainText(/paid back/);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'replay-break-even.png'), fullPage: true });
});
