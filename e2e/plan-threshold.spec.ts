/**
 * RFD 036's summarize_threshold in the Plan panel: Auto summarizes only while the context is above
 * the given share of the model's window. On a real Claude Code session (Opus 4.5, 200k window,
 * ~70k tokens in the model's view): with the threshold at 90 % Auto stops after the free reducers
 * and the Report says why; at 0 (always) it summarizes down to the target.
 */
import path from 'node:path';
import { corpusFile, expect, SCREENSHOTS, test } from './fixtures';
import { Workbench } from './pages/Workbench';

test('summarize threshold: Auto skips summaries below it and says so, summarizes above it', async ({ library, inspector, page }) => {
  test.setTimeout(120_000);
  const file = corpusFile('claude-code', 'slopometry_transcript_opus45_compact.jsonl');
  await library.openInInspector(file, inspector);
  const wb = new Workbench(page);
  // A target the free reducers cannot reach alone (they end near half of this session's context).
  const half = await wb.autoHalf();
  const target = Math.round(half / 4);
  await page.getByTestId('target-budget').fill(String(target));
  await wb.keepLast(0);
  const threshold = page.getByTestId('summarize-threshold');

  await threshold.fill('90');
  const report = await wb.tab('Report');
  await expect(report).toContainText('summarize skipped', { timeout: 30_000 });
  await expect(report).toContainText('below summarize_threshold 90 %');
  await page.screenshot({ path: path.join(SCREENSHOTS, 'inspector-report-threshold.png') });
  const skipped = await wb.contextTokens();
  expect(skipped.after).toBeGreaterThan(target);

  await wb.tab('Plan');
  await threshold.fill('0');
  await wb.tab('Report');
  await expect(report).not.toContainText('summarize skipped', { timeout: 30_000 });
  await expect.poll(async () => (await wb.contextTokens()).after, { timeout: 30_000 }).toBeLessThanOrEqual(target);
});
