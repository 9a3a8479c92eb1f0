/**
 * Profile helper: the auto pipeline (budget 25 %) on a generated session, timed best of 5.
 *   npx tsx bench/profile-pipeline.ts [turns]          time it (CPU ms, best of 5)
 *   node --cpu-prof … on an esbuild bundle of this file  profile it with real line numbers
 */
import { projectTranscript } from '../lib/compaction/project';
import type { Step } from '../lib/compaction/types';
import { generateSession } from './compaction';

const turns = Number(process.argv[2] ?? 10_000);
const t = generateSession(turns);
let total = 0;
for (const m of t.messages) for (const b of m.blocks) total += b.tokens;
const step: Step = { id: 's', range: { kind: 'after-last-compaction' }, reducers: [{ id: 'auto' }], keepLast: 1, budget: Math.floor(total / 4), createdAt: '2026-01-01T00:00:00Z' };
let best = Infinity;
// CPU time of this thread: on a shared machine the wall clock mostly measures the neighbours.
for (let i = 0; i < 5; i++) {
  const c0 = process.cpuUsage();
  const p = projectTranscript(t, [step]);
  const c = process.cpuUsage(c0);
  best = Math.min(best, (c.user + c.system) / 1000);
  if (i === 0) console.log(`${turns} turns, ${t.messages.length} messages: ${p.tokens.before.total} → ${p.tokens.after.total} tokens (budget ${step.budget}); ${p.report.map((r) => `${r.reducer} ${r.tokensBefore - r.tokensAfter}`).join(', ')}`);
}
console.log(`projectTranscript best of 5 (CPU): ${best.toFixed(0)} ms`);
