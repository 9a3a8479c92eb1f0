/**
 * Issue 31 (session 18): every reducer of every look built the pair index (where each tool call and
 * result sits) of the context it was handed anew, though a reducer that only replaced blocks in
 * place (stubs, truncations, stripped arguments) leaves every call and result where it was. Such a
 * context now takes its parent's index (ContextEditor.finish). Counted (indexes built), never
 * timed; `pairIndexChecks.inherit` builds each inherited index too and compares.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeClaudeCodeSession } from '../../bench/generate';
import { importBytes } from '../formats/import';
import { pairIndexChecks, pairIndexWork } from '../compaction/context';
import { simulate } from './calls';
import { REPLAY_POLICIES } from './policies/replay';

const CORPUS = path.resolve(__dirname, '../../../shared/corpus');
const session = (turns: number) => importBytes('session.jsonl', new TextEncoder().encode(makeClaudeCodeSession(turns))).transcript;
const byId = (id: string) => REPLAY_POLICIES.find((p) => p.id === id)!;

describe('a context whose calls and results kept their places takes its parent\'s pair index (issue 31, session 18)', () => {
  it('Auto at 1,000 turns builds fewer pair indexes than its reducers ask for', () => {
    const log = session(1000);
    const built = pairIndexWork.built;
    const sim = simulate(log, [byId('contextscope-auto')]);
    const n = pairIndexWork.built - built;
    const r = sim.results[0];
    const looks = r.calls.filter((c) => c.compaction || c.declined).length;
    expect(r.totals.compactions).toBeGreaterThan(50);
    // Before: 275 indexes at 1,000 turns over 148 looks (each reducer built its own); after: 237.
    expect(n).toBeLessThan(255);
    expect(looks).toBeGreaterThan(0);
  });

  it('every inherited index equals one built over the context (pairIndexChecks.inherit), and the replay is the same with the check on', () => {
    const logs = [session(300), ...['claude-code/slopometry_transcript_opus45_compact.jsonl', 'codex-cli/localpush_rollout-2026-02-23_sanitized_compacted.jsonl'].map((f) => importBytes(path.basename(f), new Uint8Array(fs.readFileSync(path.join(CORPUS, f)))).transcript)];
    for (const log of logs) {
      const plain = JSON.stringify(simulate(log, REPLAY_POLICIES));
      pairIndexChecks.inherit = true;
      try {
        expect(JSON.stringify(simulate(log, REPLAY_POLICIES))).toBe(plain);
      } finally {
        pairIndexChecks.inherit = false;
      }
    }
  });
});
