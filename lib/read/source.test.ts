import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import { ImportError } from '../errors';
import { importBytes } from '../formats/import';
import { readJsonl } from './jsonl';
import { sourceFromBytes, sourceFromText, withMockedChunkSize } from './source';

// Real text with multi-byte characters (Chinese, emoji-free CJK) to split across chunk edges.
const CJK = corpusFiles('claude-code').find((f) => path.basename(f).startsWith('vibecodingtracker'))!;

function utf16(text: string, endian: 'le' | 'be', bom: boolean): Uint8Array {
  const out = new Uint8Array((bom ? 2 : 0) + text.length * 2);
  let o = 0;
  if (bom) {
    out[o++] = endian === 'le' ? 0xff : 0xfe;
    out[o++] = endian === 'le' ? 0xfe : 0xff;
  }
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    out[o++] = endian === 'le' ? c & 0xff : c >> 8;
    out[o++] = endian === 'le' ? c >> 8 : c & 0xff;
  }
  return out;
}

describe('sourceFromBytes: encodings', () => {
  const text = fs.readFileSync(CJK, 'utf8');

  for (const [label, endian, bom] of [
    ['UTF-16LE with BOM', 'le', true],
    ['UTF-16BE with BOM', 'be', true],
    ['UTF-16LE without BOM', 'le', false],
    ['UTF-16BE without BOM', 'be', false],
  ] as const) {
    it(`${label}: decoded to the same text and the same records as UTF-8`, () => {
      const src = sourceFromBytes('s.jsonl', utf16(text, endian, bom));
      expect(src.encoding).toBe(endian === 'le' ? 'utf-16le' : 'utf-16be');
      expect(src.bom).toBe(bom);
      expect(src.text()).toBe(text);
      const viaUtf16 = importBytes('s.jsonl', utf16(text, endian, bom)).transcript;
      const viaUtf8 = importBytes('s.jsonl', new TextEncoder().encode(text)).transcript;
      expect(viaUtf16.format).toBe('claude-code');
      expect(viaUtf16.records.map((r) => r.text)).toEqual(viaUtf8.records.map((r) => r.text));
      expect(viaUtf16.messages.length).toBe(viaUtf8.messages.length);
    });
  }

  it('UTF-16 lines survive chunk edges that split a code unit', () => {
    const bytes = utf16(text, 'le', true);
    const whole = [...sourceFromBytes('s.jsonl', bytes).lines()];
    const chunked = withMockedChunkSize(333, () => [...sourceFromBytes('s.jsonl', bytes).lines()]);
    expect(chunked).toEqual(whole);
  });

  it('plain UTF-8 JSON is not mistaken for UTF-16', () => {
    expect(sourceFromText('a.json', '{"a":1}').encoding).toBe('utf-8');
    expect(sourceFromText('a.json', '[]').encoding).toBe('utf-8');
  });
});

describe('sourceFromBytes: chunked decoding', () => {
  const bytes = new Uint8Array(fs.readFileSync(CJK));
  it('multi-byte UTF-8 characters split across chunks decode intact (lines and text)', () => {
    const whole = sourceFromBytes('s.jsonl', bytes);
    for (const size of [7, 1000, 4093]) {
      const chunkedLines = withMockedChunkSize(size, () => [...sourceFromBytes('s.jsonl', bytes).lines()]);
      expect(chunkedLines).toEqual([...whole.lines()]);
      const chunkedText = withMockedChunkSize(size, () => sourceFromBytes('s.jsonl', bytes).text());
      expect(chunkedText).toBe(whole.text());
      expect(chunkedText).not.toContain('\uFFFD');
    }
  });

  it('lines keep their end-of-line: LF, CRLF, and none on a last line without one', () => {
    const lines = [...sourceFromText('x.jsonl', '{"a":1}\r\n{"b":2}\n\n{"c":3}').lines()];
    expect(lines).toEqual([
      { text: '{"a":1}', eol: '\r\n', line: 1 },
      { text: '{"b":2}', eol: '\n', line: 2 },
      { text: '', eol: '\n', line: 3 },
      { text: '{"c":3}', eol: '', line: 4 },
    ]);
  });

  it('readJsonl is lossless over blank lines and CRLF', () => {
    const text = '\n{"a":1}\r\n\r\n{"b":2}\n';
    const set = readJsonl(sourceFromText('x.jsonl', text));
    expect(set.records.map((r) => [r.text, r.line])).toEqual([
      ['{"a":1}', 2],
      ['{"b":2}', 4],
    ]);
    expect(set.frame[0] + set.records[0].text + set.frame[1] + set.records[1].text + set.frame[2]).toBe(text);
  });
});

describe('sourceFromBytes: gzip', () => {
  it('gunzips transparently and remembers it', () => {
    const raw = new TextEncoder().encode('{"a":1}\n');
    const src = sourceFromBytes('x.jsonl.gz', gzipSync(raw));
    expect(src.gzip).toBe(true);
    expect(src.text()).toBe('{"a":1}\n');
  });

  it('a broken gzip stream is a specific error', () => {
    try {
      sourceFromBytes('x.gz', new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0]));
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ImportError);
      expect((e as ImportError).code).toBe('malformed:gzip');
    }
  });
});

describe('decodedClean: a full decode without U+FFFD proves the bytes valid UTF-8', () => {
  it('is false before the whole file is read, true after, and false where a byte was replaced', () => {
    const good = sourceFromBytes('a.jsonl', new TextEncoder().encode('{"a":"héllo"}\n{"b":"🎉"}\n'));
    expect(good.decodedClean!()).toBe(false);
    const it = good.lines()[Symbol.iterator]();
    it.next();
    expect(good.decodedClean!()).toBe(false);
    for (const _ of good.lines());
    expect(good.decodedClean!()).toBe(true);
    const bad = sourceFromBytes('b.jsonl', Uint8Array.from([...new TextEncoder().encode('{"a":"'), 0xff, ...new TextEncoder().encode('"}\n')]));
    bad.text();
    expect(bad.decodedClean!()).toBe(false);
    // A literal U+FFFD is valid UTF-8: not clean by this test, so the byte check decides (and finds none).
    const literal = sourceFromBytes('c.jsonl', new TextEncoder().encode('{"a":"\uFFFD"}\n'));
    literal.text();
    expect(literal.decodedClean!()).toBe(false);
  });
});
