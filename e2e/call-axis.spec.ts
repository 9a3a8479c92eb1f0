/**
 * Issue 10 "Agent runs on the timeline": a SWE-agent or Gemini CLI run is one prompt opening one
 * turn of many model calls — one bar on the turn axis. The timeline picks the call axis by itself
 * for such logs (fewer than 8 turns, more calls than turns): one bar per model call. A drag over
 * calls selects them (`sel=cA-B`), the plan previews and applies a step over exactly those calls,
 * and the export holds them compacted while every call outside the range is as it was. Real files.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Download } from '@playwright/test';
import { corpusFile, expect, SCREENSHOTS, test } from './fixtures';
import { TimelineCanvas } from './pages/TimelineCanvas';
import { Workbench } from './pages/Workbench';
import { importFile } from '../lib/formats/import';
import { sourceFromBytes } from '../lib/read/source';
import { modelCalls } from '../lib/compaction/calls';
import type { Transcript } from '../lib/model/types';

test.beforeAll(() => fs.mkdirSync(SCREENSHOTS, { recursive: true }));

const CASES = [
  { family: 'swe-agent', name: 'swe-agent_marshmallow-1867_function_calling.traj' },
  { family: 'gemini-cli', name: 'vibecodingtracker_gemini_session_legacy.json' },
] as const;

function load(file: string, name = path.basename(file)): Transcript {
  return importFile(sourceFromBytes(name, new Uint8Array(fs.readFileSync(file)))).transcript;
}

/** Tool results of the log, by the model call that holds them: text per call id. */
function resultsByCall(t: Transcript): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const c of modelCalls(t)) {
    const texts: string[] = [];
    for (let i = c.first; i <= c.last; i++) for (const b of t.messages[i].blocks) if (b.kind === 'tool_result') texts.push(b.content);
    out.set(c.index, texts);
  }
  return out;
}

for (const c of CASES)
  test(`${c.name}: the call axis by itself, a drag over model calls compacts exactly those calls`, async ({ library, inspector, page }) => {
    test.setTimeout(150_000);
    const file = corpusFile(c.family, c.name);
    const log = load(file);
    const calls = modelCalls(log);
    expect(log.turnCount).toBeLessThan(8);
    expect(calls.length).toBeGreaterThan(log.turnCount);

    await library.openInInspector(file, inspector);
    const timeline = new TimelineCanvas(page);
    await expect(page.getByTestId('axis-toggle')).toHaveAttribute('data-axis', 'calls');
    await expect(timeline.wrap).toHaveAttribute('data-unit', 'call');
    await expect(timeline.wrap).toHaveAttribute('data-turns', String(calls.length));
    await expect(page.getByRole('radio', { name: `Calls ${calls.length}` })).toHaveAttribute('aria-checked', 'true');

    // A range in the middle of the run, with tool results on both sides of it.
    const a = Math.floor(calls.length / 4);
    const b = Math.floor(calls.length / 2);
    await timeline.dragSelect(a, b);
    await expect(page).toHaveURL(new RegExp(`sel=c${a + 1}-${b + 1}(&|$)`));
    await timeline.expectSelection([a, b]);
    await expect(page.getByTestId('selection-summary')).toContainText(`Calls ${a + 1}–${b + 1} (turn ${calls[a].turn + 1}`);

    // The hover card names the call and its turn.
    const p = await timeline.pointOf(b + 1);
    await page.mouse.move(p.x, p.y);
    await expect(page.getByTestId('timeline-hover')).toContainText(`Call ${b + 2} · turn ${calls[b + 1].turn + 1}`);
    await page.mouse.move(0, 0);

    const wb = new Workbench(page);
    await wb.pickReducers('strip-tool-results');
    await wb.keepLast(0);
    await expect(page.getByTestId('previewing')).toHaveCount(0, { timeout: 30_000 });
    // The Plan panel's totals name the calls too.
    await expect(page.getByRole('complementary').or(page.getByRole('tabpanel')).getByText(`Calls ${a + 1}–${b + 1}`).first()).toBeVisible();
    await page.screenshot({ path: path.join(SCREENSHOTS, `call-axis-${c.name.replace(/\.\w+$/, '')}.png`) });
    await wb.apply();
    await expect(page.getByText(/: 1 step$/)).toBeVisible({ timeout: 30_000 });
    await page.screenshot({ path: path.join(SCREENSHOTS, `call-axis-${c.name.replace(/\.\w+$/, '')}-applied.png`) });

    // Export the version in the source format and read it back.
    await page.getByTestId('export').click();
    const downloads: Download[] = [];
    const onDownload = (d: Download) => downloads.push(d);
    page.on('download', onDownload);
    await page.getByTestId('export-download').click();
    await expect(page.getByTestId('export-done')).toBeVisible({ timeout: 30_000 });
    await expect.poll(() => downloads.length).toBeGreaterThan(0);
    page.off('download', onDownload);
    const exported = downloads.find((d) => !d.suggestedFilename().endsWith('.audit.json'))!;
    const out = load((await exported.path())!, exported.suggestedFilename());
    const before = resultsByCall(log);
    const after = resultsByCall(out);
    expect(modelCalls(out).length).toBe(calls.length);
    let stubbed = 0;
    for (const [ci, texts] of before) {
      const now = after.get(ci) ?? [];
      if (ci >= a && ci <= b) {
        texts.forEach((t, k) => {
          if (now[k] !== t) stubbed++;
        });
      } else expect(now, `call ${ci + 1} lies outside the range: untouched`).toEqual(texts);
    }
    expect(stubbed).toBeGreaterThan(0);
  });

test('the axis is a toggle and lives in the URL; a turn selection is not a call selection', async ({ library, inspector, page }) => {
  const file = corpusFile('swe-agent', 'swe-agent_marshmallow-1867_function_calling.traj');
  await library.openInInspector(file, inspector);
  const timeline = new TimelineCanvas(page);
  await expect(timeline.wrap).toHaveAttribute('data-unit', 'call');
  await timeline.dragSelect(2, 4);
  await expect(page).toHaveURL(/sel=c3-5/);
  await page.getByRole('radio', { name: /^Turns/ }).click();
  await expect(page).toHaveURL(/axis=turns/);
  await expect(page).not.toHaveURL(/sel=/);
  await expect(timeline.wrap).toHaveAttribute('data-unit', 'turn');
  await page.reload();
  await inspector.waitLoaded();
  await expect(timeline.wrap).toHaveAttribute('data-unit', 'turn');
  await page.getByRole('radio', { name: /^Calls/ }).click();
  await expect(timeline.wrap).toHaveAttribute('data-unit', 'call');
});
