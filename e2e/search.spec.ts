/**
 * Search in the transcript (issue: "Search … with highlighted hits, also in virtualized lists"): on
 * a real Claude Code session whose list is virtualized, `tool:`, text and `role:` queries run in the
 * worker over every row, the count is shown, the current hit is scrolled to, outlined and marked,
 * and Enter / Shift+Enter step through the hits.
 */
import fs from 'node:fs';
import path from 'node:path';
import { importBytes } from '../lib/formats/import';
import { corpusFile, expect, SCREENSHOTS, test } from './fixtures';

test.beforeAll(() => fs.mkdirSync(SCREENSHOTS, { recursive: true }));

test('search a virtualized list: counts, scrolls to, outlines and marks the hits', async ({ library, inspector, page }) => {
  test.setTimeout(120_000);
  const file = corpusFile('claude-code', 'slopometry_transcript_opus45_compact.jsonl');
  const { messages } = importBytes(path.basename(file), new Uint8Array(fs.readFileSync(file))).transcript;
  // The truth, from the messages themselves: one row per message that calls Bash.
  const bashMessages = messages.filter((m) => m.blocks.some((b) => b.kind === 'tool_call' && b.name === 'Bash'));
  const bashCalls = bashMessages.length;
  const bashTurns = new Set(bashMessages.map((m) => m.turn)).size;
  // User messages with anything besides tool results (those are shown under their calls).
  const userRows = messages.filter((m) => m.role === 'user' && m.blocks.some((b) => b.kind !== 'tool_result')).length;
  expect(bashCalls).toBeGreaterThan(10);
  // A needle that first appears late in the session (in a tool result): its first hit is far down the list.
  const texts = messages.map((m) => JSON.stringify(m.blocks).toLowerCase());
  const firstSeen = (w: string) => texts.findIndex((t) => t.includes(w.toLowerCase()));
  const lateWords = messages
    .slice(Math.floor(messages.length * 0.7))
    .flatMap((m) => m.blocks)
    .flatMap((b) => (b.kind === 'tool_result' ? (b.content.match(/[A-Za-z_][A-Za-z0-9_]{7,}/g) ?? []) : []));
  const needle = lateWords.find((w) => firstSeen(w) >= messages.length * 0.6);
  expect(needle, 'a word to search for').toBeTruthy();

  await library.openInInspector(file, inspector);
  await expect(inspector.list).toHaveAttribute('data-virtual', 'yes');
  const rows = Number(await inspector.list.getAttribute('data-rows'));
  expect(await page.locator('[data-testid=message-list] [data-row]').count()).toBeLessThan(rows);

  const search = page.getByTestId('search');
  const count = page.getByTestId('search-count');
  const active = page.locator('[data-search-hit=active]');

  // tool:NAME — every message that calls the tool, the first one outlined and on screen.
  await page.keyboard.press('/');
  await expect(search).toBeFocused();
  await page.keyboard.type('tool:Bash');
  await expect(count).toHaveText(`1 / ${bashCalls}`);
  // The timeline marks every turn that holds a hit.
  await expect(page.getByTestId('timeline')).toHaveAttribute('data-hit-turns', String(bashTurns));
  await expect(active).toBeVisible();
  await expect(active.locator('[data-testid=tool-call][data-tool=Bash]').first()).toBeVisible();
  const firstHit = Number(await active.getAttribute('data-index'));
  // Shift+Enter wraps to the last hit, far down the list; Enter wraps back to the first.
  await search.press('Shift+Enter');
  await expect(count).toHaveText(`${bashCalls} / ${bashCalls}`);
  await expect(active).toBeVisible();
  await expect(active.locator('[data-testid=tool-call][data-tool=Bash]').first()).toBeVisible();
  const lastHit = Number(await active.getAttribute('data-index'));
  expect(lastHit).toBeGreaterThan(firstHit);
  await search.press('Enter');
  await expect(count).toHaveText(`1 / ${bashCalls}`);
  await expect(active).toHaveAttribute('data-index', String(firstHit));

  // Text: case-insensitive, found in a tool result folded under its call, marked as text.
  await search.fill(needle!.toUpperCase());
  await expect(count).toHaveText(/^1 \/ \d+$/);
  await expect(active).toBeVisible();
  expect(Number(await active.getAttribute('data-index'))).toBeGreaterThan(messages.length / 2);
  expect(await page.locator('[data-testid=message-list] [data-row]').first().getAttribute('data-row')).not.toBe('0');
  const mark = active.getByTestId('search-mark').first();
  await expect(mark).toBeVisible();
  await expect(mark).toHaveText(needle!, { ignoreCase: true });
  // Scrolled to the marked text itself, not only to its (tall) row.
  await expect(mark).toBeInViewport();
  await page.screenshot({ path: path.join(SCREENSHOTS, 'inspector-search.png') });

  // role: — the user's messages (tool-result-only ones are folded under their calls: no row of their own).
  await search.fill('role:user');
  await expect(count).toHaveText(`1 / ${userRows}`);

  // Nothing found, then Escape clears the search.
  await search.fill('zz-no-such-text-zz');
  await expect(count).toHaveText('no hits');
  await expect(active).toHaveCount(0);
  await expect(page.getByTestId('timeline')).toHaveAttribute('data-hit-turns', '0');
  await search.press('Escape');
  await expect(count).toHaveCount(0);
});
