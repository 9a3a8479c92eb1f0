import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import { contentId, legacyContentId } from './import';
import { sourceFromBytes } from '../read/source';
import { allCorpusFiles, corpusFiles } from '../../tests/corpus';

const idOf = (bytes: Uint8Array) => contentId(sourceFromBytes('f.jsonl', bytes));

describe('contentId (the key a file is recognised by)', () => {
  it('is stable, and every one-byte change, at any position and for every tail length, gives another id', () => {
    for (let n = 0; n <= 41; n++) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 37 + 11) & 255);
      const id = idOf(bytes);
      expect(id).toMatch(/^u[0-9a-z]+$/);
      expect(idOf(bytes.slice())).toBe(id);
      for (let i = 0; i < n; i++) {
        const changed = bytes.slice();
        changed[i] ^= 1;
        expect(idOf(changed), `length ${n}, byte ${i}`).not.toBe(id);
      }
      // One more zero byte is another file.
      expect(idOf(Uint8Array.from([...bytes, 0]))).not.toBe(id);
    }
  });

  it('gives the same id for a view at any byte offset (a file inside a larger buffer)', () => {
    const bytes = new Uint8Array(fs.readFileSync(corpusFiles('claude-code')[0]));
    const id = idOf(bytes);
    for (let offset = 1; offset < 4; offset++) {
      const big = new Uint8Array(bytes.length + offset);
      big.set(bytes, offset);
      expect(idOf(big.subarray(offset))).toBe(id);
    }
  });

  it('tells every corpus file apart, under both hashes', () => {
    const files = allCorpusFiles();
    const ids = new Set<string>();
    const legacy = new Set<string>();
    for (const f of files) {
      const source = sourceFromBytes(f, new Uint8Array(fs.readFileSync(f)));
      ids.add(contentId(source));
      legacy.add(legacyContentId(source));
    }
    expect(files.length).toBeGreaterThanOrEqual(47);
    expect(ids.size).toBe(files.length);
    expect(legacy.size).toBe(files.length);
    expect([...legacy].every((id) => id.startsWith('t'))).toBe(true);
  });
});
