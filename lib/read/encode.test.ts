import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import { compactTranscript, run } from '../cli/compact';
import type { Step } from '../compaction/types';
import { importFile } from '../formats/import';
import { transcriptTotals } from '../tokens/totals';
import { encodeExport, encodeText, sniffTextEncoding, textEncodingOf, UTF8, type TextEncodingOf } from './encode';
import { sourceFromBytes } from './source';

// A real session with non-ASCII text, emoji among it (surrogate pairs in UTF-16).
const SESSION = corpusFiles('claude-code').find((f) => f.includes('vibecodingtracker'))!;
const sessionText = fs.readFileSync(SESSION, 'utf8');

/**
 * The test's own UTF-16 writer (Node's Buffer), independent of encodeText: a variant of a real file
 * as a Windows tool would have written it.
 */
function asBytes(text: string, enc: Pick<TextEncodingOf, 'encoding' | 'bom'>): Uint8Array {
  const body = enc.encoding === 'utf-8' ? Buffer.from(text, 'utf8') : Buffer.from(text, 'utf16le');
  if (enc.encoding === 'utf-16be') body.swap16();
  const bom = !enc.bom ? [] : enc.encoding === 'utf-8' ? [0xef, 0xbb, 0xbf] : enc.encoding === 'utf-16le' ? [0xff, 0xfe] : [0xfe, 0xff];
  return new Uint8Array(Buffer.concat([Buffer.from(bom), body]));
}

const VARIANTS: TextEncodingOf[] = [
  { encoding: 'utf-8', bom: false, gzip: false },
  { encoding: 'utf-8', bom: true, gzip: false },
  { encoding: 'utf-16le', bom: true, gzip: false },
  { encoding: 'utf-16le', bom: false, gzip: false },
  { encoding: 'utf-16be', bom: true, gzip: false },
  { encoding: 'utf-16be', bom: false, gzip: false },
];
const label = (e: TextEncodingOf) => `${e.encoding}${e.bom ? ' with BOM' : ''}${e.gzip ? ' gzip' : ''}`;

describe('encodeText', () => {
  it.each(VARIANTS.map((v) => [label(v), v] as const))('%s: the bytes of a real session are what the source was, and read back to the same text', (_, enc) => {
    const bytes = encodeText(sessionText, enc);
    expect(Buffer.from(bytes).equals(Buffer.from(asBytes(sessionText, enc)))).toBe(true);
    const src = sourceFromBytes('s.jsonl', bytes);
    expect(textEncodingOf(src)).toEqual(enc);
    expect(src.text()).toBe(sessionText);
  });

  it('the session really has surrogate pairs, so the UTF-16 paths are exercised on them', () => {
    expect(/[\uD800-\uDBFF][\uDC00-\uDFFF]/.test(sessionText)).toBe(true);
  });

  it('defaults to UTF-8 without a BOM', () => {
    expect(Buffer.from(encodeText('{"a":"é"}')).toString('hex')).toBe(Buffer.from('{"a":"é"}', 'utf8').toString('hex'));
  });
});

describe('sniffTextEncoding', () => {
  it.each(VARIANTS.map((v) => [label(v), v] as const))('%s, plain and gzip-compressed (only the head is inflated)', (_, enc) => {
    const bytes = asBytes(sessionText, enc);
    expect(sniffTextEncoding(bytes)).toEqual(enc);
    expect(sniffTextEncoding(new Uint8Array(zlib.gzipSync(bytes)))).toEqual({ ...enc, gzip: true });
  });

  it('a truncated gzip stream still tells what its head holds; empty input is UTF-8', () => {
    const gz = zlib.gzipSync(asBytes(sessionText, { encoding: 'utf-16be', bom: true }));
    expect(sniffTextEncoding(new Uint8Array(gz.subarray(0, 200)))).toEqual({ encoding: 'utf-16be', bom: true, gzip: true });
    expect(sniffTextEncoding(new Uint8Array(0))).toEqual(UTF8);
  });
});

describe('encodeExport', () => {
  const gzLe: TextEncodingOf = { encoding: 'utf-16le', bom: true, gzip: true };
  it('a binary format keeps its own bytes; text follows the source encoding', () => {
    const zip = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3]);
    expect(encodeExport({ text: '{}', bytes: zip, fileName: 'x.eval' }, gzLe)).toBe(zip);
    expect(Buffer.from(encodeExport({ text: '{}', fileName: 'x.json' })).toString()).toBe('{}');
  });

  it('a gzip source: re-compressed only when the export keeps the .gz name (no projection), else plain', () => {
    const same = encodeExport({ text: sessionText, fileName: 's.jsonl.gz' }, gzLe);
    expect(Buffer.from(zlib.gunzipSync(same)).equals(Buffer.from(asBytes(sessionText, gzLe)))).toBe(true);
    const compacted = encodeExport({ text: sessionText, fileName: 's.compacted.jsonl' }, gzLe);
    expect(Buffer.from(compacted).equals(Buffer.from(asBytes(sessionText, gzLe)))).toBe(true);
  });
});

describe('cli compact keeps the source encoding', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'compact-enc-'));
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const strip: Step = { id: 'cli', range: { kind: 'all-but-last', n: 0 }, reducers: [{ id: 'strip-tool-results' }], keepLast: 0, createdAt: '2026-01-01T00:00:00.000Z' };
  const utf8 = importFile(sourceFromBytes('s.jsonl', asBytes(sessionText, UTF8))).transcript;
  const reference = compactTranscript(utf8, strip, 1e9, { write: true, encoding: UTF8 });

  it.each(VARIANTS.filter((v) => v.encoding !== 'utf-8' || v.bom).map((v) => [label(v), v] as const))('compactTranscript of a %s source writes the same encoding', (_, enc) => {
    const source = sourceFromBytes('s.jsonl', asBytes(sessionText, enc));
    const t = importFile(source).transcript;
    const out = compactTranscript(t, strip, 1e9, { write: true, encoding: textEncodingOf(source) });
    expect(out.projection.tokens.after.total).toBeLessThan(out.projection.tokens.before.total);
    // Same compacted text as from the UTF-8 file, in the source's bytes.
    expect(out.text).toBe(reference.text);
    expect(Buffer.from(out.bytes!).equals(Buffer.from(asBytes(reference.text!, enc)))).toBe(true);
    expect(out.reimportedTokens).toBe(reference.reimportedTokens);
  });

  it('compact FILE --out OUT on a UTF-16LE file with BOM writes UTF-16LE with BOM that re-imports to the projected total', async () => {
    const file = path.join(tmp, 'windows.jsonl');
    fs.writeFileSync(file, asBytes(sessionText, { encoding: 'utf-16le', bom: true }));
    const out = path.join(tmp, 'windows.compacted.jsonl');
    const io = [vi.spyOn(process.stdout, 'write').mockImplementation(() => true), vi.spyOn(process.stderr, 'write').mockImplementation(() => true)];
    const code = await run([file, '--budget', '100000000', '--strategy', 'strip-tool-results', '--keep-last', '0', '--out', out]);
    for (const s of io) s.mockRestore();
    expect(code).toBe(0);
    const written = new Uint8Array(fs.readFileSync(out));
    expect([written[0], written[1]]).toEqual([0xff, 0xfe]);
    expect(Buffer.from(written).equals(Buffer.from(asBytes(reference.text!, { encoding: 'utf-16le', bom: true })))).toBe(true);
    const back = importFile(sourceFromBytes('windows.compacted.jsonl', written)).transcript;
    expect(transcriptTotals(back).total).toBe(reference.reimportedTokens);
  });
});
