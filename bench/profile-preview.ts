/**
 * Profile helper: the inspector's preview path in the engine, as the app calls it (issue 31) — a
 * generated Claude Code session imported through the engine (fake IndexedDB), then the Plan
 * panel's default Auto step (half the context) previewed on a selection of ~30 % of the turns, a
 * second selection, and Apply. Prints the CPU ms of this thread per call and the size of the answer
 * that crosses to the main thread (structured clone, measured with v8.serialize).
 *
 *   npx tsx bench/profile-preview.ts [turns] [--warm] [--first]   --warm: the inspector's warm-up first
 *   node --cpu-prof … on an esbuild bundle of this file   profile it with real line numbers
 */
import 'fake-indexeddb/auto';
import v8 from 'node:v8';
import { engine, useEngineDatabase, useTokenPool } from '../lib/engine/api';
import { ORIGINAL_VERSION } from '../lib/engine/versions';
import { defaultPlan, planToDraft } from '../components/plan/plan';
import { threadCpuMs } from '../tests/cpu';
import { makeClaudeCodeSession } from './generate';

const turns = Number(process.argv[2] ?? 3000);
/** `--first`: stop after the first preview (profile the cold one alone). */
const firstOnly = process.argv.includes('--first');
useEngineDatabase(`profile-preview-${process.pid}`);
useTokenPool(undefined);

async function timed<T>(label: string, fn: () => Promise<T>): Promise<T> {
  const c0 = threadCpuMs();
  const w0 = performance.now();
  const v = await fn();
  console.log(`${label.padEnd(34)} CPU ${(threadCpuMs() - c0).toFixed(0).padStart(6)} ms  wall ${(performance.now() - w0).toFixed(0).padStart(6)} ms`);
  return v;
}

const text = makeClaudeCodeSession(turns);
const bytes = new TextEncoder().encode(text);
const out = await timed('import', () => engine.importFile(bytes, `cc-${turns}.jsonl`));
if (out.kind !== 'imported') throw new Error(JSON.stringify(out));
const id = out.meta.id;
const data = await timed('inspector head', () => engine.getInspectorData(id));
const context = data.timeline.turns[data.timeline.turns.length - 1].contextTotal;
const plan = defaultPlan(context);
const n = out.meta.turns;
if (process.argv.includes('--warm')) await timed('warm-up (the inspector opens)', () => engine.warmPreview(id));
const sel1: [number, number] = [Math.floor(n * 0.1), Math.floor(n * 0.1) + Math.floor(n * 0.3)];
const sel2: [number, number] = [Math.floor(n * 0.5), Math.floor(n * 0.5) + Math.floor(n * 0.3)];
const size = (v: unknown) => `${(v8.serialize(v).length / 1024).toFixed(0)} KB`;
for (const [label, sel] of [
  ['preview 1 (cold: reads the log)', sel1],
  ['preview 1 again', sel1],
  ['preview 2 (another range)', sel2],
] as const) {
  const draft = planToDraft(plan, 's-profile', sel as [number, number]);
  const p = await timed(label, () => engine.preview(id, { versionId: ORIGINAL_VERSION, draft, selection: sel as [number, number] }));
  if (p.kind !== 'preview') throw new Error(JSON.stringify(p));
  if (firstOnly) process.exit(0);
  console.log(`  → ${size(p)} to the main thread; changed ${p.preview.changed.size}, diff ${p.preview.diff.length}/${p.preview.diffTotal}, lost ${p.preview.lostTotal}; selection ${p.preview.tokens.selection?.before} → ${p.preview.tokens.selection?.after}`);
}
// Apply what the page shows: the last range's draft (the Plan panel keeps one step id until Apply).
await timed('apply (the last range)', () => engine.applyStep(id, ORIGINAL_VERSION, planToDraft(plan, 's-profile', sel2)!));
