/**
 * Replay (issue 14) on a real Claude Code session with recorded usage: the inspector links to the
 * replay of every policy; the table shows what the CLI's `simulate --json` computes for the same
 * file; ticking a policy draws its curve (with its compactions), unticking removes it; sorting and
 * the CSV download carry the same numbers.
 */
import fs from 'node:fs';
import path from 'node:path';
import { corpusFile, expect, SCREENSHOTS, test } from './fixtures';
import { cliSimulate, tokensText } from './pages/cli';

test.beforeAll(() => fs.mkdirSync(SCREENSHOTS, { recursive: true }));

test('replay: every policy call by call, the table equals the CLI, toggles draw curves, CSV', async ({ library, inspector, page }) => {
  test.setTimeout(150_000);
  const file = corpusFile('claude-code', 'slopometry_transcript_opus45_compact.jsonl');
  const cli = cliSimulate(file);
  expect(cli.rows.length).toBeGreaterThan(10);

  await library.openInInspector(file, inspector);
  // The suite runs with reduced motion; the wait is checked as most users see it, motion allowed.
  await page.emulateMedia({ reducedMotion: 'no-preference' });
  // Rows as their parts finish (issue 31): every count of rows the page showed, and whether the table was complete.
  // While it replays: the progress each change showed, and the endless animations running then.
  await page.evaluate(() => {
    const seen: string[] = [];
    const progress: Array<{ done: number; endless: number }> = [];
    (window as unknown as { __rowsSeen: string[] }).__rowsSeen = seen;
    (window as unknown as { __progress: typeof progress }).__progress = progress;
    new MutationObserver(() => {
      const bar = document.querySelector('[data-testid=replay-loading] [role=progressbar]');
      if (document.querySelector('[data-testid=replay-loading]'))
        progress.push({ done: Number(bar?.getAttribute('aria-valuenow') ?? NaN), endless: document.getAnimations().filter((a) => a.effect?.getTiming().iterations === Infinity).length });
      const t = document.querySelector('[data-testid=replay-table]');
      if (!t) return;
      const k = `${t.querySelectorAll('[data-testid=replay-row]').length}:${t.getAttribute('data-complete')}:${!!document.querySelector('[data-testid=replay-chart-pending]')}`;
      if (seen[seen.length - 1] !== k) seen.push(k);
    }).observe(document.body, { childList: true, subtree: true, attributes: true });
  });
  await page.getByTestId('open-replay').click();
  await expect(page).toHaveURL(/\/replay\?id=/);
  const table = page.getByTestId('replay-table');
  await expect(table).toBeVisible({ timeout: 60_000 });
  // The table shows each part's rows as it comes (issue 31): wait for the last part.
  await expect(table).toHaveAttribute('data-complete', 'true', { timeout: 60_000 });

  // Every policy's row: the same numbers as the CLI's JSON for the same file.
  await expect(page.getByTestId('replay-row')).toHaveCount(cli.rows.length);
  for (const r of cli.rows) {
    const row = page.locator(`[data-testid=replay-row][data-policy="${r.policy}"]`);
    await expect(row.locator('[data-col=usd]')).toHaveText(`$${r.usd.toFixed(4)}`);
    await expect(row.locator('[data-col=peakContext]')).toHaveText(tokensText(r.peakContext));
    await expect(row.locator('[data-col=compactions]')).toHaveText(tokensText(r.compactions));
    await expect(row.locator('[data-col=callsOverWindow]')).toHaveText(tokensText(r.callsOverWindow));
    await expect(row.locator('[data-col=identifiersLost]')).toHaveText(tokensText(r.identifiersLost));
  }
  // The rows came in part by part (the first part: the baselines and the agents), the table
  // complete, the chart drawn and the CSV enabled only with the last part.
  await expect(table).toHaveAttribute('data-complete', 'true');
  const seen = await page.evaluate(() => (window as unknown as { __rowsSeen: string[] }).__rowsSeen);
  const partial = seen.filter((k) => k.includes(':false:')).map((k) => Number(k.split(':')[0]));
  expect(partial).toContain(5);
  expect(seen.filter((k) => k.includes(':false:')).every((k) => k.endsWith(':true'))).toBe(true);
  expect(seen[seen.length - 1]).toBe(`${cli.rows.length}:true:false`);
  await expect(page.getByTestId('replay-csv')).toBeEnabled();
  // Nothing animates once the table is complete (an endless animation draws a frame each vsync),
  // nor while it replayed: the progress is a bar that moves as parts come in (n of 18), not a pulse.
  await expect.poll(() => page.evaluate(() => document.getAnimations().filter((a) => a.playState === 'running').length)).toBe(0);
  const progress = await page.evaluate(() => (window as unknown as { __progress: Array<{ done: number; endless: number }> }).__progress);
  expect(progress.length, 'the page showed its progress while it replayed').toBeGreaterThan(0);
  expect(progress.filter((p) => p.endless > 0), 'endless animations while the replay ran').toEqual([]);
  const done = progress.map((p) => p.done);
  expect(done[0]).toBe(0);
  expect(done.some((d) => d > 0 && d < cli.rows.length), 'a part in, others to come').toBe(true);
  expect(done.every((d, i) => i === 0 || d >= done[i - 1]), 'the bar never goes back').toBe(true);
  // The recorded bill and the replay's error, as the CLI computes it.
  await expect(page.getByTestId('replay-recorded')).toContainText(`${Math.abs(cli.recordedError! * 100).toFixed(1)} %`);

  // Toggles: the default curves are drawn; ticking one more adds its curve and its compactions.
  const chart = page.getByTestId('replay-chart');
  const drawn = () => chart.getByTestId('replay-series').evaluateAll((els) => els.map((e) => e.getAttribute('data-policy')));
  await expect.poll(drawn).toContain('claude-code');
  expect(await drawn()).not.toContain('anthropic-clear-tool-uses');
  const clear = page.locator('[data-testid=replay-row][data-policy="anthropic-clear-tool-uses"]');
  await clear.getByTestId('replay-toggle').check();
  await expect.poll(drawn).toContain('anthropic-clear-tool-uses');
  const fires = cli.rows.find((r) => r.policy === 'anthropic-clear-tool-uses')!.compactions;
  await expect(chart.locator('[data-policy="anthropic-clear-tool-uses"] [data-testid=replay-firing]')).toHaveCount(fires);
  await page.locator('[data-testid=replay-row][data-policy="claude-code"]').getByTestId('replay-toggle').uncheck();
  await expect.poll(drawn).not.toContain('claude-code');
  // The chart draws its curves one a task after each width change: the screenshot waits for the last
  // (session 17's CI screenshot caught it empty, between a resize and its first curve).
  await expect(chart).toHaveAttribute('data-drawn', 'yes');
  await page.screenshot({ path: path.join(SCREENSHOTS, 'replay.png'), fullPage: true });

  // Sort by cost: rows in ascending cost order.
  await page.getByTestId('sort-usd').click();
  const costs = await table.locator('[data-testid=replay-row] [data-col=usd]').allTextContents();
  const values = costs.map((c) => Number(c.replace('$', '')));
  expect(values).toEqual([...values].sort((a, b) => a - b));

  // CSV: one line per policy, the same cost as the table.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('replay-csv').click()]);
  const csv = fs.readFileSync(await download.path(), 'utf8').trim().split('\n');
  expect(csv).toHaveLength(cli.rows.length + 1);
  const head = csv[0].split(',');
  const cc = csv.find((l) => l.startsWith('claude-code,'))!.split(',');
  expect(Number(cc[head.indexOf('Cost $')])).toBe(cli.rows.find((r) => r.policy === 'claude-code')!.usd);
  // Replayed by this page: nothing says it was read back.
  await expect(page.getByTestId('replay-stored')).toHaveCount(0);

  // A reload (or a visit tomorrow): the log has not changed, so the replay this page stored in the
  // browser (IndexedDB) is read back — the same numbers, no policy replayed again, and the page says so.
  await page.reload();
  await expect(table).toHaveAttribute('data-complete', 'true', { timeout: 60_000 });
  await expect(page.getByTestId('replay-stored')).toContainText('stored replay of');
  await expect(page.getByTestId('replay-stored')).toContainText('read back, not replayed again');
  await expect(page.getByTestId('replay-row')).toHaveCount(cli.rows.length);
  for (const r of cli.rows) {
    const row = page.locator(`[data-testid=replay-row][data-policy="${r.policy}"]`);
    await expect(row.locator('[data-col=usd]')).toHaveText(`$${r.usd.toFixed(4)}`);
    await expect(row.locator('[data-col=peakContext]')).toHaveText(tokensText(r.peakContext));
    await expect(row.locator('[data-col=compactions]')).toHaveText(tokensText(r.compactions));
  }
  await expect(page.getByTestId('replay-recorded')).toContainText(`${Math.abs(cli.recordedError! * 100).toFixed(1)} %`);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'replay-stored.png') });
  // (Another model or cache lifetime is another replay: lib/engine/replay-store.test.ts, counted.)
});
