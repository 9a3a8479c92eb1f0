/**
 * The page's main-thread tasks in a DevTools trace, judged by the CPU time the thread spent in each
 * (the trace's thread duration, `tdur`), not by wall time (`dur`).
 *
 * A task's wall time counts every moment the thread waited for a core: on a machine whose cores
 * are busy with other work a 20 ms task reads 60 ms, and the Long Tasks API (wall time) reports it.
 * Its thread time is the CPU the page's own work used, which a busy machine does not stretch; a
 * task that really does 50 ms of work still measures 50 ms. e2e/long.spec.ts records a trace and
 * holds each task to its phase's limit with `judgeTrace`.
 *
 * As a command, it summarizes a trace (e2e/long.spec.ts writes one with CONTEXTSCOPE_TRACE=f.json):
 * the main-thread tasks whose CPU time is at least N ms, each with what filled it (scripts, events,
 * style, layout, paint, compositor commit), so a long task can be blamed without DevTools.
 *
 *   node scripts/trace-tasks.mjs trace.json [--min 20]
 */
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';

/** The task events: `RunTask` (devtools.timeline) and `ThreadControllerImpl::RunTask` (toplevel). */
const TASK_NAMES = new Set(['RunTask', 'ThreadControllerImpl::RunTask']);

/** The prefix of the performance marks (blink.user_timing) that start a phase. */
export const PHASE_MARK = 'cs-phase:';

const key = (e) => `${e.pid}:${e.tid}`;

/**
 * The page's main thread: the CrRendererMain thread that holds the phase marks, else the only
 * CrRendererMain in the trace. Throws when it cannot tell.
 */
export function pageThread(traceEvents) {
  const names = new Map();
  for (const e of traceEvents) if (e.name === 'thread_name' && e.args?.name) names.set(key(e), e.args.name);
  const mains = [...names].filter(([, n]) => n === 'CrRendererMain').map(([k]) => k);
  const marked = new Set(traceEvents.filter((e) => typeof e.name === 'string' && e.name.startsWith(PHASE_MARK) && mains.includes(key(e))).map(key));
  if (marked.size === 1) return [...marked][0];
  if (marked.size > 1) throw new Error(`phase marks on ${marked.size} renderer main threads: cannot tell which is the page's`);
  if (mains.length === 1) return mains[0];
  throw new Error(mains.length === 0 ? "no events of a page's main thread (CrRendererMain) in the trace" : `${mains.length} renderer main threads and no phase marks: cannot tell which is the page's`);
}

/**
 * The outermost tasks of one thread, in time order, in ms: start (`ts`, trace clock), wall time
 * (`wallMs`) and CPU time (`cpuMs`, undefined when the trace has no thread duration for it).
 */
export function threadTasks(traceEvents, thread) {
  const all = traceEvents.filter((e) => e.ph === 'X' && TASK_NAMES.has(e.name) && key(e) === thread).sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const tasks = [];
  let end = -Infinity;
  for (const e of all) {
    if (e.ts < end) continue; // nested in the task before (RunTask inside ThreadControllerImpl::RunTask)
    end = e.ts + (e.dur ?? 0);
    tasks.push({ ts: e.ts, wallMs: (e.dur ?? 0) / 1000, cpuMs: typeof e.tdur === 'number' ? e.tdur / 1000 : undefined, event: e });
  }
  return tasks;
}

/**
 * Every task of the page's main thread with its phase (the last phase mark at or before its start;
 * 'before' ahead of the first), and the tasks whose CPU time reaches their phase's limit
 * (`limits[phase] ?? limits.default`, ms). A task with no thread duration cannot be judged by CPU:
 * the judgement throws rather than fall back to wall time.
 */
export function judgeTrace(traceEvents, limits) {
  const thread = pageThread(traceEvents);
  const marks = traceEvents
    .filter((e) => typeof e.name === 'string' && e.name.startsWith(PHASE_MARK) && key(e) === thread)
    .map((e) => ({ ts: e.ts, phase: e.name.slice(PHASE_MARK.length) }))
    .sort((a, b) => a.ts - b.ts);
  const tasks = threadTasks(traceEvents, thread).map((t) => {
    let phase = 'before';
    for (const m of marks) if (m.ts <= t.ts) phase = m.phase;
    return { phase, ts: t.ts, wallMs: t.wallMs, cpuMs: t.cpuMs };
  });
  if (tasks.length === 0) throw new Error("no tasks on the page's main thread in the trace");
  const untimed = tasks.filter((t) => t.cpuMs === undefined);
  if (untimed.length) throw new Error(`${untimed.length} of ${tasks.length} tasks have no thread duration (tdur): the trace cannot tell CPU time from waiting`);
  const limitOf = (phase) => limits[phase] ?? limits.default;
  const long = tasks.filter((t) => t.cpuMs >= limitOf(t.phase));
  return { thread, phases: marks.map((m) => m.phase), tasks, long };
}

/** What a child event is reported as (null: not worth a column). */
const BLAMED = new Set(['TimerFire', 'FireAnimationFrame', 'Layout', 'UpdateLayoutTree', 'Paint', 'PrePaint', 'Layerize', 'Commit', 'RunMicrotasks', 'HitTest', 'MajorGC', 'MinorGC', 'ParseHTML']);
function label(e) {
  const data = e.args?.data ?? {};
  if (e.name === 'EventDispatch') return `event:${data.type ?? '?'}`;
  if (e.name === 'FunctionCall') return `script:${data.functionName || '(anonymous)'}`;
  return BLAMED.has(e.name) ? e.name : null;
}

/** The command: one line per task of at least minMs (CPU time; wall time for a trace without it). */
export function summarize(traceEvents, minMs) {
  const thread = pageThread(traceEvents);
  const events = traceEvents.filter((e) => e.ph === 'X' && key(e) === thread);
  const t0 = Math.min(...events.map((e) => e.ts));
  const tasks = threadTasks(traceEvents, thread).filter((t) => (t.cpuMs ?? t.wallMs) >= minMs);
  const lines = [];
  for (const task of tasks) {
    const end = task.ts + task.wallMs * 1000;
    const parts = new Map();
    for (const e of events) {
      if (e === task.event || TASK_NAMES.has(e.name) || e.ts < task.ts || e.ts >= end) continue;
      const name = label(e);
      if (name) parts.set(name, (parts.get(name) ?? 0) + (e.tdur ?? e.dur ?? 0) / 1000);
    }
    const top = [...parts].sort((a, b) => b[1] - a[1]).slice(0, 8);
    const cpu = task.cpuMs === undefined ? 'CPU      ?' : `CPU ${task.cpuMs.toFixed(1).padStart(6)}`;
    lines.push(`${((task.ts - t0) / 1000).toFixed(0).padStart(7)} ms  task ${cpu} ms (wall ${task.wallMs.toFixed(1)}): ${top.map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ')}`);
  }
  lines.push(`${tasks.length} task(s) of ${minMs} ms or more on the main thread`);
  return lines.join('\n') + '\n';
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const minAt = args.indexOf('--min');
  const file = args.find((a, i) => !a.startsWith('--') && (minAt < 0 || i !== minAt + 1));
  const minMs = minAt >= 0 ? Number(args[minAt + 1]) : 20;
  if (!file) {
    process.stderr.write('Usage: node scripts/trace-tasks.mjs trace.json [--min 20]\n');
    process.exit(2);
  }
  try {
    process.stdout.write(summarize(JSON.parse(fs.readFileSync(file, 'utf8')).traceEvents, minMs));
  } catch (e) {
    process.stderr.write(`${file}: ${e.message}\n`);
    process.exit(1);
  }
}
