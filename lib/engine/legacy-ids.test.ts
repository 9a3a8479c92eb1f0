/**
 * The content hash changed (FNV-1a a byte at a time → MurmurHash3 lanes four bytes at a time, issue
 * 12): a library imported by an earlier version keys its files by the old hash ("t…" ids). The
 * same file imported again is still recognised there, and a container's other conversations
 * still share the stored original. The first imports here run with the earlier hash.
 */
import 'fake-indexeddb/auto';
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import { freshDbName } from '../db/test-helpers';

const hash = vi.hoisted(() => ({ legacy: false }));
vi.mock('../formats/import', async (load) => {
  const actual = await load<typeof import('../formats/import')>();
  return { ...actual, contentId: (f: Parameters<typeof actual.contentId>[0]) => (hash.legacy ? actual.legacyContentId(f) : actual.contentId(f)) };
});
const { engine, useEngineDatabase } = await import('./api');
const { openRepo } = await import('../db/repo');

const tauBench = corpusFiles('openai-chat').find((f) => f.includes('tau-bench'))!;
const claude = corpusFiles('claude-code')[0];
const read = (p: string) => new Uint8Array(fs.readFileSync(p));

let dbName = '';
beforeEach(() => useEngineDatabase((dbName = freshDbName())));

describe('a library imported under the earlier content hash', () => {
  it('recognises the same file again (duplicate, no second copy)', async () => {
    hash.legacy = true;
    const first = await engine.importFile(read(claude), path.basename(claude));
    hash.legacy = false;
    if (first.kind !== 'imported') throw new Error(JSON.stringify(first));
    expect(first.meta.id).toMatch(/^t/);
    const again = await engine.importFile(read(claude), path.basename(claude));
    expect(again.kind === 'imported' && again.duplicate).toBe(true);
    expect(again.kind === 'imported' && again.meta.id).toBe(first.meta.id);
    expect((await engine.listTranscripts()).map((m) => m.id)).toEqual([first.meta.id]);
    // A new file gets an id of the current hash.
    const other = await engine.importFile(read(corpusFiles('claude-code')[1]), 'other.jsonl');
    expect(other.kind === 'imported' && other.meta.id).toMatch(/^u/);
  });

  it("a container's next conversation shares the original stored under the earlier hash", async () => {
    const name = path.basename(tauBench);
    hash.legacy = true;
    const c1 = await engine.importFile(read(tauBench), name, { conversation: 1 });
    hash.legacy = false;
    const c2 = await engine.importFile(read(tauBench), name, { conversation: 2 });
    if (c1.kind !== 'imported' || c2.kind !== 'imported') throw new Error('not imported');
    expect(c1.meta.id).toMatch(/^t.*-c1$/);
    expect(c2.meta.id).toBe(c1.meta.id.replace(/-c1$/, '-c2'));
    const repo = await openRepo(dbName);
    expect(await repo.db.originals.count()).toBe(1);
  });

  it('a library with no earlier ids uses the current hash only', async () => {
    const out = await engine.importFile(read(claude), path.basename(claude));
    expect(out.kind === 'imported' && out.meta.id).toMatch(/^u/);
  });
});
