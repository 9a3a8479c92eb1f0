/**
 * Property tests for the Claude Code exporter on generated sessions (responses split over several
 * lines, parallel tool calls, meta lines, non-message lines interleaved): export of a random
 * projection re-imports to the projected messages, pairing intact, the parentUuid chain closed,
 * untouched lines byte-identical, a summary written as compact_boundary + isCompactSummary.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ProjectedBlock, ProjectedMessage, Projection } from '../compaction/types';
import { validatePairing } from '../model/pairing';
import type { Transcript } from '../model/types';
import { startingContext } from '../compaction/project';
import { claudeCode, COMPACT_SUMMARY_PREAMBLE } from './claude-code';
import { importBytes } from './import';

/** The value type an arbitrary generates. */
type ArbValue<A> = A extends fc.Arbitrary<infer T> ? T : never;

const text = fc.string({ minLength: 1, maxLength: 30, unit: fc.constantFrom('a', 'z', 'ü', '中', '"', '\\', '\n', ' ', '😀') });

const turn = fc.record({
  prompt: text,
  meta: fc.boolean(),
  rounds: fc.array(fc.record({ thinking: fc.boolean(), calls: fc.array(fc.record({ arg: text, result: text, big: fc.boolean() }), { minLength: 1, maxLength: 3 }) }), { maxLength: 3 }),
  answer: text,
  snapshot: fc.boolean(),
});

const session = fc.record({ turns: fc.array(turn, { minLength: 2, maxLength: 5 }), summaryLine: fc.boolean() });

function build(s: ArbValue<typeof session>): string {
  const lines: Array<Record<string, unknown>> = [];
  let n = 0;
  let parent: string | null = null;
  const env = { isSidechain: false, userType: 'external', cwd: '/repo', sessionId: 'sess-1', version: '2.0.65', gitBranch: 'main' };
  const push = (o: Record<string, unknown>) => {
    const uuid = `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
    lines.push({ parentUuid: parent, ...env, ...o, uuid, timestamp: `2025-12-12T10:00:${String(n % 60).padStart(2, '0')}.000Z` });
    parent = uuid;
  };
  if (s.summaryLine) lines.push({ type: 'summary', summary: 'generated session', leafUuid: 'none' });
  s.turns.forEach((t, ti) => {
    if (t.meta) push({ type: 'user', isMeta: true, message: { role: 'user', content: '<system-reminder>meta</system-reminder>' } });
    push({ type: 'user', message: { role: 'user', content: t.prompt } });
    t.rounds.forEach((r, ri) => {
      const id = `msg_${ti}_${ri}`;
      const usage = { input_tokens: 10, cache_read_input_tokens: 100, cache_creation_input_tokens: 5, output_tokens: 1 };
      // One response split over several lines: thinking, then each tool_use on its own line.
      if (r.thinking) push({ type: 'assistant', message: { id, role: 'assistant', model: 'claude-x', content: [{ type: 'thinking', thinking: 'hmm', signature: 'sig==' }], usage } });
      r.calls.forEach((c, i) => push({ type: 'assistant', message: { id, role: 'assistant', model: 'claude-x', content: [{ type: 'tool_use', id: `toolu_${ti}_${ri}_${i}`, name: 'Read', input: { path: c.arg } }], usage: { ...usage, output_tokens: 7 + i } } }));
      r.calls.forEach((c, i) =>
        push({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${ti}_${ri}_${i}`, content: c.big ? c.result.repeat(20) : c.result }] }, toolUseResult: { stdout: c.result.repeat(20), stderr: '' } }),
      );
    });
    push({ type: 'assistant', message: { id: `msg_${ti}_final`, role: 'assistant', model: 'claude-x', content: [{ type: 'text', text: t.answer }], usage: { input_tokens: 1, output_tokens: 2 } } });
    if (t.snapshot) lines.push({ type: 'file-history-snapshot', messageId: `m${ti}`, snapshot: { trackedFileBackups: {} }, isSnapshotUpdate: false });
  });
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

const load = (s: string) => importBytes('gen.jsonl', new TextEncoder().encode(s)).transcript;

function projectionOf(t: Transcript, messages: ProjectedMessage[]): Projection {
  const zero = { total: 0, byKind: {}, tools: 0 };
  return { messages, tools: [...t.tools], fates: {}, report: [], summaries: [], tokens: { before: { ...zero, total: 1234 }, after: zero } };
}

