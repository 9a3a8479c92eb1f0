import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { importBytes } from '../lib/formats/import';
import { formatById } from '../lib/formats/registry';
import { validatePairing } from '../lib/model/pairing';
import { makeSample, SAMPLE_PATH } from './make-sample';

describe('the "Open a sample" transcript', () => {
  const text = makeSample();
  const bytes = new TextEncoder().encode(text);

  it('is what the generator writes (committed output is not stale)', () => {
    expect(fs.readFileSync(SAMPLE_PATH, 'utf8')).toBe(text);
  });

  it('imports as a Claude Code session with what the inspector shows off', () => {
    const t = importBytes('contextscope-demo.jsonl', bytes).transcript;
    expect(t.format).toBe('claude-code');
    expect(t.warnings).toEqual([]);
    expect(t.turnCount).toBeGreaterThanOrEqual(38);
    expect(t.turnCount).toBeLessThanOrEqual(45);
    expect(t.model).toBe('claude-sonnet-4-5-20250929');
    expect(validatePairing(t.messages)).toEqual([]);

    const blocks = t.messages.flatMap((m) => m.blocks);
    const reasoning = blocks.filter((b) => b.kind === 'reasoning');
    expect(reasoning.length).toBeGreaterThan(3);
    expect(reasoning.every((b) => b.kind === 'reasoning' && (b.opaque ?? '').length > 300)).toBe(true);
    const tools = new Set(blocks.flatMap((b) => (b.kind === 'tool_call' ? [b.name] : [])));
    expect([...tools].sort()).toEqual(['Bash', 'Edit', 'Grep', 'Read']);
    expect(blocks.some((b) => b.kind === 'tool_result' && b.isError && b.content.includes('AssertionError'))).toBe(true);

    // The same file read twice (the dedup reducers' case).
    const reads = blocks.flatMap((b) => (b.kind === 'tool_call' && b.name === 'Read' ? [JSON.stringify(b.input)] : []));
    expect(reads.length).toBeGreaterThan(new Set(reads).size);

    // Usage grouped by message.id: one record per API response, not per line.
    const lines = text.trim().split('\n').map((l) => JSON.parse(l) as { type?: string; message?: { id?: string } });
    const responseIds = new Set(lines.filter((l) => l.type === 'assistant').map((l) => l.message!.id));
    const assistantLines = lines.filter((l) => l.type === 'assistant').length;
    expect(assistantLines).toBeGreaterThan(responseIds.size);
    expect(t.usage).toHaveLength(responseIds.size);
    // Context grows call by call until the compaction.
    const ctx = t.usage.map((u) => u.input + u.cacheRead + u.cacheWrite);
    const marker = t.markers[0];
    const before = t.usage.filter((u) => u.messageIndex < marker.atMessage).map((u) => u.input + u.cacheRead + u.cacheWrite);
    expect(before.every((c, i) => i === 0 || c >= before[i - 1])).toBe(true);
    expect(Math.max(...ctx)).toBeGreaterThan(50_000);

    expect(t.markers).toHaveLength(1);
    expect(marker).toMatchObject({ source: 'claude-code-compact', trigger: 'manual' });
    expect(t.messages[marker.atMessage].blocks.some((b) => b.kind === 'summary')).toBe(true);
  });

  it('round-trips byte for byte through the claude-code serializer', () => {
    const t = importBytes('contextscope-demo.jsonl', bytes).transcript;
    expect(formatById('claude-code')!.serialize(t).text).toBe(text);
  });
});
