/**
 * CPU time by thread of a process and its descendants, from Linux's /proc (the app bench's browser:
 * Chromium's processes are its children). The engine's worker is one thread of the renderer; V8
 * compiles and collects garbage for it on the renderer's `ThreadPoolForegroundWorker` threads, which
 * share the machine's cores with it: at 2,000 turns the Replay page's replay took the worker 4.75 s
 * and those threads 6.95 s (DESIGN-NOTES, session 20). Elsewhere than Linux: undefined.
 */
import fs from 'node:fs';

/** `process type thread name` → CPU ms (user + system), over the processes descended from `root` (itself included). */
export function threadCpu(root = process.pid): Map<string, number> | undefined {
  if (process.platform !== 'linux' || !fs.existsSync('/proc/self/task')) return undefined;
  const parent = new Map<number, number>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const st = read(`/proc/${name}/stat`);
    if (st) parent.set(Number(name), Number(fields(st)[1]));
  }
  const tick = 1000 / 100; // USER_HZ: 100 on every Linux the bench runs on
  const out = new Map<string, number>();
  for (const pid of parent.keys()) {
    let p: number | undefined = pid;
    while (p !== undefined && p !== root && p > 1) p = parent.get(p);
    if (p !== root) continue;
    const cmd = read(`/proc/${pid}/cmdline`) ?? '';
    const type = /--type=([\w-]+)/.exec(cmd)?.[1] ?? (cmd.includes('chrom') ? 'browser' : 'node');
    let tids: string[] = [];
    try {
      tids = fs.readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      const st = read(`/proc/${pid}/task/${tid}/stat`);
      if (!st) continue;
      const f = fields(st);
      const label = `${type} ${st.slice(st.indexOf('(') + 1, st.lastIndexOf(')'))}`;
      out.set(label, (out.get(label) ?? 0) + (Number(f[11]) + Number(f[12])) * tick);
    }
  }
  return out;
}

function read(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** The fields after the command name: [0] state, [1] ppid, …, [11] utime, [12] stime (proc(5)). */
function fields(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/**
 * Where the renderer's CPU went between two readings: the engine's worker(s), V8's background
 * threads, the page's main thread, compositing (the renderer's and the GPU process's), the rest.
 */
export function describeThreads(before: Map<string, number>, after: Map<string, number>, v8?: ReturnType<typeof v8Background>): string {
  const sum = { worker: 0, background: 0, main: 0, compositing: 0, other: 0 };
  for (const [label, ms] of after) {
    const d = ms - (before.get(label) ?? 0);
    if (d <= 0) continue;
    if (/^renderer DedicatedWorker/.test(label)) sum.worker += d;
    else if (/^renderer ThreadPoolForeg/.test(label)) sum.background += d;
    else if (/^renderer (chromium|CrRendererMain)/.test(label)) sum.main += d;
    else if (/^renderer Compositor|^gpu-process Viz/.test(label)) sum.compositing += d;
    else sum.other += d;
  }
  const s = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`);
  return `CPU meanwhile: engine worker ${s(sum.worker)}, V8's background threads ${s(sum.background)}${describeV8Background(v8)}, page ${s(sum.main)}, compositing ${s(sum.compositing)}, other ${s(sum.other)}`;
}

/** The trace categories that time V8's background work (bench/app.ts adds them to its trace of each action). */
export const V8_BACKGROUND_CATEGORIES = 'disabled-by-default-v8.compile,disabled-by-default-v8.gc';

/**
 * What V8's background threads did, from a DevTools trace with V8_BACKGROUND_CATEGORIES: CPU ms
 * (thread duration) of the outermost events on the renderers' `ThreadPoolForegroundWorker` threads —
 * optimizing compiles (TurboFan, Maglev) and garbage collection. At 2,000 turns the Replay page's
 * background CPU was ~90 % compiles (DESIGN-NOTES, session 21).
 */
export function v8Background(events: ReadonlyArray<{ name?: string; ph?: string; pid?: number; tid?: number; ts?: number; dur?: number; tdur?: number; args?: { name?: string } }>): { compile: number; gc: number; other: number } | undefined {
  const pool = new Set<string>();
  for (const e of events) if (e.name === 'thread_name' && /^ThreadPoolForegroundWorker/.test(e.args?.name ?? '')) pool.add(`${e.pid}:${e.tid}`);
  const byThread = new Map<string, Array<{ name: string; ts: number; dur: number; cpu: number }>>();
  for (const e of events) {
    const k = `${e.pid}:${e.tid}`;
    if (e.ph !== 'X' || !pool.has(k) || typeof e.ts !== 'number') continue;
    const list = byThread.get(k) ?? byThread.set(k, []).get(k)!;
    list.push({ name: e.name ?? '', ts: e.ts, dur: e.dur ?? 0, cpu: e.tdur ?? e.dur ?? 0 });
  }
  if (byThread.size === 0) return undefined;
  const out = { compile: 0, gc: 0, other: 0 };
  for (const list of byThread.values()) {
    list.sort((a, b) => a.ts - b.ts || b.dur - a.dur);
    let end = -Infinity;
    for (const e of list) {
      if (e.ts < end) continue; // nested in the event before
      end = e.ts + e.dur;
      const ms = e.cpu / 1000;
      if (/^V8\.(Turbofan|Maglev|OptimizeBackground|Compile)/.test(e.name)) out.compile += ms;
      else if (/^V8\.GC/.test(e.name)) out.gc += ms;
      else out.other += ms;
    }
  }
  return out;
}

/** " (JIT compiles 4.2 s, GC 480 ms)": the split v8Background found, for the "CPU meanwhile" line. */
export function describeV8Background(split: ReturnType<typeof v8Background>): string {
  if (!split) return '';
  const s = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`);
  return ` (of it JIT compiles ${s(split.compile)}, GC ${s(split.gc)})`;
}
