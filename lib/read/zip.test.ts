import fs from 'node:fs';
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import { ImportError } from '../errors';
import { listZipEntries, readZipEntries } from './zip';

const evalFiles = corpusFiles('inspect-ai').filter((f) => f.endsWith('.eval'));

function expectImportError(fn: () => unknown, code: string): ImportError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ImportError);
    expect((e as ImportError).code).toBe(code);
    return e as ImportError;
  }
  throw new Error('expected an ImportError');
}

describe('readZipEntries', () => {
  it('reads the entries of real Inspect .eval archives', () => {
    expect(evalFiles.length).toBeGreaterThan(0);
    for (const f of evalFiles) {
      const bytes = new Uint8Array(fs.readFileSync(f));
      const list = listZipEntries(bytes, f);
      expect(list.some((e) => e.name === 'header.json')).toBe(true);
      const entries = readZipEntries(bytes, { fileName: f, filter: (e) => e.name === 'header.json' || e.name.startsWith('samples/') });
      const header = JSON.parse(new TextDecoder().decode(entries.get('header.json')!));
      expect(header.eval).toBeDefined();
      expect([...entries.keys()].filter((n) => n.startsWith('samples/')).length).toBe(list.filter((e) => e.name.startsWith('samples/')).length);
      for (const [name, data] of entries) expect(data.length).toBe(list.find((e) => e.name === name)!.size);
    }
  });

  it('refuses a zip bomb before inflating it (declared size over the cap)', () => {
    // 8 MB of zeros deflates to a few KB: a small file that expands 1000×.
    const bomb = zipSync({ 'a.json': new Uint8Array(8 * 1024 * 1024), 'b.json': new Uint8Array(8 * 1024 * 1024) }, { level: 9 });
    expect(bomb.length).toBeLessThan(64 * 1024);
    const e = expectImportError(() => readZipEntries(bomb, { fileName: 'bomb.eval', maxTotalBytes: 10 * 1024 * 1024 }), 'too-large:zip');
    expect(e.where).toEqual({ file: 'bomb.eval', path: 'b.json' });
    expect(e.message).toMatch(/zip bomb/);
    // Under a larger cap the same archive reads fine.
    expect(readZipEntries(bomb, { maxTotalBytes: 20 * 1024 * 1024 }).get('a.json')!.length).toBe(8 * 1024 * 1024);
  });

  it('only inflates the entries asked for', () => {
    const zip = zipSync({ 'header.json': strToU8('{"version":2}'), 'samples/1_epoch_1.json': strToU8('{"id":1}'), 'big.bin': new Uint8Array(4 * 1024 * 1024) });
    const entries = readZipEntries(zip, { filter: (e) => e.name.endsWith('.json'), maxTotalBytes: 1024 });
    expect([...entries.keys()]).toEqual(['header.json', 'samples/1_epoch_1.json']);
  });

  it('rejects an archive that is not a zip, or whose entry lies about its size', () => {
    expectImportError(() => readZipEntries(new Uint8Array([0x50, 0x4b, 3, 4, 0, 0, 0]), { fileName: 'x.eval' }), 'malformed:zip');
    const zip = zipSync({ 'a.json': strToU8('{"a":1}') }, { level: 0 });
    // Patch the declared uncompressed size in the central directory (offset 24 of its header).
    const cd = findSignature(zip, [0x50, 0x4b, 0x01, 0x02]);
    const lying = zip.slice();
    new DataView(lying.buffer).setUint32(cd + 24, 3, true);
    const local = findSignature(lying, [0x50, 0x4b, 0x03, 0x04]);
    new DataView(lying.buffer).setUint32(local + 22, 3, true);
    const err = (() => {
      try {
        readZipEntries(lying, { fileName: 'lie.eval' });
        return null;
      } catch (e) {
        return e;
      }
    })();
    // Either fflate refuses it or our size check does; never a plain crash, never wrong data.
    expect(err).toBeInstanceOf(ImportError);
  });
});

function findSignature(bytes: Uint8Array, sig: number[]): number {
  outer: for (let i = 0; i <= bytes.length - sig.length; i++) {
    for (let j = 0; j < sig.length; j++) if (bytes[i + j] !== sig[j]) continue outer;
    return i;
  }
  throw new Error('signature not found');
}
