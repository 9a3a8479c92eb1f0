/**
 * Issue 31 (session 16): what the replay's summarizing policies cost, guarded by counting work
 * (renders of the offline summarizer), never wall time. JP's firings summarize prefix-ward, chunk
 * after chunk, each folding the previous chunk's summary in: past a few chunks the earlier summary
 * alone is longer than the room, and the renderings made only to see whether they fit are not made.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeClaudeCodeSession } from '../../bench/generate';
import { importBytes } from '../formats/import';
import { offlineChecks, offlineWork, summarizeOfflineWith, DEFAULT_OFFLINE_LIMITS } from '../summarize/offline';
import { blockFactsStats, extractSpanFacts } from '../summarize/facts';
import { wrapMessage } from '../compaction/context';
import { simulate } from './calls';
import { REPLAY_POLICIES } from './policies/replay';
import type { SpanInput } from '../summarize/types';

const session = (turns: number) => importBytes('session.jsonl', new TextEncoder().encode(makeClaudeCodeSession(turns))).transcript;
const jp = REPLAY_POLICIES.find((p) => p.id === 'jp')!;

/** The replay of `policies` with the floor check on or off, and the summarizer's renders and skips it took. */
function replayCounting(log: ReturnType<typeof session>, floor: boolean) {
  offlineChecks.floor = floor;
  try {
    const renders = offlineWork.renders;
    const skipped = offlineWork.rendersSkipped;
    const calls = offlineWork.calls;
    const sim = simulate(log, [jp]);
    return { json: JSON.stringify(sim), renders: offlineWork.renders - renders, skipped: offlineWork.rendersSkipped - skipped, calls: offlineWork.calls - calls, fired: sim.results[0].totals.compactions };
  } finally {
    offlineChecks.floor = true;
  }
}

describe('the offline summarizer skips renderings that cannot fit (issue 31, session 16)', () => {
  it("JP's replay at 2,000 turns: the same result, with fewer renders (a chunk's earlier summary over its room)", () => {
    const log = session(2000);
    const on = replayCounting(log, true);
    const off = replayCounting(log, false);
    expect(on.fired).toBeGreaterThan(0);
    expect(on.json).toBe(off.json);
    expect(on.calls).toBe(off.calls);
    expect(off.skipped).toBe(0);
    expect(on.skipped).toBeGreaterThan(0);
    // Every skip is a render not made (measured: 2 of the 6 renders per call are left where they skip).
    expect(on.renders).toBe(off.renders - on.skipped);
    expect(on.renders).toBeLessThan(off.renders * 0.8);
  }, 60_000);

  it('a rendering that could fit is still made: a short earlier summary, or no room given', () => {
    const log = session(60);
    const messages = log.messages.map((m) => ({ role: m.role, turn: m.turn, blocks: m.blocks })) as unknown as SpanInput['messages'];
    const first = summarizeOfflineWith({ messages: messages.slice(0, 40), span: [0, 10], style: 'structured' });
    for (const maxChars of [undefined, first.length * 4, Math.floor(first.length / 2), 200]) {
      const input: SpanInput = { messages: messages.slice(40), span: [0, 30], previousSummary: first, style: 'structured', ...(maxChars !== undefined && { maxChars }) };
      offlineChecks.floor = false;
      const want = summarizeOfflineWith(input);
      offlineChecks.floor = true;
      const skipped = offlineWork.rendersSkipped;
      expect(summarizeOfflineWith({ ...input }), `maxChars ${maxChars}`).toBe(want);
      // Room for the earlier summary: nothing is skipped; a room under it: the four renders before the loop's last.
      if (maxChars === undefined || maxChars >= first.length) expect(offlineWork.rendersSkipped - skipped).toBe(0);
      if (maxChars === 200) expect(offlineWork.rendersSkipped - skipped).toBe(4);
    }
    void DEFAULT_OFFLINE_LIMITS;
  });
});

describe("the summarizer reads each block of a log once (issue 31, session 16: the per-block facts)", () => {
  it('the replay of five summarizing policies at 1,500 turns: facts made once per block, read from the cache at every later firing', () => {
    const log = session(1500);
    let blocks = 0;
    for (const m of log.messages) blocks += m.blocks.length;
    const made = blockFactsStats.made;
    const reused = blockFactsStats.reused;
    const policies = REPLAY_POLICIES.filter((p) => ['jp', 'seed-004', 'claude-code', 'codex', 'gemini-cli'].includes(p.id));
    const sim = simulate(log, policies);
    expect(sim.results.every((r) => r.totals.compactions > 0)).toBe(true);
    const m = blockFactsStats.made - made;
    const r = blockFactsStats.reused - reused;
    // Each log block once at most, plus the blocks the policies made (stubs, capped outputs, summaries);
    // without the cache every summary covering a block read it again (measured: 42,010 reads of 6,000 blocks, 7,318 made).
    expect(m).toBeLessThan(blocks * 1.5);
    expect(r).toBeGreaterThan(m * 2);
  }, 60_000);

  it('facts read from the cache are the facts of fresh blocks (corpus files and a generated session)', () => {
    const CORPUS = path.resolve(__dirname, '../../../shared/corpus');
    const files = ['claude-code/slopometry_transcript_opus45_compact.jsonl', 'codex-cli/localpush_rollout-2026-02-23_sanitized_compacted.jsonl', 'claude-code/claude-code-viewer_fe5e1c67.jsonl', 'gemini-cli'].flatMap((f) => {
      const p = path.join(CORPUS, f);
      return fs.statSync(p).isDirectory() ? fs.readdirSync(p).filter((x) => !x.endsWith('.md')).map((x) => path.join(p, x)) : [p];
    });
    const logs = [...files.map((f) => importBytes(path.basename(f), new Uint8Array(fs.readFileSync(f))).transcript), session(200)];
    for (const log of logs) {
      const messages = log.messages.filter((m) => !m.sidechain).map(wrapMessage);
      const warm = JSON.stringify(extractSpanFacts(messages));
      const reused = blockFactsStats.reused;
      const again = JSON.stringify(extractSpanFacts(messages.slice(Math.floor(messages.length / 3))));
      expect(blockFactsStats.reused).toBeGreaterThan(reused);
      // Fresh block objects (a structured clone) make every fact anew.
      const fresh = structuredClone(messages);
      expect(JSON.stringify(extractSpanFacts(fresh)), log.fileName).toBe(warm);
      expect(JSON.stringify(extractSpanFacts(fresh.slice(Math.floor(messages.length / 3)))), log.fileName).toBe(again);
    }
  });
});
