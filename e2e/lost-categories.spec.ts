/**
 * Issue 27 item 3: the Lost tab by category. Per category (user messages, paths, commands, error
 * lines, figures: lib/categories) it shows how many of the compacted messages' items the model is
 * still sent (kept / of) and lists the lost ones, each jumping to its turn. Its figures are the CLI's:
 *
 *  1. Codex CLI (codex-session-view), Auto at 3,000 tokens over the whole rollout (keep last 0): the
 *     same plan as `compact FILE --budget 3000 --keep-last 0 --report-json R`. The Lost tab's
 *     kept/of and lost items equal R's lostByCategory; after Apply and Export, the text of the
 *     exported file (re-imported, what the model is sent on resume) holds exactly the kept ones.
 *  2. Claude Code (vibecodingtracker), a summary of turns 1–6 (the case whose first attempt showed
 *     0 lost everywhere while the identifier lists had losses): the Lost tab equals lostByCategory
 *     recomputed in Node for the step the app exported (its audit sidecar's steps), and the export's
 *     text holds the kept items. Its identifier lists name URLs and ids, which are no category.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import type { Download, Locator, Page } from '@playwright/test';
import { corpusFile, expect, SCREENSHOTS, test } from './fixtures';
import { TimelineCanvas } from './pages/TimelineCanvas';
import { Workbench } from './pages/Workbench';
import { importBytes } from '../lib/formats/import';
import { CATEGORIES, extractCategories, modelTextOf, survivalOf, type Category } from '../lib/categories';
import { lostByCategory, type LostByCategory } from '../lib/compaction/lost';
import { projectTranscript, startingContext } from '../lib/compaction/project';
import type { Step } from '../lib/compaction/types';
import type { Transcript } from '../lib/model/types';

test.beforeAll(() => fs.mkdirSync(SCREENSHOTS, { recursive: true }));

type Categories = LostByCategory['categories'];

/** What the Lost tab shows, per category: kept, of, and the lost items' texts and turns. */
async function lostTabFigures(lost: Locator): Promise<Record<Category, { kept: number; of: number; lost: Array<{ text: string; turn: number }> }>> {
  const out = {} as Record<Category, { kept: number; of: number; lost: Array<{ text: string; turn: number }> }>;
  for (const c of CATEGORIES) {
    const row = lost.locator(`[data-testid=lost-category][data-category=${c}]`);
    const kept = Number(await row.getAttribute('data-kept'));
    const of = Number(await row.getAttribute('data-of'));
    const items = lost.locator(`[data-testid=lost-category-items][data-category=${c}] [data-testid=lost-category-item]`);
    const n = await items.count();
    const list: Array<{ text: string; turn: number }> = [];
    for (let i = 0; i < n; i++) list.push({ text: (await items.nth(i).locator('span').nth(1).textContent()) ?? '', turn: Number(await items.nth(i).getAttribute('data-turn')) });
    out[c] = { kept, of, lost: list };
  }
  return out;
}

function expectSame(shown: Awaited<ReturnType<typeof lostTabFigures>>, expected: Categories): void {
  for (const c of CATEGORIES) {
    expect(shown[c].kept, `${c} kept`).toBe(expected[c].kept);
    expect(shown[c].of, `${c} of`).toBe(expected[c].of);
    expect(shown[c].lost.map((l) => l.text), `${c} lost`).toEqual(expected[c].lost.map((l) => l.text));
    expect(shown[c].lost.map((l) => l.turn), `${c} turns`).toEqual(expected[c].lost.map((l) => l.turn));
  }
}

/** The model's view of an exported file (from its last compaction point: what a resumed agent is sent), as text. */
function exportText(name: string, bytes: Buffer): string {
  const back = importBytes(name, new Uint8Array(bytes)).transcript;
  return modelTextOf(startingContext(back, 'model-view').messages);
}

/** The items of the log messages a compaction changed (the audit's changedBlocks), and which the export's text still holds. */
function survivalInExport(log: Transcript, changedBlocks: Record<string, string>, text: string) {
  const changed = log.messages.filter((m) => !m.sidechain && m.blocks.some((b) => changedBlocks[b.id] !== undefined));
  return survivalOf(extractCategories(changed, { format: log.format }), text);
}

/** Export the shown version in its own format; returns the file and the audit sidecar. */
async function exportWithAudit(page: Page): Promise<{ file: { name: string; bytes: Buffer }; audit: { steps: Step[]; changedBlocks: Record<string, string>; lostByCategory: Categories } }> {
  await page.getByTestId('export').click();
  await expect(page.getByTestId('export-format')).not.toHaveValue('');
  // The dialog exports the version the page shows (it follows it while open): wait until it does.
  await expect(page.getByTestId('export-version')).toHaveValue((await page.getByTestId('inspector').getAttribute('data-version')) ?? '');
  const downloads: Download[] = [];
  page.on('download', (d) => downloads.push(d));
  await page.getByTestId('export-download').click();
  await expect(page.getByTestId('export-done')).toBeVisible({ timeout: 30_000 });
  await expect.poll(() => downloads.length).toBe(2);
  const files = await Promise.all(downloads.map(async (d) => ({ name: d.suggestedFilename(), bytes: fs.readFileSync((await d.path())!) })));
  const audit = files.find((f) => f.name.endsWith('.audit.json'))!;
  const file = files.find((f) => !f.name.endsWith('.audit.json'))!;
  await page.keyboard.press('Escape');
  return { file, audit: JSON.parse(audit.bytes.toString('utf8')) };
}

