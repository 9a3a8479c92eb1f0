import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import { importBytes } from '../formats/import';
import { calibrate } from '../tokens/calibration';
import type { Block, Marker, Message, Role } from '../model/types';
import { buildTimeline, contextWindowFor } from './timeline';
import { modelCalls } from '../compaction/calls';
import { projectTranscript } from '../compaction/project';
import { summarizePreview } from './preview';

let n = 0;
function msg(turn: number, role: Role, blocks: Array<Partial<Block> & { kind: Block['kind']; tokens: number }>, extra: Partial<Message> = {}): Message {
  const index = n++;
  return {
    id: `m${index}`,
    index,
    turn,
    role,
    recordRefs: [index],
    blocks: blocks.map((b, i) => ({ text: 'x', id: `${index}.${i}`, ...b }) as Block),
    ...extra,
  };
}

describe('buildTimeline', () => {
  it('stacks the visible context per turn by kind, hides what a source compaction removed, and reads recorded usage', () => {
    n = 0;
    const messages = [
      msg(0, 'user', [{ kind: 'text', tokens: 10 }]),
      msg(0, 'assistant', [{ kind: 'reasoning', tokens: 5 }, { kind: 'tool_call', tokens: 7, callId: 'a', name: 'Read', input: {} } as never]),
      msg(0, 'user', [{ kind: 'tool_result', tokens: 100, callId: 'a', content: 'x', isError: false } as never]),
      msg(0, 'assistant', [{ kind: 'text', tokens: 20 }]),
      msg(1, 'user', [{ kind: 'text', tokens: 4 }]),
      msg(1, 'assistant', [{ kind: 'text', tokens: 6 }], { sidechain: true }),
      msg(1, 'assistant', [{ kind: 'text', tokens: 8 }]),
      // The source compacted: a summary replaces messages [0, 7).
      msg(2, 'user', [{ kind: 'summary', tokens: 30 }]),
      msg(2, 'assistant', [{ kind: 'text', tokens: 9 }]),
    ];
    const markers: Marker[] = [{ id: 'k0', source: 'claude-code-compact', atMessage: 7, trigger: 'auto', tokensBefore: 160 }];
    const usage = [
      { messageIndex: 1, input: 3, cacheRead: 500, cacheWrite: 17, output: 12 },
      { messageIndex: 3, input: 1, cacheRead: 600, cacheWrite: 20, output: 30 },
      { messageIndex: 5, input: 1, cacheRead: 9999, cacheWrite: 0, output: 1 },
      { messageIndex: 8, input: 2, cacheRead: 530, cacheWrite: 10, output: 9 },
    ];
    const tl = buildTimeline({ messages, usage, markers, tools: [{ name: 'Read', tokens: 50 }], contextWindow: 200_000 });

    expect(tl.turns.map((t) => t.turn)).toEqual([0, 1, 2]);
    expect(tl.turns[0].added).toMatchObject({ user: 10, reasoning: 5, tool_call: 7, tool_result: 100, assistant: 20 });
    expect(tl.turns[0].contextTotal).toBe(10 + 5 + 7 + 100 + 20 + 50);
    // Side-chain messages are not in the main context.
    expect(tl.turns[1].added.assistant).toBe(8);
    expect(tl.turns[1].contextTotal).toBe(142 + 12 + 50);
    // After the compaction only the summary and what follows remain (plus tool schemas).
    expect(tl.turns[2].context).toMatchObject({ summary: 30, assistant: 9, user: 0, tool_result: 0, tools: 50 });
    expect(tl.turns[2].contextTotal).toBe(89);
    // Recorded context: the turn's last main-chain call; the side-chain call is ignored.
    expect(tl.turns.map((t) => t.recorded)).toEqual([621, undefined, 542]);
    // …and its split, which adds up to it.
    expect(tl.turns.map((t) => t.recordedSplit)).toEqual([{ uncached: 1, cacheRead: 600, cacheWrite: 20 }, undefined, { uncached: 2, cacheRead: 530, cacheWrite: 10 }]);
    expect(tl.turns.map((t) => t.calls)).toEqual([2, 0, 1]);
    // The legend's entries: every kind with tokens in some turn's context, and a recorded size somewhere.
    expect(tl.kindsPresent.sort()).toEqual(['assistant', 'reasoning', 'summary', 'tool_call', 'tool_result', 'tools', 'user']);
    expect(tl.hasRecorded).toBe(true);
    // Overhead: first call recorded 520, visible before message 1 was 10 user + 50 tools.
    expect(tl.overhead).toBe(520 - 60);
    expect(tl.bands).toEqual([{ markerId: 'k0', source: 'claude-code-compact', atTurn: 2, coversTurns: [0, 1], trigger: 'auto', tokensBefore: 160 }]);
    expect(tl.maxContext).toBe(Math.max(204 + 460, 621));
    expect(tl.contextWindow).toBe(200_000);
  });

  it('is empty for no messages', () => {
    expect(buildTimeline({ messages: [], usage: [], markers: [], tools: [] }).turns).toEqual([]);
  });
});

