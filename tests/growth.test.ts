/**
 * No quadratic path: the steps that were quadratic (issue 12) are timed at two sizes 8× apart and
 * must grow like the size (≈ 8×), not its square (≈ 64×). This thread's CPU time (tests/cpu.ts),
 * each figure the CPU of enough runs to be well above the clock's resolution divided by their
 * number, the best of 5 such figures per size taken in turn (small, large, small, …); limit 24×:
 * far below what a quadratic path shows. Not wall time: on a machine whose cores were busy with
 * other work the wall clock measured 16.9× and 25× for linear steps (issue 30), the neighbours'
 * share of the cores landing on one size more than the other. Not process.cpuUsage: under vitest's
 * thread pool it is the whole process's CPU, so the other worker's tests were counted in too.
 * The wall-clock figures are the bench's (`npm run bench -- growth`).
 *  - serializeClaudeRecords looked up each projected message with t.messages.find;
 *  - TranscriptBuilder.addTool checked every declared tool for a duplicate name (100k tool schemas);
 *  - the Anthropic Messages and Gemini serializers counted each record's messages with a filter
 *    over every message, once per written record.
 * The full pipeline's growth for every format is `npm run bench -- growth`.
 */
import { describe, expect, it } from 'vitest';
import { makeClaudeCodeSession, makeManyToolsRequest } from '../bench/generate';
import { importBytes } from '../lib/formats/import';
import { convertTranscript } from '../lib/formats/convert';
import { formatById } from '../lib/formats/registry';
import { projectTranscript } from '../lib/compaction/project';
import { TranscriptBuilder } from '../lib/model/builder';
import type { Step } from '../lib/compaction/types';
import type { Transcript } from '../lib/model/types';
import { cpuPerRun } from './cpu';

const LIMIT = 24;
/**
 * The tests' wall-clock timeout only guards against a hang: the measure is CPU. At 120 s the
 * anthropic-messages case timed out (126 s of wall time for its ~7 s of CPU) while its measure passed
 * (11.5×), on a 2-core machine at load average 18 (issue 30 follow-up).
 */
const HANG_GUARD_MS = 600_000;

/**
 * The generated Claude Code session of N turns, imported: made once per size for this file (the
 * anthropic-messages and gemini-api cases convert the same sessions; generating and importing
 * 8,000 turns costs ~2 s of CPU). Transcripts are frozen: sharing one changes nothing it measures.
 */
const claudeSessions = new Map<number, Transcript>();
function claudeSession(turns: number): Transcript {
  let t = claudeSessions.get(turns);
  if (!t) claudeSessions.set(turns, (t = importBytes('s.jsonl', new TextEncoder().encode(makeClaudeCodeSession(turns))).transcript));
  return t;
}

/**
 * Best CPU milliseconds per run of each function (this thread's) over up to `runs` alternating
 * rounds. Noise only adds CPU, so a best figure only falls with more rounds. After `minRuns`
 * rounds whose large / small ratio is already under `clearlyUnder` (0.6 of the limit), the last
 * rounds are skipped: to fail, they would have to find the small size 1.67× faster than its best
 * of three. A quadratic path measures 2.5–4× the linear ratio, above the stop from the first
 * round. (The 1.1 s of CPU per 8,000-turn run was two thirds of these tests.)
 */
function bestOfAlternating(fns: readonly (() => void)[], runs = 5, clearlyUnder = 0, minRuns = 3): number[] {
  const best = fns.map(() => Infinity);
  for (let i = 0; i < runs; i++) {
    fns.forEach((fn, k) => {
      best[k] = Math.min(best[k], cpuPerRun(fn));
    });
    if (i + 1 >= minRuns && best[1] / Math.max(best[0], 1) < clearlyUnder) break;
  }
  return best;
}