test('Codex CLI, Auto at 3,000 tokens: the Lost tab by category is compact --report-json’s, and the export holds what it says is kept', async ({ library, inspector, page }) => {
  test.setTimeout(180_000);
  const file = corpusFile('codex-cli', 'codex-session-view_rollout-2025-11-17_cli0.58.0.jsonl');
  // The CLI, same plan: auto, budget 3,000, keep last 0, the whole rollout.
  const dir = test.info().outputDir;
  fs.mkdirSync(dir, { recursive: true });
  const reportPath = path.join(dir, 'report.json');
  execFileSync(process.execPath, [path.join('node_modules', 'tsx', 'dist', 'cli.mjs'), path.join('lib', 'cli', 'main.ts'), 'compact', file, '--budget', '3000', '--keep-last', '0', '--out', path.join(dir, 'cli.jsonl'), '--report-json', reportPath], { encoding: 'utf8', timeout: 120_000 });
  const cli = JSON.parse(fs.readFileSync(reportPath, 'utf8')) as { tokens: { after: number }; lostByCategory: Categories; changedBlocks: Record<string, string> };
  expect(cli.lostByCategory.commands.lost.length, 'the plan loses commands').toBeGreaterThan(0);

  await library.openInInspector(file, inspector);
  const wb = new Workbench(page);
  await wb.autoHalf();
  await page.getByTestId('target-budget').fill('3000');
  await wb.keepLast(0);
  await expect.poll(async () => (await wb.contextTokens()).after, { timeout: 30_000 }).toBe(cli.tokens.after);

  const lost = await wb.tab('Lost');
  await expect(lost.getByTestId('lost-categories')).toBeVisible();
  const shown = await lostTabFigures(lost);
  expectSame(shown, cli.lostByCategory);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'lost-categories-codex.png') });
  // A lost command jumps to its turn.
  const item = lost.locator('[data-testid=lost-category-items][data-category=commands] [data-testid=lost-category-item]').first();
  await item.click();
  await expect(page.locator(`[data-testid=turn-header][data-turn="${shown.commands.lost[0].turn}"]`).first()).toBeVisible();

  // Apply, export: the exported file's text holds the kept items and none of the lost ones.
  await wb.tab('Plan');
  await wb.apply();
  await expect(page.getByRole('button', { name: 'Undo', exact: true })).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('inspector')).not.toHaveAttribute('data-version', 'original');
  const { file: exported, audit } = await exportWithAudit(page);
  expect(audit.changedBlocks).toEqual(cli.changedBlocks);
  const log = importBytes(path.basename(file), new Uint8Array(fs.readFileSync(file))).transcript;
  const inExport = survivalInExport(log, audit.changedBlocks, exportText(exported.name, exported.bytes));
  for (const c of CATEGORIES) {
    expect(inExport[c].kept, `${c} kept in the export`).toBe(shown[c].kept);
    expect(inExport[c].lost.map((l) => l.text), `${c} lost in the export`).toEqual(shown[c].lost.map((l) => l.text));
  }
});

test('Claude Code, a summary of turns 1–6: the Lost tab by category is lostByCategory of the same step, and the export agrees', async ({ library, inspector, page }) => {
  test.setTimeout(180_000);
  const file = corpusFile('claude-code', 'vibecodingtracker_claude_code_v1.0.95.jsonl');
  await library.openInInspector(file, inspector);
  await inspector.useTurnAxis();
  const timeline = new TimelineCanvas(page);
  await timeline.dragSelect(0, 5);
  await timeline.expectSelection([0, 5]);
  const wb = new Workbench(page);
  await wb.pickReducers('summarize');
  await expect.poll(async () => { const p = await wb.previewTokens(); return p.before - p.after; }, { timeout: 30_000 }).toBeGreaterThan(0);

  const lost = await wb.tab('Lost');
  await expect(lost.getByTestId('lost-categories')).toBeVisible();
  const shown = await lostTabFigures(lost);
  // The summary's span held user messages, paths and a command: not 0 of 0.
  expect(shown.instructions.of).toBeGreaterThan(0);
  expect(shown.paths.of).toBeGreaterThan(0);
  expect(shown.commands.of).toBeGreaterThan(0);
  // Its identifier lists still name what no category holds (URLs, hashes, paths only mentioned in text).
  await expect(lost.getByTestId('lost-identifiers')).toBeVisible();
  await page.screenshot({ path: path.join(SCREENSHOTS, 'lost-categories-summary.png') });

  await wb.tab('Plan');
  await wb.apply();
  await expect(page.getByRole('button', { name: 'Undo', exact: true })).toBeVisible({ timeout: 30_000 });
  // The applied version is the one shown before Export reads it (the Undo button can come first).
  await expect(page.getByTestId('inspector')).not.toHaveAttribute('data-version', 'original');
  const { file: exported, audit } = await exportWithAudit(page);
  // The same step, in Node (lib/compaction, as `compact` runs it): the same figures.
  const log = importBytes(path.basename(file), new Uint8Array(fs.readFileSync(file))).transcript;
  const expected = lostByCategory(log, projectTranscript(log, audit.steps), { ownOnly: true }).categories;
  expectSame(shown, expected);
  expect(audit.lostByCategory).toEqual(expected);
  const inExport = survivalInExport(log, audit.changedBlocks, exportText(exported.name, exported.bytes));
  for (const c of CATEGORIES) {
    expect(inExport[c].kept, `${c} kept in the export`).toBe(shown[c].kept);
    expect(inExport[c].of, `${c} of`).toBe(shown[c].of);
  }
});
