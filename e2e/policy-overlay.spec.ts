/**
 * Issue 14 "On the timeline, each policy's context curve and its firing points, side by side
 * (toggle which ones)": the inspector's Policies menu replays the session under the ticked
 * policies and draws them over the bars; the numbers beside them are `simulate --json`'s. A real
 * Claude Code session with recorded usage (slopometry), on both axes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { corpusFile, expect, SCREENSHOTS, test } from './fixtures';
import { cliSimulate } from './pages/cli';

test.beforeAll(() => fs.mkdirSync(SCREENSHOTS, { recursive: true }));

test('toggle policies on the inspector timeline: a curve each, the CLI’s numbers beside them', async ({ library, inspector, page }) => {
  test.setTimeout(150_000);
  const file = corpusFile('claude-code', 'slopometry_transcript_opus45_compact.jsonl');
  const cli = cliSimulate(file);
  const row = (id: string) => cli.rows.find((r) => r.policy === id)!;
  await library.openInInspector(file, inspector);
  const timeline = page.getByTestId('timeline');
  await expect(timeline).toHaveAttribute('data-policies', '');

  // While the worker replays, the activity dot says so without an endless animation (motion allowed, as most users have it):
  // the endless animations running each time the dot's state changed.
  await page.emulateMedia({ reducedMotion: 'no-preference' });
  await page.evaluate(() => {
    const busy: number[] = [];
    (window as unknown as { __busyEndless: number[] }).__busyEndless = busy;
    const dot = document.querySelector('[data-testid=worker-activity]')!;
    new MutationObserver(() => {
      if (dot.getAttribute('data-busy') === 'yes') busy.push(document.getAnimations().filter((a) => a.effect?.getTiming().iterations === Infinity).length);
    }).observe(dot, { attributes: true, childList: true, subtree: true });
  });
  await page.getByTestId('policy-menu').locator('summary').click();
  // The tick asks the worker in its own event (issue 31): the replay's request is sent before the
  // URL changes, so neither the router nor the inspector's re-render stands in its way.
  const atClick = await page.evaluate(() => {
    document.querySelector<HTMLInputElement>('[data-testid="policy-toggle-contextscope-auto"]')!.click();
    return { requests: performance.getEntriesByName('cs-replay:request').map((e) => (e as PerformanceMark).detail as string), url: location.search };
  });
  expect(atClick.requests).toEqual(['contextscope-auto']);
  expect(atClick.url).not.toContain('pol=');
  await expect(page.getByTestId('policy-toggle-contextscope-auto')).toBeChecked();
  await expect(page).toHaveURL(/pol=contextscope-auto/);
  await page.getByTestId('policy-toggle-claude-code').check();
  await page.getByTestId('policy-toggle-none').check();
  await expect(page).toHaveURL(/pol=contextscope-auto%2Cclaude-code%2Cnone|pol=contextscope-auto,claude-code,none/);
  const chips = page.getByTestId('policy-chip');
  await expect(chips).toHaveCount(3, { timeout: 90_000 });
  for (const id of ['contextscope-auto', 'claude-code', 'none']) {
    const chip = page.locator(`[data-testid=policy-chip][data-policy="${id}"]`);
    // Replayed by this page's worker, not read back from the browser's storage.
    await expect(chip).toHaveAttribute('data-stored', 'no');
    await expect(chip).toHaveAttribute('data-usd', String(row(id).usd));
    await expect(chip).toHaveAttribute('data-compactions', String(row(id).compactions));
    await expect(chip).toHaveAttribute('data-peak', String(row(id).peakContext));
    await expect(chip).toContainText(`$${row(id).usd.toFixed(2)}`);
  }
  // One curve per ticked policy, in the menu's order (the replay's); its rings are its compactions.
  await expect(timeline).toHaveAttribute('data-policies', 'none,contextscope-auto,claude-code');
  const fired = ((await timeline.getAttribute('data-policy-fired')) ?? '').split(',').map(Number);
  expect(fired[0]).toBe(0); // no policy never compacts
  expect(fired[1]).toBeGreaterThan(0);
  expect(fired[1]).toBeLessThanOrEqual(row('contextscope-auto').compactions);
  const points = ((await timeline.getAttribute('data-policy-points')) ?? '').split(',').map(Number);
  const turns = Number(await timeline.getAttribute('data-turns'));
  for (const p of points) expect(p).toBe(turns); // every turn of this session holds calls: a point on each bar
  await page.getByTestId('policy-toggle-none').press('Escape');
  await expect(page.getByTestId('policy-toggle-none')).toBeHidden();
  // The worker idle, nothing on the page animates: an endless animation (the activity dot's pulse,
  // even under opacity 0) makes the compositor draw every frame, a core's share on this machine.
  await expect(page.getByTestId('worker-activity')).toHaveAttribute('data-busy', 'no');
  await expect.poll(() => page.evaluate(() => document.getAnimations().filter((a) => a.playState === 'running').length)).toBe(0);
  const whileBusy = await page.evaluate(() => (window as unknown as { __busyEndless: number[] }).__busyEndless);
  expect(whileBusy.length, 'the dot showed the worker busy').toBeGreaterThan(0);
  expect(whileBusy.filter((n) => n > 0), 'endless animations while the worker replayed').toEqual([]);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'inspector-policies.png') });

  // On the call axis the curves follow the calls.
  await page.getByRole('radio', { name: /^Calls/ }).click();
  await expect(timeline).toHaveAttribute('data-unit', 'call');
  await expect(timeline).toHaveAttribute('data-policies', 'none,contextscope-auto,claude-code');
  const callPoints = ((await timeline.getAttribute('data-policy-points')) ?? '').split(',').map(Number);
  expect(callPoints[0]).toBeGreaterThan(turns);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'inspector-policies-calls.png') });

  // Untick: its curve and its numbers go.
  await page.getByTestId('policy-menu').locator('summary').click();
  await page.getByTestId('policy-toggle-claude-code').uncheck();
  await expect(timeline).toHaveAttribute('data-policies', 'none,contextscope-auto');
  await expect(chips).toHaveCount(2);
  // The URL still holds the overlay: a reload draws the same two, asked by the URL's query alone.
  await page.reload();
  await expect(page.getByTestId('timeline')).toHaveAttribute('data-policies', 'none,contextscope-auto', { timeout: 90_000 });
  await expect(chips).toHaveCount(2);
  // The new page's worker replayed neither: a log never changes, so the replays the last page stored
  // in this browser (IndexedDB) are read back, with the same numbers.
  for (const id of ['contextscope-auto', 'none']) {
    const chip = page.locator(`[data-testid=policy-chip][data-policy="${id}"]`);
    await expect(chip).toHaveAttribute('data-stored', 'yes');
    await expect(chip).toHaveAttribute('data-usd', String(row(id).usd));
    await expect(chip).toHaveAttribute('data-compactions', String(row(id).compactions));
    await expect(chip).toHaveAttribute('data-peak', String(row(id).peakContext));
  }
});
