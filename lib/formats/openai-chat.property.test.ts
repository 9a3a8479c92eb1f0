/**
 * Property tests for the Chat exporter: for generated conversations written in any JSON style,
 * (1) export without a projection is byte-identical, and (2) export of a random projection (whole
 * turns dropped, tool results stubbed, a summary inserted) is valid JSON that re-imports to exactly
 * the projected messages, with untouched messages byte-identical and every call still answered.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ProjectedBlock, ProjectedMessage, Projection } from '../compaction/types';
import { validatePairing } from '../model/pairing';
import type { Transcript } from '../model/types';
import { importBytes } from './import';
import { openaiChat } from './openai-chat';

type ChatMessage = Record<string, unknown>;

/** The value type an arbitrary generates. */
type ArbValue<A> = A extends fc.Arbitrary<infer T> ? T : never;

const text = fc.string({ minLength: 1, maxLength: 40, unit: fc.constantFrom('a', 'b', 'é', '中', '"', '\\', '\n', ' ', '{', '😀', '\u2028') });

/** One turn: a prompt, 0–2 rounds of parallel tool calls answered in any order, a final answer. */
const turn = fc.record({
  prompt: text,
  rounds: fc.array(fc.record({ calls: fc.array(fc.record({ name: fc.constantFrom('read', 'bash', 'grep'), arg: text, result: text }), { minLength: 1, maxLength: 3 }), reversed: fc.boolean() }), { maxLength: 2 }),
  answer: text,
});

const conversation = fc.record({
  system: fc.option(text, { nil: undefined }),
  turns: fc.array(turn, { minLength: 2, maxLength: 5 }),
  indent: fc.constantFrom<0 | 2 | 4 | '\t'>(0, 2, 4, '\t'),
  crlf: fc.boolean(),
  wrapped: fc.boolean(),
});

function build(c: ArbValue<typeof conversation>): string {
  const messages: ChatMessage[] = [];
  if (c.system) messages.push({ role: 'system', content: c.system });
  c.turns.forEach((t, ti) => {
    messages.push({ role: 'user', content: t.prompt });
    t.rounds.forEach((r, ri) => {
      const calls = r.calls.map((call, i) => ({ id: `call_${ti}_${ri}_${i}`, type: 'function', function: { name: call.name, arguments: JSON.stringify({ q: call.arg }) } }));
      messages.push({ role: 'assistant', content: null, tool_calls: calls });
      const results = r.calls.map((call, i) => ({ role: 'tool', tool_call_id: `call_${ti}_${ri}_${i}`, content: call.result }));
      messages.push(...(r.reversed ? results.reverse() : results));
    });
    messages.push({ role: 'assistant', content: t.answer });
  });
  const doc = c.wrapped ? { model: 'gpt-4o', messages } : messages;
  const out = c.indent === 0 ? JSON.stringify(doc) : JSON.stringify(doc, null, c.indent);
  return c.crlf ? out.replace(/\n/g, '\r\n') : out;
}

const load = (s: string, format?: string) => importBytes('gen.json', new TextEncoder().encode(s), format ? { format } : {}).transcript;

function projectionOf(t: Transcript, messages: ProjectedMessage[]): Projection {
  const zero = { total: 0, byKind: {}, tools: 0 };
  return { messages, tools: [...t.tools], fates: {}, report: [], summaries: [], tokens: { before: zero, after: zero } };
}

describe('openai-chat exporter properties', () => {
  it('export without a projection is byte-identical in every style', () => {
    fc.assert(
      fc.property(conversation, (c) => {
        const s = build(c);
        const t = load(s);
        expect(t.format).toBe('openai-chat');
        expect(openaiChat.serialize(t).text).toBe(s);
      }),
      { numRuns: 80 },
    );
  });

  it('export of a projection re-imports to the projected messages, untouched ones verbatim, pairing intact', () => {
    fc.assert(
      fc.property(conversation, fc.integer({ min: 0, max: 4 }), fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }), fc.boolean(), (c, dropTurns, stubMask, withSummary) => {
        const s = build(c);
        const t = load(s);
        // Drop whole turns from the first prompt on (never the last turn), stub some results.
        const firstPromptTurn = t.messages.find((m) => m.role === 'user')!.turn;
        const lastTurn = t.turnCount - 1;
        const dropUpTo = Math.min(firstPromptTurn + dropTurns, lastTurn) - 1;
        const kept = t.messages.filter((m) => m.turn < firstPromptTurn || m.turn > dropUpTo);
        let k = 0;
        const pms: ProjectedMessage[] = kept.map((m) => ({
          sourceId: m.id,
          role: m.role,
          turn: m.turn,
          blocks: m.blocks.map((b) => (b.kind === 'tool_result' && stubMask[k++ % stubMask.length] ? ({ ...b, content: `[stub ${b.callId}]`, sourceBlockId: b.id } as ProjectedBlock) : b)),
        }));
        if (withSummary && dropUpTo >= firstPromptTurn) {
          const at = pms.findIndex((pm) => pm.turn > dropUpTo);
          pms.splice(at, 0, { role: 'user', turn: firstPromptTurn, synthetic: 'summary', span: [firstPromptTurn, dropUpTo], blocks: [{ kind: 'summary', id: 's', tokens: 1, text: 'summary "quoted" \n line' }] });
        }
        const out = openaiChat.serialize(t, projectionOf(t, pms)).text;
        JSON.parse(out); // valid JSON
        const back = load(out, 'openai-chat');
        expect(back.messages.length).toBe(pms.length);
        expect(validatePairing(back.messages)).toEqual([]);
        back.messages.forEach((m, i) => {
          const pm = pms[i];
          expect(m.role).toBe(pm.role);
          expect(m.blocks.map((b) => (b.kind === 'tool_result' ? b.content : b.kind === 'text' || b.kind === 'summary' ? b.text : b.kind === 'tool_call' ? b.rawInput : b.kind))).toEqual(
            pm.blocks.map((b) => (b.kind === 'tool_result' ? b.content : b.kind === 'text' || b.kind === 'summary' ? b.text : b.kind === 'tool_call' ? b.rawInput : b.kind)),
          );
        });
        // Untouched messages are their source records, byte for byte.
        for (const pm of pms) {
          const src = pm.sourceId ? t.messages.find((m) => m.id === pm.sourceId)! : undefined;
          if (src && pm.blocks.every((b, i) => b === src.blocks[i])) expect(out.includes(t.records[src.recordRefs[0]].text)).toBe(true);
        }
      }),
      { numRuns: 80 },
    );
  });
});
