/**
 * Summarize a DevTools trace (written by e2e/long.spec.ts with CONTEXTSCOPE_TRACE=file.json): the
 * page's main-thread tasks of at least N ms, each with what filled it (scripts, events, style,
 * layout, paint, compositor commit), so a long task can be blamed without opening DevTools.
 *
 *   node scripts/trace-tasks.mjs trace.json [--min 20]
 */
import fs from 'node:fs';

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--'));
const minAt = args.indexOf('--min');
const minMs = minAt >= 0 ? Number(args[minAt + 1]) : 20;
if (!file) {
  process.stderr.write('Usage: node scripts/trace-tasks.mjs trace.json [--min 20]\n');
  process.exit(2);
}

const { traceEvents } = JSON.parse(fs.readFileSync(file, 'utf8'));
const threadName = new Map();
for (const e of traceEvents) if (e.name === 'thread_name') threadName.set(`${e.pid}:${e.tid}`, e.args.name);
const main = traceEvents.filter((e) => e.ph === 'X' && threadName.get(`${e.pid}:${e.tid}`) === 'CrRendererMain');
if (main.length === 0) {
  process.stderr.write(`${file}: no events of the page's main thread (CrRendererMain).\n`);
  process.exit(1);
}
const t0 = Math.min(...main.map((e) => e.ts));
/** What a child event is reported as (null: not worth a column). */
const BLAMED = new Set(['TimerFire', 'FireAnimationFrame', 'Layout', 'UpdateLayoutTree', 'Paint', 'PrePaint', 'Layerize', 'Commit', 'RunMicrotasks', 'HitTest', 'MajorGC', 'MinorGC', 'ParseHTML']);
function label(e) {
  const data = e.args?.data ?? {};
  if (e.name === 'EventDispatch') return `event:${data.type ?? '?'}`;
  if (e.name === 'FunctionCall') return `script:${data.functionName || '(anonymous)'}`;
  return BLAMED.has(e.name) ? e.name : null;
}
const tasks = main.filter((e) => e.name === 'RunTask' && e.dur >= minMs * 1000).sort((a, b) => a.ts - b.ts);
for (const task of tasks) {
  const end = task.ts + task.dur;
  const parts = new Map();
  for (const e of main) {
    if (e === task || e.name === 'RunTask' || e.ts < task.ts || e.ts >= end) continue;
    const name = label(e);
    if (name) parts.set(name, (parts.get(name) ?? 0) + (e.dur ?? 0) / 1000);
  }
  const top = [...parts].sort((a, b) => b[1] - a[1]).slice(0, 8);
  process.stdout.write(`${((task.ts - t0) / 1000).toFixed(0).padStart(7)} ms  task ${(task.dur / 1000).toFixed(1).padStart(6)} ms: ${top.map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ')}\n`);
}
process.stdout.write(`${tasks.length} task(s) of ${minMs} ms or more on the main thread\n`);
