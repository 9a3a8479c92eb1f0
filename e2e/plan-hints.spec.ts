/**
 * The Plan panel's per-tool hints (issue: "a table of the transcript's tools with request/response
 * keep/strip/remove, dedup, retention"), on a real Claude Code session with two MCP tools of one
 * server: each tool is told apart in the table, every control is within the panel, and a hint
 * changes the preview for that tool only.
 */
import fs from 'node:fs';
import path from 'node:path';
import { importBytes } from '../lib/formats/import';
import { corpusFile, expect, SCREENSHOTS, test } from './fixtures';
import { Workbench } from './pages/Workbench';

test('per-tool hints: the table names every tool apart, fits the panel, and strip / remove change the preview for that tool', async ({ library, inspector, page }) => {
  test.setTimeout(120_000);
  const file = corpusFile('claude-code', 'vibecodingtracker_claude_code_v1.0.95.jsonl');
  const { messages } = importBytes(path.basename(file), new Uint8Array(fs.readFileSync(file))).transcript;
  const todoCalls = messages.filter((m) => !m.sidechain).flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_call' && b.name === 'TodoWrite').length;
  expect(todoCalls).toBeGreaterThan(3);

  await library.openInInspector(file, inspector);
  const wb = new Workbench(page);
  await wb.pickReducers('tool-hints');
  await wb.keepLast(0);

  const table = page.getByTestId('hints-table');
  await table.scrollIntoViewIfNeeded();
  // Two tools of one MCP server, told apart (they were both "mcp__context7_…").
  await expect(table.getByText('context7 · resolve-library-id', { exact: true })).toBeVisible();
  await expect(table.getByText('context7 · get-library-docs', { exact: true })).toBeVisible();
  // Every control within the side panel (the retention column was cut at its edge).
  const panel = (await page.getByRole('tabpanel').boundingBox())!;
  for (const select of await table.getByRole('combobox').all()) {
    const box = (await select.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(panel.x + panel.width);
  }
  await page.screenshot({ path: path.join(SCREENSHOTS, 'inspector-hints.png') });

  const report = async () => (await wb.tab('Report')).textContent();
  const stubbedIn = (text: string | null) => Number(/responses stubbed: (\d+)/.exec(text ?? '')?.[1] ?? NaN);
  const removedIn = (text: string | null) => Number(/pairs removed: (\d+)/.exec(text ?? '')?.[1] ?? NaN);

  // The defaults' hints for the other tools (lib/compaction/hints.ts) stay as they are throughout.
  // Read them once the preview of the plan so far has settled (worker idle, report unchanged).
  let last = '';
  await expect
    .poll(async () => {
      const busy = await page.getByTestId('worker-activity').getAttribute('data-busy');
      const now = (await report()) ?? '';
      const same = busy === 'no' && now === last && now.includes('responses stubbed');
      last = now;
      return same;
    }, { timeout: 30_000, intervals: [700] })
    .toBe(true);
  const report0 = last;
  const others = page.locator('[data-testid=tool-call]:not([data-tool=TodoWrite]) [data-testid=fate-badge]');
  const othersBefore = await others.evaluateAll((els) => els.map((e) => e.getAttribute('data-fate')).join());
  expect(stubbedIn(report0)).toBeGreaterThanOrEqual(0);

  // strip: TodoWrite's results become stubs under their calls; the context shrinks.
  await wb.tab('Plan');
  await table.getByLabel('TodoWrite response').selectOption('strip');
  await expect.poll(async () => stubbedIn(await report()), { timeout: 30_000 }).toBeGreaterThan(stubbedIn(report0));
  expect(stubbedIn(await report()) - stubbedIn(report0)).toBeLessThanOrEqual(todoCalls);
  await expect(page.locator('[data-testid=tool-call][data-tool=TodoWrite] [data-testid=fate-badge][data-fate=stubbed]').first()).toBeVisible();
  expect(await others.evaluateAll((els) => els.map((e) => e.getAttribute('data-fate')).join())).toBe(othersBefore);
  const stripped = await wb.contextTokens();
  expect(stripped.after).toBeLessThan(stripped.before);

  // remove: the TodoWrite pairs go entirely, saving more.
  await wb.tab('Plan');
  await table.getByLabel('TodoWrite response').selectOption('remove');
  await expect.poll(async () => removedIn(await report()), { timeout: 30_000 }).toBeGreaterThan(0);
  await expect.poll(async () => (await wb.contextTokens()).after, { timeout: 30_000 }).toBeLessThan(stripped.after);
});
