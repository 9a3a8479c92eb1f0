/**
 * Issue 31 (session 19): dedup-tools reads a partner index of the log it is handed (which calls'
 * arguments or read paths occur twice), built once per log. A replay's look hands it a new log
 * (the context at that call), so every look of Auto, and of JP's and seed 004's Auto, built one
 * over the whole context. The replay now says which session a context's messages come from
 * (`partnersFrom`), and dedup reads the session's index, built once. Counted (indexes built), never
 * timed; the replay is the same with the session's index and with each context's own.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeClaudeCodeSession } from '../../bench/generate';
import { importBytes } from '../formats/import';
import { partnersChecks, partnersStats } from '../compaction/reducers/dedup-tools';
import { simulate } from './calls';
import { REPLAY_POLICIES } from './policies/replay';

const CORPUS = path.resolve(__dirname, '../../../shared/corpus');
const session = (turns: number) => importBytes('session.jsonl', new TextEncoder().encode(makeClaudeCodeSession(turns))).transcript;
const byId = (id: string) => REPLAY_POLICIES.find((p) => p.id === id)!;

describe("a replay's looks read the session's dedup partner index (issue 31, session 19)", () => {
  it('Auto at 600 turns builds one partner index, not one per look', () => {
    const log = session(600);
    const built = partnersStats.builds;
    const r = simulate(log, [byId('contextscope-auto')]).results[0];
    const looks = r.calls.filter((c) => c.compaction || c.declined).length;
    expect(looks).toBeGreaterThan(40);
    // Before: one per look that ran dedup (~one per projection: 148 at 1,000 turns); after: the session's.
    expect(partnersStats.builds - built).toBe(1);
  });

  it("the replay of every policy is the same with the session's index and with each context's own", () => {
    const logs = [session(300), ...['claude-code/slopometry_transcript_opus45_compact.jsonl', 'codex-cli/localpush_rollout-2026-02-23_sanitized_compacted.jsonl'].map((f) => importBytes(path.basename(f), new Uint8Array(fs.readFileSync(path.join(CORPUS, f)))).transcript)];
    for (const log of logs) {
      const shared = JSON.stringify(simulate(log, REPLAY_POLICIES));
      partnersChecks.fromSession = false;
      try {
        expect(JSON.stringify(simulate(log, REPLAY_POLICIES))).toBe(shared);
      } finally {
        partnersChecks.fromSession = true;
      }
    }
  });
});
