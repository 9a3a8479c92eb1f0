/**
 * Issue 31: the replay the timeline's Policies overlay and the Replay page wait for. Guarded by
 * counting work (policies replayed, context messages built), never wall time.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeClaudeCodeSession } from '../../bench/generate';
import { importBytes } from '../formats/import';
import { ContextMessages, replayChecks, replayWork, simulate, type ReplayPolicy } from '../simulate/calls';
import { projectTranscript, projectWork, startingContext } from '../compaction/project';
import { contextTotalsOf, pairingIssues, wrapMessage } from '../compaction/context';
import type { Transcript } from '../model/types';
import { validatePairing } from '../model/pairing';
import { transcriptTotals } from '../tokens/totals';
import { signalCacheEntries } from '../categories/signal';
import { REPLAY_POLICIES } from '../simulate/policies/replay';
import { ReplayCache, replayView } from './replay';

const CORPUS = path.resolve(__dirname, '../../../shared/corpus');
const session = (turns: number) => importBytes('session.jsonl', new TextEncoder().encode(makeClaudeCodeSession(turns))).transcript;

describe('the replay, per policy and cached (issue 31)', () => {
  const log = session(120);

  it('replays each policy of a transcript once: the overlay asks for the ones it draws, the Replay page for the rest', () => {
    const cache = new ReplayCache();
    const overlay = replayView(log, { policies: ['claude-code', 'none'] }, cache);
    expect(overlay.series.map((s) => s.id)).toEqual(['none', 'claude-code']);
    expect(cache.replayed).toBe(2);
    // One more policy ticked: only that one is replayed.
    replayView(log, { policies: ['claude-code', 'none', 'gemini-cli'] }, cache);
    expect(cache.replayed).toBe(3);
    const page = replayView(log, {}, cache);
    expect(cache.replayed).toBe(REPLAY_POLICIES.length);
    replayView(log, {}, cache);
    expect(cache.replayed).toBe(REPLAY_POLICIES.length);
    // Another model is another replay.
    replayView(log, { model: 'gpt-5', policies: ['none'] }, cache);
    expect(cache.replayed).toBe(REPLAY_POLICIES.length + 1);

    // The same numbers as a replay of every policy at once without a cache (the CLI's `simulate`).
    const fresh = replayView(log);
    expect(page.series.map((s) => s.id)).toEqual(REPLAY_POLICIES.map((p) => p.id));
    expect(page.series).toEqual(fresh.series);
    expect(page.recordedError).toBe(fresh.recordedError);
    expect(page.callTurns).toEqual(fresh.callTurns);
    expect(page.callMessages).toEqual(fresh.callMessages);
    expect(overlay.series[1]).toEqual(fresh.series.find((s) => s.id === 'claude-code'));
    // Each view has its own arrays (they are transferred to the page, which detaches them).
    expect(page.series[0].prompts.buffer).not.toBe(replayView(log, {}, cache).series[0].prompts.buffer);
  });

  it("a policy's context is built as the session is read, not anew at every look (linear, not quadratic, in the calls)", () => {
    // clear_thinking fires at 0 tokens and finds nothing to clear in these sessions: it looks at its
    // whole context every 5 % of the window, and the context is the whole session (400 turns: 80 looks).
    const t = session(400);
    const policy = REPLAY_POLICIES.filter((p) => p.id === 'anthropic-clear-thinking');
    const before = replayWork.contextMessages;
    const r = simulate(t, policy).results[0];
    expect(r.totals.compactions).toBe(0);
    const built = replayWork.contextMessages - before;
    expect(built).toBeGreaterThan(0);
    expect(built).toBeLessThanOrEqual(t.messages.length);
  });

  it("a firing keeps the context's messages before the first one it changed (clear_tool_uses: linear, not quadratic, in the calls)", () => {
    // clear_tool_uses fires at 100k tokens and cannot get under it on these sessions: it fires every
    // 5 % of the window and changes only the newest cleared results. Rebuilding the whole context at
    // every firing made 22,016 messages at 400 turns and 411,776 at 1,600 (18.7× for 4× the calls).
    const policy = REPLAY_POLICIES.filter((p) => p.id === 'anthropic-clear-tool-uses');
    const built = (turns: number) => {
      const t = session(turns);
      const before = replayWork.contextMessages;
      const r = simulate(t, policy).results[0];
      expect(r.totals.compactions).toBeGreaterThan(10);
      const n = replayWork.contextMessages - before;
      expect(n).toBeLessThanOrEqual(3 * t.messages.length);
      return n;
    };
    const small = built(400);
    const large = built(1600);
    expect(large / small).toBeLessThan(6);
  });

  it("a look hands projectTranscript the context's starting context, totals and pairing kept as it grew (no pass over the whole context per look)", () => {
    // clear_thinking looks at its whole context every 5 % of the window (80 looks at 400 turns):
    // each look wrapped every message of it into a starting context anew (quadratic in the calls).
    const t = session(400);
    const policy = REPLAY_POLICIES.filter((p) => p.id === 'anthropic-clear-thinking');
    const before = projectWork.startingMessages;
    simulate(t, policy);
    expect(projectWork.startingMessages - before).toBe(0);
  });

  it('clear_thinking does not project a context that holds no reasoning (its look would change nothing); on a session with thinking it still projects and fires', () => {
    const policy = REPLAY_POLICIES.filter((p) => p.id === 'anthropic-clear-thinking');
    const t = session(400);
    const projections = projectWork.projections;
    const skipped = replayWork.looksWithoutProjection;
    const r = simulate(t, policy).results[0];
    expect(r.totals.compactions).toBe(0);
    expect(replayWork.looksWithoutProjection - skipped).toBeGreaterThan(20);
    expect(projectWork.projections - projections).toBe(0);
    // slopometry (Claude Code, Opus 4.5) has thinking blocks: clear_thinking fires 5 times there, as before.
    const file = path.join(CORPUS, 'claude-code/slopometry_transcript_opus45_compact.jsonl');
    const real = importBytes(file, new Uint8Array(fs.readFileSync(file))).transcript;
    const p0 = projectWork.projections;
    const fired = simulate(real, policy).results[0];
    expect(fired.totals.compactions).toBe(5);
    expect(projectWork.projections - p0).toBeGreaterThanOrEqual(5);
  });

  it("every look of a policy reads its results' signal lines from the session's cache (the contexts are new logs: each had its own, and every look scanned every stubbed result anew)", () => {
    const t = session(200);
    expect(signalCacheEntries(t)).toBe(0);
    const r = simulate(t, REPLAY_POLICIES.filter((p) => p.id === 'openhands')).results[0];
    expect(r.totals.compactions).toBeGreaterThan(0);
    expect(signalCacheEntries(t)).toBeGreaterThan(0);
  });

  it('what a look hands projectTranscript equals what it would compute (starting context, totals, block count, pairing), after appends and after a compaction kept a prefix', () => {
    const t = session(60);
    const items = t.messages.filter((m) => !m.sidechain).map((m) => {
      const msg = wrapMessage(m);
      return { msg, tokens: msg.blocks.reduce((n, b) => n + b.tokens, 0) };
    });
    const cm = new ContextMessages();
    const same = () => {
      const log = cm.asLog(t, t.tools);
      // A copy of the log is a new object: nothing remembered for it, everything computed.
      const fresh: Transcript = { ...log, messages: log.messages.slice(), tools: log.tools.slice() };
      const built = projectWork.startingMessages;
      const start = startingContext(log, 'log');
      expect(projectWork.startingMessages).toBe(built);
      expect(start.messages).toEqual(startingContext(fresh, 'log').messages);
      expect(transcriptTotals(log)).toEqual(transcriptTotals(fresh));
      expect(contextTotalsOf({ messages: start.messages, tools: log.tools })).toEqual(transcriptTotals(fresh));
      expect(pairingIssues(start.messages)).toEqual(validatePairing(fresh.messages));
      const p = projectTranscript(log, []);
      expect(p.blocks).toBe(projectTranscript(fresh, []).blocks);
      return validatePairing(fresh.messages).length;
    };
    for (const it of items.slice(0, 40)) cm.append(it);
    expect(same()).toBe(0);
    // A compaction that took out a tool result (its call stays unanswered) and kept what precedes it.
    const result = items.findIndex((x, i) => i > 5 && x.msg.blocks.some((b) => b.kind === 'tool_result'));
    cm.reset([...items.slice(0, result), ...items.slice(result + 1, 40)]);
    expect(same()).toBeGreaterThan(0);
    // Then the rest is read, and a compaction puts the whole context back.
    for (const it of items.slice(40)) cm.append(it);
    same();
    cm.reset(items);
    expect(same()).toBe(0);
  });

  it("a look that keeps nothing makes no context items, and projectTranscript's stable prefix is not computed for the replay's looks (session 14)", () => {
    // JP at 400 turns looks at its context every 5 % of the window and finds it under its own
    // trigger: no look is kept. Each candidate made an item per message of its projection (a
    // WeakMap lookup each) and project passed over the context's prefix for a stable prefix the
    // replay never reads (it computes its own against the previous request).
    const t = session(400);
    const policy = REPLAY_POLICIES.filter((p) => p.id === 'jp');
    const items = replayWork.items;
    const projections = projectWork.projections;
    const stable = projectWork.stablePrefixes;
    const r = simulate(t, policy).results[0];
    const looks = projectWork.projections - projections;
    expect(looks).toBeGreaterThan(10);
    const made = replayWork.items - items;
    // The session read once, plus the context of each look that was kept.
    expect(made).toBeLessThanOrEqual(t.messages.length * (1 + r.totals.compactions));
    expect(projectWork.stablePrefixes - stable).toBe(0);
    // Read, it is what it was: the prefix shared with the starting context.
    const p = projectTranscript(t, [], { baseline: 'log' });
    expect(p.cacheStablePrefix).toBe(p.tokens.after.total);
    expect(JSON.parse(JSON.stringify(p)).cacheStablePrefix).toBe(p.tokens.after.total);
  });

  it("a look of a plan local to the context's end projects only its tail: the messages projected per look do not grow with the context (session 15)", () => {
    // clear_tool_uses, microcompact and OpenHands never get under their own trigger on these
    // sessions: they look every 5 % of the window (or half their event count), and each look
    // projected the whole context, which grows with the session (quadratic). The messages before the
    // oldest of the newest N results at the previous look hold only results it already left or
    // stubbed: a look projects from there (ReplayPolicy.endLocal).
    const t600 = session(600);
    const t2400 = session(2400);
    const perLook = (t: Transcript, policy: ReplayPolicy) => {
      const projected = replayWork.messagesProjected;
      const looks = projectWork.projections;
      const r = simulate(t, [policy]).results[0];
      const n = projectWork.projections - looks;
      expect(n).toBeGreaterThan(5);
      return { perLook: (replayWork.messagesProjected - projected) / n, result: r };
    };
    for (const id of ['anthropic-clear-tool-uses', 'claude-code-microcompact', 'openhands', 'opencode-prune']) {
      const policy = REPLAY_POLICIES.find((p) => p.id === id)!;
      expect(policy.endLocal).toBeDefined();
      const small = perLook(t600, policy);
      const large = perLook(t2400, policy);
      // The context at 2,400 turns is ~4× the one at 600; the tail a look projects is not.
      expect(large.perLook, id).toBeLessThan(1.3 * small.perLook);
      // Without the property every look projects the whole context: the per-look work grows with it.
      const whole = perLook(t2400, { ...policy, endLocal: undefined });
      expect(whole.perLook, id).toBeGreaterThan(3 * large.perLook);
      // And the replay is the same.
      expect(large.result, id).toEqual(whole.result);
    }
  });

  it("a tail look gives what a look at the whole context gives, on the corpus files where these policies fire and on a generated session (replayChecks.tail compares every look)", () => {
    const policies = REPLAY_POLICIES.filter((p) => p.endLocal);
    expect(policies.map((p) => p.id).sort()).toEqual(['anthropic-clear-tool-uses', 'claude-code-microcompact', 'opencode-prune', 'openhands']);
    const files = ['claude-code/slopometry_transcript_opus45_compact.jsonl', 'codex-cli/localpush_rollout-2026-02-23_sanitized_compacted.jsonl'];
    const logs = [...files.map((f) => importBytes(f, new Uint8Array(fs.readFileSync(path.join(CORPUS, f)))).transcript), session(300)];
    replayChecks.tail = true;
    try {
      for (const t of logs) {
        const tailLooks = replayWork.tailLooks;
        const s = simulate(t, policies);
        expect(replayWork.tailLooks - tailLooks, t.fileName).toBeGreaterThan(5);
        expect(s.results.reduce((n, r) => n + r.totals.compactions, 0)).toBeGreaterThan(5);
      }
    } finally {
      replayChecks.tail = false;
    }
  });

  it('usage implausible next to the content: the cached view is on the calls simulate ran on (our counts), as without a cache', () => {
    const bad = { ...log, usage: log.usage.map((u) => ({ ...u, input: 1, cacheRead: 0, cacheWrite: 0 })) };
    const cache = new ReplayCache();
    const overlay = replayView(bad, { policies: ['gemini-cli'] }, cache);
    expect(overlay.usageIgnored).toBe(true);
    expect(overlay.warnings.length).toBeGreaterThan(0);
    const page = replayView(bad, {}, cache);
    const fresh = replayView(bad);
    expect(page.callTurns).toEqual(fresh.callTurns);
    expect(page.series).toEqual(fresh.series);
    for (const x of page.series) expect(x.prompts).toHaveLength(page.callTurns.length);
  });
});