describe('contextWindowFor', () => {
  it('prefers the recorded window, then the model family', () => {
    expect(contextWindowFor('gpt-5', [{ messageIndex: 0, input: 1, cacheRead: 0, cacheWrite: 0, output: 0, contextWindow: 272_000 }])).toBe(272_000);
    expect(contextWindowFor('claude-opus-4-5-20251101', [])).toBe(200_000);
    expect(contextWindowFor('gpt-4o-2024-08-06', [])).toBe(128_000);
    expect(contextWindowFor(undefined, [])).toBeUndefined();
  });
});

describe('buildTimeline: usage that aggregates several model calls (NeMo Gym rollout totals)', () => {
  const file = corpusFiles('openai-responses').find((f) => f.includes('conversational_tool_use'))!;
  // Conversation 2: 15 model calls whose response.usage totals 88,808 input tokens.
  const t = importBytes(path.basename(file), new Uint8Array(fs.readFileSync(file)), { conversation: 2 }).transcript;

  it('the importer records the total as one record of 15 calls', () => {
    expect(t.usage).toHaveLength(1);
    expect(t.usage[0].calls).toBe(15);
    expect(t.usage[0].input + t.usage[0].cacheRead + t.usage[0].cacheWrite).toBe(88_808);
  });

  it('is no context size: no recorded point, no invisible overhead, no calibration; the calls still count', () => {
    const tl = buildTimeline(t);
    expect(tl.overhead).toBe(0);
    expect(tl.turns.every((x) => x.recorded === undefined)).toBe(true);
    expect(tl.turns.reduce((s, x) => s + x.calls, 0)).toBe(15);
    // The y-axis is the estimated context, not the 88,808-token sum.
    expect(tl.maxContext).toBe(Math.max(...tl.turns.map((x) => x.contextTotal)));
    expect(tl.maxContext).toBeLessThan(20_000);
    expect(calibrate(t)).toBeUndefined();
  });

  it('a single-call record of the same size is still read as a context size', () => {
    const single = { ...t.usage[0], calls: undefined };
    const tl = buildTimeline({ ...t, usage: [single] });
    expect(tl.overhead).toBeGreaterThan(70_000);
    expect(tl.turns.some((x) => x.recorded === 88_808)).toBe(true);
  });
});

