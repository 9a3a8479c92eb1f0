/**
 * The inspector, path 2 (DESIGN.md "The user's three paths"): drag-select a turn range with the
 * mouse on the timeline canvas → pick strip-tool-results and dedup-tools → the preview shows fewer
 * tokens and stubbed call/result pairs → Apply → the timeline draws the new version → Undo
 * restores the token total. On real files of Claude Code and OpenAI Chat (one conversation of
 * tau-bench's container, picked in the import dialog) and Codex CLI. A Codex rollout is one or two
 * long turns (one user prompt, dozens of tool calls): there the user selects every turn and sets
 * "keep last" to 0, or the default keep_last 1 would protect the turn that holds the tool calls.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { corpusFile, expect, libraryOfWorker, onePagePerWorker, pageOfWorker, SCREENSHOTS, test as base, type WorkerPages } from './fixtures';
import { cliInspect } from './pages/cli';
import { TimelineCanvas } from './pages/TimelineCanvas';
import { Workbench } from './pages/Workbench';

/** One page per Playwright worker and spec file (e2e/fixtures.ts onePagePerWorker): each test imports and works on its own file. */
const test = base.extend<object, { appPage: WorkerPages }>({ appPage: [onePagePerWorker, { scope: 'worker' }], page: pageOfWorker, library: libraryOfWorker });

test.beforeAll(() => fs.mkdirSync(SCREENSHOTS, { recursive: true }));

/** Pixels of the timeline's compaction layer (fates, budget lines) as a data URL, once its latest draw is done: what Apply changes. */
async function compactionLayerPixels(page: Page): Promise<string> {
  // The layer is drawn a frame after the commit that brings it (data-pending until then).
  await expect(page.getByTestId('timeline').locator('canvas[data-pending]')).toHaveCount(0);
  return page.getByTestId('timeline').evaluate((wrap) => {
    const layers = [...wrap.querySelectorAll('canvas')];
    // base (bars) · compaction layer · overlay (selection, hover): the middle one is drawn from the version.
    return layers.length >= 3 ? layers[1].toDataURL() : '';
  });
}

interface Case {
  label: string;
  family: string;
  name: string;
  format: string;
  conversation?: number;
  /** Last turn to drag to, counted back from the end (default: leave the last two turns out). */
  fromEnd?: number;
  /** Set the plan's keep_last (default: leave the plan's 1). */
  keepLast?: number;
  minTurns: number;
}

const CASES: readonly Case[] = [
  { label: 'Claude Code', family: 'claude-code', name: 'vibecodingtracker_claude_code_v1.0.95.jsonl', format: 'claude-code', minTurns: 6 },
  // Conversation 3: 12 turns, 20 tool call/result pairs.
  { label: 'OpenAI Chat (tau-bench)', family: 'openai-chat', name: 'tau-bench_gpt-4o-airline_historical_trajectories.json', format: 'openai-chat', conversation: 3, minTurns: 6 },
  // 2 turns, 39 tool call/result pairs (shell output, file reads) in the second.
  { label: 'Codex CLI', family: 'codex-cli', name: 'codex-session-view_rollout-2025-11-17_cli0.58.0.jsonl', format: 'codex-cli', fromEnd: 1, keepLast: 0, minTurns: 2 },
];

