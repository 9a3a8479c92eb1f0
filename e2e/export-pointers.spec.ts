/**
 * Issue 27 item 4 in the browser: the export dialog's "pointers to the full text" option. A real
 * Claude Code corpus session, its tool results stubbed over turns 1–7, exported with the option: a
 * .recall.jsonl downloads beside the file, each stub in the file names one of its lines, and that
 * line holds the result's full text exactly as the original file has it.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Download } from '@playwright/test';
import { corpusFile, expect, SCREENSHOTS, test } from './fixtures';
import { TimelineCanvas } from './pages/TimelineCanvas';
import { Workbench } from './pages/Workbench';

const FILE = corpusFile('claude-code', 'vibecodingtracker_claude_code_v1.0.95.jsonl');

test('export with pointers: stubs name lines of the recall file downloaded beside it, holding the full text', async ({ page, library, inspector }) => {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await library.goto();
  await library.importFile(FILE);
  await library.open(await library.waitForRow(path.basename(FILE)));
  await inspector.waitLoaded();
  const timeline = new TimelineCanvas(page);
  await timeline.dragSelect(0, 6);
  await timeline.expectSelection([0, 6]);
  const wb = new Workbench(page);
  await wb.pickReducers('strip-tool-results');
  await expect.poll(async () => { const p = await wb.previewTokens(); return p.before - p.after; }, { timeout: 30_000 }).toBeGreaterThan(0);
  await wb.apply();
  await expect(page.getByRole('button', { name: 'Undo', exact: true })).toBeVisible({ timeout: 30_000 });

  await page.getByTestId('export').click();
  await expect(page.getByTestId('export-format')).not.toHaveValue('');
  const box = page.getByTestId('export-pointers');
  await expect(box).not.toBeChecked();
  await box.check();
  await page.getByTestId('export-dialog').screenshot({ path: path.join(SCREENSHOTS, 'export-pointers.png') });
  const downloads: Download[] = [];
  page.on('download', (d) => downloads.push(d));
  await page.getByTestId('export-download').click();
  await expect(page.getByTestId('export-done')).toBeVisible({ timeout: 30_000 });
  await expect.poll(() => downloads.length).toBe(3);
  const files = await Promise.all(downloads.map(async (d) => ({ name: d.suggestedFilename(), text: fs.readFileSync((await d.path())!, 'utf8') })));
  const recall = files.find((f) => f.name.endsWith('.recall.jsonl'))!;
  const exported = files.find((f) => !f.name.endsWith('.recall.jsonl') && !f.name.endsWith('.audit.json'))!;
  expect(recall).toBeDefined();
  await expect(page.getByTestId('export-done')).toContainText(recall.name);
  const lines = recall.text.trimEnd().split('\n').map((l) => JSON.parse(l) as { text: string });
  const source = fs.readFileSync(FILE, 'utf8');
  const pointers = [...exported.text.matchAll(new RegExp(`\\[full text of this result: ${recall.name.replace(/[.]/g, '\\.')} line (\\d+)\\]`, 'g'))];
  expect(pointers.length).toBeGreaterThan(3);
  for (const [, n] of pointers) {
    const full = lines[Number(n) - 1].text;
    expect(full.length).toBeGreaterThan(0);
    // The full text, as the original file holds it (a JSON string in its record).
    expect(source).toContain(JSON.stringify(full.split('\n')[0]).slice(1, -1));
  }
});
