/**
 * CPU time of the calling thread, for tests that bound how long a step may take.
 *
 * process.cpuUsage() is the whole process's: under vitest's thread pool (two workers) it counts
 * the other worker's test too, so a bound on it fails whenever a heavy test runs beside it. On
 * Linux each thread's own user and system time is in /proc/thread-self/stat (fields 14 and 15, in
 * clock ticks of 10 ms); elsewhere this falls back to the process's time, which only errs high.
 */
import fs from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

function fromProc(): number | undefined {
  try {
    const stat = fs.readFileSync('/proc/thread-self/stat', 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count from after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return Number.isFinite(utime) && Number.isFinite(stime) ? (utime + stime) * TICK_MS : undefined;
  } catch {
    return undefined;
  }
}

const hasProc = fromProc() !== undefined;

/** Milliseconds of CPU this thread has used (10 ms resolution on Linux). */
export function threadCpuMs(): number {
  if (hasProc) return fromProc()!;
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
}

/** Runs fn and returns its result with the CPU milliseconds this thread spent in it. */
export function withThreadCpu<T>(fn: () => T): { value: T; ms: number } {
  const t0 = threadCpuMs();
  const value = fn();
  return { value, ms: threadCpuMs() - t0 };
}
