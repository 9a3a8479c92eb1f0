/**
 * `npm test`'s stages (scripts/test-all.mjs), run for real with every tool it starts replaced by a
 * stub that logs when it started and ended and writes the report the real one would: the unit
 * stage first, with only the clients' install beside it; then the clients with the two type checks
 * beside them; then the build (told that the type checks ran: CONTEXTSCOPE_TYPECHECKED, which
 * next.config.mjs reads); e2e only once they have all ended, and only when the build passed. The summary keeps its lines (in
 * their order) and its closing `N passed, N failed`.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(__dirname, '..');

// One stub for vitest, tsc, tsx (the clients script), next and playwright. It appends
// `{ name, at: 'start' | 'end', t }` to $STUB_LOG; the clients stub stays until it has seen the app
// type check start (10 s at most), so it ran beside the clients only if its start is logged before
// the clients' end; the vitest stub waits the same way for the clients' install. $STUB_FAIL lists the stubs that exit 1.
const STUB = `#!/usr/bin/env node
const fs = require('node:fs');
const path = require('node:path');
const args = process.argv.slice(2);
const tool = path.basename(process.argv[1]);
const name = tool === 'tsc' ? 'tsc ' + args[args.indexOf('-p') + 1] : tool === 'tsx' && args.includes('--install-only') ? 'tsx install' : tool;
const log = (at) => fs.appendFileSync(process.env.STUB_LOG, JSON.stringify({ name, at, t: Date.now(), typechecked: process.env.CONTEXTSCOPE_TYPECHECKED ?? null }) + '\\n');
const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
const started = (other) => fs.readFileSync(process.env.STUB_LOG, 'utf8').includes(JSON.stringify({ name: other, at: 'start' }).slice(0, -1));
log('start');
if (tool === 'vitest') {
  for (let i = 0; i < 100 && !started('tsx install'); i++) sleep(100);
  sleep(200);
  const out = args.find((a) => a.startsWith('--outputFile.json=')).split('=')[1];
  fs.writeFileSync(out, JSON.stringify({ numPassedTests: 5, numFailedTests: 0, testResults: [] }));
} else if (name === 'tsx install') {
  sleep(300);
} else if (tool === 'tsx') {
  for (let i = 0; i < 100 && !started('tsc tsconfig.json'); i++) sleep(100);
  sleep(200);
  fs.writeFileSync(args[args.indexOf('--json') + 1], JSON.stringify([{ pass: true }, { pass: true }]));
} else if (tool === 'playwright') {
  fs.writeFileSync(process.env.PLAYWRIGHT_JSON_OUTPUT_NAME, JSON.stringify({ stats: { expected: 3, unexpected: 0, flaky: 0, skipped: 1 }, suites: [] }));
} else sleep(300);
console.log(name + ' says hello');
log('end');
process.exit((process.env.STUB_FAIL || '').split(',').includes(name) ? 1 : 0);
`;

interface Event {
  name: string;
  at: 'start' | 'end';
  t: number;
  typechecked: string | null;
}

function runTestAll(fail: string[]): { code: number | null; summary: string[]; stdout: string; events: Event[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-test-all-'));
  try {
    fs.mkdirSync(path.join(dir, 'scripts'));
    for (const f of ['test-all.mjs', 'test-summary.mjs', 'find-browser.mjs']) fs.copyFileSync(path.join(root, 'scripts', f), path.join(dir, 'scripts', f));
    const bin = path.join(dir, 'node_modules', '.bin');
    fs.mkdirSync(bin, { recursive: true });
    for (const tool of ['vitest', 'tsc', 'tsx', 'next', 'playwright']) fs.writeFileSync(path.join(bin, tool), STUB, { mode: 0o755 });
    const stubLog = path.join(dir, 'stub.log');
    fs.writeFileSync(stubLog, '');
    // CHROMIUM_PATH: any executable file will do, the e2e stub never starts it.
    const r = spawnSync(process.execPath, [path.join(dir, 'scripts', 'test-all.mjs')], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, STUB_LOG: stubLog, STUB_FAIL: fail.join(','), CHROMIUM_PATH: process.execPath },
    });
    const out = r.stdout;
    const summary = out.slice(out.lastIndexOf('=== summary')).trim().split('\n').slice(1);
    const events = fs.readFileSync(stubLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Event);
    return { code: r.status, summary: summary.map((l) => l.replace(/\(\d+s\)/, '(Ns)')), stdout: out, events };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const when = (events: Event[], name: string, at: 'start' | 'end') => {
  const e = events.find((x) => x.name === name && x.at === at);
  if (!e) throw new Error(`${name} has no ${at} in ${JSON.stringify(events)}`);
  return e.t;
};

describe('npm test (scripts/test-all.mjs): the stages and their order', () => {
  it('unit with the clients install beside it; the type checks beside the clients; then the build; e2e after all of them; the summary sums every stage', () => {
    const { code, summary, stdout, events } = runTestAll([]);
    expect(summary).toEqual([
      'unit: 5 passed, 0 failed, 0 files failed to load (Ns)',
      'clients: 2 passed, 0 failed (Ns)',
      'typecheck app: passed (Ns)',
      'typecheck worker: passed (Ns)',
      'build: passed (Ns)',
      'e2e: 3 passed, 0 failed, 1 skipped (Ns)',
      '13 passed, 0 failed',
    ]);
    expect(code).toBe(0);
    const unitEnd = when(events, 'vitest', 'end');
    for (const s of ['tsx', 'tsc tsconfig.json', 'next']) expect(when(events, s, 'start'), s).toBeGreaterThanOrEqual(unitEnd);
    // The clients' install beside the unit stage; the clients and the type checks after it.
    expect(when(events, 'tsx install', 'start')).toBeLessThan(unitEnd);
    for (const s of ['tsx', 'tsc tsconfig.json']) expect(when(events, s, 'start'), s).toBeGreaterThanOrEqual(when(events, 'tsx install', 'end'));
    // Only the build is told the type checks ran (next.config.mjs then skips its own).
    expect(events.filter((e) => e.typechecked !== null).map((e) => [e.name, e.at, e.typechecked])).toEqual([['next', 'start', '1'], ['next', 'end', '1']]);
    // Beside the clients stage: the first type check starts before it ends; the build after both.
    expect(when(events, 'tsc tsconfig.json', 'start')).toBeLessThan(when(events, 'tsx', 'end'));
    for (const s of ['tsx', 'tsc workers/tsconfig.json']) expect(when(events, 'next', 'start'), s).toBeGreaterThanOrEqual(when(events, s, 'end'));
    // The type checks one after the other; e2e once every other stage has ended.
    expect(when(events, 'tsc workers/tsconfig.json', 'start')).toBeGreaterThanOrEqual(when(events, 'tsc tsconfig.json', 'end'));
    const e2eStart = when(events, 'playwright', 'start');
    for (const s of ['tsx', 'tsc tsconfig.json', 'tsc workers/tsconfig.json', 'next']) expect(e2eStart, s).toBeGreaterThanOrEqual(when(events, s, 'end'));
    // The held output of a stage run beside is printed whole, under its own header.
    expect(stdout).toMatch(/=== typecheck worker: tsc --noEmit -p workers\/tsconfig.json \(ran beside the clients stage, \d+s\)\ntsc workers\/tsconfig.json says hello\n/);
    // The install's output is held until the unit stage has ended (no line inside vitest's log).
    expect(stdout).toMatch(/=== clients install: tsx scripts\/test-clients.ts --install-only \(ran beside the unit stage, \d+s\)\ntsx install says hello\n/);
    expect(stdout.indexOf('=== clients install')).toBeGreaterThan(stdout.indexOf('vitest says hello'));
  }, 60_000);

  it('a failed build is counted and e2e does not run; a failed type check is counted', () => {
    const { code, summary, events } = runTestAll(['next', 'tsc workers/tsconfig.json']);
    expect(summary).toEqual([
      'unit: 5 passed, 0 failed, 0 files failed to load (Ns)',
      'clients: 2 passed, 0 failed (Ns)',
      'typecheck app: passed (Ns)',
      'typecheck worker: FAILED (Ns)',
      'build: FAILED (Ns)',
      'e2e: not run (the build failed)',
      '8 passed, 2 failed',
    ]);
    expect(code).toBe(1);
    expect(events.some((e) => e.name === 'playwright')).toBe(false);
  }, 60_000);
});
