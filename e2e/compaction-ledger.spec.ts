/**
 * Issue 26: the compaction ledger in the inspector, on a real file (slopometry, Claude Code's one
 * auto compaction). The event is a marker on the timeline; clicking it opens the Compactions tab
 * with the numbers `inspect --compactions --json` prints, its summary in full and its lost items,
 * each linked to where it was in the log. A pinned pattern that compaction dropped is flagged.
 */
import fs from 'node:fs';
import path from 'node:path';
import { importBytes } from '../lib/formats/import';
import { agentEvents } from '../lib/ledger/agent';
import { ledgerChecks } from '../lib/ledger/checks';
import { corpusFile, expect, SCREENSHOTS, test } from './fixtures';

test.beforeAll(() => fs.mkdirSync(SCREENSHOTS, { recursive: true }));

test('the agent’s own compaction on the timeline and in the Compactions tab, with its summary and linked lost items', async ({ library, inspector, page }) => {
  test.setTimeout(150_000);
  const file = corpusFile('claude-code', 'slopometry_transcript_opus45_compact.jsonl');
  const log = importBytes(path.basename(file), new Uint8Array(fs.readFileSync(file))).transcript;
  const [expected] = agentEvents(log, ledgerChecks());
  await library.openInInspector(file, inspector);

  const marker = page.getByTestId('ledger-marker');
  await expect(marker).toHaveCount(1, { timeout: 60_000 });
  await expect(marker).toHaveAttribute('aria-label', /Compaction 1 by Claude Code before turn 6: 155,317 → 34,667 tokens/);
  await marker.click();
  await expect(page.getByRole('tab', { name: 'Compactions' })).toHaveAttribute('aria-selected', 'true');

  const event = page.getByTestId('ledger-event');
  await expect(event).toHaveCount(1);
  await expect(event).toHaveAttribute('data-by', 'agent');
  await expect(event).toContainText('Claude Code');
  await expect(event).toContainText('auto');
  await expect(event.getByTestId('tokens-before')).toContainText('155,317');
  await expect(event.getByTestId('tokens-after')).toContainText('34,667');
  await expect(event.getByTestId('tokens-after')).toContainText('recorded, next call');
  await expect(event.getByTestId('cache-write')).toContainText('16,371 tokens');
  // Survival: the table's counts are the ledger's (lib/ledger), commands 0 of 29.
  for (const c of ['instructions', 'paths', 'commands', 'errors', 'figures'] as const) {
    const row = event.locator(`[data-testid=survival] tr[data-category=${c}]`);
    await expect(row).toHaveAttribute('data-kept', String(expected.survival![c].kept));
    await expect(row).toHaveAttribute('data-of', String(expected.survival![c].of));
  }
  await expect(event.locator('tr[data-category=commands]')).toHaveAttribute('data-of', '29');
  // The summary, in full, as text.
  await event.getByTestId('ledger-summary').locator('summary').click();
  const pre = event.getByTestId('ledger-summary').locator('pre');
  expect((await pre.textContent())!.length).toBe(12062);
  // Lost items, each linked to its turn: a click shows that turn in the list.
  await event.getByTestId('lost-items').locator('summary').click();
  const items = event.getByTestId('lost-item');
  expect(await items.count()).toBeGreaterThan(20);
  const lostCommand = expected.survival!.commands.lost[3];
  const item = items.filter({ hasText: lostCommand.text.slice(0, 40) }).first();
  await expect(item).toHaveAttribute('data-turn', String(lostCommand.turn));
  await item.click();
  await expect(page.locator(`[data-testid=turn-header][data-turn="${lostCommand.turn}"]`).first()).toBeVisible();
  await page.screenshot({ path: path.join(SCREENSHOTS, 'compaction-ledger.png') });

  // Pin a pattern its summary dropped: the ledger flags the compaction, the marker turns red.
  await page.getByLabel('Pin a text pattern').fill('Halstead');
  await page.getByRole('button', { name: 'Pin', exact: true }).click();
  await expect(page.getByTestId('pin')).toHaveText(/Halstead/);
  await expect(event.getByTestId('pins-lost')).toContainText('pattern Halstead');
  await expect(page.getByTestId('ledger-marker')).toHaveAttribute('aria-label', /lost a pin/);
  // A bad pattern is refused with its reason.
  await page.getByLabel('Pin a text pattern').fill('/(/');
  await page.getByRole('button', { name: 'Pin', exact: true }).click();
  await expect(page.getByTestId('pins').getByRole('alert')).toContainText('regular expression');
  await page.screenshot({ path: path.join(SCREENSHOTS, 'compaction-ledger-pin.png') });
});
