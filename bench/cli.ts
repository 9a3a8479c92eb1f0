/**
 * The CLI as a user runs it (the built bundle, `node scripts/cli.mjs`), CPU time, one run each:
 *  - start-up: `compact --help`, best of 5;
 *  - `compact` on generated Claude Code sessions of 2k / 6k / 10k turns (bench/generate.ts);
 *  - `compact` on a ~200 MB generated Claude Code JSONL (peak RSS from /proc when available);
 *  - `inspect` and `compact` of an OpenAI Chat request with 100,000 tool schemas.
 * Inputs are written to a temporary directory and removed afterwards.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeClaudeCodeSession, makeManyToolsRequest } from './generate';

const CLI = path.join(process.cwd(), 'scripts', 'cli.mjs');

const TIME = '/usr/bin/time';

/**
 * Run the CLI; `ms` is its CPU time (user + system, from GNU time) when available, else the wall
 * clock: on a machine shared by many jobs the wall clock mostly measures the neighbours (10k turns:
 * 64 s wall for a few seconds of CPU at load 16 on 2 cores). `wallMs` is always the wall clock.
 */
function run(args: string[]): { ms: number; wallMs: number; cpu: boolean; rssMb?: number; code: number | null; stderr: string } {
  const t0 = performance.now();
  if (fs.existsSync(TIME)) {
    const out = path.join(os.tmpdir(), `cs-time-${process.pid}.txt`);
    const r = spawnSync(TIME, ['-o', out, '-f', '%U %S %M', process.execPath, CLI, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    const wallMs = performance.now() - t0;
    const [u, sys, kb] = fs.readFileSync(out, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
    fs.rmSync(out, { force: true });
    if (Number.isFinite(u) && Number.isFinite(sys)) return { ms: (u + sys) * 1000, wallMs, cpu: true, rssMb: kb / 1024, code: r.status, stderr: r.stderr };
    return { ms: wallMs, wallMs, cpu: false, code: r.status, stderr: r.stderr };
  }
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const wallMs = performance.now() - t0;
  return { ms: wallMs, wallMs, cpu: false, code: r.status, stderr: r.stderr };
}

const how = (r: ReturnType<typeof run>) => (r.cpu ? `CPU (wall ${(r.wallMs / 1000).toFixed(1)} s${r.rssMb ? `, peak RSS ${r.rssMb.toFixed(0)} MB` : ''})` : 'wall');

export interface CliFigures {
  startupMs: number;
  compact: Array<{ turns: number; ms: number; ok: boolean }>;
  bigMb: number;
  bigMs: number;
  bigOk: boolean;
  toolsInspectMs: number;
  toolsCompactMs: number;
  toolsOk: boolean;
}

export async function runCliBench(opts: { big?: boolean } = {}): Promise<CliFigures> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-bench-cli-'));
  try {
    console.log('\n## CLI (built bundle, CPU time of the process via GNU time, one run each)');
    run(['--help']); // builds the bundle when stale, warms the disk cache
    let startupMs = Infinity;
    let startupWall = Infinity;
    for (let i = 0; i < 5; i++) {
      const r = run(['compact', '--help']);
      startupMs = Math.min(startupMs, r.ms);
      startupWall = Math.min(startupWall, r.wallMs);
    }
    console.log(`start-up (compact --help, best of 5)          ${startupMs.toFixed(0).padStart(7)} ms   limit 500 ms   (wall ${startupWall.toFixed(0)} ms)`);
    const compact: CliFigures['compact'] = [];
    for (const turns of [2_000, 6_000, 10_000]) {
      const file = path.join(dir, `cc-${turns}.jsonl`);
      fs.writeFileSync(file, makeClaudeCodeSession(turns));
      const budget = turns * 50;
      const r = run(['compact', file, '--budget', String(budget), '--out', path.join(dir, 'out.jsonl')]);
      compact.push({ turns, ms: r.ms, ok: r.code === 0 });
      const prev = compact.length > 1 ? compact[compact.length - 2] : undefined;
      console.log(`compact ${String(turns).padStart(6)} turns (budget ${budget})      ${r.ms.toFixed(0).padStart(7)} ms${prev ? `   growth ${(r.ms / prev.ms).toFixed(1)}× for ${(turns / prev.turns).toFixed(1)}× turns` : ''}   ${how(r)}${r.code === 0 ? '' : `   FAILED: ${r.stderr.trim().split('\n').pop()}`}`);
      fs.rmSync(file);
    }
    let bigMb = 0;
    let bigMs = NaN;
    let bigOk = false;
    if (opts.big !== false) {
      const file = path.join(dir, 'big.jsonl');
      const fd = fs.openSync(file, 'w');
      for (let s = 0; bigMb < 200; s++) {
        const text = makeClaudeCodeSession(5_000, { session: s });
        fs.writeSync(fd, text);
        bigMb += Buffer.byteLength(text) / 1024 / 1024;
      }
      fs.closeSync(fd);
      const r = run(['compact', file, '--budget', '2000000', '--out', path.join(dir, 'big-out.jsonl')]);
      bigMs = r.ms;
      bigOk = r.code === 0;
      console.log(`compact ${bigMb.toFixed(0)} MB Claude Code JSONL               ${r.ms.toFixed(0).padStart(7)} ms   limit 60000 ms   ${how(r)}${bigOk ? '' : `   FAILED: ${r.stderr.trim().split('\n').pop()}`}`);
      fs.rmSync(file);
    }
    const tools = path.join(dir, 'tools.json');
    fs.writeFileSync(tools, makeManyToolsRequest(100_000));
    const ins = run(['inspect', tools]);
    const com = run(['compact', tools, '--budget', '200000', '--out', path.join(dir, 'tools-out.json')]);
    const toolsOk = ins.code === 0 && com.code === 0;
    console.log(`100,000 tool schemas (${(fs.statSync(tools).size / 1024 / 1024).toFixed(0)} MB): inspect ${ins.ms.toFixed(0)} ms ${how(ins)}, compact ${com.ms.toFixed(0)} ms ${how(com)}${toolsOk ? '' : '   FAILED'}`);
    return { startupMs, compact, bigMb, bigMs, bigOk, toolsInspectMs: ins.ms, toolsCompactMs: com.ms, toolsOk };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