describe('growth (no quadratic path)', () => {
  it('serializing a compacted Claude Code session grows linearly (500 → 4000 turns)', () => {
    const serializer = (turns: number) => {
      const t = claudeSession(turns);
      const total = t.messages.reduce((n, m) => n + m.blocks.reduce((k, b) => k + b.tokens, 0), 0);
      const step: Step = { id: 's', range: { kind: 'after-last-compaction' }, reducers: [{ id: 'auto' }], keepLast: 1, budget: Math.floor(total / 4), createdAt: '2026-01-01T00:00:00Z' };
      const projection = projectTranscript(t, [step]);
      expect(projection.tokens.after.total).toBeLessThan(projection.tokens.before.total);
      const format = formatById('claude-code')!;
      return () => void format.serialize(t, projection);
    };
    serializer(200)(); // JIT warm-up
    const [small, large] = bestOfAlternating([serializer(500), serializer(4000)], 5, LIMIT * 0.6);
    console.log(`growth: Claude Code serialize ${small.toFixed(0)} → ${large.toFixed(0)} ms CPU (${(large / Math.max(small, 1)).toFixed(1)}×)`);
    expect(large / Math.max(small, 1), `serialize: ${small.toFixed(0)} ms CPU at 500 turns, ${large.toFixed(0)} ms at 4000`).toBeLessThan(LIMIT);
  }, HANG_GUARD_MS);

  for (const format of ['anthropic-messages', 'gemini-api']) {
    it(`serializing a compacted ${format} request grows linearly (1000 → 8000 turns)`, () => {
      const serializer = (turns: number) => {
        const cc = claudeSession(turns);
        const converted = convertTranscript(cc, format);
        const t = importBytes(converted.fileName, new TextEncoder().encode(converted.text)).transcript;
        expect(t.format).toBe(format);
        const total = t.messages.reduce((n, m) => n + m.blocks.reduce((k, b) => k + b.tokens, 0), 0);
        const step: Step = { id: 's', range: { kind: 'after-last-compaction' }, reducers: [{ id: 'auto' }], keepLast: 1, budget: Math.floor(total / 4), createdAt: '2026-01-01T00:00:00Z' };
        const projection = projectTranscript(t, [step]);
        const f = formatById(format)!;
        return () => void f.serialize(t, projection);
      };
      serializer(200)();
      const [small, large] = bestOfAlternating([serializer(1000), serializer(8000)], 5, 16 * 0.6);
      // 2× linear: here the quadratic part only shows past a few thousand turns (it measured
      // 10× for 500 → 4000 turns, 20–31× for 1000 → 8000; linear measures 7–8×).
      console.log(`growth: ${format} serialize ${small.toFixed(0)} → ${large.toFixed(0)} ms CPU (${(large / Math.max(small, 1)).toFixed(1)}×)`);
      expect(large / Math.max(small, 1), `${format} serialize: ${small.toFixed(0)} ms CPU at 1000 turns, ${large.toFixed(0)} ms at 8000`).toBeLessThan(16);
    }, HANG_GUARD_MS);
  }

  it('declaring tools grows linearly (10k → 80k schemas), and a 20k-tool request imports every tool', () => {
    // Counted, not timed: the quadratic version compared each new tool's name with every declared
    // one (n²/2 name reads: 50 M for 10k, which took 115 ms); a Set reads each name a fixed number
    // of times. Timing this step measured 13–17× for 8× the tools on a quiet machine (a Set of 80k
    // strings does not stay in the cache) and 25× on a busy one: too close to any limit to tell.
    const nameReads = (n: number) => {
      let reads = 0;
      const tool = (name: string) => ({
        get name() {
          // Stop a quadratic version early (80k tools would read 3.2 G names) with a clear failure.
          if (++reads > 10 * (n + 1)) throw new Error(`addTool read more than 10 names per tool (${n} tools): quadratic`);
          return name;
        },
        description: 'd',
      });
      const b = new TranscriptBuilder();
      for (let i = 0; i < n; i++) b.addTool(tool(`tool_${i}`));
      b.addTool(tool('tool_0')); // a duplicate: ignored
      return reads;
    };
    const small = nameReads(10_000);
    const large = nameReads(80_000);
    console.log(`growth: addTool reads a tool's name ${small} times for 10k tools, ${large} for 80k (${(large / small).toFixed(1)}×)`);
    expect(large / small, `addTool: ${small} name reads for 10k tools, ${large} for 80k`).toBeLessThanOrEqual(8.01);
    expect(large, 'name reads per tool').toBeLessThanOrEqual(4 * 80_001);
    const t = importBytes('req.json', new TextEncoder().encode(makeManyToolsRequest(20_000))).transcript;
    expect(t.format).toBe('openai-chat');
    expect(t.tools.length).toBe(20_000);
    expect(t.tools[19_999].name).toBe('tool_19999');
  }, HANG_GUARD_MS);
});
