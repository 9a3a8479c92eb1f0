/**
 * Issue 31, session 17: a drag's preview is asked of the worker in the mouse-up's own event, before
 * the URL names the selection (through the URL, the request waited for the router's transition and
 * the inspector's render: 71–464 ms in session 16's bench). One request for the new range, and the
 * numbers shown are that range's. A real corpus file (Codex localpush, 69 turns), Auto at 50 %.
 *
 * The page's marks: `cs-preview:request` (components/inspector/useWorkbench.ts, when the query runs)
 * and, from this spec's init script, one mark per history.replaceState/pushState with the new URL.
 */
import { corpusFile, expect, test } from './fixtures';
import { TimelineCanvas } from './pages/TimelineCanvas';
import { Workbench } from './pages/Workbench';

test('mouse-up → the preview request goes out before the URL holds the selection, once', async ({ library, inspector, page }) => {
  test.setTimeout(150_000);
  await page.addInitScript(() => {
    for (const name of ['replaceState', 'pushState'] as const) {
      const original = history[name].bind(history);
      history[name] = (data: unknown, unused: string, url?: string | URL | null) => {
        performance.mark('e2e:url', { detail: String(url ?? '') });
        return original(data, unused, url);
      };
    }
  });
  await library.openInInspector(corpusFile('codex-cli', 'localpush_rollout-2026-02-23_sanitized_compacted.jsonl'), inspector);
  await inspector.useTurnAxis();
  const wb = new Workbench(page);
  await wb.autoHalf();
  await wb.previewTokens();
  await expect(page.getByTestId('worker-activity')).toHaveAttribute('data-busy', 'no', { timeout: 60_000 });

  const timeline = new TimelineCanvas(page);
  const p = await timeline.pointOf(10);
  const q = await timeline.pointOf(40);
  await page.mouse.move(p.x, p.y);
  await page.mouse.down();
  await page.mouse.move(q.x, q.y, { steps: 8 });
  await page.evaluate(() => performance.mark('e2e:up'));
  await page.mouse.up();
  const [a, b] = (await timeline.selection())!;
  const sel = `${a + 1}-${b + 1}`;
  await expect(page).toHaveURL(new RegExp(`sel=${sel}(&|$)`));
  await expect(page.getByTestId('selection-totals')).toHaveAttribute('data-range', `${a}-${b}`, { timeout: 60_000 });
  await expect(page.getByTestId('selection-totals')).toHaveAttribute('data-preview', 'settled', { timeout: 60_000 });

  const seen = await page.evaluate((s) => {
    const up = performance.getEntriesByName('e2e:up').at(-1)!.startTime;
    const requests = performance.getEntriesByName('cs-preview:request').filter((m) => m.startTime >= up);
    const url = (performance.getEntriesByName('e2e:url') as PerformanceMark[]).find((m) => m.startTime >= up && new URL(String(m.detail), location.href).searchParams.get('sel') === s);
    return { requests: requests.map((m) => m.startTime - up), url: url ? url.startTime - up : null };
  }, sel);
  console.log(`mouse-up → request ${seen.requests.map((t) => t.toFixed(0)).join(', ')} ms; → URL ${seen.url?.toFixed(0)} ms`);
  expect(seen.url, 'the URL took the selection').not.toBeNull();
  expect(seen.requests, 'one preview request for the new range').toHaveLength(1);
  expect(seen.requests[0], 'the request went out before the URL held the selection').toBeLessThan(seen.url!);
});
