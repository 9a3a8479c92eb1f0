import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { DELETION_RENEW_MS, PURGE_DELETED_AFTER_MS, Repo, UNDO_WINDOW_MS } from './repo';
import { CHUNK_SIZE, ContextscopeDB } from './schema';
import { freshDbName, makeMessages, makePayload } from './test-helpers';

const open: ContextscopeDB[] = [];
function newRepo(name = freshDbName()): Repo {
  const db = new ContextscopeDB(name);
  open.push(db);
  return new Repo(db);
}
afterEach(() => {
  for (const db of open.splice(0)) db.close();
});

describe('import is visible only when complete', () => {
  it('stores meta, chunks and original bytes in one go and lists the transcript as ready', async () => {
    const repo = newRepo();
    const journal = await repo.beginImport('tA.jsonl', 1234);
    const messages = makeMessages(CHUNK_SIZE * 2 + 7);
    const meta = await repo.storeImport(journal, makePayload({ messages }));
    expect(meta.status).toBe('ready');
    expect(meta.chunkCount).toBe(3);
    const list = await repo.listTranscripts();
    expect(list.map((m) => m.id)).toEqual(['tA']);
    expect(await repo.getAllMessages('tA')).toHaveLength(messages.length);
    expect(new TextDecoder().decode((await repo.getOriginal('tA'))!.bytes)).toBe('original bytes of tA\n');
    expect((await repo.db.imports.get(journal))!.status).toBe('done');
  });

  it('rolls back everything when a write fails half-way through the transaction', async () => {
    const repo = newRepo();
    const messages = makeMessages(CHUNK_SIZE + 3);
    // A function cannot be structured-cloned: the chunk write throws DataCloneError after the
    // meta row was already written as 'importing' inside the same transaction.
    (messages[CHUNK_SIZE + 1] as unknown as { poison: () => void }).poison = () => {};
    const journal = await repo.beginImport('tA.jsonl', 1234);
    await expect(repo.storeImport(journal, makePayload({ messages }))).rejects.toThrow();
    expect(await repo.listTranscripts()).toEqual([]);
    expect(await repo.db.transcripts.count()).toBe(0);
    expect(await repo.db.chunks.count()).toBe(0);
    expect(await repo.db.originals.count()).toBe(0);
    expect((await repo.db.imports.get(journal))!.status).toBe('running');
  });

  it('never lists a transcript whose status is still importing', async () => {
    const repo = newRepo();
    await repo.storeImport(null, makePayload({ id: 'tReady' }));
    const partial = makePayload({ id: 'tPartial' });
    await repo.db.transcripts.put({ ...partial.meta, chunkCount: 1, status: 'importing' });
    expect((await repo.listTranscripts()).map((m) => m.id)).toEqual(['tReady']);
    expect(await repo.getMeta('tPartial')).toBeUndefined();
  });
});

describe('recover() cleans an interrupted import', () => {
  it('closes running journal rows and removes partial transcripts and orphan rows', async () => {
    const name = freshDbName();
    const repo = newRepo(name);
    await repo.storeImport(null, makePayload({ id: 'tKeep' }));
    // What a crash mid-import leaves: a running journal row, a meta still 'importing', its chunks
    // and original, plus chunks of a transcript whose meta never got written.
    const journal = await repo.beginImport('crashed.jsonl', 99);
    const partial = makePayload({ id: 'tCrashed' });
    await repo.db.transcripts.put({ ...partial.meta, chunkCount: 1, status: 'importing' });
    await repo.db.chunks.put({ transcriptId: 'tCrashed', index: 0, messages: partial.messages as never });
    await repo.db.originals.put({ id: 'tCrashed', fileName: 'crashed.jsonl', bytes: partial.original });
    await repo.db.chunks.put({ transcriptId: 'tGhost', index: 0, messages: [] });
    repo.db.close();

    // Next start.
    const restarted = newRepo(name);
    const report = await restarted.recover();
    expect(report.interrupted.map((r) => r.id)).toEqual([journal]);
    expect(report.removedPartial).toEqual(['tCrashed']);
    expect(report.removedOrphans).toBe(1);
    expect((await restarted.db.imports.get(journal))!.status).toBe('interrupted');
    expect(await restarted.db.transcripts.toCollection().primaryKeys()).toEqual(['tKeep']);
    expect(await restarted.db.chunks.where('transcriptId').equals('tCrashed').count()).toBe(0);
    expect(await restarted.db.originals.get('tCrashed')).toBeUndefined();
    expect(await restarted.getAllMessages('tKeep')).toHaveLength(10);
    expect((await restarted.unfinishedImports()).map((r) => r.fileName)).toEqual(['crashed.jsonl']);
  });
});

