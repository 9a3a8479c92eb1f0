import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { describeThreads, threadCpu } from '../bench/proc-threads';

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