for (const c of CASES) test(`${c.label}: drag-select → strip-tool-results + dedup-tools → preview → Apply → Undo`, async ({ library, inspector, page }) => {
  test.setTimeout(150_000);
  const file = corpusFile(c.family, c.name);
  const { conversation } = c;
  const expected = cliInspect(file, conversation);
  expect(expected.format).toBe(c.format);
  expect(expected.turns).toBeGreaterThanOrEqual(c.minTurns);

  await library.goto();
  await library.importFile(file);
  if (conversation !== undefined) await library.chooseConversation(conversation);
  await library.open(await library.waitForRow(conversation === undefined ? path.basename(file) : `${path.basename(file)} · conversation ${conversation}`));
  await inspector.waitLoaded();
  await inspector.useTurnAxis();
  const timeline = new TimelineCanvas(page);
  const wb = new Workbench(page);
  await page.mouse.move(5, 5);
  // The layer before any selection, once what it draws has all arrived (the engine idle; the
  // peer's trigger line comes with the policies) and two reads agree.
  await expect(page.locator('[data-testid=worker-activity][data-busy=no]')).toHaveCount(1, { timeout: 60_000 });
  let untouchedLayer = await compactionLayerPixels(page);
  await expect
    .poll(async () => {
      const before = untouchedLayer;
      untouchedLayer = await compactionLayerPixels(page);
      return untouchedLayer === before;
    })
    .toBe(true);

  // Drag with the mouse from the first turn to n − fromEnd (by default the last two turns stay out).
  const last = expected.turns - (c.fromEnd ?? 3);
  await timeline.dragSelect(0, last);
  await expect(page).toHaveURL(new RegExp(`sel=1-${last + 1}(&|$)`));
  await timeline.expectSelection([0, last]);
  const selectedTokens = Number(await page.getByTestId('selection-total').getAttribute('data-tokens'));
  expect(selectedTokens).toBeGreaterThan(0);

  await wb.pickReducers('strip-tool-results', 'dedup-tools');
  if (c.keepLast !== undefined) await wb.keepLast(c.keepLast);
  // The preview follows the plan after a debounce: the one for the last knob (keep last) may not
  // have started when the previous one is shown, so wait for a preview that saves tokens.
  await expect.poll(async () => { const p = await wb.previewTokens(); return p.before - p.after; }, { timeout: 30_000 }).toBeGreaterThan(0);
  const preview = await wb.previewTokens();
  expect(preview.before).toBe(selectedTokens);
  expect(preview.after).toBeLessThan(preview.before);
  // Stubbed results stay under their calls (pairs are never split).
  const stubbedUnderCalls = page.getByTestId('tool-call').locator('[data-testid=fate-badge][data-fate=stubbed]');
  await expect(stubbedUnderCalls.first()).toBeVisible();
  const original = await wb.contextTokens();
  expect(original.after).toBeLessThan(original.before);
  await page.screenshot({ path: path.join(SCREENSHOTS, `inspector-plan-preview-${c.family}.png`) });

  const versionBefore = await page.getByTestId('inspector').getAttribute('data-version');
  // Applied from the keyboard on the timeline for one family (Ctrl+Enter: there Enter shows the
  // cursor's turn), with the button for the others.
  if (c.family === 'codex-cli') {
    await timeline.wrap.focus();
    await page.keyboard.press('Control+Enter');
  } else await wb.apply();
  await expect(page.getByTestId('inspector')).not.toHaveAttribute('data-version', versionBefore ?? '');
  await expect(page).not.toHaveURL(/sel=/);
  const applied = await wb.contextTokens();
  expect(applied.before).toBe(original.before);
  expect(applied.after).toBe(original.after);
  // The timeline now draws the compacted version.
  await expect.poll(() => compactionLayerPixels(page)).not.toBe(untouchedLayer);
  await page.mouse.move(5, 5);
  await page.screenshot({ path: path.join(SCREENSHOTS, `inspector-applied-${c.family}.png`) });

  await wb.undo();
  // Undo puts the page back where it was before Apply: the original version, the selection the
  // step was made from (so the plan can be changed and applied again), and a Redo.
  await expect(page.getByTestId('inspector')).toHaveAttribute('data-version', 'original');
  await expect(page).not.toHaveURL(/[?&]v=/);
  await expect(page).toHaveURL(new RegExp(`sel=1-${last + 1}(&|$)`));
  await expect(page.getByTestId('redo')).toBeVisible();
  // The version the Apply forked is gone with its only step: no empty version is left.
  await expect(page.getByTestId('version-select').locator('option')).toHaveCount(1);
  // The preview of the same plan on the same turns is shown again: the numbers before Apply.
  await expect.poll(async () => (await wb.contextTokens()).after, { timeout: 20_000 }).toBe(original.after);
  // Clearing the selection: back to the log's own total, nothing previewed.
  await page.getByTestId('clear-selection').click();
  await expect.poll(() => compactionLayerPixels(page)).toBe(untouchedLayer);
  await expect(wb.fates).toHaveCount(0);
});
