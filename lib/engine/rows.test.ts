import { describe, expect, it } from 'vitest';
import type { Message } from '@/lib/model/types';
import { buildRows, rowIndexOf, rowOfTurn, rowSearchText } from './rows';

const messages: Message[] = [
  { id: 'm0', index: 0, turn: 0, role: 'user', recordRefs: [0], blocks: [{ id: '0.0', kind: 'text', text: 'fix the bug', tokens: 3 }] },
  {
    id: 'm1',
    index: 1,
    turn: 0,
    role: 'assistant',
    recordRefs: [1],
    blocks: [
      { id: '1.0', kind: 'tool_call', callId: 'c1', name: 'Read', input: { file_path: 'a.ts' }, tokens: 5 },
      { id: '1.1', kind: 'tool_call', callId: 'c2', name: 'Grep', input: { pattern: 'x' }, tokens: 5 },
    ],
  },
  {
    id: 'm2',
    index: 2,
    turn: 0,
    role: 'user',
    recordRefs: [2],
    blocks: [
      { id: '2.0', kind: 'tool_result', callId: 'c1', content: 'export const a = 1;', isError: false, tokens: 6 },
      { id: '2.1', kind: 'tool_result', callId: 'zz', content: 'orphan', isError: false, tokens: 1 },
    ],
  },
  { id: 'm3', index: 3, turn: 0, role: 'user', recordRefs: [3], blocks: [{ id: '3.0', kind: 'tool_result', callId: 'c2', content: 'no matches', isError: true, tokens: 2 }] },
  { id: 'm4', index: 4, turn: 1, role: 'user', recordRefs: [4], blocks: [{ id: '4.0', kind: 'text', text: 'thanks', tokens: 1 }] },
];

describe('buildRows', () => {
  it('groups by turn, attaches results under their calls and folds result-only messages', () => {
    const rows = buildRows(messages, []);
    expect(rows.map((r) => r.key)).toEqual(['t0', 'm0', 'm1', 'm2', 't1', 'm4']);
    const m1 = rows.find((r) => r.key === 'm1')!;
    expect(m1.kind === 'message' && Object.keys(m1.results)).toEqual(['c1', 'c2']);
    // The orphan result keeps its message on screen; the attached one is hidden there.
    const m2 = rows.find((r) => r.key === 'm2')!;
    expect(m2.kind === 'message' && m2.hiddenResultIds).toEqual(['2.0']);
    const index = rowIndexOf(rows);
    expect(index.count).toBe(rows.length);
    expect([...index.header]).toEqual([1, 0, 0, 0, 1, 0]);
    expect([...index.turn]).toEqual([0, 0, 0, 0, 1, 1]);
    // Offsets: where each row starts, the last entry the list's height.
    expect(index.offsets).toHaveLength(rows.length + 1);
    expect(index.offsets[0]).toBe(0);
    for (let i = 0; i < rows.length; i++) expect(index.offsets[i + 1] - index.offsets[i]).toBe(index.height[i]);
    expect(rowOfTurn(index, 0)).toBe(0);
    expect(rowOfTurn(index, 1)).toBe(4);
    expect(rowOfTurn(index, 2)).toBe(-1);
    expect(rowSearchText(m1).join(' ')).toContain('no matches');
  });
});

describe('estimateRowHeight', () => {
  it('grows with text lines and tool results, and caps at the collapsed height', async () => {
    const { estimateRowHeight } = await import('./rows');
    const message = (blocks: unknown[]) => ({ kind: 'message', key: 'm', turn: 0, message: { blocks }, results: {}, hiddenResultIds: [] }) as unknown as Parameters<typeof estimateRowHeight>[0];
    const short = estimateRowHeight(message([{ id: 'a', kind: 'text', text: 'hello' }]));
    const long = estimateRowHeight(message([{ id: 'a', kind: 'text', text: 'x'.repeat(550) }]));
    const huge = estimateRowHeight(message([{ id: 'a', kind: 'text', text: 'line\n'.repeat(5000) }]));
    expect(long).toBeGreaterThan(short);
    expect(huge).toBeLessThan(500);
    expect(estimateRowHeight({ kind: 'turn', key: 't0', turn: 0 })).toBe(30);
  });
});
