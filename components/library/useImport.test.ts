import { describe, expect, it } from 'vitest';
import { fileSource, pastedSource } from './useImport';

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
    expect(new TextDecoder().decode((await source.read()) as ArrayBuffer)).toBe(jsonl);
    // Each read is a fresh buffer: the bridge transfers (detaches) what it sends.
    const a = (await source.read()) as ArrayBuffer;
    const b = (await source.read()) as ArrayBuffer;
    expect(a).not.toBe(b);
    expect(b.byteLength).toBe(a.byteLength);
  });
});

describe('fileSource', () => {
  it('hands the File itself to the engine (read in the worker), not bytes read on the page', async () => {
    // Read on the page, a 37 MB session made main-thread tasks of 80–170 ms CPU (issue 31).
    const file = new File(['{"type":"user"}\n'], 'a.jsonl');
    const source = fileSource(file);
    expect(source.name).toBe('a.jsonl');
    expect(await source.read()).toBe(file);
  });
});
