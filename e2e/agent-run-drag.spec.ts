/**
 * Issue 10 "Agent runs on the timeline", the part built so far: a SWE-agent or Gemini CLI run is
 * one to three bars (one prompt opening a turn of many model calls). A drag inside the run's bar
 * selects that turn (it used to select nothing, silently), and Auto at 50 % compacts inside it —
 * with the default keep-last 1, the protected tail narrows to the run's last model calls — then
 * Apply gives a version at or under the target. Real corpus files.
 */
import fs from 'node:fs';
import path from 'node:path';
import { corpusFile, expect, libraryOfWorker, onePagePerWorker, pageOfWorker, SCREENSHOTS, test as base, type WorkerPages } from './fixtures';
import { cliInspect } from './pages/cli';
import { TimelineCanvas } from './pages/TimelineCanvas';
import { Workbench } from './pages/Workbench';

/** One page per Playwright worker and spec file (e2e/fixtures.ts onePagePerWorker): each test imports and works on its own file. */
const test = base.extend<object, { appPage: WorkerPages }>({ appPage: [onePagePerWorker, { scope: 'worker' }], page: pageOfWorker, library: libraryOfWorker });

test.beforeAll(() => fs.mkdirSync(SCREENSHOTS, { recursive: true }));

const CASES = [
  { family: 'swe-agent', name: 'swe-agent_marshmallow-1867_function_calling.traj' },
  { family: 'swe-agent', name: 'swe-agent_gpt4_pydicom-1458_legacy.traj' },
  { family: 'gemini-cli', name: 'vibecodingtracker_gemini_session_legacy.json' },
] as const;

for (const c of CASES)
  test(`${c.name}: a drag inside the run's bar selects it, Auto 50 % compacts inside the run`, async ({ library, inspector, page }) => {
    test.setTimeout(150_000);
    const file = corpusFile(c.family, c.name);
    const expected = cliInspect(file);
    expect(expected.turns).toBeLessThanOrEqual(3);
    await library.openInInspector(file, inspector);
    // This spec is about the turn axis (the call axis is e2e/call-axis.spec.ts).
    await inspector.useTurnAxis();
    const timeline = new TimelineCanvas(page);
    const wb = new Workbench(page);
    // The run's bar is the last one (the turn the prompt opened). Drag inside it, from its left
    // quarter to its right quarter: it selects that turn.
    const last = expected.turns - 1;
    const mid = await timeline.pointOf(last);
    const [a, b] = await timeline.view();
    const box = (await timeline.canvas.boundingBox())!;
    const slot = (box.width - 52 - 14) / (b - a + 1);
    await page.mouse.move(mid.x - slot / 4, mid.y);
    await page.mouse.down();
    await page.mouse.move(mid.x + slot / 4, mid.y, { steps: 8 });
    await page.mouse.up();
    await expect(page).toHaveURL(new RegExp(`sel=${last + 1}-${last + 1}(&|$)`));
    await timeline.expectSelection([last, last]);
    await expect(page.getByTestId('selection-summary')).toContainText(`Turns ${last + 1}–${last + 1}`);

    const target = await wb.autoHalf();
    const before = (await wb.contextTokens()).before;
    const report = await wb.tab('Report');
    await expect(report).toContainText(/protected the last \d model call\(s\)/, { timeout: 60_000 });
    await page.screenshot({ path: path.join(SCREENSHOTS, `agent-run-drag-${c.name.replace(/\.\w+$/, '')}.png`) });
    await wb.tab('Plan');
    await wb.apply();
    await expect.poll(async () => (await wb.contextTokens()).after, { timeout: 60_000 }).toBeLessThan(before);
    // The target is half of the whole context. Where the floor (system + every user message + the
    // last call: a SWE-agent demonstration and issue text) or what lies before the run keeps the
    // whole above it, the Report names why; otherwise the compacted whole is at or under it. Since
    // emergency keeps the words the user typed (issue 27 item 5), a run whose prompt is a long issue
    // text (pydicom) can stop above the target with the range's remainder named.
    const after = (await wb.contextTokens()).after;
    if (after > target) {
      await wb.tab('Report');
      await expect(report).toContainText(/the floor \(system [\d,]+ \+ user messages [\d,]+ \+ the last model call [\d,]+\) is [\d,]+ tokens, above the target|what lies outside the range or is protected alone exceeds it|what is left of turn \d+ in the range \([\d,]+\) is more than the [\d,]+ the target leaves for it/);
    }
    // Inside the run, older calls were compacted: the list shows fates on them.
    await expect(wb.fates.first()).toBeVisible();
    await page.screenshot({ path: path.join(SCREENSHOTS, `agent-run-drag-${c.name.replace(/\.\w+$/, '')}-applied.png`) });
  });
