/**
 * Two tabs = two engine workers (fresh module instances here) on one database. Start-up recovery
 * and the undo toast's purge of one tab must not take a transcript the other tab can still undo.
 */
import 'fake-indexeddb/auto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import { freshDbName } from '../db/test-helpers';

type Engine = (typeof import('./api'))['engine'];

/** A tab's engine worker: its own module instance (own caches, own repo connection, own deletions). */
async function openTab(dbName: string): Promise<Engine> {
  vi.resetModules();
  const mod = await import('./api');
  mod.useEngineDatabase(dbName);
  return mod.engine;
}

async function importCorpus(engine: Engine, file: string): Promise<string> {
  const out = await engine.importFile(new Uint8Array(fs.readFileSync(file)), path.basename(file));
  if (out.kind !== 'imported') throw new Error(JSON.stringify(out));
  return out.meta.id;
}

const [first, second] = corpusFiles('claude-code').filter((f) => f.endsWith('.jsonl'));
const listed = async (e: Engine) => (await e.listTranscripts()).map((m) => m.id).sort();

describe('delete with undo while another tab opens', () => {
  it("tab B loading does not purge tab A's deletion: A's undo brings back the whole transcript", async () => {
    const db = freshDbName();
    const a = await openTab(db);
    await a.init();
    const id = await importCorpus(a, first);
    const turns = (await a.getTimeline(id)).turns.length;
    await a.deleteTranscript(id);

    const b = await openTab(db);
    const recovery = await b.init();
    expect(recovery.purgedDeleted).toEqual([]);
    expect(await listed(b)).toEqual([]);

    expect(await a.undoDelete(id)).toBe(true);
    expect(await listed(b)).toEqual([id]);
    expect((await b.getTimeline(id)).turns.length).toBe(turns);
    const exported = await b.exportOriginal(id);
    expect(Buffer.from(exported.bytes).equals(fs.readFileSync(first))).toBe(true);
  });

  it("each tab's toast expiry purges its own deletion only", async () => {
    const db = freshDbName();
    const a = await openTab(db);
    const b = await openTab(db);
    await a.init();
    await b.init();
    const idA = await importCorpus(a, first);
    const idB = await importCorpus(b, second);
    await a.deleteTranscript(idA);
    await b.deleteTranscript(idB);

    // B's toast expires first: B's deletion goes, A's stays restorable.
    expect(await b.purgeDeleted()).toEqual([idB]);
    expect(await a.undoDelete(idA)).toBe(true);
    expect(await b.undoDelete(idB)).toBe(false);
    expect(await listed(a)).toEqual([idA]);

    // An explicit id list (what the deleting page knows) works the same.
    await a.deleteTranscript(idA);
    expect(await b.purgeDeleted([])).toEqual([]);
    expect(await a.purgeDeleted([idA])).toEqual([idA]);
    expect(await listed(b)).toEqual([]);
  });
});
