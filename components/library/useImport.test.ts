import { describe, expect, it } from 'vitest';
import { pastedSource } from './useImport';

describe('pastedSource', () => {
  it('names JSONL text .jsonl and a JSON document .json, keeping the exact bytes', async () => {
    const jsonl = '{"type":"user","message":{"role":"user","content":"hi"}}\n{"type":"assistant"}\n';
    const doc = '{\n  "messages": [\n    {"role": "user", "content": "hi"}\n  ]\n}\n';
    const arr = '[{"role": "user", "content": "hi"},\n{"role": "assistant", "content": "yo"}]';
    expect(pastedSource(jsonl).name).toBe('pasted.jsonl');
    expect(pastedSource(doc).name).toBe('pasted.json');
    expect(pastedSource(arr).name).toBe('pasted.json');
    expect(pastedSource('{"a": 1}').name).toBe('pasted.json');
    const source = pastedSource(jsonl);
    expect(new TextDecoder().decode(await source.read())).toBe(jsonl);
    // Each read is a fresh buffer: the bridge transfers (detaches) what it sends.
    const a = await source.read();
    const b = await source.read();
    expect(a).not.toBe(b);
    expect(b.byteLength).toBe(a.byteLength);
  });
});
