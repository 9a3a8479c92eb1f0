#!/usr/bin/env node
/**
 * Where a simple e2e test's seconds go: the built app (out/) served by scripts/serve.mjs, driven in
 * Chromium the way the e2e specs drive it (a fresh browser context per run, as Playwright gives each
 * test), timing each step of the set-up most specs share: goto → drop zone → the library's first
 * answer (rows or the empty state) → import a small real file → its row → open → the inspector's
 * timeline and first message.
 *
 *   node scripts/profile-e2e-start.mjs [--runs 5] [--file corpus/path] [--trace out.json] [--dir out]
 *
 * Prints one line per run (ms since goto for each step, and the page's and workers' CPU time as the
 * DevTools Performance domain reports it) and the median of each column. With --trace, the last run
 * is recorded as a DevTools trace (all threads, with V8 compile and the workers' tasks) for
 * `node scripts/trace-tasks.mjs` or DevTools.
 */
import { chromium } from '@playwright/test';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const arg = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const runs = Number(arg('runs', 5));
const file = path.resolve(arg('file', path.join(root, '../shared/corpus/claude-code/simonw_sample_session.jsonl')));
const tracePath = arg('trace');
const dir = arg('dir');

const server = spawn(process.execPath, [path.join(root, 'scripts/serve.mjs'), '--port', '0', ...(dir ? ['--dir', dir] : [])], { stdio: ['ignore', 'pipe', 'inherit'] });
const baseURL = await new Promise((resolve, reject) => {
  server.stdout.on('data', (d) => {
    const m = /at (http:\/\/\S+)/.exec(String(d));
    if (m) resolve(m[1]);
  });
  server.on('exit', (c) => reject(new Error(`serve.mjs exited (${c})`)));
});

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
});

// Waits poll in the page every 10 ms: Playwright's own waits re-check every 500 ms once a wait is
// past ~0.3 s, which would round every step up to that grid.
const shown = (page, selector, text = '') =>
  page.waitForFunction(
    ([sel, t]) => [...document.querySelectorAll(sel)].some((e) => e.getClientRects().length > 0 && (!t || (e.textContent ?? '').includes(t))),
    [selector, text],
    { polling: 10, timeout: 60_000 },
  );
const rows = [];
try {
  for (let run = 0; run < runs; run++) {
    const context = await browser.newContext({ baseURL, viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const trace = tracePath && run === runs - 1;
    if (trace) await browser.startTracing(page, { path: tracePath, categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8', 'v8.execute', 'disabled-by-default-v8.compile', 'blink.user_timing', 'toplevel', 'loading', ...(process.env.CPU_PROFILE ? ['disabled-by-default-v8.cpu_profiler'] : [])] });
    const t0 = performance.now();
    const at = {};
    const mark = (k) => (at[k] = Math.round(performance.now() - t0));
    await page.goto('/');
    mark('goto');
    await shown(page, '[data-testid=drop-zone]');
    mark('dropZone');
    await shown(page, '[data-testid=transcript-row], [data-testid=library-empty]');
    mark('library');
    await page.getByTestId('file-input').setInputFiles(file);
    await shown(page, '[data-testid=transcript-row]', path.basename(file));
    mark('row');
    await page.getByTestId('open-transcript').first().click();
    await page.waitForURL(/\/inspect\?id=/);
    await shown(page, '[data-testid=timeline]');
    mark('timeline');
    await shown(page, '[data-testid=message]');
    mark('message');
    if (trace) await browser.stopTracing();
    rows.push(at);
    console.log(`run ${run + 1}: ${Object.entries(at).map(([k, v]) => `${k} ${v}`).join('  ')}`);
    await context.close();
  }
} finally {
  await browser.close();
  server.kill();
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`median of ${rows.length}: ${Object.keys(rows[0]).map((k) => `${k} ${median(rows.map((r) => r[k]))}`).join('  ')}`);
if (tracePath) console.log(`trace of the last run: ${tracePath}`);
