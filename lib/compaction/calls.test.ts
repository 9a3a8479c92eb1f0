import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { allCorpusFiles, corpusFiles } from '../../tests/corpus';
import { importFile } from '../formats/import';
import { sourceFromBytes } from '../read/source';
import type { Transcript } from '../model/types';
import { contextFloor, modelCalls } from './calls';
import { blockFate, projectTranscript, resolveWindow } from './project';
import { step } from './testing/steps';

const load = (f: string): Transcript => importFile(sourceFromBytes(path.basename(f), new Uint8Array(fs.readFileSync(f)))).transcript;

describe('model calls', () => {
  it('on every corpus file: a call never splits a tool call from its result and never holds a prompt', () => {
    for (const file of allCorpusFiles()) {
      let t: Transcript;
      try {
        t = load(file);
      } catch {
        continue;
      }
      const calls = modelCalls(t);
      const callOfCallId = new Map<string, number>();
      // Fixtures that re-use one call id for many calls ("[trimmed for fixture]") pair by position: skip those ids.
      const seen = new Map<string, number>();
      for (const m of t.messages) for (const b of m.blocks) if (b.kind === 'tool_call' && !m.sidechain) seen.set(b.callId, (seen.get(b.callId) ?? 0) + 1);
      for (const c of calls) {
        expect(t.messages[c.first].role, file).toBe('assistant');
        for (let i = c.first; i <= c.last; i++) {
          const m = t.messages[i];
          if (m.sidechain) continue;
          expect(m.role === 'user' && m.blocks.some((b) => b.kind !== 'tool_result'), `${file}: a prompt inside call ${c.index}`).toBe(false);
          for (const b of m.blocks) if (b.kind === 'tool_call') callOfCallId.set(b.callId, c.index);
        }
      }
      for (const c of calls)
        for (let i = c.first; i <= c.last; i++)
          for (const b of t.messages[i].sidechain ? [] : t.messages[i].blocks)
            if (b.kind === 'tool_result' && seen.get(b.callId) === 1 && callOfCallId.has(b.callId)) expect(callOfCallId.get(b.callId), `${file}: result ${b.callId} in another call`).toBe(c.index);
      // Ranges are ordered and disjoint.
      for (let k = 1; k < calls.length; k++) expect(calls[k].first).toBeGreaterThan(calls[k - 1].last);
    }
  });

  it('a SWE-agent run: one call per assistant message, each with its observation', () => {
    const t = load(corpusFiles('swe-agent').find((f) => f.includes('marshmallow'))!);
    const calls = modelCalls(t);
    expect(calls.length).toBe(t.messages.filter((m) => m.role === 'assistant').length);
    expect(calls.every((c) => c.last === c.first + 1)).toBe(true);
  });
});

describe('message-granular windows', () => {
  const t = load(corpusFiles('swe-agent').find((f) => f.includes('marshmallow'))!);
  const calls = modelCalls(t);

  it("a 'calls' range edits those calls only", () => {
    const s = step(['strip-tool-results'], { keepLast: 0, range: { kind: 'calls', from: 2, to: 5 } });
    const p = projectTranscript(t, [s]);
    let stubbed = 0;
    for (const m of t.messages)
      for (const b of m.blocks) {
        if (blockFate(p, b.id).kind === 'kept') continue;
        stubbed++;
        expect(b.kind).toBe('tool_result');
        expect(m.index, `message ${m.index} is outside calls 3–6`).toBeGreaterThanOrEqual(calls[2].first);
        expect(m.index, `message ${m.index} is outside calls 3–6`).toBeLessThanOrEqual(calls[5].last);
      }
    expect(stubbed).toBeGreaterThan(0);
  });

  it("a 'calls' range reaching the end of the run leaves the last calls and the prompt alone", () => {
    const w = resolveWindow(t, [], step([], { keepLast: 1, range: { kind: 'calls', from: 0, to: calls.length - 1 } }));
    expect(w).not.toBeNull();
    expect(w!.lastMessage).toBe(calls[calls.length - 4].last);
    expect(w!.firstMessage).toBe(calls[0].first);
    const prompt = t.messages.find((m) => m.role === 'user' && m.turn === t.turnCount - 1)!;
    expect(w!.keep?.has(prompt.index)).toBe(true);
  });

  it('summarize over a narrowed tail takes the oldest calls of the run, not the whole turn', () => {
    const total = projectTranscript(t, []).tokens.after.total;
    const budget = Math.floor(total * 0.6);
    const p = projectTranscript(t, [step([{ id: 'summarize', options: { untilFits: true, chunkTokens: 400 } }], { keepLast: 1, budget })]);
    expect(p.tokens.after.total).toBeLessThanOrEqual(budget);
    const kept = p.messages.filter((m) => m.sourceId && m.role === 'assistant').length;
    // Some calls before the protected tail survive verbatim: only the overflow went to the summary.
    expect(kept).toBeGreaterThan(3);
    expect(p.messages.filter((m) => m.synthetic === 'summary').length).toBe(1);
  });

  it('the floor: system + every user message + the last model call', () => {
    const f = contextFloor(t, projectTranscript(t, []).messages);
    const last = calls.at(-1)!;
    const sum = (pred: (i: number) => boolean) => t.messages.filter((m) => pred(m.index)).reduce((n, m) => n + m.blocks.filter((b) => m.role !== 'user' || b.kind !== 'tool_result' || (m.index >= last.first && m.index <= last.last)).reduce((k, b) => k + b.tokens, 0), 0);
    expect(f.lastCall).toBe(sum((i) => i >= last.first && i <= last.last));
    expect(f.system).toBe(sum((i) => t.messages[i].role === 'system'));
    expect(f.total).toBe(f.system + f.user + f.lastCall);
  });
});
