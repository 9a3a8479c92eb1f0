/**
 * The "input budget" button counts what the model is sent: on a real Claude Code session with
 * recorded usage (Opus 4.5: 136,000 input budget), the target it sets is the input budget minus
 * the invisible overhead, divided by the calibration factor — the CLI's default --budget — and
 * the Plan panel says so where the number is chosen. Info shows the factor and the estimate-vs-
 * recorded error.
 */
import path from 'node:path';
import { corpusFile, expect, SCREENSHOTS, test } from './fixtures';
import { Workbench } from './pages/Workbench';

test('input budget: overhead and calibration in the target, shown where it is chosen and in Info', async ({ library, inspector, page }) => {
  test.setTimeout(120_000);
  const file = corpusFile('claude-code', 'slopometry_transcript_opus45_compact.jsonl');
  await library.openInInspector(file, inspector);

  const wb = new Workbench(page);
  await wb.tab('Info');
  const factor = Number(await page.getByTestId('calibration-factor').getAttribute('data-factor'));
  expect(factor).toBeGreaterThan(1);
  const err = page.getByTestId('calibration-error');
  expect(Number(await err.getAttribute('data-error'))).toBeLessThan(Number(await err.getAttribute('data-raw')));
  await expect(page.getByTestId('side-panel')).toContainText('Calibration factor');
  await page.screenshot({ path: path.join(SCREENSHOTS, 'info-calibration.png') });

  await wb.tab('Plan');
  await page.getByTestId('input-budget-button').click();
  const breakdown = page.getByTestId('input-budget-breakdown');
  await expect(breakdown).toContainText(/Input budget 136,000 \(Claude Opus 4\.5\) = [\d,]+ in the file \+ [\d,]+ invisible overhead, × [\d.]+ calibration/);
  const file_ = Number(await breakdown.getAttribute('data-file'));
  await expect(page.getByTestId('target-budget')).toHaveValue(String(file_));
  // Far below the 136,000 a visible-only count would aim at.
  expect(file_).toBeLessThan(136_000 / factor);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'plan-input-budget.png') });
});
