/**
 * Issue 31 (session 19): every early look of Auto runs its free reducers to a budget of 1 token, so
 * each ends over its target, and runAuto wrote the "still N tokens > target" note for it: two passes
 * over the context (overTargetReason, contextFloor) for a text the replay never reads. The note is
 * now written when first read. Counted (notes written), never timed.
 */
import { describe, expect, it } from 'vitest';
import { makeClaudeCodeSession } from '../../bench/generate';
import { importBytes } from '../formats/import';
import { autoWork } from '../compaction/pipeline';
import { projectTranscript } from '../compaction/project';
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
});
