/**
 * Test helpers for the trajectory formats: a hand-made projection (what a compaction step would
 * produce) so export-of-a-projection can be checked without depending on the compaction engine.
 */
import type { ProjectedBlock, ProjectedMessage, Projection, TokenTotals } from '../model/projection';
import { validatePairing, isFatalForExport } from '../model/pairing';
import type { Transcript } from '../model/types';

export interface TestProjectionOptions {
  /** Replace every tool result's content with this stub (new block objects). */
  stubResults?: string;
  /** Remove reasoning blocks. */
  stripReasoning?: boolean;
  /** Replace turns [from, to] (inclusive) with one synthetic summary message. */
  summarizeTurns?: [number, number];
  summaryText?: string;
}

const zero: TokenTotals = { total: 0, byKind: {}, tools: 0 };

export function testProjection(t: Transcript, o: TestProjectionOptions): Projection {
  const messages: ProjectedMessage[] = [];
  let summaryPlaced = false;
  for (const m of t.messages) {
    if (o.summarizeTurns && m.turn >= o.summarizeTurns[0] && m.turn <= o.summarizeTurns[1] && m.role !== 'system') {
      if (!summaryPlaced) {
        summaryPlaced = true;
        messages.push({
          role: 'user',
          turn: m.turn,
          synthetic: 'summary',
          span: o.summarizeTurns,
          blocks: [{ kind: 'summary', id: 'syn.0', tokens: 0, text: o.summaryText ?? 'Summary of the earlier turns.' }],
        });
      }
      continue;
    }
    let changed = false;
    const blocks: ProjectedBlock[] = [];
    for (const b of m.blocks) {
      if (o.stripReasoning && b.kind === 'reasoning') {
        changed = true;
        continue;
      }
      if (o.stubResults !== undefined && b.kind === 'tool_result') {
        changed = true;
        blocks.push({ ...b, content: o.stubResults, sourceBlockId: b.id });
        continue;
      }
      blocks.push(b);
    }
    messages.push({ sourceId: m.id, role: m.role, turn: m.turn, blocks: changed ? blocks : [...m.blocks] });
  }
  return { messages, tools: [...t.tools], fates: {}, report: [], summaries: [], tokens: { before: zero, after: zero } };
}

/** Pairing issues that would make the conversation invalid to send (in-flight last call tolerated). */
export function fatalPairing(t: Transcript): string[] {
  const main = t.messages.filter((m) => !m.sidechain);
  return validatePairing(main)
    .filter((i) => isFatalForExport(i, main.length))
    .map((i) => `${i.kind} ${i.callId} @${i.message}`);
}

/** Characters of text in user messages that are not tool results (what a conversion must preserve). */
export function userTextChars(messages: readonly { role: string; blocks: readonly ProjectedBlock[] | readonly { kind: string }[] }[]): number {
  let n = 0;
  for (const m of messages) {
    if (m.role !== 'user') continue;
    for (const b of m.blocks as readonly { kind: string; text?: string }[]) if (b.kind === 'text' && typeof b.text === 'string') n += b.text.length;
  }
  return n;
}