describe('claude-code exporter properties', () => {
  it('reads generated sessions exactly: one message per response, usage once per response, lossless', () => {
    fc.assert(
      fc.property(session, (s) => {
        const src = build(s);
        const t = load(src);
        expect(t.format).toBe('claude-code');
        const responses = s.turns.reduce((n, tu) => n + tu.rounds.length + 1, 0);
        expect(t.messages.filter((m) => m.role === 'assistant').length).toBe(responses);
        expect(t.usage.length).toBe(responses);
        expect(t.usage.reduce((n, u) => n + u.output, 0)).toBe(s.turns.reduce((n, tu) => n + 2 + tu.rounds.reduce((k, r) => k + 7 + r.calls.length - 1, 0), 0));
        expect(validatePairing(t.messages)).toEqual([]);
        expect(claudeCode.serialize(t).text).toBe(src);
      }),
      { numRuns: 60 },
    );
  });

  it('export of a projection: re-imports to the projected messages, chain closed, untouched lines verbatim', () => {
    fc.assert(
      fc.property(session, fc.integer({ min: 0, max: 3 }), fc.array(fc.boolean(), { minLength: 30, maxLength: 30 }), fc.boolean(), fc.boolean(), (s, dropTurns, stubMask, withSummary, stripThinking) => {
        const src = build(s);
        const t = load(src);
        const lastTurn = t.turnCount - 1;
        const dropUpTo = Math.min(dropTurns, lastTurn) - 1;
        const kept = t.messages.filter((m) => m.turn > dropUpTo);
        let k = 0;
        const pms: ProjectedMessage[] = kept
          .map((m) => ({
            sourceId: m.id,
            role: m.role,
            turn: m.turn,
            blocks: m.blocks
              .filter((b) => !(stripThinking && b.kind === 'reasoning'))
              .map((b) => (b.kind === 'tool_result' && stubMask[k++ % stubMask.length] ? ({ ...b, content: `[stub ${b.callId}]`, sourceBlockId: b.id } as ProjectedBlock) : b)),
          }))
          .filter((pm) => pm.blocks.length > 0);
        if (withSummary && dropUpTo >= 0) pms.unshift({ role: 'user', turn: 0, synthetic: 'summary', span: [0, dropUpTo], blocks: [{ kind: 'summary', id: 's', tokens: 1, text: 'earlier "work"\nsummarized' }] });
        const out = claudeCode.serialize(t, projectionOf(t, pms)).text;
        const lines = out.split('\n').filter((l) => l);
        const values = lines.map((l) => JSON.parse(l) as Record<string, any>);
        const back = load(out);
        // The model's view (after the last compact_boundary) is the projection; lines before it are
        // the session's history, kept as Claude Code keeps them.
        const view = startingContext(back, 'model-view').messages;
        expect(view.length).toBe(pms.length);
        expect(validatePairing(view)).toEqual([]);
        const lastBoundary = values.map((v) => v.subtype === 'compact_boundary').lastIndexOf(true);
        const uuids = new Set(values.map((v) => v.uuid));
        expect(values.filter((v) => typeof v.parentUuid === 'string' && !uuids.has(v.parentUuid))).toEqual([]);
        // Exactly one chain: from the last line up to a root, every kept message line is on it.
        const byUuid = new Map(values.filter((v) => v.uuid).map((v) => [v.uuid, v]));
        const onChain = new Set<string>();
        for (let cur = values.filter((v) => v.type === 'user' || v.type === 'assistant').pop(); cur; cur = cur.parentUuid ? byUuid.get(cur.parentUuid) : undefined) onChain.add(cur.uuid);
        for (const v of values.slice(lastBoundary + 1)) if ((v.type === 'user' || v.type === 'assistant') && !v.isCompactSummary) expect(onChain.has(v.uuid)).toBe(true);
        if (withSummary && dropUpTo >= 0) {
          const bi = values.findIndex((v) => v.subtype === 'compact_boundary');
          expect(values[bi]).toMatchObject({ parentUuid: null, compactMetadata: { trigger: 'manual', preTokens: 1234 } });
          expect(values[bi + 1]).toMatchObject({ isCompactSummary: true, parentUuid: values[bi].uuid, message: { content: COMPACT_SUMMARY_PREAMBLE + 'earlier "work"\nsummarized' } });
          expect(back.markers.length).toBe(1);
        }
        // Stubbed results no longer carry the bulky toolUseResult.
        for (const v of values) if (typeof v.toolUseResult === 'string') expect(v.toolUseResult).toMatch(/^\[stub /);
        // Untouched messages whose parent was kept are their source lines, byte for byte.
        const original = new Set(t.records.map((r) => r.text));
        const rewritten = lines.filter((l) => !original.has(l));
        const changedMessages = pms.filter((pm) => {
          const m = pm.sourceId ? t.messages.find((x) => x.id === pm.sourceId) : undefined;
          return !m || pm.blocks.length !== m.blocks.length || pm.blocks.some((b, i) => b !== m.blocks[i]);
        });
        const maxRewritten = changedMessages.reduce((n, pm) => n + (pm.synthetic ? 2 : t.messages.find((x) => x.id === pm.sourceId)!.recordRefs.length), 0) + 2;
        expect(rewritten.length).toBeLessThanOrEqual(maxRewritten);
      }),
      { numRuns: 60 },
    );
  });
});
