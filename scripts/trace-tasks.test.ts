import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { judgeTrace, PHASE_MARK } from './trace-tasks.mjs';

const main = { pid: 1, tid: 7 };
const worker = { pid: 1, tid: 9 };
const other = { pid: 2, tid: 2 };
type At = typeof main;
/** A complete event: start and wall duration in ms, CPU (tdur) in ms when given. */
const ev = (at: At, name: string, ms: number, wall: number, cpu?: number, data?: object) => ({ ...at, ph: 'X', name, ts: ms * 1000, dur: wall * 1000, ...(cpu !== undefined && { tdur: cpu * 1000 }), ...(data && { args: { data } }) });
const mark = (at: At, phase: string, ms: number) => ({ ...at, ph: 'I', name: PHASE_MARK + phase, ts: ms * 1000 });
const names = [
  { ...main, ph: 'M', name: 'thread_name', args: { name: 'CrRendererMain' } },
  { ...worker, ph: 'M', name: 'thread_name', args: { name: 'DedicatedWorker thread' } },
  { ...other, ph: 'M', name: 'thread_name', args: { name: 'CrRendererMain' } }, // another renderer (a second tab)
];

describe('judging a trace by the CPU time of each task', () => {
  const trace = [
    ...names,
    ev(main, 'RunTask', 0, 400, 380), // before the first phase: not judged by a phase limit
    mark(main, 'open', 1_000),
    ev(main, 'RunTask', 1_000, 600, 150), // opening: 150 ms of CPU, under its 200 ms limit
    mark(main, 'scroll', 2_000),
    ev(main, 'RunTask', 2_010, 120, 20), // a busy machine: 120 ms wall, 20 ms of this thread's CPU
    ev(main, 'ThreadControllerImpl::RunTask', 2_200, 70, 55), // a real long task…
    ev(main, 'RunTask', 2_201, 68, 54), // …and its RunTask inside: counted once
    ev(main, 'RunTask', 2_300, 49.9, 49.9),
    ev(worker, 'RunTask', 2_000, 900, 900), // the worker's thread: not the page's
    ev(other, 'RunTask', 2_000, 900, 900), // another renderer
    mark(main, 'zoom', 3_000),
    ev(main, 'RunTask', 3_000, 50, 50), // 50 ms is long (the Long Tasks API's own threshold)
  ];

  it('holds each task to its phase limit by CPU, not wall time, on the marked main thread only', () => {
    const r = judgeTrace(trace, { default: 50, open: 200, before: Infinity });
    expect(r.thread).toBe('1:7');
    expect(r.phases).toEqual(['open', 'scroll', 'zoom']);
    expect(r.tasks.map((t) => [t.phase, t.cpuMs])).toEqual([['before', 380], ['open', 150], ['scroll', 20], ['scroll', 55], ['scroll', 49.9], ['zoom', 50]]);
    expect(r.long.map((t) => [t.phase, t.cpuMs, t.wallMs])).toEqual([['scroll', 55, 70], ['zoom', 50, 50]]);
    // Judged by wall time, the descheduled 20 ms task would have failed: the point of the change.
    expect(r.tasks.find((t) => t.cpuMs === 20)!.wallMs).toBeGreaterThan(50);
  });

  it('fails a long task in any phase, the opening by its own limit', () => {
    const slowOpen = [...trace, ev(main, 'RunTask', 1_700, 250, 240)];
    expect(judgeTrace(slowOpen, { default: 50, open: 200, before: Infinity }).long.map((t) => t.phase)).toEqual(['open', 'scroll', 'zoom']);
  });

  it('refuses a trace it cannot judge by CPU: no thread durations, no page thread', () => {
    const wallOnly = [...names, mark(main, 'scroll', 0), ev(main, 'RunTask', 10, 30)];
    expect(() => judgeTrace(wallOnly, { default: 50 })).toThrow('1 of 1 tasks have no thread duration (tdur)');
    expect(() => judgeTrace([names[1], ev(worker, 'RunTask', 0, 10, 10)], { default: 50 })).toThrow('no events of a page');
    expect(() => judgeTrace([...names, ev(main, 'RunTask', 0, 10, 10)], { default: 50 })).toThrow('2 renderer main threads and no phase marks');
  });
});

it('the command lists the main thread tasks over the threshold (by CPU) with what filled them, and only the main thread', () => {
  const traceEvents = [
    ...names.slice(0, 2),
    ev(main, 'RunTask', 1, 30, 28),
    ev(main, 'EventDispatch', 1.1, 12, 11, { type: 'scroll' }),
    ev(main, 'FunctionCall', 1.2, 11, 10, { functionName: 'onScroll' }),
    ev(main, 'Layout', 14, 9, 9),
    ev(main, 'RunTask', 40, 5, 5),
    ev(main, 'RunTask', 50, 90, 4), // waited 86 ms for a core: not listed
    ev(worker, 'RunTask', 1, 90, 90),
  ];
  const file = path.join(os.tmpdir(), `trace-tasks-${process.pid}.json`);
  fs.writeFileSync(file, JSON.stringify({ traceEvents }));
  try {
    const out = execFileSync(process.execPath, [path.join(__dirname, 'trace-tasks.mjs'), file, '--min', '20'], { encoding: 'utf8' });
    expect(out).toContain('task CPU   28.0 ms (wall 30.0): event:scroll 11.0, script:onScroll 10.0, Layout 9.0');
    expect(out).toContain('1 task(s) of 20 ms or more');
    expect(execFileSync(process.execPath, [path.join(__dirname, 'trace-tasks.mjs'), file], { encoding: 'utf8' })).toContain('1 task(s) of 20 ms or more');
  } finally {
    fs.rmSync(file, { force: true });
  }
});
