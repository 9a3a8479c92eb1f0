/**
 * The trajectory formats' export with projections made by the real compaction engine (not the
 * hand-made ones of the format tests): stub tool results, strip reasoning, summarize — then the
 * export re-imports in the same format with every call still answered.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import { projectTranscript } from '../compaction/project';
import { step } from '../compaction/testing/steps';
import { importBytes } from './import';
import { formatById } from './registry';
import { fatalPairing } from './traj-test-helpers';

const files = ['swe-agent', 'mini-swe-agent', 'openhands', 'inspect-ai'].flatMap((f) => corpusFiles(f));

describe.each(files.map((f) => [path.basename(f), f] as const))('%s through the compaction engine', (name, file) => {
  const t = importBytes(name, new Uint8Array(fs.readFileSync(file))).transcript;
  const all = { kind: 'turns' as const, from: 0, to: t.turnCount - 1 };
  const mod = formatById(t.format)!;
  const reimport = (text: string, bytes?: Uint8Array) => importBytes(name, bytes ?? new TextEncoder().encode(text), { format: t.format }).transcript;

  it('strip-tool-results + strip-reasoning: fewer tokens, same messages, pairs kept', () => {
    const p = projectTranscript(t, [step(['strip-tool-results', 'strip-reasoning'], { keepLast: 0, range: all })]);
    const out = mod.serialize(t, p);
    const back = reimport(out.text, out.bytes);
    expect(back.messages.length).toBe(p.messages.length);
    expect(fatalPairing(back)).toEqual([]);
    const before = t.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_result').reduce((s, b) => s + b.tokens, 0);
    const after = back.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_result').reduce((s, b) => s + b.tokens, 0);
    if (before > 200) expect(after).toBeLessThan(before);
  });

  it('summarize: the summary is written the way the format holds one, and re-imports', () => {
    const p = projectTranscript(t, [step(['summarize'], { keepLast: 0, range: all })]);
    const summary = p.messages.find((m) => m.synthetic === 'summary');
    const out = mod.serialize(t, p);
    const back = reimport(out.text, out.bytes);
    expect(fatalPairing(back)).toEqual([]);
    if (summary) {
      const text = summary.blocks.map((b) => (b.kind === 'summary' || b.kind === 'text' ? b.text : '')).join('');
      const backText = back.messages.flatMap((m) => m.blocks).map((b) => (b.kind === 'summary' || b.kind === 'text' ? b.text : '')).join('\n');
      expect(backText).toContain(text.slice(0, 200));
      expect(back.messages.length).toBeLessThan(t.messages.length + 1);
    }
  });
});
