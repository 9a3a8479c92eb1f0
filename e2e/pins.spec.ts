/**
 * Issue 26 §4, the inspector's item pins, on a real Claude Code session: the Pin button of a tool
 * result (from the keyboard) pins it; strip-tool-results over the turns that hold it stubs every
 * other result but leaves the pinned one whole — in the preview, in the applied version and in the
 * exported file (re-imported here and compared with the original's text). The pin is stored with
 * the transcript (a reload shows it pinned) and listed in the Compactions tab; a message pins the
 * same way and unpins.
 */
import fs from 'node:fs';
import path from 'node:path';
import { importBytes } from '../lib/formats/import';
import type { ToolResultBlock } from '../lib/model/types';
import { corpusFile, expect, SCREENSHOTS, test } from './fixtures';
import { TimelineCanvas } from './pages/TimelineCanvas';
import { Workbench } from './pages/Workbench';

test.beforeAll(() => fs.mkdirSync(SCREENSHOTS, { recursive: true }));

const FILE = corpusFile('claude-code', 'vibecodingtracker_claude_code_v1.0.95.jsonl');

function resultsOf(bytes: Uint8Array, name: string): ToolResultBlock[] {
  return importBytes(name, bytes)
    .transcript.messages.flatMap((m) => m.blocks)
    .filter((b): b is ToolResultBlock => b.kind === 'tool_result');
}

test('pin a tool result, strip the tool results around it: the pinned one stays whole in the preview and the export', async ({ library, inspector, page }) => {
  test.setTimeout(180_000);
  const original = resultsOf(new Uint8Array(fs.readFileSync(FILE)), path.basename(FILE));
  // The Grep result of turn 3 (20,030 characters) and the WebSearch result beside it.
  const grep = original.find((b) => b.name === 'Grep' && b.content.length > 10_000)!;
  const search = original.find((b) => b.name === 'WebSearch')!;
  expect(grep).toBeDefined();
  expect(search).toBeDefined();

  await library.openInInspector(FILE, inspector);
  await inspector.useTurnAxis();
  const pinned = page.locator(`[data-testid=tool-result][data-block-id="${grep.id}"]`);
  const other = page.locator(`[data-testid=tool-result][data-block-id="${search.id}"]`);
  await pinned.scrollIntoViewIfNeeded();
  const toggle = pinned.getByTestId('pin-toggle');
  await expect(toggle).toHaveAttribute('aria-pressed', 'false');
  await expect(toggle).toHaveAccessibleName('Pin this Grep result (message #24)');
  // From the keyboard: focus the button, Space.
  await toggle.focus();
  await page.keyboard.press('Space');
  await expect(toggle).toHaveAttribute('aria-pressed', 'true');
  await expect(toggle).toHaveAccessibleName('Unpin this Grep result (message #24)');
  await expect(toggle).toHaveText('Pinned');

  // strip-tool-results over turns 1–8, keeping no turn: it stubs every result there but the pinned one.
  const timeline = new TimelineCanvas(page);
  const wb = new Workbench(page);
  await timeline.dragSelect(0, 7);
  await timeline.expectSelection([0, 7]);
  await wb.pickReducers('strip-tool-results');
  await wb.keepLast(0);
  await expect(other.locator('[data-testid=fate-badge][data-fate=stubbed]')).toBeVisible({ timeout: 30_000 });
  await expect(pinned.getByTestId('fate-badge')).toHaveCount(0);
  const preview = await wb.previewTokens();
  expect(preview.after).toBeLessThan(preview.before);
  // The Diff tab lists what the plan changes: the WebSearch result, never the pinned Grep output.
  const diff = await wb.tab('Diff');
  await expect(diff).toContainText('Web search results for query');
  await expect(diff).not.toContainText(grep.content.slice(0, 60));
  await pinned.scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SCREENSHOTS, 'pins-preview.png') });

  // Apply, export: the pinned result is in the file in full; the other is a stub.
  await wb.tab('Plan');
  const versionBefore = await page.getByTestId('inspector').getAttribute('data-version');
  await wb.apply();
  await expect(page.getByTestId('inspector')).not.toHaveAttribute('data-version', versionBefore ?? '');
  const exported = await wb.exportShownVersion();
  await page.keyboard.press('Escape');
  const after = resultsOf(new Uint8Array(exported.bytes), exported.name);
  expect(after.find((b) => b.callId === grep.callId)?.content).toBe(grep.content);
  const stub = after.find((b) => b.callId === search.callId)!.content;
  expect(stub.length).toBeLessThan(search.content.length / 4);
  expect(stub).not.toContain(search.content.slice(0, 200));

  // Stored with the transcript: a reload shows it pinned, and the Compactions tab lists it.
  await page.reload();
  await inspector.waitLoaded();
  await expect(page.locator(`[data-testid=tool-result][data-block-id="${grep.id}"]`).getByTestId('pin-toggle')).toHaveAttribute('aria-pressed', 'true', { timeout: 30_000 });
  await page.getByRole('tab', { name: 'Compactions', exact: true }).click();
  const listed = page.getByTestId('pins').locator('[data-testid=pin][data-kind=block]');
  await expect(listed).toHaveCount(1);
  await expect(listed).toContainText('Grep result of message #24');
  // The version's step is in the ledger and lost no pin.
  await expect(page.getByTestId('ledger-event').filter({ has: page.getByTestId('pins-lost') })).toHaveCount(0);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'pins-compactions-tab.png') });

  // A message pins the same way (the first one with a button), and unpins.
  const message = page.getByTestId('message').filter({ has: page.locator('header [data-testid=pin-toggle]') }).first();
  const messageToggle = message.locator('header [data-testid=pin-toggle]');
  await messageToggle.click();
  await expect(messageToggle).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByTestId('pins').locator('[data-testid=pin][data-kind=message]')).toHaveCount(1);
  await messageToggle.click();
  await expect(messageToggle).toHaveAttribute('aria-pressed', 'false');
  await expect(page.getByTestId('pins').locator('[data-testid=pin][data-kind=message]')).toHaveCount(0);
});
