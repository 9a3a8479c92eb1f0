/**
 * classify-tangents in the app, offline: on a real Claude Code session (10 prompts) the heuristic
 * proposes turns 6 and 8 and says it is the heuristic; ticking one puts it in the plan, the
 * preview shows the context shrink, and only Apply would make it a step.
 */
import path from 'node:path';
import { corpusFile, expect, SCREENSHOTS, test } from './fixtures';
import { Workbench } from './pages/Workbench';

test('classify-tangents: propose, tick, preview (confirm = Apply)', async ({ library, inspector, page }) => {
  test.setTimeout(120_000);
  const file = corpusFile('claude-code', 'vibecodingtracker_claude_code_v1.0.95.jsonl');
  await library.openInInspector(file, inspector);
  const wb = new Workbench(page);
  await wb.pickReducers();
  // Only the tangents: untick the default reducer.
  await page.getByRole('checkbox', { name: 'strip-tool-results', exact: true }).uncheck();
  await page.getByTestId('find-tangents').click();
  const panel = page.getByTestId('tangents');
  await expect(panel.getByTestId('tangents-by')).toContainText('offline heuristic');
  await expect(panel).toContainText('Turn 6');
  await expect(panel).toContainText('Turn 8');
  await panel.getByRole('checkbox', { name: 'remove turn 8' }).check();
  await expect(panel).toContainText('1 turn(s) in the plan');
  const { before, after } = await wb.previewTokens();
  expect(after).toBeLessThan(before);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'plan-tangents.png') });
});
