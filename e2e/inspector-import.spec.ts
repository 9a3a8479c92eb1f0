/**
 * The inspector, path 1 (DESIGN.md "The user's three paths"): upload a real corpus file → library
 * row → inspector, on three families. The turn count and token total the UI shows must equal what
 * the CLI's own `inspect --json` computes for the same file (run here in a child process).
 */
import fs from 'node:fs';
import path from 'node:path';
import { importBytes } from '../lib/formats/import';
import { corpusFile, expect, SCREENSHOTS, test } from './fixtures';
import { cliInspect, tokensText } from './pages/cli';

test.beforeAll(() => fs.mkdirSync(SCREENSHOTS, { recursive: true }));

const CASES = [
  { label: 'Claude Code', family: 'claude-code', name: 'claude-code-viewer_5c0375b4.jsonl', format: 'claude-code' },
  { label: 'Codex CLI', family: 'codex-cli', name: 'vibecodingtracker_codex_0.39.0.jsonl', format: 'codex-cli' },
  { label: 'OpenAI Chat (tau-bench, picker)', family: 'openai-chat', name: 'tau-bench_gpt-4o-airline_historical_trajectories.json', format: 'openai-chat', conversation: 5 },
] as const;

for (const c of CASES) {
  test(`${c.label}: library and inspector show the CLI's turns and token total`, async ({ library, inspector, page }) => {
    const file = corpusFile(c.family, c.name);
    const conversation = 'conversation' in c ? c.conversation : undefined;
    const expected = cliInspect(file, conversation);
    expect(expected.format).toBe(c.format);
    expect(expected.turns).toBeGreaterThanOrEqual(1);
    expect(expected.tokens.total).toBeGreaterThan(100);

    await library.goto();
    await library.importFile(file);
    if (conversation !== undefined) await library.chooseConversation(conversation);
    const row = await library.waitForRow(conversation !== undefined ? `conversation ${conversation}` : c.name);
    expect(await library.rowTurns(row)).toBe(expected.turns);
    await expect(row).toHaveAttribute('data-tokens', String(expected.tokens.total));
    await expect(row).toContainText(tokensText(expected.tokens.total));

    await library.open(row);
    await inspector.waitLoaded();
    await inspector.useTurnAxis();
    expect(await inspector.turns()).toBe(expected.turns);
    // The Plan panel's whole-context total is what the model sees of the file; the overhead the CLI
    // infers from the recorded usage is named beside it (no step can remove it).
    const overhead = page.getByTestId('plan-overhead');
    if (expected.overhead && expected.overhead.invisible >= 200) {
      // One definition of context (issue 13): the file's part + the overhead, the overhead its own part.
      await expect(overhead).toContainText(`in the file + ${tokensText(expected.overhead.invisible)} overhead`);
      const fromFile = Number((await page.getByTestId('plan-selection-total').locator('span').first().textContent())!.replace(/,/g, ''));
      await expect(page.getByTestId('plan-context')).toHaveText(`Context ${tokensText(fromFile + expected.overhead.invisible)} = ${tokensText(fromFile)} in the file + ${tokensText(expected.overhead.invisible)} overhead`);
      // The turn headers say the same, with the same words.
      await expect(page.locator('[data-testid=turn-header][data-turn="0"] [data-testid=turn-context]')).toContainText(`+ ${tokensText(expected.overhead.invisible)} overhead`);
    } else await expect(overhead).toHaveCount(0);
    // The transcript's totals live in the side panel's Info tab.
    await page.getByRole('tab', { name: 'Info', exact: true }).click();
    const total = page.getByTestId('token-total');
    await expect(total).toHaveAttribute('data-tokens', String(expected.tokens.total));
    await expect(total).toHaveText(tokensText(expected.tokens.total));
    // One header per turn exists in the list's data (the list may be virtualized: count rows it reports).
    await expect(page.locator('[data-testid=turn-header][data-turn="0"]')).toBeVisible();
    await page.screenshot({ path: path.join(SCREENSHOTS, `inspector-${c.family}.png`) });
    if (c.family === 'claude-code') {
      // The Tools tab lists the main chain's calls and says where the log's other ones are.
      const { messages } = importBytes(c.name, new Uint8Array(fs.readFileSync(file))).transcript;
      const calls = (side: boolean) => messages.filter((m) => !!m.sidechain === side).flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_call').length;
      expect(calls(true)).toBeGreaterThan(0);
      await page.getByRole('tab', { name: 'Tools', exact: true }).click();
      await expect(page.getByTestId('tools-sidechain')).toContainText(`${calls(false)} of the log's ${calls(false) + calls(true)} tool calls. The other ${calls(true)} were made in side chains`);
    }
  });
}

test("a source-compacted Codex rollout: the Plan's whole context is the model's view, and says the log holds more", async ({ library, inspector, page }) => {
  const file = corpusFile('codex-cli', 'localpush_rollout-2026-02-23_sanitized_compacted.jsonl');
  const expected = cliInspect(file);
  await library.openInInspector(file, inspector);
  const note = page.getByTestId('plan-overhead');
  await expect(note).toContainText(`the log holds ${tokensText(expected.tokens.total)}: the source's own compaction took the rest out`);
  const shown = Number((await page.getByTestId('plan-selection-total').locator('span').first().textContent())!.replace(/,/g, ''));
  expect(shown).toBeLessThan(expected.tokens.total);
});
