/**
 * Issue 31 (session 19): what a projection computed for every look that the replay reads only of the
 * look it keeps, now made when first read. Counted, never timed.
 *  - Every early look of Auto runs its free reducers to a budget of 1 token, so each ends over its
 *    target, and runAuto wrote the "still N tokens > target" note for it: two passes over the
 *    context (overTargetReason, contextFloor) for a text the replay never reads.
 *  - Every projection flattened its fates (one object keyed by every block it changed); the replay
 *    reads them of the candidate it keeps (and of an endLocal look, to know whether it settles).
 */
import { describe, expect, it } from 'vitest';
import { makeClaudeCodeSession } from '../../bench/generate';
import { importBytes } from '../formats/import';
import { autoWork } from '../compaction/pipeline';
import { projectTranscript, projectWork } from '../compaction/project';
import { simulate } from './calls';
import { REPLAY_POLICIES, contextscopeAuto } from './policies/replay';

const session = (turns: number) => importBytes('session.jsonl', new TextEncoder().encode(makeClaudeCodeSession(turns))).transcript;
const byId = (id: string) => REPLAY_POLICIES.find((p) => p.id === id)!;

describe("a replay's looks do not write the over-target note they never read (issue 31, session 19)", () => {
  it('Auto at 600 turns writes no over-target note', () => {
    const log = session(600);
    const written = autoWork.overTargetNotes;
    const r = simulate(log, [byId('contextscope-auto')]).results[0];
    expect(r.calls.filter((c) => c.declined).length).toBeGreaterThan(20);
    // Before: one per look that ended over its target (every early look, whole and tail: ~100 here).
    expect(autoWork.overTargetNotes - written).toBe(0);
  });

  it('the note reads the same directly, through JSON and through a structured clone, and is written once', () => {
    const log = session(120);
    const p = projectTranscript(log, contextscopeAuto.early!.plan(log, { contextWindow: 200_000, maxOutput: 32_000 }));
    const written = autoWork.overTargetNotes;
    const json = JSON.parse(JSON.stringify(p.report));
    const row = p.report.find((r) => r.reducer === 'auto' && r.notes[0]?.startsWith('still '));
    expect(row).toBeDefined();
    expect(row!.notes[0]).toMatch(/^still [\d,]+ tokens > target 1: .*; the floor \(system [\d,]+ \+ user messages [\d,]+ \+ the last model call [\d,]+\) is [\d,]+ tokens, above the target$/);
    expect(structuredClone(p.report)).toEqual(json);
    expect(Object.keys(json[p.report.indexOf(row!)])).toEqual(['stepId', 'reducer', 'events', 'tokensBefore', 'tokensAfter', 'notes']);
    expect(autoWork.overTargetNotes - written).toBe(1);
  });

  it("Auto at 600 turns flattens the fates of the looks it keeps only; a projection's fates read the same when read late", () => {
    const log = session(600);
    const flattened = projectWork.fatesFlattened;
    const projections = projectWork.projections;
    const r = simulate(log, [byId('contextscope-auto')]).results[0];
    const looks = projectWork.projections - projections;
    expect(looks).toBeGreaterThan(100);
    // Before: one per projection (every look, whole and tail); after: one per firing.
    expect(projectWork.fatesFlattened - flattened).toBe(r.totals.compactions);
    const small = session(120);
    const p = projectTranscript(small, byId('seed-002-summarize').plan!(small, { contextWindow: 20_000, maxOutput: 4_000 }));
    const first = JSON.stringify(p);
    expect(Object.keys(p.fates).length).toBeGreaterThan(0);
    expect(p.fates).toBe(p.fates);
    expect(JSON.stringify(p)).toBe(first);
    expect(JSON.stringify(structuredClone(p.fates))).toBe(JSON.stringify(p.fates));
  });
});
