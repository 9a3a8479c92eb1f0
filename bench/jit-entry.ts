/**
 * The replay bench/profile-jit.ts runs in a child node (bundled by esbuild so V8's positions are
 * readable lines): the replay of the given policies on a generated Claude Code session, `rounds`
 * times in one process, each round's CPU of this thread and of the whole process (V8's background
 * compiler and GC threads included) printed as `round N thread MS process MS`.
 *
 *   node bundle.mjs TURNS [ROUNDS] [policy,policy]
 */
import { importBytes } from '../lib/formats/import';
import { replayView } from '../lib/engine/replay';
import { threadCpuMs } from '../tests/cpu';
import { makeClaudeCodeSession } from './generate';

const turns = Number(process.argv[2] ?? 1000);
const rounds = Number(process.argv[3] ?? 1);
const policies = process.argv[4] ? process.argv[4].split(',') : undefined;
const log = importBytes(`cc-${turns}.jsonl`, new TextEncoder().encode(makeClaudeCodeSession(turns))).transcript;
for (let r = 1; r <= rounds; r++) {
  const u0 = process.cpuUsage();
  const t0 = threadCpuMs();
  // A fresh log each round: replayView's cache is per log object.
  replayView(r === 1 ? log : { ...log }, policies ? { policies } : {});
  const u = process.cpuUsage(u0);
  console.log(`round ${r} thread ${(threadCpuMs() - t0).toFixed(0)} process ${((u.user + u.system) / 1000).toFixed(0)}`);
}
