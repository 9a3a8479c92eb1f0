/**
 * Issue #29: the inspector's Auto weighs the prompt cache like the replay's Auto and `compact
 * --cache-aware`. On a real, short Claude Code session (claude-code-viewer, 9 calls) a 3,000-token
 * target would clear ~6k tokens and rewrite the cached prompt for little: with "Only when it pays"
 * ticked, the Plan panel says Auto chose not to compact and by how much it would cost more, and
 * the context stays; unticked, Auto compacts as before.
 */
import path from 'node:path';
import { corpusFile, expect, SCREENSHOTS, test } from './fixtures';
import { Workbench } from './pages/Workbench';

test('cache-aware Auto: the Plan panel says it chose not to compact because it would cost more, and by how much', async ({ library, inspector, page }) => {
  test.setTimeout(120_000);
  const file = corpusFile('claude-code', 'claude-code-viewer_fe5e1c67.jsonl');
  await library.openInInspector(file, inspector);
  const wb = new Workbench(page);
  await wb.autoHalf();
  await page.getByTestId('target-budget').fill('3000');
  await wb.keepLast(1);
  await page.getByTestId('cache-aware').check();

  const decision = page.getByTestId('auto-cache-decision');
  await expect(decision).toBeVisible({ timeout: 30_000 });
  await expect(decision).toHaveAttribute('data-compacted', 'false');
  await expect(decision).toContainText(/Auto chose not to compact: it would clear [\d,]+ tokens, under the 6,800 a compaction must clear \(over ~\d+ calls it would cost \$[\d.]+ more than it saves\)/);
  const kept = await wb.contextTokens();
  expect(kept.after).toBe(kept.before);
  await expect(page.getByTestId('apply-noop')).toBeVisible();
  await page.screenshot({ path: path.join(SCREENSHOTS, 'plan-cache-aware-declined.png') });

  await page.getByTestId('cache-aware').uncheck();
  await expect(decision).toHaveCount(0);
  await expect.poll(async () => (await wb.contextTokens()).after, { timeout: 30_000 }).toBeLessThan(kept.before);
});
