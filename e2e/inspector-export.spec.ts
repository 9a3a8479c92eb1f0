/**
 * The inspector, path 3: Auto to 50 % of the context → the Lost tab lists the identifiers that left
 * the context → Apply → Export in the source format → re-import the downloaded file: its token
 * total in the library and the inspector equals the compacted version's total.
 */
import fs from 'node:fs';
import path from 'node:path';
import { corpusFile, expect, libraryOfWorker, onePagePerWorker, pageOfWorker, SCREENSHOTS, test as base, type WorkerPages } from './fixtures';
import { cliInspect, tokensText } from './pages/cli';
import { Workbench } from './pages/Workbench';

/** One page per Playwright worker and spec file (e2e/fixtures.ts onePagePerWorker): each test imports and works on its own file. */
const test = base.extend<object, { appPage: WorkerPages }>({ appPage: [onePagePerWorker, { scope: 'worker' }], page: pageOfWorker, library: libraryOfWorker });

test.beforeAll(() => fs.mkdirSync(SCREENSHOTS, { recursive: true }));

/**
 * Three families (the Done-when). `lost`: whether Auto at 50 % pushes identifiers (paths,
 * commands, ids) out of the context on this file — where the kept tail still holds every one of
 * them the Lost tab must say so ("Nothing lost") rather than list stale ones. `conversation`: a
 * container file (tau-bench holds many chats); the export is the whole container with that one
 * compacted, and the re-import picks the same conversation.
 */
const CASES: ReadonlyArray<{ label: string; family: string; name: string; format: string; lost: boolean; conversation?: number; keepLast?: number }> = [
  { label: 'Claude Code', family: 'claude-code', name: 'vibecodingtracker_claude_code_v1.0.95.jsonl', format: 'claude-code', lost: true },
  // One short turn, then one long one: with the last turn kept nothing else could reach the target
  // (Auto says so and drops nothing), so the whole rollout is in play.
  { label: 'Codex CLI', family: 'codex-cli', name: 'codex-session-view_rollout-2025-11-17_cli0.58.0.jsonl', format: 'codex-cli', lost: true, keepLast: 0 },
  // Codex and tau-bench: Auto at 50 % stubs old tool results whose identifiers the kept messages
  // still name (measured: the Lost tab reads "Nothing lost" on both). Conversation 3: 12 turns, 20
  // tool call/result pairs.
  { label: 'OpenAI Chat (tau-bench)', family: 'openai-chat', name: 'tau-bench_gpt-4o-airline_historical_trajectories.json', format: 'openai-chat', lost: false, conversation: 3 },
];

for (const c of CASES) {
  test(`${c.label}: Auto 50 % → Lost → Export → re-import has the compacted total`, async ({ library, inspector, page }) => {
    test.setTimeout(150_000);
    const file = corpusFile(c.family, c.name);
    const { conversation } = c;
    const rowText = (fileName: string) => (conversation === undefined ? fileName : `${fileName} · conversation ${conversation}`);
    const source = cliInspect(file, conversation);
    expect(source.format).toBe(c.format);

    await library.goto();
    await library.importFile(file);
    if (conversation !== undefined) await library.chooseConversation(conversation);
    await library.open(await library.waitForRow(rowText(path.basename(file))));
    await inspector.waitLoaded();
    const wb = new Workbench(page);

    const target = await wb.autoHalf();
    if (c.keepLast !== undefined) {
      await wb.keepLast(c.keepLast);
      await expect.poll(async () => { const p = await wb.contextTokens(); return p.before - p.after; }, { timeout: 30_000 }).toBeGreaterThan(0);
    }
    const preview = await wb.contextTokens();
    expect(target).toBe(Math.round(preview.before * 0.5));
    expect(preview.after).toBeLessThan(preview.before);

    const lost = await wb.tab('Lost');
    if (c.lost) {
      await expect(lost.getByTestId('lost-group').first()).toBeVisible();
      const identifiers = await lost.getByTestId('lost-group').locator('li button').count();
      expect(identifiers).toBeGreaterThan(0);
    } else {
      await expect(lost.getByText('Nothing lost')).toBeVisible();
      await expect(lost.getByTestId('lost-group')).toHaveCount(0);
    }
    // One number per thing: the tab's count is the number of items it lists (a list over its cap of
    // 100 names how many more), and no item is a result's raw JSON (a Codex result is read as its
    // output, session 15).
    const sumOf = async (selector: string, attr: string) => (await lost.locator(selector).evaluateAll((els, a) => els.map((e) => Number(e.getAttribute(a))), attr)).reduce((n, x) => n + x, 0);
    const listed = (await sumOf('[data-testid=lost-category]', 'data-lost')) + (await sumOf('[data-testid=lost-group]', 'data-count'));
    const shownItems = (await lost.locator('[data-testid=lost-category-item]').count()) + (await lost.getByTestId('lost-group').locator('li button').count());
    expect(shownItems).toBeLessThanOrEqual(listed);
    if (shownItems < listed) await expect(lost.getByText(/more \(in the audit record\)/).first()).toBeVisible();
    if (listed > 0) await expect(page.locator('[data-tab=Lost] span')).toHaveText(String(listed));
    else await expect(page.locator('[data-tab=Lost] span')).toHaveCount(0);
    await expect(lost).not.toContainText('{"output"');
    await page.screenshot({ path: path.join(SCREENSHOTS, `inspector-lost-${c.family}.png`) });

    await wb.tab('Plan');
    await wb.apply();
    await expect.poll(async () => (await wb.contextTokens()).after, { timeout: 30_000 }).toBe(preview.after);
    const compactedTotal = preview.after;

    const exported = await wb.exportShownVersion();
    expect(exported.format).toBe(c.format);
    // Before the download the dialog says what the file will not hold (issue 13): nothing for
    // Claude Code and Codex when Auto summarized (their files keep it as history).
    const leftOut = page.getByTestId('history-left-out');
    await expect(leftOut).toBeVisible();
    const leftCount = Number(await leftOut.getAttribute('data-count'));
    if (c.format === 'claude-code') await expect(leftOut).toContainText('keeps what the compaction took out as history');
    else if (leftCount > 0) await expect(leftOut).toContainText(`${leftCount} message`);
    expect(exported.bytes.equals(fs.readFileSync(file))).toBe(false);
    // The export is a file of the source's own format: the CLI reads it back as such.
    const tmp = path.join(test.info().outputDir, exported.name);
    fs.mkdirSync(path.dirname(tmp), { recursive: true });
    fs.writeFileSync(tmp, exported.bytes);
    const reread = cliInspect(tmp, conversation);
    // The messages the dialog said the file would not hold are the ones it does not hold.
    if (c.format === 'codex-cli') expect(source.messages - reread.messages).toBe(leftCount);
    expect(reread.format).toBe(c.format);
    expect(reread.tokens.total).toBe(compactedTotal);

    // Re-import in the app: library row and inspector show the compacted total.
    await expect(page.getByTestId('export-done')).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('export-dialog')).toBeHidden();
    await inspector.backToLibrary();
    // By its path (the file the CLI just read): Chromium reads it from disk, not a buffer sent over the DevTools protocol.
    await library.importFile(tmp);
    if (conversation !== undefined) await library.chooseConversation(conversation);
    const row = await library.waitForRow(rowText(exported.name));
    await expect(row).toHaveAttribute('data-tokens', String(compactedTotal));
    await library.open(row);
    await inspector.waitLoaded();
    await wb.tab('Info');
    await expect(page.getByTestId('token-total')).toHaveText(tokensText(compactedTotal));
  });
}
