import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';

it('lists the main thread tasks over the threshold with what filled them, and only the main thread', () => {
  const main = { pid: 1, tid: 7 };
  const worker = { pid: 1, tid: 9 };
  const ev = (at: typeof main, name: string, ts: number, dur: number, data?: object) => ({ ...at, ph: 'X', name, ts, dur, ...(data && { args: { data } }) });
  const traceEvents = [
    { ...main, ph: 'M', name: 'thread_name', args: { name: 'CrRendererMain' } },
    { ...worker, ph: 'M', name: 'thread_name', args: { name: 'DedicatedWorker thread' } },
    ev(main, 'RunTask', 1_000, 30_000),
    ev(main, 'EventDispatch', 1_100, 12_000, { type: 'scroll' }),
    ev(main, 'FunctionCall', 1_200, 11_000, { functionName: 'onScroll' }),
    ev(main, 'Layout', 14_000, 9_000),
    ev(main, 'RunTask', 40_000, 5_000),
    ev(worker, 'RunTask', 1_000, 90_000),
  ];
  const file = path.join(os.tmpdir(), `trace-tasks-${process.pid}.json`);
  fs.writeFileSync(file, JSON.stringify({ traceEvents }));
  try {
    const out = execFileSync(process.execPath, [path.join(__dirname, 'trace-tasks.mjs'), file, '--min', '20'], { encoding: 'utf8' });
    expect(out).toContain('task   30.0 ms: event:scroll 12.0, script:onScroll 11.0, Layout 9.0');
    expect(out).toContain('1 task(s) of 20 ms or more');
  } finally {
    fs.rmSync(file, { force: true });
  }
});