describe('the call axis on real agent runs (issue 10)', () => {
  const files = [...corpusFiles('swe-agent'), ...corpusFiles('gemini-cli'), ...corpusFiles('codex-cli'), ...corpusFiles('claude-code').filter((f) => f.endsWith('.jsonl'))];
  for (const f of files)
    it(`${path.basename(f)}: one bar per model call, ending where the turn axis ends`, () => {
      const t = importBytes(path.basename(f), new Uint8Array(fs.readFileSync(f))).transcript;
      const input = { messages: t.messages, usage: t.usage, markers: t.markers, tools: t.tools };
      const turns = buildTimeline(input);
      const calls = buildTimeline({ ...input, axis: 'calls' });
      const mc = modelCalls(t);
      expect(turns.callCount).toBe(mc.length);
      expect(calls.axis).toBe('calls');
      expect(calls.turns.length).toBe(mc.length);
      calls.turns.forEach((bar, i) => {
        expect(bar.turn).toBe(i);
        expect(bar.firstMessage).toBe(mc[i].first);
        expect(bar.endMessage).toBe(mc[i].last + 1);
        expect(bar.ofTurn).toBe(mc[i].turn);
      });
      // The context after the last call is the context at the end of its turn when nothing follows it there.
      const lastCall = calls.turns[calls.turns.length - 1];
      const turnBar = turns.turns.find((x) => x.turn === lastCall?.ofTurn);
      if (lastCall && turnBar && turnBar.endMessage === lastCall.endMessage) expect(lastCall.contextTotal).toBe(turnBar.contextTotal);
      // A step over a range of calls, previewed per call: nothing changes before the range, and the
      // selection's before/after are the calls' own tokens.
      if (mc.length < 4) return;
      const a = Math.floor(mc.length / 4);
      const b = Math.floor(mc.length / 2);
      const p = projectTranscript(t, [{ id: 's', range: { kind: 'calls', from: a, to: b }, reducers: [{ id: 'strip-tool-results' }], keepLast: 0, createdAt: '' }]);
      const prev = summarizePreview(t, p, [a, b], 'calls');
      expect(prev.turns).toBe(mc.length);
      const K = prev.kinds.length;
      for (let c = 0; c < a; c++) for (let k = 0; k < K; k++) expect(prev.delta[c * K + k]).toBe(0);
      let own = 0;
      // (what the source's own compaction already took out of the model's view is not the step's)
      const hidden = (id: string) => p.fates[id]?.kind !== 'kept' && (p.fates[id] as { stepId?: string } | undefined)?.stepId?.startsWith('source-marker:');
      for (let c = a; c <= b; c++) for (let i = mc[c].first; i <= mc[c].last; i++) if (!t.messages[i].sidechain) for (const x of t.messages[i].blocks) if (!hidden(x.id)) own += x.tokens;
      expect(prev.tokens.selection!.before).toBe(own);
      const stepChanged = Object.values(p.fates).some((x) => x.kind !== 'kept' && (x as { stepId?: string }).stepId === 's');
      if (stepChanged) expect(prev.tokens.selection!.after).toBeLessThan(own);
    });
});

describe('turn previews', () => {
  it('are the start of the first user text, whitespace collapsed, at most 140 characters, however long the text', () => {
    n = 0;
    const words = Array.from({ length: 2_000 }, (_, i) => `w${i}`).join(' \n\t ');
    const cases: Array<[string, string]> = [
      ['  fix   the\n\ntests  ', 'fix the tests'],
      [words, words.replace(/\s+/g, ' ').slice(0, 139) + '…'],
      // Mostly whitespace at the start of a long text: the preview reads past it.
      [' '.repeat(1_500) + words, words.replace(/\s+/g, ' ').slice(0, 139) + '…'],
      [' '.repeat(1_500) + 'short at the end', 'short at the end'],
    ];
    const messages = cases.map(([text], turn) => msg(turn, 'user', [{ kind: 'text', tokens: 1, text }]));
    const turns = buildTimeline({ messages, usage: [], markers: [], tools: [] }).turns;
    expect(turns.map((t) => t.preview)).toEqual(cases.map(([, preview]) => preview));
  });
});

describe('the y-axis and a recorded line far above the bars (issue 30)', () => {
  it('Codex localpush: the scale fits the bars; the recorded sizes far above them do not squeeze the bars into the bottom tenth', () => {
    const f = corpusFiles('codex-cli').find((x) => x.includes('localpush'))!;
    const t = importBytes(path.basename(f), new Uint8Array(fs.readFileSync(f))).transcript;
    const tl = buildTimeline(t);
    const bars = Math.max(...tl.turns.map((x) => x.contextTotal + tl.overhead));
    const recorded = Math.max(...tl.turns.map((x) => x.recorded ?? 0));
    expect(recorded).toBeGreaterThan(2 * bars);
    expect(tl.maxContext).toBe(bars);
  });
});
