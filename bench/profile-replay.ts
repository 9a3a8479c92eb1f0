/**
 * Profile helper: the replay the Replay page and the Policies overlay wait for (issue 31), per
 * policy, in Node — CPU ms of this thread (tests/cpu.ts) of `simulate(log, [policy])` on generated
 * Claude Code sessions (bench/generate.ts), less the per-log work every call of `simulate` does
 * (`simulate(log, [])`: calls, calibration, the "as recorded" cache fit), printed on its own line,
 * and the log's lost-identifier index (built once per log, by whichever policy compacts first), on its own.
 *
 *   npx tsx bench/profile-replay.ts [turns,turns,…] [--policies id,id]   default 1000,2000
 */
import { importBytes } from '../lib/formats/import';
import { prepareLostIdentifiers } from '../lib/compaction/lost';
import { simulate } from '../lib/simulate/calls';
import { REPLAY_POLICIES } from '../lib/simulate/policies/replay';
import { threadCpuMs } from '../tests/cpu';
import { makeClaudeCodeSession } from './generate';

const sizes = (process.argv[2] && !process.argv[2].startsWith('--') ? process.argv[2] : '1000,2000').split(',').map(Number);
const pi = process.argv.indexOf('--policies');
const ids = pi > 0 ? process.argv[pi + 1].split(',') : undefined;
const policies = REPLAY_POLICIES.filter((p) => !ids || ids.includes(p.id));

const rows = new Map<string, number[]>();
const cpu = <T>(fn: () => T): [T, number] => {
  const c0 = threadCpuMs();
  const v = fn();
  return [v, threadCpuMs() - c0];
};
for (const turns of sizes) {
  const log = importBytes(`cc-${turns}.jsonl`, new TextEncoder().encode(makeClaudeCodeSession(turns))).transcript;
  const [, base] = cpu(() => simulate(log, []));
  (rows.get('(per log)') ?? rows.set('(per log)', []).get('(per log)')!).push(base);
  // The log's lost-identifier index is built once, by the first policy that compacts: on its own
  // row, not in that policy's (it made Auto, the first, look slower than it is).
  const [, lostIndex] = cpu(() => prepareLostIdentifiers(log));
  (rows.get('(lost-identifier index, once per log)') ?? rows.set('(lost-identifier index, once per log)', []).get('(lost-identifier index, once per log)')!).push(lostIndex);
  let total = lostIndex;
  for (const p of policies) {
    const [s, ms] = cpu(() => simulate(log, [p]));
    const own = Math.max(0, ms - base);
    total += own;
    (rows.get(p.id) ?? rows.set(p.id, []).get(p.id)!).push(own);
    if (process.argv.includes('--verbose')) console.log(turns, p.id, own.toFixed(0), 'fires', s.results[0].totals.compactions);
  }
  (rows.get('all policies') ?? rows.set('all policies', []).get('all policies')!).push(total);
}
const growth = sizes.length > 1 ? ` | ${sizes[0]} → ${sizes[sizes.length - 1]}` : '';
console.log(`| policy (CPU ms) | ${sizes.map((n) => `${n} turns`).join(' | ')}${growth} |`);
console.log(`|---|${sizes.map(() => '---:|').join('')}${growth ? '---:|' : ''}`);
for (const [id, v] of rows) console.log(`| ${id} | ${v.map((x) => x.toFixed(0)).join(' | ')}${growth ? ` | ${(v[v.length - 1] / Math.max(1, v[0])).toFixed(1)}× |` : ' |'}`);
