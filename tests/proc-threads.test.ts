import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { describeThreads, threadCpu, v8Background } from '../bench/proc-threads';

describe('bench/proc-threads', () => {
  it('sorts the renderer CPU into the engine worker, V8 background threads, the page, compositing and the rest', () => {
    const before = new Map([
      ['renderer DedicatedWorker', 1000],
      ['renderer ThreadPoolForeg', 500],
    ]);
    const after = new Map([
      ['renderer DedicatedWorker', 5750],
      ['renderer ThreadPoolForeg', 7450],
      ['renderer chromium', 840],
      ['renderer Compositor', 690],
      ['gpu-process VizCompositorTh', 400],
      ['browser chromium', 80],
    ]);
    expect(describeThreads(before, after)).toBe("CPU meanwhile: engine worker 4.8 s, V8's background threads 7.0 s, page 840 ms, compositing 1.1 s, other 80 ms");
  });

  it("splits V8's background threads into JIT compiles and GC from a trace: outermost events of the pool's threads, by thread time", () => {
    const X = (tid: number, name: string, ts: number, dur: number, tdur?: number) => ({ ph: 'X', pid: 7, tid, name, ts, dur, ...(tdur !== undefined && { tdur }) });
    const events = [
      { ph: 'M', pid: 7, tid: 1, name: 'thread_name', args: { name: 'ThreadPoolForegroundWorker' } },
      { ph: 'M', pid: 7, tid: 2, name: 'thread_name', args: { name: 'ThreadPoolForegroundWorker' } },
      { ph: 'M', pid: 7, tid: 3, name: 'thread_name', args: { name: 'DedicatedWorker thread' } },
      X(1, 'V8.TurbofanTask', 0, 5000, 4000),
      X(1, 'V8.OptimizeBackground', 100, 4000, 3500), // nested in the task: counted once
      X(1, 'V8.GC_SCAVENGER_BACKGROUND_SCAVENGE_PARALLEL', 6000, 300, 250),
      X(2, 'V8.MaglevTask', 0, 2000), // no thread time: its wall time
      X(2, 'RasterTask', 3000, 100, 100),
      X(3, 'V8.TurbofanTask', 0, 9000, 9000), // not a pool thread
    ];
    expect(v8Background(events)).toEqual({ compile: 6, gc: 0.25, other: 0.1 });
    const before = new Map([['renderer ThreadPoolForeg', 0]]);
    const after = new Map([['renderer ThreadPoolForeg', 6400]]);
    expect(describeThreads(before, after, { compile: 5800, gc: 480, other: 120 })).toBe("CPU meanwhile: engine worker 0 ms, V8's background threads 6.4 s (of it JIT compiles 5.8 s, GC 480 ms), page 0 ms, compositing 0 ms, other 0 ms");
    expect(v8Background([X(1, 'V8.TurbofanTask', 0, 5000, 4000)]), 'no pool thread named: nothing to split').toBeUndefined();
  });

  it.runIf(process.platform === 'linux')("counts a process's descendants: an idle child's busy child", async () => {
    // The child starts a grandchild that spins, and waits; only the grandchild uses the CPU.
    const spin = 'const t = Date.now(); while (Date.now() - t < 20000) {}';
    const child = spawn(process.execPath, ['-e', `const g = require('child_process').spawn(process.execPath, ['-e', ${JSON.stringify(spin)}]); process.on('SIGTERM', () => { g.kill(); process.exit(); }); setTimeout(() => {}, 20000);`]);
    try {
      const total = () => [...(threadCpu(child.pid) ?? [])].reduce((n, [, ms]) => n + ms, 0);
      // A node process starts on ~50 ms of CPU; past 400 ms, the grandchild's spin is counted (polled: a loaded machine only makes it later).
      const deadline = Date.now() + 15_000;
      while (total() < 400 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(total()).toBeGreaterThanOrEqual(400);
    } finally {
      child.kill();
    }
  }, 20_000);
});
