/**
 * End-to-end tests: the exported app (out/, from `npm run build`) served by scripts/serve.mjs and
 * driven in Debian's Chromium (TOOLCHAIN.md #8: Playwright cannot download browsers here).
 */
import { defineConfig, devices } from '@playwright/test';
import { execFileSync } from 'node:child_process';

/**
 * A free port, chosen once in the runner process and inherited by the workers through the
 * environment (the config is evaluated in every worker: they must agree on the port).
 */
function freePort(): number {
  const script = "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close();});";
  return Number(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }));
}
process.env.CONTEXTSCOPE_E2E_PORT ??= String(freePort());
const port = Number(process.env.CONTEXTSCOPE_E2E_PORT);
const baseURL = `http://127.0.0.1:${port}`;

export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];

/**
 * The specs that judge the page's main-thread tasks by their CPU time (e2e/long.spec.ts at 100k
 * turns; preview-speed and app-tasks at 2,000–10,000): they run in the long-tasks project, after the
 * others and one at a time. Thread time is not stretched by waiting for a core, but a second
 * browser on the other core still slows this one's (shared caches): session 13's CI measured a
 * 42 ms task as 55 ms with another spec running beside it.
 */
const SOLO = /(long|preview-speed|app-tasks)\.spec\.ts$/;

export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  // Playwright empties its output folder at start; our own artefacts live in reports/ (TOOLCHAIN.md
  // #10). One folder per run (keyed by the run's port) so two runs on a shared machine do not
  // delete each other's traces mid-test.
  outputDir: `test-results/run-${port}`,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  fullyParallel: true,
  workers: process.env.CI ? 2 : 2,
  forbidOnly: !!process.env.CI,
  retries: 0,
  reporter: [['list'], ['json', { outputFile: 'reports/playwright.json' }]],
  use: {
    baseURL,
    // A failed test keeps its trace: DOM snapshots per action (and the failure's screenshot and
    // error-context.md). No screencast: recording it halved the suite's speed on 2 cores
    // (inspector-compact + library specs: 129 s with it, 82 s without, 68 s with no trace at all).
    trace: { mode: 'retain-on-failure', screenshots: false, snapshots: true, sources: false },
    screenshot: 'only-on-failure',
    viewport: { width: 1280, height: 800 },
    // The app honours "reduce motion" (app/globals.css): no skeleton pulses and no transitions run
    // while a test waits, so the compositor (software, --disable-gpu) draws no frame for them. No
    // spec checks an animation; e2e/app-start.spec.ts checks both the rule and this setting.
    reducedMotion: 'reduce',
    acceptDownloads: true,
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: CHROMIUM_ARGS,
    },
  },
  projects: [
    { name: 'chromium', testIgnore: SOLO, use: { ...devices['Desktop Chrome'], viewport: { width: 1280, height: 800 } } },
    // The main-thread task measurements (SOLO) run after every other spec, one at a time: with another
    // browser sharing the 2 cores, scheduling noise shows up as long tasks that are not the app's.
    // One retry there alone: on a slow shared machine one interaction has measured exactly 50 ms
    // (switching the model; 0 tasks over 20 ms in the run after it). A real regression fails both
    // runs; a pass on retry is named in `npm test`'s summary ("passed on a retry").
    // No trace there: its DOM snapshot after each action runs on the page's main thread (130 ms in
    // four model switches at 100k turns, profiled), the very thread whose long tasks it measures.
    { name: 'long-tasks', testMatch: SOLO, dependencies: ['chromium'], workers: 1, retries: 1, use: { ...devices['Desktop Chrome'], viewport: { width: 1280, height: 800 }, trace: 'off' } },
  ],
  webServer: {
    command: `node scripts/serve.mjs --port ${port}`,
    url: `${baseURL}/`,
    reuseExistingServer: false,
    timeout: 30_000,
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
