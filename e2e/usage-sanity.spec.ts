/**
 * Issue 31 item 3: a Claude Code session recording 10 tokens a call while its context grows to
 * thousands (tests/bad-usage.ts) — the inspector lists the import warning, and the Replay page
 * says the usage was implausible and replays on our counts: the "as recorded" row's peak is the
 * CLI's (`simulate --json`), not 10.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { badUsageSession } from '../tests/bad-usage';
import { expect, SCREENSHOTS, test } from './fixtures';
import { cliSimulate, tokensText } from './pages/cli';
import { TranscriptTotals } from './pages/TranscriptTotals';

let dir = '';
let file = '';
test.beforeAll(() => {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'usage-sanity-e2e-'));
  file = path.join(dir, 'ten-tokens-a-call.jsonl');
  fs.writeFileSync(file, badUsageSession());
});
test.afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test('implausible recorded usage: the import warns, Replay falls back to our counts and says so', async ({ library, inspector, page }) => {
  test.setTimeout(120_000);
  const cli = cliSimulate(file);
  const recorded = cli.rows.find((r) => r.policy === 'recorded')!;
  expect(recorded.peakContext).toBeGreaterThan(5_000);

  await library.openInInspector(file, inspector);
  const totals = new TranscriptTotals(page);
  await totals.show();
  const warnings = page.getByTestId('import-warnings');
  await expect(warnings).toContainText('The usage recorded in this file is implausible next to its content');
  await expect(warnings).toContainText('10 tokens recorded');
  await expect(warnings).toContainText('Replay and simulate use our counts instead of the recorded usage.');

  await page.getByTestId('open-replay').click();
  await expect(page.getByTestId('replay-table')).toBeVisible({ timeout: 60_000 });
  // The table shows each part's rows as it comes (issue 31): wait for the last part.
  await expect(page.getByTestId('replay-table')).toHaveAttribute('data-complete', 'true', { timeout: 60_000 });
  await expect(page.getByTestId('replay-usage-ignored')).toHaveText('recorded usage implausible: sizes are our counts');
  await expect(page.getByTestId('replay-warning').first()).toContainText('The usage recorded in this file is implausible next to its content');
  const row = page.locator('[data-testid=replay-row][data-policy="recorded"]');
  await expect(row.locator('[data-col=peakContext]')).toHaveText(tokensText(recorded.peakContext));
  await expect(page.getByTestId('replay-recorded')).toHaveCount(0);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'replay-usage-implausible.png'), fullPage: true });
});
