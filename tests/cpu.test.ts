import { describe, expect, it } from 'vitest';
import { Worker } from 'node:worker_threads';
import { threadCpuMs } from './cpu';

describe('threadCpuMs (the bound used by the timing tests)', () => {
  it("counts this thread's work", () => {
    const t0 = threadCpuMs();
    const w0 = performance.now();
    while (performance.now() - w0 < 400); // busy: this thread's CPU, not a sleep
    // At least a quarter of the wall time, even on a machine busy with other processes.
    expect(threadCpuMs() - t0).toBeGreaterThanOrEqual(100);
  });

  it.runIf(process.platform === 'linux')("does not count another thread's work (process.cpuUsage does)", async () => {
    const worker = new Worker('const t = Date.now(); while (Date.now() - t < 600) {} ', { eval: true });
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
});
