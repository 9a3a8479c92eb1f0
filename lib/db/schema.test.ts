import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { Repo } from './repo';
import { ContextscopeDB, LATEST_VERSION, type TranscriptMetaV1 } from './schema';
import { freshDbName, makeMessages, makePayload } from './test-helpers';

describe('schema migrations', () => {
  it('upgrades a version-1 database to version 2 and keeps every row', async () => {
    const name = freshDbName();
    // Write the database as the first release did.
    const v1 = new ContextscopeDB(name, 1);
    const messages = makeMessages(12);
    messages[3] = { ...messages[3], blocks: [...messages[3].blocks, { id: '3.1', kind: 'reasoning', text: 'hmm', tokens: 40 }] };
    const payload = makePayload({ id: 'tOld', messages });
    const messageTokens = messages.flatMap((m) => m.blocks).reduce((s, b) => s + b.tokens, 0);
    const oldMeta: TranscriptMetaV1 = { ...payload.meta, tokens: messageTokens + 500, chunkCount: 1, status: 'ready' };
    await v1.table('transcripts').put(oldMeta);
    await v1.table('chunks').put({ transcriptId: 'tOld', index: 0, messages });
    await v1.table('originals').put({ id: 'tOld', fileName: 'old.jsonl', bytes: payload.original });
    await v1.table('settings').put({ key: 'theme', value: 'dark' });
    expect(v1.verno).toBe(1);
    expect(v1.tables.map((t) => t.name)).not.toContain('versions');
    v1.close();

    // Open with the current code: the upgrade runs.
    const db = new ContextscopeDB(name);
    const repo = new Repo(db);
    const meta = await repo.getMeta('tOld');
    expect(db.verno).toBe(LATEST_VERSION);
    expect(meta).toBeDefined();
    expect(meta!.tokens.total).toBe(messageTokens + 500);
    expect(meta!.tokens.byKind.reasoning).toBe(40);
    expect(meta!.tokens.byKind.user + meta!.tokens.byKind.assistant + meta!.tokens.byKind.reasoning).toBe(messageTokens);
    // What v1 counted beyond the messages were the tool schemas.
    expect(meta!.tokens.byKind.tools).toBe(500);
    expect(await repo.getAllMessages('tOld')).toEqual(messages);
    expect(new TextDecoder().decode((await repo.getOriginal('tOld'))!.bytes)).toBe('original bytes of tOld\n');
    expect(await repo.getSetting('theme')).toBe('dark');

    // The new tables work on the upgraded database.
    await repo.putVersion({ id: 'v1', transcriptId: 'tOld', name: 'v', steps: [], createdAt: 'a', updatedAt: 'a' });
    expect((await repo.listVersions('tOld')).map((v) => v.id)).toEqual(['v1']);
    db.close();
  });

  it('upgrades a version-2 database to version 3: every row kept, a layouts table added', async () => {
    const name = freshDbName();
    // Written as version 2 wrote an import (meta, chunk, details, original).
    const v2 = new ContextscopeDB(name, 2);
    const payload = makePayload({ id: 'tTwo', messages: makeMessages(7) });
    await v2.table('transcripts').put({ ...payload.meta, originalId: 'tTwo', chunkCount: 1, status: 'ready' });
    await v2.table('chunks').put({ transcriptId: 'tTwo', index: 0, messages: makeMessages(7) });
    await v2.table('details').put({ id: 'tTwo', ...payload.details });
    await v2.table('originals').put({ id: 'tTwo', fileName: 'two.jsonl', bytes: payload.original });
    expect(v2.tables.map((t) => t.name)).not.toContain('layouts');
    v2.close();

    const repo = new Repo(new ContextscopeDB(name));
    expect((await repo.getMeta('tTwo'))?.status).toBe('ready');
    expect(await repo.getAllMessages('tTwo')).toEqual(makeMessages(7));
    expect(repo.db.verno).toBe(LATEST_VERSION);
    // Imported before timelines were stored: none yet (the engine builds it on the first open).
    expect(await repo.getLayout('tTwo')).toBeUndefined();
    repo.db.close();
  });

  it('upgrades a version-3 database to version 4: every row kept, a replays table added', async () => {
    const name = freshDbName();
    const v3 = new ContextscopeDB(name, 3);
    const payload = makePayload({ id: 'tThree', messages: makeMessages(5) });
    await v3.table('transcripts').put({ ...payload.meta, originalId: 'tThree', chunkCount: 1, status: 'ready' });
    await v3.table('chunks').put({ transcriptId: 'tThree', index: 0, messages: makeMessages(5) });
    await v3.table('originals').put({ id: 'tThree', fileName: 'three.jsonl', bytes: payload.original });
    expect(v3.tables.map((t) => t.name)).not.toContain('replays');
    v3.close();

    const repo = new Repo(new ContextscopeDB(name));
    expect(await repo.getAllMessages('tThree')).toEqual(makeMessages(5));
    expect(repo.db.verno).toBe(LATEST_VERSION);
    // Replayed before replays were stored: none (the first Replay page replays and stores them).
    expect(await repo.storedReplays('tThree', 'b', '|')).toEqual([]);
    repo.db.close();
  });

  it('opens a new database directly at the latest version', async () => {
    const db = new ContextscopeDB(freshDbName());
    await db.open();
    expect(db.verno).toBe(LATEST_VERSION);
    expect(db.tables.map((t) => t.name).sort()).toEqual(['chunks', 'details', 'imports', 'layouts', 'originals', 'replays', 'settings', 'summaries', 'transcripts', 'versions']);
    db.close();
  });
});
