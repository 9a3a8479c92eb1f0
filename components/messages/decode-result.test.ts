import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import { importBytes } from '@/lib/formats/import';
import { decodeResult } from './decode-result';

describe('decodeResult (issue 30: Codex tool results shown as JSON strings with escapes)', () => {
  it('decodes every Codex shell output of codex-session-view to its text, with exit code and duration', () => {
    const f = corpusFiles('codex-cli').find((x) => x.includes('codex-session-view'))!;
    const t = importBytes(path.basename(f), new Uint8Array(fs.readFileSync(f))).transcript;
    const results = t.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_result');
    const wrapped = results.filter((b) => b.kind === 'tool_result' && b.content.startsWith('{"output"'));
    expect(wrapped.length).toBeGreaterThan(10);
    for (const b of wrapped) {
      if (b.kind !== 'tool_result') continue;
      const d = decodeResult(b.content);
      expect(d.text).toBe((JSON.parse(b.content) as { output: string }).output);
      expect(d.text).not.toMatch(/^\{"output"/);
      expect(d.meta).toMatch(/^exit -?\d+/);
    }
  });
  it('leaves anything else as it is', () => {
    for (const s of ['plain text', '{"output": 3}', '{"output":"x","other":1}', '{"output":"x"', '[1,2]']) expect(decodeResult(s)).toEqual({ text: s });
    expect(decodeResult('{"output":"a\\nb"}')).toEqual({ text: 'a\nb' });
  });
});
