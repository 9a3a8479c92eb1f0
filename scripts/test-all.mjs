#!/usr/bin/env node
/**
 * The one test command (README Quick start, .ci/run): unit tests, type checks, the real agent
 * clients resuming our exports (a subset), the production build, then the end-to-end tests in
 * headless Chromium against that build. Prints one plain closing line `N passed, N failed`
 * summed over every stage (CI reads only that line) and exits non-zero on any failure. Each stage
 * runs even when an earlier one failed, except e2e, which needs the build.
 */
import { failedSpecs, failedUnitTests, flakySpecs } from './test-summary.mjs';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { findOrInstallBrowser } from './find-browser.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const reports = path.join(root, 'reports');
fs.mkdirSync(reports, { recursive: true });
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NEXT_PUBLIC_E2E: '1', FORCE_COLOR: '0' };
const bin = (name) => path.join(root, 'node_modules', '.bin', name);

let passed = 0;
let failed = 0;
const lines = [];

function run(label, cmd, args, extraEnv = {}) {
  const t0 = Date.now();
  console.log(`\n=== ${label}: ${[path.basename(cmd), ...args].join(' ')}`);
  const r = spawnSync(cmd, args, { cwd: root, env: { ...env, ...extraEnv }, stdio: 'inherit' });
  const seconds = ((Date.now() - t0) / 1000).toFixed(0);
  return { ok: r.status === 0, seconds };
}

/**
 * A stage run beside the next one (its output held and printed whole when it ends, so the two
 * logs do not interleave; or handed to `print`, to be printed later). Resolves to { ok, seconds }.
 */
