/**
 * Profile helper: what V8's optimizing compiler costs the replay (issue 31). The Replay page's
 * replay of 18 policies at 2,000 turns took the worker ~4.8 s of CPU, and Chromium's renderer ~6.9 s
 * more on its background threads (TurboFan compiles and GC) on the same 2 cores; in node, a cold
 * process spent ~8.8 s of CPU for 4.9 s of its main thread. A function that deoptimizes (an object
 * shape or a path its optimized code had not seen) is compiled again: this prints how often.
 *
 * It bundles bench/jit-entry.ts with esbuild, runs it in a child node twice: plain (CPU of the main
 * thread and of the process, a cold round then a warm one), then under --trace-opt --trace-deopt,
 * and prints TurboFan's compile time (the compiler's own timing, wall clock on its thread) in all,
 * in first compiles and in recompiles, the deopts, and the functions that cost most.
 *
 *   npx tsx bench/profile-jit.ts [turns] [--policies id,id] [--top N]     default 2000, every policy, 15
 */
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface JitFigures {
  compileMs: number;
  compiles: number;
  firstMs: number;
  recompileMs: number;
  deopts: number;
  functions: Array<{ name: string; ms: number; compiles: number }>;
}

/** TurboFan's compiles and deopts in a --trace-opt --trace-deopt log, per function (by its SharedFunctionInfo). */
export function parseJitLog(log: string): JitFigures {
  const re = /completed compiling 0x[0-9a-f]+ <JSFunction (\S*) ?\(sfi = (0x[0-9a-f]+)\)> \(target TURBOFAN\)(?: OSR)? - took ([\d.]+), ([\d.]+), ([\d.]+) ms/g;
  const bySfi = new Map<string, { name: string; ms: number; compiles: number; first: number }>();
  let compileMs = 0;
  let compiles = 0;
  for (const m of log.matchAll(re)) {
    const ms = Number(m[3]) + Number(m[4]) + Number(m[5]);
    compileMs += ms;
    compiles++;
    const e = bySfi.get(m[2]);
    if (e) {
      e.ms += ms;
      e.compiles++;
    } else bySfi.set(m[2], { name: m[1] || '(anonymous)', ms, compiles: 1, first: ms });
  }
  const firstMs = [...bySfi.values()].reduce((n, e) => n + e.first, 0);
  return {
    compileMs,
    compiles,
    firstMs,
    recompileMs: compileMs - firstMs,
    deopts: (log.match(/\[bailout \(kind/g) ?? []).length,
    functions: [...bySfi.values()].sort((a, b) => b.ms - a.ms).map(({ name, ms, compiles: c }) => ({ name, ms, compiles: c })),
  };
}

async function main() {
  const argv = process.argv.slice(2);
  const turns = argv[0] && !argv[0].startsWith('--') ? Number(argv[0]) : 2000;
  const pi = argv.indexOf('--policies');
  const policies = pi >= 0 ? argv[pi + 1] : '';
  const ti = argv.indexOf('--top');
  const top = ti >= 0 ? Number(argv[ti + 1]) : 15;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'contextscope-jit-'));
  const bundle = path.join(dir, 'jit.mjs');
  await build({
    entryPoints: [path.join(import.meta.dirname, 'jit-entry.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: bundle,
    logLevel: 'error',
    banner: { js: "import { createRequire as __createRequire } from 'module'; const require = __createRequire(import.meta.url);" },
  });
  const run = (flags: string[], rounds: number) => execFileSync(process.execPath, [...flags, bundle, String(turns), String(rounds), policies], { encoding: 'utf8', maxBuffer: 512 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
  console.log(`## V8's compiler in the replay of ${policies || 'every policy'} at ${turns} turns (node ${process.version}, load ${os.loadavg()[0].toFixed(1)})`);
  for (const line of run([], 2).trim().split('\n')) {
    const m = /round (\d) thread (\d+) process (\d+)/.exec(line);
    if (m) console.log(`  ${m[1] === '1' ? 'cold' : 'warm'}: main thread ${m[2]} ms CPU, process ${m[3]} ms CPU (${(Number(m[3]) / Number(m[2])).toFixed(2)}× the thread)`);
  }
  const f = parseJitLog(run(['--trace-opt', '--trace-deopt'], 1));
  console.log(`  TurboFan: ${f.compiles} compiles, ${f.compileMs.toFixed(0)} ms (first compiles ${f.firstMs.toFixed(0)} ms, recompiles ${f.recompileMs.toFixed(0)} ms); ${f.deopts} deopts`);
  console.log(`  | function | compile ms | compiles |\n  |---|---:|---:|`);
  for (const fn of f.functions.slice(0, top)) console.log(`  | ${fn.name} | ${fn.ms.toFixed(0)} | ${fn.compiles} |`);
  fs.rmSync(dir, { recursive: true, force: true });
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
