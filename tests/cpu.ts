/**
 * CPU time of the calling thread, for tests that bound how long a step may take.
 *
 * process.cpuUsage() is the whole process's: under vitest's thread pool (two workers) it counts
 * the other worker's test too, so a bound on it fails whenever a heavy test runs beside it. On
 * Linux each thread's own time on a CPU is in /proc/thread-self/schedstat (first field, in
 * nanoseconds, brought up to date at every scheduler tick and switch: about 1–4 ms fine), or, on a
 * kernel without scheduler statistics, in /proc/thread-self/stat (fields 14 and 15, user and
 * system time in clock ticks of 10 ms); elsewhere this falls back to the process's time, which
 * only errs high. Time the thread spends waiting for a core (a busy machine) counts in none.
 */
import fs from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

function fromSchedstat(): number | undefined {
  try {
    const ns = Number(fs.readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
    return Number.isFinite(ns) ? ns / 1e6 : undefined;
  } catch {
    return undefined;
  }
}

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

const hasSchedstat = fromSchedstat() !== undefined;
const hasProc = fromProc() !== undefined;

/** Milliseconds of CPU this thread has used (a few ms resolution on Linux). */
export function threadCpuMs(): number {
  if (hasSchedstat) return fromSchedstat()!;
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

/**
 * CPU milliseconds this thread spends in one run of fn: fn is run again and again until the runs
 * have used at least minMs of CPU (so the clock's resolution is a small part of the figure), and
 * the total is divided by the runs. For growth tests, which compare two sizes.
 */
export function cpuPerRun(fn: () => void, minMs = 40): number {
  const t0 = threadCpuMs();
  let runs = 0;
  let used = 0;
  do {
    fn();
    runs++;
    used = threadCpuMs() - t0;
  } while (used < minMs);
  return used / runs;
}
