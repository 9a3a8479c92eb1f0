/**
 * Issue 31 (session 17): the replay's closing lost-identifier scan (`lostIdentifiers` at the end of
 * every policy's replay) judges the log's identifiers from keys made once per log (lib/compaction/
 * lost.ts `logJudge`): each identifier interned by kind and value, with the keys it can be present
 * by. Before, each of the 18 policies re-made every judged identifier's keys and word shingles.
 * Counted, never timed.
 */
import { describe, expect, it } from 'vitest';
import { makeClaudeCodeSession } from '../../bench/generate';
import { importBytes } from '../formats/import';
import { lostIdentifiers, lostJudgeStats } from '../compaction/lost';
import { simulate } from './calls';
import { REPLAY_POLICIES } from './policies/replay';

const session = (turns: number) => importBytes('session.jsonl', new TextEncoder().encode(makeClaudeCodeSession(turns))).transcript;

describe("the replay's lost-identifier scan, once per log (issue 31, session 17)", () => {
  it('18 policies share one judge of the log: its identifiers are interned once, not once per policy', () => {
    const log = session(400);
    const builds = lostJudgeStats.builds;
    const made = lostJudgeStats.identifiers;
    const sim = simulate(log, REPLAY_POLICIES);
    const firing = sim.results.filter((r) => r.totals.compactions > 0).length;
    expect(firing).toBeGreaterThan(10);
    expect(lostJudgeStats.builds - builds).toBe(1);
    const interned = lostJudgeStats.identifiers - made;
    // Every identifier of the log, once: the same count as the log's distinct identifiers (all
    // blocks removed: each is judged, and lost, at its first appearance).
    const everything = Object.fromEntries(log.messages.filter((m) => !m.sidechain).flatMap((m) => m.blocks.map((b) => [b.id, { kind: 'removed' as const, by: 'emergency' as const, stepId: 'all' }])));
    const all = lostIdentifiers(log, { messages: [], fates: everything });
    expect(interned).toBe(all.length);
    expect(lostJudgeStats.builds - builds).toBe(1);
    // A second replay of the same log makes nothing again, and says the same.
    const again = simulate(log, REPLAY_POLICIES);
    expect(lostJudgeStats.builds - builds).toBe(1);
    expect(lostJudgeStats.identifiers - made).toBe(interned);
    expect(JSON.stringify(again)).toBe(JSON.stringify(sim));
  });
});
