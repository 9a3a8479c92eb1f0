/**
 * Exports through the engine (the function the app's Export dialog calls) keep the source's
 * encoding: a UTF-16 file compacted in the browser comes back as UTF-16 with its BOM.
 */
import 'fake-indexeddb/auto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { beforeEach, describe, expect, it } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import { freshDbName } from '../db/test-helpers';
import { importBytes } from '../formats/import';
import type { Encoding } from '../read/source';
import { transcriptTotals } from '../tokens/totals';
import { engine, useEngineDatabase } from './api';
import type { DraftStep } from './compaction';
import { ORIGINAL_VERSION } from './versions';

beforeEach(() => useEngineDatabase(freshDbName()));

interface Variant {
  encoding: Encoding;
  bom: boolean;
}
const BOMS: Record<Encoding, number[]> = { 'utf-8': [0xef, 0xbb, 0xbf], 'utf-16le': [0xff, 0xfe], 'utf-16be': [0xfe, 0xff] };

/** A real file re-written as a Windows tool would (Node's Buffer, independent of lib/read/encode). */
function asBytes(text: string, v: Variant): Uint8Array {
  const body = v.encoding === 'utf-8' ? Buffer.from(text, 'utf8') : Buffer.from(text, 'utf16le');
  if (v.encoding === 'utf-16be') body.swap16();
  return new Uint8Array(Buffer.concat([Buffer.from(v.bom ? BOMS[v.encoding] : []), body]));
}

/** Decode with the test's own reader: strips the expected BOM, fails on any other start. */
function decodeAs(bytes: Uint8Array, v: Variant): string {
  const bom = v.bom ? BOMS[v.encoding] : [];
  expect([...bytes.subarray(0, bom.length)], 'byte-order mark').toEqual(bom);
  const body = Buffer.from(bytes.subarray(bom.length));
  if (v.encoding === 'utf-8') return body.toString('utf8');
  if (v.encoding === 'utf-16be') body.swap16();
  return body.toString('utf16le');
}

async function importAs(bytes: Uint8Array, name: string): Promise<{ id: string; turns: number }> {
  const out = await engine.importFile(bytes.slice(), name);
  if (out.kind !== 'imported') throw new Error(JSON.stringify(out));
  return { id: out.meta.id, turns: out.meta.turns };
}

function strip(turns: number): DraftStep {
  return { id: 'step-strip', range: { kind: 'turns', from: 0, to: turns - 1 }, reducers: [{ id: 'strip-tool-results' }], keepLast: 0 };
}

/** Compact with strip-tool-results and export in the source format, as the app does. */
async function compactAndExport(bytes: Uint8Array, name: string) {
  const { id, turns } = await importAs(bytes, name);
  const v1 = await engine.applyStep(id, ORIGINAL_VERSION, strip(turns));
  const out = await engine.exportVersion(id, v1.id, {});
  if (out.kind !== 'file') throw new Error(JSON.stringify(out));
  return { id, v1, file: out.file };
}

const CASES = [
  // JSONL with emoji (surrogate pairs in UTF-16) and a JSON document of another family.
  { file: corpusFiles('claude-code').find((f) => f.includes('vibecodingtracker'))!, variants: [{ encoding: 'utf-16le', bom: true }, { encoding: 'utf-16be', bom: false }, { encoding: 'utf-8', bom: true }] as Variant[] },
  { file: corpusFiles('codex-cli').find((f) => f.includes('codex-session-view'))!, variants: [{ encoding: 'utf-16be', bom: true }] as Variant[] },
  { file: corpusFiles('swe-agent').find((f) => f.includes('marshmallow'))!, variants: [{ encoding: 'utf-16le', bom: false }] as Variant[] },
];

describe('engine.exportVersion keeps the source encoding', () => {
  for (const { file, variants } of CASES) {
    const name = path.basename(file);
    const text = fs.readFileSync(file, 'utf8');
    for (const v of variants) {
      it(`${name} as ${v.encoding}${v.bom ? ' with BOM' : ' without BOM'}: compacted export in the same encoding, same content as from UTF-8, re-imports to the compacted total`, async () => {
        const reference = await compactAndExport(asBytes(text, { encoding: 'utf-8', bom: false }), name);
        const source = asBytes(text, v);
        const { id, file: out } = await compactAndExport(source, name);
        expect(out.format).toBe(reference.file.format);
        expect(out.fileName).toBe(reference.file.fileName);
        expect(out.tokens.projected).toBeLessThan(out.tokens.original);

        // Same compacted text as the UTF-8 source gives, in the source's encoding and BOM.
        const decoded = decodeAs(out.bytes, v);
        expect(decoded).toBe(new TextDecoder().decode(reference.file.bytes));
        expect(Buffer.from(out.bytes).equals(Buffer.from(asBytes(decoded, v)))).toBe(true);

        const back = importBytes(out.fileName, out.bytes).transcript;
        expect(transcriptTotals(back).total).toBe(out.tokens.reimported);
        expect(out.tokens.reimported).toBe(reference.file.tokens.reimported);

        // No projection: the very bytes that were imported.
        const original = await engine.exportVersion(id, ORIGINAL_VERSION, {});
        if (original.kind !== 'file') throw new Error(JSON.stringify(original));
        expect(Buffer.from(original.file.bytes).equals(Buffer.from(source))).toBe(true);
        const plain = await engine.exportTranscript(id);
        if (plain.kind !== 'file') throw new Error(JSON.stringify(plain));
        expect(Buffer.from(plain.file.bytes).equals(Buffer.from(source))).toBe(true);
      });
    }
  }

  it('a conversion to another format is plain UTF-8 without a BOM, whatever the source', async () => {
    const file = CASES[0].file;
    const { id, v1 } = await compactAndExport(asBytes(fs.readFileSync(file, 'utf8'), { encoding: 'utf-16le', bom: true }), path.basename(file));
    const converted = await engine.exportVersion(id, v1.id, { format: 'openai-chat' });
    if (converted.kind !== 'file') throw new Error(JSON.stringify(converted));
    expect(converted.file.bytes[0]).toBe('{'.charCodeAt(0));
    const back = importBytes(converted.file.fileName, converted.file.bytes, { format: 'openai-chat' }).transcript;
    expect(transcriptTotals(back).total).toBe(converted.file.tokens.reimported);
  });

  it('a gzip-compressed UTF-16 file: the compacted export is UTF-16 with its BOM, uncompressed, named without .gz; the original exports gzip-compressed again', async () => {
    const file = CASES[0].file;
    const v: Variant = { encoding: 'utf-16le', bom: true };
    const inner = asBytes(fs.readFileSync(file, 'utf8'), v);
    const gz = new Uint8Array(zlib.gzipSync(inner));
    const { id, file: out } = await compactAndExport(gz, `${path.basename(file)}.gz`);
    expect(out.fileName).toMatch(/\.compacted\.jsonl$/);
    expect(out.fileName).not.toMatch(/compacted\.compacted/);
    decodeAs(out.bytes, v);
    expect(transcriptTotals(importBytes(out.fileName, out.bytes).transcript).total).toBe(out.tokens.projected);

    const original = await engine.exportVersion(id, ORIGINAL_VERSION, {});
    if (original.kind !== 'file') throw new Error(JSON.stringify(original));
    expect(original.file.fileName).toMatch(/\.jsonl\.gz$/);
    expect(original.file.mimeType).toBe('application/gzip');
    expect(out.mimeType).toBe('application/jsonl');
    expect(Buffer.from(zlib.gunzipSync(original.file.bytes)).equals(Buffer.from(inner))).toBe(true);
  });
});