describe('delete with undo', () => {
  it('hides at once, restores on undo, and purges on a start after the undo window', async () => {
    const name = freshDbName();
    const repo = newRepo(name);
    await repo.storeImport(null, makePayload({ id: 'tA' }));
    await repo.storeImport(null, makePayload({ id: 'tB' }));
    await repo.putVersion({ id: 'v1', transcriptId: 'tA', name: 'trimmed', steps: [], createdAt: 'x', updatedAt: 'x' });

    await repo.deleteTranscript('tA');
    expect((await repo.listTranscripts()).map((m) => m.id)).toEqual(['tB']);
    expect(await repo.getMeta('tA')).toBeUndefined();

    await repo.undoDelete('tA');
    expect((await repo.listTranscripts()).map((m) => m.id).sort()).toEqual(['tA', 'tB']);
    expect((await repo.getMeta('tA'))!.deletedAt).toBeUndefined();

    await repo.deleteTranscript('tA');
    repo.db.close();
    const restarted = newRepo(name);
    const report = await restarted.recover({ now: Date.now() + PURGE_DELETED_AFTER_MS });
    expect(report.purgedDeleted).toEqual(['tA']);
    expect(await restarted.db.originals.get('tA')).toBeUndefined();
    expect(await restarted.db.chunks.where('transcriptId').equals('tA').count()).toBe(0);
    expect(await restarted.listVersions('tA')).toEqual([]);
    expect((await restarted.listTranscripts()).map((m) => m.id)).toEqual(['tB']);
  });

  it('re-importing a deleted transcript replaces its rows', async () => {
    const repo = newRepo();
    await repo.storeImport(null, makePayload({ id: 'tA', messages: makeMessages(CHUNK_SIZE + 1) }));
    await repo.deleteTranscript('tA');
    await repo.storeImport(null, makePayload({ id: 'tA', messages: makeMessages(4) }));
    expect((await repo.getMeta('tA'))!.messages).toBe(4);
    expect(await repo.db.chunks.where('transcriptId').equals('tA').count()).toBe(1);
  });
});

describe('delete with undo across two tabs (two connections to one database)', () => {
  /** Two tabs: each has its own connection (its worker's repo) to the same database name. */
  async function twoTabs(): Promise<{ a: Repo; b: Repo }> {
    const name = freshDbName();
    const a = newRepo(name);
    await a.storeImport(null, makePayload({ id: 'tA' }));
    await a.storeImport(null, makePayload({ id: 'tB' }));
    await a.putVersion({ id: 'v1', transcriptId: 'tA', name: 'trimmed', steps: [], createdAt: 'x', updatedAt: 'x' });
    return { a, b: newRepo(name) };
  }
  const ids = async (r: Repo) => (await r.listTranscripts()).map((m) => m.id).sort();

  it("tab B's start-up purge leaves tab A's fresh deletion alone: A's undo still brings it back whole", async () => {
    const { a, b } = await twoTabs();
    await a.deleteTranscript('tA');
    expect(await ids(b)).toEqual(['tB']);

    const report = await b.recover();
    expect(report.purgedDeleted).toEqual([]);
    // Even at the very end of the window plus its slack, minus one millisecond.
    const deletedAt = Date.parse((await a.db.transcripts.get('tA'))!.deletedAt!);
    expect((await b.recover({ now: deletedAt + PURGE_DELETED_AFTER_MS - 1 })).purgedDeleted).toEqual([]);

    expect(await a.undoDelete('tA')).toBe(true);
    expect(await ids(a)).toEqual(['tA', 'tB']);
    expect(await ids(b)).toEqual(['tA', 'tB']);
    expect(await b.getAllMessages('tA')).toHaveLength(10);
    expect(await b.getOriginal('tA')).toBeDefined();
    expect((await b.listVersions('tA')).map((v) => v.id)).toEqual(['v1']);
  });

  it('a deletion older than the undo window (its tab was closed) is still purged on load', async () => {
    const { a, b } = await twoTabs();
    await a.deleteTranscript('tA');
    // The deleting tab went away an hour ago, its toast never expired.
    await a.db.transcripts.update('tA', { deletedAt: new Date(Date.now() - 3_600_000).toISOString() });
    a.db.close();

    const report = await b.recover();
    expect(report.purgedDeleted).toEqual(['tA']);
    expect(await b.db.transcripts.get('tA')).toBeUndefined();
    expect(await b.db.originals.get('tA')).toBeUndefined();
    expect(await b.db.chunks.where('transcriptId').equals('tA').count()).toBe(0);
    expect(await b.listVersions('tA')).toEqual([]);
    expect(await b.undoDelete('tA')).toBe(false);
    expect(await ids(b)).toEqual(['tB']);
  });

  it("an explicit purge closes the caller's own ids at once and leaves the other tab's fresh deletion restorable", async () => {
    const { a, b } = await twoTabs();
    await a.deleteTranscript('tA');
    await b.deleteTranscript('tB');
    // Tab A's toast expired (UNDO_WINDOW_MS after its delete; here at once).
    expect(await a.purgeDeleted(['tA'])).toEqual(['tA']);
    expect(await b.db.transcripts.get('tA')).toBeUndefined();
    expect(await b.db.originals.get('tA')).toBeUndefined();

    expect(await b.undoDelete('tB')).toBe(true);
    expect(await ids(a)).toEqual(['tB']);
  });

  it('without ids, a purge takes only deletions past the window; an undone id is never purged', async () => {
    const { a, b } = await twoTabs();
    await a.deleteTranscript('tA');
    expect(await b.purgeDeleted()).toEqual([]);
    expect(await b.purgeDeleted([], { now: Date.now() + UNDO_WINDOW_MS })).toEqual([]);
    expect(await b.purgeDeleted([], { now: Date.now() + PURGE_DELETED_AFTER_MS + 1 })).toEqual(['tA']);

    await a.deleteTranscript('tB');
    await a.undoDelete('tB');
    expect(await a.purgeDeleted(['tB'])).toEqual([]);
    expect(await ids(b)).toEqual(['tB']);
  });

  it('a held toast keeps its deletion young: renewed, another tab does not purge it; an undone or purged one is not stamped', async () => {
    const { a, b } = await twoTabs();
    const t0 = Date.now();
    await a.deleteTranscript('tA');
    // Tab A's toast is held well past the purge age; it re-stamps every DELETION_RENEW_MS.
    let now = t0;
    for (; now < t0 + 3 * PURGE_DELETED_AFTER_MS; now += DELETION_RENEW_MS) {
      expect(await a.renewDeletion('tA', { now })).toBe(true);
      // Tab B starting up (or purging its own) at any moment before the next stamp leaves it alone.
      expect(await b.purgeDeleted([], { now: now + DELETION_RENEW_MS })).toEqual([]);
    }
    // Released just before its next stamp, the toast counts down at most UNDO_WINDOW_MS more: its
    // own purge comes before anyone else's...
    const last = now - DELETION_RENEW_MS;
    expect(await b.purgeDeleted([], { now: last + DELETION_RENEW_MS + UNDO_WINDOW_MS })).toEqual([]);
    expect(await a.undoDelete('tA')).toBe(true);
    // ...and an undone transcript is not stamped deleted again by a late renewal.
    expect(await a.renewDeletion('tA', { now })).toBe(false);
    expect((await b.db.transcripts.get('tA'))?.deletedAt).toBeUndefined();

    // Without renewal, the same age is purged; a renewal after the purge stamps nothing.
    await a.deleteTranscript('tB');
    expect(await b.purgeDeleted([], { now: Date.now() + PURGE_DELETED_AFTER_MS + 1 })).toEqual(['tB']);
    expect(await a.renewDeletion('tB')).toBe(false);
    expect(await b.db.transcripts.get('tB')).toBeUndefined();
    expect(await ids(a)).toEqual(['tA']);
  });

  it('an unreadable deletion stamp counts as old', async () => {
    const { a, b } = await twoTabs();
    await a.db.transcripts.update('tA', { deletedAt: 'not a date' });
    expect((await b.recover()).purgedDeleted).toEqual(['tA']);
  });
});

