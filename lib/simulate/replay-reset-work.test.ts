/**
 * Issue 31 (session 17): a compaction that puts a summary at the front (or drops the oldest turns)
 * shifts every message it keeps; `ContextMessages.reset` re-appended each of them, reading every
 * block again (sums by kind, pairing, reasoning, results not stubbed). It now re-appends a message
 * whose role and blocks are those of a message it held from what it read of that message then
 * (`appendKnown`). Counted (messages whose blocks are read), never timed; `replayChecks.reset`
 * compares every reset with a context appended message by message.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeClaudeCodeSession } from '../../bench/generate';
import { importBytes } from '../formats/import';
import { replayChecks, replayWork, simulate } from './calls';
import { REPLAY_POLICIES } from './policies/replay';

const CORPUS = path.resolve(__dirname, '../../../shared/corpus');
const session = (turns: number) => importBytes('session.jsonl', new TextEncoder().encode(makeClaudeCodeSession(turns))).transcript;
const byId = (id: string) => REPLAY_POLICIES.find((p) => p.id === id)!;
/** One policy's replay, with the replay work (replayWork's counters) it did. */
function replayOf(log: ReturnType<typeof session>, id: string) {
  const before = { ...replayWork };
  const sim = simulate(log, [byId(id)]);
  const work = { ...replayWork };
  for (const k of Object.keys(work) as Array<keyof typeof work>) work[k] -= before[k];
  return { sim, work };
}

describe('a reset re-appends the messages it keeps without reading their blocks again (issue 31, session 17)', () => {
  it('Auto and LangChain at 1,000 turns read each kept message once, not at every firing', () => {
    const log = session(1000);
    const main = log.messages.filter((m) => !m.sidechain).length;
    for (const id of ['contextscope-auto', 'langchain-trim', 'seed-004']) {
      const { sim, work } = replayOf(log, id);
      const a = work.contextMessages;
      const s = work.messagesScanned;
      expect(sim.results[0].totals.compactions).toBeGreaterThan(20);
      // Before: every append read its blocks (Auto 68,343 reads, LangChain 54,224, seed 004 24,093).
      expect(a).toBeGreaterThan(5 * main);
      expect(s).toBeLessThan(1.5 * main);
    }
  });

  it('every reset equals the context appended message by message (replayChecks.reset), and the replay is the same with the check on', () => {
    const logs = [session(300), ...['claude-code/slopometry_transcript_opus45_compact.jsonl', 'codex-cli/localpush_rollout-2026-02-23_sanitized_compacted.jsonl'].map((f) => importBytes(path.basename(f), new Uint8Array(fs.readFileSync(path.join(CORPUS, f)))).transcript)];
    for (const log of logs) {
      const plain = JSON.stringify(simulate(log, REPLAY_POLICIES));
      replayChecks.reset = true;
      try {
        expect(JSON.stringify(simulate(log, REPLAY_POLICIES))).toBe(plain);
      } finally {
        replayChecks.reset = false;
      }
    }
  });

  it('a compaction that stubs results in place moves no message: the reset keeps those message objects instead of making them again (session 20)', () => {
    const log = session(1000);
    for (const id of ['claude-code-microcompact', 'anthropic-clear-tool-uses', 'openhands']) {
      const { sim, work } = replayOf(log, id);
      const a = work.contextMessages;
      const r = work.contextMessagesReused;
      expect(sim.results[0].totals.compactions).toBeGreaterThan(20);
      // Before: none (every message after the first change was made anew: 18,299 at 2,000 turns for microcompact).
      expect(r).toBeGreaterThan(0.3 * a);
    }
  });
});