function runBeside(label, cmd, args, beside = 'the clients stage', print = (text) => process.stdout.write(text)) {
  const t0 = Date.now();
  const child = spawn(cmd, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return new Promise((resolve) => {
    const done = (code) => {
      const seconds = ((Date.now() - t0) / 1000).toFixed(0);
      print(`\n=== ${label}: ${[path.basename(cmd), ...args].join(' ')} (ran beside ${beside}, ${seconds}s)\n` + (out && !out.endsWith('\n') ? out + '\n' : out));
      resolve({ ok: code === 0, seconds });
    };
    child.on('error', (e) => {
      out += `${e.message}\n`;
      done(null);
    });
    child.on('close', done);
  });
}

/** run(), without blocking this process (a stage beside it goes on being read). */
function runAsync(label, cmd, args) {
  const t0 = Date.now();
  console.log(`\n=== ${label}: ${[path.basename(cmd), ...args].join(' ')}`);
  const child = spawn(cmd, args, { cwd: root, env, stdio: 'inherit' });
  return new Promise((resolve) => {
    const done = (code) => resolve({ ok: code === 0, seconds: ((Date.now() - t0) / 1000).toFixed(0) });
    child.on('error', () => done(null));
    child.on('close', done);
  });
}

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

// 0. The real agents for stage 3 are installed from the npm registry (about 870 MB) beside the unit
//    stage: on a fresh clone that was half of the clients stage (31 of 63 s, session 19's baseline).
//    It is not all network wait (33 s wall, 15 + 11 s of CPU measured alone), so it takes some CPU
//    from the unit stage, but less than it held the critical path. Only the install: the clients
//    run in stage 3, which installs anything still missing itself (and fails there if it cannot).
let installLog = '';
const clientsInstall = runBeside('clients install', bin('tsx'), ['scripts/test-clients.ts', '--install-only'], 'the unit stage', (text) => (installLog = text));

// 1. Unit and integration tests (Vitest), counted from its JSON report. Not spawnSync: the install
//    beside it is read through a pipe that must keep draining.
const vitestJson = path.join(reports, 'vitest.json');
fs.rmSync(vitestJson, { force: true });
const unit = await runAsync('unit', bin('vitest'), ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${vitestJson}`]);
const v = readJson(vitestJson);
if (v) {
  // A file that fails to load has no test results of its own: count it as one failure.
  const brokenFiles = (v.testResults ?? []).filter((r) => r.status === 'failed' && (r.assertionResults ?? []).length === 0).length;
  passed += v.numPassedTests;
  failed += v.numFailedTests + brokenFiles;
  lines.push(`unit: ${v.numPassedTests} passed, ${v.numFailedTests} failed, ${brokenFiles} files failed to load (${unit.seconds}s)`);
  // Name every failure in the summary: CI keeps only the tail of the log.
  for (const f of failedUnitTests(v)) lines.push(`  ✗ ${f}`);
  if (!unit.ok && v.numFailedTests === 0 && brokenFiles === 0) {
    failed += 1;
    lines.push('unit: vitest exited non-zero without a failed test (see above)');
  }
} else {
  failed += 1;
  lines.push('unit: vitest wrote no report (see above)');
}

// 2. Type checks: the app and the worker (its own lib: webworker). One after the other, beside the
//    clients stage (3): that stage keeps about one core busy (29 s of CPU in 26 s, measured with
//    the agents installed) and a type check is one core's work, so on CI's 2 cores they share the
//    machine instead of queuing (reported after stage 3).
const typechecks = clientsInstall.then(async () => {
  const out = [];
  for (const [label, project] of [
    ['typecheck app', 'tsconfig.json'],
    ['typecheck worker', 'workers/tsconfig.json'],
  ])
    out.push([label, await runBeside(label, bin('tsc'), ['--noEmit', '-p', project])]);
  return out;
});

// 3. The real agents resume our exports (a subset of `npm run test:clients`: one session per client,
//    the original and a compaction to half): Claude Code, Codex and Gemini CLI from the npm registry
//    into .clients/, against a mock model server on 127.0.0.1. Counted per case from its JSON report.
const clientsJson = path.join(reports, 'clients.json');
fs.rmSync(clientsJson, { force: true });
await clientsInstall;
process.stdout.write(installLog);
const clients = await runAsync('clients', bin('tsx'), ['scripts/test-clients.ts', '--subset', '--json', clientsJson]);
const c = readJson(clientsJson);
if (Array.isArray(c)) {
  const ok = c.filter((r) => r.pass).length;
  passed += ok;
  failed += c.length - ok;
  lines.push(`clients: ${ok} passed, ${c.length - ok} failed (${clients.seconds}s)`);
} else {
  failed += 1;
  lines.push(`clients: no report (the clients did not install or the run broke; see above) (${clients.seconds}s)`);
}

for (const [label, r] of await typechecks) {
  r.ok ? passed++ : failed++;
  lines.push(`${label}: ${r.ok ? 'passed' : 'FAILED'} (${r.seconds}s)`);
}

// 4. The production build (static export to out/). Its own type check is skipped
//    (CONTEXTSCOPE_TYPECHECKED, next.config.mjs): stage 2 has just checked the same program and
//    counted the result; every other `next build` still checks.
const build = run('build', bin('next'), ['build'], { CONTEXTSCOPE_TYPECHECKED: '1' });
build.ok ? passed++ : failed++;
lines.push(`build: ${build.ok ? 'passed' : 'FAILED'} (${build.seconds}s)`);

// 5. End-to-end in headless Chromium against the build. The browser is found (or, as root,
// installed from apt) here, so `npm install && npm test` works on a fresh machine.
const browser = build.ok ? findOrInstallBrowser() : null;
if (browser?.error) {
  failed += 1;
  console.log(browser.error);
  lines.push(`e2e: not run. ${browser.error}`);
} else if (build.ok) {
  env.CHROMIUM_PATH = browser.path;
  if (browser.how !== 'CHROMIUM_PATH') console.log(`e2e browser: ${browser.path}${browser.how === 'installed' ? ' (installed by apt-get)' : ''}`);
  const pwJson = path.join(reports, 'playwright.json');
  fs.rmSync(pwJson, { force: true });
  // No Playwright trace here: its DOM snapshot after every action costs the suite ~17 % on 2 cores
  // (playwright.config.ts), and this run's readers see its log, not test-results/. A failure still
  // keeps its screenshot and error context; `npx playwright test …` keeps the trace when run alone.
  const e2e = run('e2e', bin('playwright'), ['test', '--trace=off'], { PLAYWRIGHT_JSON_OUTPUT_NAME: pwJson });
  const p = readJson(pwJson);
  if (p?.stats) {
    const ok = (p.stats.expected ?? 0) + (p.stats.flaky ?? 0);
    const bad = p.stats.unexpected ?? 0;
    passed += ok;
    failed += bad;
    lines.push(`e2e: ${ok} passed, ${bad} failed, ${p.stats.skipped ?? 0} skipped (${e2e.seconds}s)`);
    for (const f of failedSpecs(p.suites ?? [])) lines.push(`  ✗ ${f}`);
    for (const f of flakySpecs(p.suites ?? [])) lines.push(`  ~ ${f}: passed on a retry`);
    if (!e2e.ok && bad === 0) {
      failed += 1;
      lines.push('e2e: playwright exited non-zero without a failed test (see above)');
    }
  } else {
    failed += 1;
    lines.push('e2e: playwright wrote no report (see above)');
  }
} else {
  lines.push('e2e: not run (the build failed)');
}

console.log('\n=== summary');
for (const l of lines) console.log(l);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
