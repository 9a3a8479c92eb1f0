import { describe, expect, it } from 'vitest';
import { Worker } from 'node:worker_threads';
import { cpuPerRun, threadCpuMs } from './cpu';

describe('threadCpuMs (the bound used by the timing tests)', () => {
  it("counts this thread's work, and not the time it waits", async () => {
    // Busy until the clock says 100 ms of this thread's CPU: however busy the machine is, that
    // comes; a clock that does not move is cut by the wall-time cap (a minute) and fails.
    const t0 = threadCpuMs();
    const w0 = performance.now();
    while (threadCpuMs() - t0 < 100 && performance.now() - w0 < 60_000);
    expect(threadCpuMs() - t0).toBeGreaterThanOrEqual(100);
    // A sleep of 300 ms is not this thread's CPU (a wall clock would count it).
    const s0 = threadCpuMs();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(threadCpuMs() - s0).toBeLessThan(50);
  });

  it.runIf(process.platform === 'linux')("does not count another thread's work (process.cpuUsage does)", async () => {
    // The worker burns 600 ms of its own CPU (not of the wall clock, which a busy machine stretches).
    const worker = new Worker(
      "const fs = require('node:fs'); const cpu = () => Number(fs.readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6; const t = cpu(); while (cpu() - t < 600) {}",
      { eval: true },
    );
    const t0 = threadCpuMs();
    const p0 = process.cpuUsage();
    await new Promise<void>((resolve, reject) => {
      worker.once('exit', () => resolve());
      worker.once('error', reject);
    });
    const p = process.cpuUsage(p0);
    expect(threadCpuMs() - t0).toBeLessThan(150);
    expect((p.user + p.system) / 1000).toBeGreaterThan(300);
  });

  it('cpuPerRun divides the CPU of enough runs by their number', () => {
    let n = 0;
    const spin = () => {
      const t = threadCpuMs();
      n++;
      while (threadCpuMs() - t < 5);
    };
    const per = cpuPerRun(spin, 40);
    expect(n).toBeGreaterThanOrEqual(3); // each spin overshoots its 5 ms by up to a tick
    expect(per).toBeGreaterThanOrEqual(5);
    expect(per).toBeLessThan(15);
    expect(per * n).toBeGreaterThanOrEqual(40);
  });
});
