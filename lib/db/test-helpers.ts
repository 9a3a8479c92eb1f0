/** Factories for the db tests (STYLE.md §9: `makeTranscript(overrides)`). Test-only. */
import type { Message } from '../model/types';
import { emptyByKind } from '../tokens/totals';
import type { ImportPayload } from './repo';

let dbCounter = 0;
/** A fresh database name per test, so tests never see each other's rows. */
export function freshDbName(): string {
  return `contextscope-test-${process.pid}-${++dbCounter}-${Math.random().toString(36).slice(2, 8)}`;
}

export function makeMessages(n: number): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < n; i++) {
    const user = i % 2 === 0;
    out.push({
      id: `m${i}`,
      index: i,
      turn: Math.floor(i / 2),
      role: user ? 'user' : 'assistant',
      recordRefs: [i],
      blocks: [{ id: `${i}.0`, kind: 'text', text: `${user ? 'question' : 'answer'} ${i}`, tokens: 3 + (i % 5) }],
    });
  }
  return out;
}

export function makePayload(overrides: { id?: string; messages?: Message[]; title?: string } = {}): ImportPayload {
  const messages = overrides.messages ?? makeMessages(10);
  const id = overrides.id ?? 'tA';
  const byKind = emptyByKind();
  let total = 0;
  for (const m of messages)
    for (const b of m.blocks) {
      byKind[m.role === 'user' ? 'user' : 'assistant'] += b.tokens;
      total += b.tokens;
    }
  return {
    meta: {
      id,
      title: overrides.title ?? `Transcript ${id}`,
      format: 'test',
      formatLabel: 'Test',
      fileName: `${id}.jsonl`,
      size: 1234,
      messages: messages.length,
      turns: messages.length === 0 ? 0 : messages[messages.length - 1].turn + 1,
      tokens: { total, byKind },
      toolCalls: 0,
      markers: 0,
      usage: null,
      warnings: 0,
      importedAt: new Date().toISOString(),
    },
    original: new TextEncoder().encode(`original bytes of ${id}\n`),
    messages,
    details: { tools: [], markers: [], usage: [], warnings: [] },
  };
}