describe('conversations of one container file', () => {
  it('share one original row, which survives until the last of them is purged', async () => {
    const repo = newRepo();
    await repo.storeImport(null, { ...makePayload({ id: 'tF-c1' }), meta: { ...makePayload({ id: 'tF-c1' }).meta, originalId: 'tF' } });
    await repo.storeImport(null, { ...makePayload({ id: 'tF-c2' }), meta: { ...makePayload({ id: 'tF-c2' }).meta, originalId: 'tF' } });
    expect(await repo.db.originals.count()).toBe(1);
    await repo.purge('tF-c1');
    expect((await repo.getOriginal('tF-c2'))!.id).toBe('tF');
    await repo.purge('tF-c2');
    expect(await repo.db.originals.count()).toBe(0);
  });
});

describe('bodies and settings', () => {
  it('reads a message range from only the chunks that hold it', async () => {
    const repo = newRepo();
    const messages = makeMessages(CHUNK_SIZE * 3);
    await repo.storeImport(null, makePayload({ messages }));
    const range = await repo.getMessageRange('tA', CHUNK_SIZE - 2, CHUNK_SIZE + 3);
    expect(range.map((m) => m.index)).toEqual([CHUNK_SIZE - 2, CHUNK_SIZE - 1, CHUNK_SIZE, CHUNK_SIZE + 1, CHUNK_SIZE + 2]);
    expect(await repo.getMessageRange('tA', 5, 5)).toEqual([]);
  });

  it('renames (trimmed, never to empty) and stores settings', async () => {
    const repo = newRepo();
    await repo.storeImport(null, makePayload());
    await repo.renameTranscript('tA', '  Bug hunt  ');
    await repo.renameTranscript('tA', '   ');
    expect((await repo.getMeta('tA'))!.title).toBe('Bug hunt');
    await repo.putSetting('theme', 'dark');
    expect(await repo.getSetting('theme')).toBe('dark');
  });
});
