import 'fake-indexeddb/auto';
import fs from 'node:fs';
import zlib from 'node:zlib';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openRepo, Repo } from '../db/repo';
import { ContextscopeDB } from '../db/schema';
import { userMessage } from '../errors';
import { importBytes } from '../formats/import';
import { corpusFiles } from '../../tests/corpus';
import { freshDbName } from '../db/test-helpers';
import { engine, useEngineDatabase, type ImportProgress } from './api';

const tauBench = corpusFiles('openai-chat').find((f) => f.includes('tau-bench'))!;
const chatText = corpusFiles('openai-chat').find((f) => f.includes('vercel-ai_openai-chat-completion-text'))!;
const read = (p: string) => new Uint8Array(fs.readFileSync(p));

beforeEach(() => useEngineDatabase(freshDbName()));
afterEach(() => vi.restoreAllMocks());

describe('engine.importFile', () => {
  it('asks which conversation of a container file, then imports the chosen one', async () => {
    const bytes = read(tauBench);
    const name = path.basename(tauBench);
    const first = await engine.importFile(bytes.slice(), name, {});
    expect(first.kind).toBe('choose');
    if (first.kind !== 'choose') return;
    expect(first.conversations.length).toBeGreaterThan(3);

    const stages: ImportProgress['stage'][] = [];
    const out = await engine.importFile(bytes.slice(), name, { conversation: 3 }, (p) => {
      if (stages[stages.length - 1] !== p.stage) stages.push(p.stage);
    });
    expect(out.kind).toBe('imported');
    if (out.kind !== 'imported') return;
    expect(stages).toEqual(['reading', 'parsing', 'counting', 'storing', 'done']);

    const direct = importBytes(name, bytes, { conversation: 3 }).transcript;
    expect(out.meta.turns).toBe(direct.turnCount);
    expect(out.meta.messages).toBe(direct.messages.length);
    expect(out.meta.format).toBe('openai-chat');
    expect(out.meta.conversation).toBe(3);
    expect((await engine.listTranscripts()).map((m) => m.id)).toEqual([out.meta.id]);

    const timeline = await engine.getTimeline(out.meta.id);
    expect(timeline.turns).toHaveLength(direct.turnCount);
    const lastTurn = timeline.turns[timeline.turns.length - 1];
    expect(lastTurn.contextTotal).toBe(out.meta.tokens.total);

    const turn1 = await engine.getMessages(out.meta.id, 1, 1);
    expect(turn1.length).toBeGreaterThan(0);
    expect(turn1.every((m) => m.turn === 1)).toBe(true);
    expect(turn1.map((m) => m.index)).toEqual(direct.messages.filter((m) => m.turn === 1).map((m) => m.index));

    const exported = await engine.exportOriginal(out.meta.id);
    expect(Buffer.from(exported.bytes).equals(Buffer.from(bytes))).toBe(true);

    const again = await engine.importFile(bytes.slice(), name, { conversation: 3 });
    expect(again.kind === 'imported' && again.duplicate).toBe(true);
  });

  it('imports a File handed as it is (read in the worker) exactly as its bytes, from the same content id', async () => {
    const bytes = read(chatText);
    const name = path.basename(chatText);
    const fromFile = await engine.importFile(new File([bytes.slice()], name), name);
    if (fromFile.kind !== 'imported') throw new Error(JSON.stringify(fromFile));
    useEngineDatabase(freshDbName());
    const fromBytes = await engine.importFile(bytes.slice(), name);
    if (fromBytes.kind !== 'imported') throw new Error(JSON.stringify(fromBytes));
    expect(fromFile.meta.id).toBe(fromBytes.meta.id);
    expect({ ...fromFile.meta, importedAt: 0 }).toEqual({ ...fromBytes.meta, importedAt: 0 });
  });

  it('a restarted worker (empty caches) reads the same timeline back from storage', async () => {
    const name = freshDbName();
    useEngineDatabase(name);
    const bytes = read(chatText);
    const out = await engine.importFile(bytes.slice(), path.basename(chatText));
    if (out.kind !== 'imported') throw new Error(JSON.stringify(out));
    const before = await engine.getTimeline(out.meta.id);
    useEngineDatabase(name);
    expect(await engine.getTimeline(out.meta.id)).toEqual(before);
    useEngineDatabase(freshDbName());
    expect(await engine.getMeta(out.meta.id)).toBeNull();
  });

  it('returns a specific, serializable error for a bad file and stores nothing', async () => {
    const bad = new TextEncoder().encode('{"messages": [ {"role": "user", "content": "hi"} ');
    const out = await engine.importFile(bad, 'broken.json');
    expect(out.kind).toBe('error');
    if (out.kind !== 'error') return;
    expect(out.error.code).toMatch(/^malformed:/);
    expect(out.error.where?.file).toBe('broken.json');
    expect(JSON.parse(JSON.stringify(out.error))).toEqual(out.error);
    expect(await engine.listTranscripts()).toEqual([]);
    expect((await engine.unfinishedImports()).map((r) => r.status)).toEqual([]);
  });

  it('imports a gzip-compressed file and exports the compressed bytes it was given', async () => {
    const plain = read(chatText);
    const gz = new Uint8Array(zlib.gzipSync(plain));
    const out = await engine.importFile(gz.slice(), 'chat.json.gz');
    if (out.kind !== 'imported') throw new Error(JSON.stringify(out));
    expect(out.meta.size).toBe(gz.length);
    expect(out.meta.turns).toBe(importBytes('chat.json', plain).transcript.turnCount);
    const exported = await engine.exportOriginal(out.meta.id);
    expect(Buffer.from(exported.bytes).equals(Buffer.from(gz))).toBe(true);
    expect(exported.mimeType).toBe('application/gzip');
  });

  it('a full storage quota becomes a specific error with what to do, and nothing is listed', async () => {
    vi.spyOn(Repo.prototype, 'storeImport').mockRejectedValue(new DOMException('The quota has been exceeded.', 'QuotaExceededError'));
    const out = await engine.importFile(read(chatText), path.basename(chatText));
    expect(out.kind === 'error' && out.error.code).toBe('quota:storage');
    expect(out.kind === 'error' && out.error.expected).toMatch(/delete transcripts/);
    expect(out.kind === 'error' && out.error.where?.file).toBe(path.basename(chatText));
    expect(await engine.listTranscripts()).toEqual([]);
  });

  it('quota exceeded in the middle of the storing transaction (after the meta and chunks were written): nothing half-stored, a clear message, the next import works', async () => {
    const dbName = freshDbName();
    useEngineDatabase(dbName);
    const file = corpusFiles('claude-code').find((f) => f.includes('vibecodingtracker'))!;
    // The engine's own connection (Dexie makes a Table class per database instance).
    const engineDb = openRepo(dbName).db;
    const db = new ContextscopeDB(dbName);
    // The originals row is the last big write of storeImport: the browser refuses it.
    const tableProto = Object.getPrototypeOf(engineDb.originals) as { put: (...a: unknown[]) => unknown };
    const realPut = tableProto.put;
    let refused = 0;
    vi.spyOn(tableProto, 'put').mockImplementation(function (this: { name: string }, ...args: unknown[]) {
      if (this.name === 'originals') {
        refused++;
        return Promise.reject(new DOMException('The quota has been exceeded.', 'QuotaExceededError'));
      }
      return realPut.apply(this, args);
    });
    const out = await engine.importFile(read(file), path.basename(file));
    expect(refused).toBe(1);
    expect(out.kind === 'error' && out.error.code).toBe('quota:storage');
    expect(out.kind === 'error' && userMessage(out.error)).toMatch(/storage|quota/i);
    // Every table the transaction touched is as before: no meta, no chunk, no details, no original.
    expect(await db.transcripts.count()).toBe(0);
    expect(await db.chunks.count()).toBe(0);
    expect(await db.details.count()).toBe(0);
    expect(await db.originals.count()).toBe(0);
    expect(await db.imports.where('status').equals('running').count()).toBe(0);
    expect(await engine.listTranscripts()).toEqual([]);

    vi.mocked(tableProto.put).mockRestore();
    const again = await engine.importFile(read(file), path.basename(file));
    expect(again.kind).toBe('imported');
    expect(await db.transcripts.count()).toBe(1);
    db.close();
  });

  it('a cut-off JSONL says what it lost in the stored meta (the banner, library row and inspector show it)', async () => {
    const file = corpusFiles('claude-code').find((f) => f.includes('vibecodingtracker'))!;
    const text = fs.readFileSync(file, 'utf8');
    const lines = text.split('\n').filter((l) => l !== '');
    // The session was still being written: its last line stops half-way.
    const cut = lines.slice(0, -1).join('\n') + '\n' + lines[lines.length - 1].slice(0, 40);
    const out = await engine.importFile(new TextEncoder().encode(cut), 'cut.jsonl');
    if (out.kind !== 'imported') throw new Error(JSON.stringify(out));
    expect(out.meta.dataLoss).toEqual({ count: 1, first: expect.stringMatching(new RegExp(`last line \\(${lines.length}\\).*ignored`)) });
    expect((await engine.listTranscripts())[0].dataLoss?.count).toBe(1);
    // A whole file has none.
    const whole = await engine.importFile(read(file), path.basename(file));
    expect(whole.kind === 'imported' && whole.meta.dataLoss).toBeUndefined();
  });

  it('rejects a file no format claims with unsupported:format', async () => {
    const out = await engine.importFile(new TextEncoder().encode('{"hello": "world"}\n'), 'notes.json');
    expect(out.kind === 'error' && out.error.code).toBe('unsupported:format');
  });
});

describe('engine.importConversations', () => {
  it('imports every conversation of a container from one parse, each with its own id and turns', async () => {
    const file = corpusFiles('inspect-ai').find((f) => f.includes('security-guide'))!;
    const bytes = read(file);
    const name = path.basename(file);
    const batches: Array<number | undefined> = [];
    const out = await engine.importConversations(bytes.slice(), name, [0, 1, 2], {}, (p) => batches.push(p.batch?.done));
    expect(out.errors).toEqual([]);
    expect(out.imported.map((m) => m.conversation)).toEqual([0, 1, 2]);
    expect(new Set(out.imported.map((m) => m.id)).size).toBe(3);
    for (const m of out.imported) expect(m.turns).toBe(importBytes(name, bytes, { conversation: m.conversation }).transcript.turnCount);
    expect([...new Set(batches)]).toEqual([0, 1, 2]);
    expect((await engine.listTranscripts()).length).toBe(3);
    // Picking one of them again later is recognised as the same transcript.
    const again = await engine.importFile(bytes.slice(), name, { conversation: 1 });
    expect(again.kind === 'imported' && again.duplicate).toBe(true);
  });

  it('reports a conversation that does not exist without losing the others', async () => {
    const file = corpusFiles('inspect-ai').find((f) => f.includes('security-guide'))!;
    const out = await engine.importConversations(read(file), path.basename(file), [0, 99]);
    expect(out.imported.map((m) => m.conversation)).toEqual([0]);
    expect(out.errors.map((e) => e.conversation)).toEqual([99]);
    expect(out.errors[0].error.code).toMatch(/:/);
  });
});

describe('engine round trip through storage', () => {
  it('getTranscript re-parses the original and keeps the stored messages; exportTranscript is byte-identical', async () => {
    const bytes = read(chatText);
    const name = path.basename(chatText);
    const out = await engine.importFile(bytes.slice(), name);
    if (out.kind !== 'imported') throw new Error(JSON.stringify(out));
    await engine.renameTranscript(out.meta.id, 'Renamed');
    const t = await engine.getTranscript(out.meta.id);
    const direct = importBytes(name, bytes).transcript;
    expect(t.records.length).toBe(direct.records.length);
    expect(t.messages.map((m) => m.blocks.map((b) => b.tokens))).toEqual(direct.messages.map((m) => m.blocks.map((b) => b.tokens)));
    const exported = await engine.exportTranscript(out.meta.id);
    expect(exported.kind).toBe('file');
    if (exported.kind !== 'file') return;
    expect(new TextDecoder().decode(exported.file.bytes)).toBe(new TextDecoder().decode(bytes));
  });

  it('a fresh worker asked twice for a log at once (preview warm-up and the overlay replay) reads and parses it once (issue 31)', async () => {
    const name = freshDbName();
    useEngineDatabase(name);
    const file = corpusFiles('claude-code')[0];
    const out = await engine.importFile(read(file), path.basename(file));
    if (out.kind !== 'imported') throw new Error(JSON.stringify(out));
    useEngineDatabase(name); // a reloaded page's worker: nothing cached
    const originals = vi.spyOn(Repo.prototype, 'getOriginal');
    const [a, b] = await Promise.all([engine.getTranscript(out.meta.id), engine.getTranscript(out.meta.id)]);
    expect(originals).toHaveBeenCalledTimes(1);
    expect(b).toBe(a);
    // The warm-up and a replay of the overlay's first tick, sent together to the preview worker: one read.
    useEngineDatabase(name);
    originals.mockClear();
    const [, view] = await Promise.all([engine.warmPreview(out.meta.id), engine.replay(out.meta.id, { policies: ['contextscope-auto'] })]);
    expect(originals).toHaveBeenCalledTimes(1);
    expect(view.series.map((x) => x.id)).toEqual(['contextscope-auto']);
    // A failed read is not kept: the next call reads again.
    useEngineDatabase(name);
    originals.mockClear();
    originals.mockRejectedValueOnce(new Error('disk gone'));
    await expect(engine.getTranscript(out.meta.id)).rejects.toThrow('disk gone');
    expect((await engine.getTranscript(out.meta.id)).id).toBe(out.meta.id);
    expect(originals).toHaveBeenCalledTimes(2);
  });

  it('exportTranscript of an imported Inspect .eval returns the zip archive, not its sample JSON', async () => {
    const file = corpusFiles('inspect-ai').find((f) => f.endsWith('.eval'))!;
    const bytes = read(file);
    const out = await engine.importFile(bytes.slice(), path.basename(file), { conversation: 0 });
    if (out.kind !== 'imported') throw new Error(JSON.stringify(out));
    const exported = await engine.exportTranscript(out.meta.id);
    if (exported.kind !== 'file') throw new Error(JSON.stringify(exported));
    const b = exported.file.bytes;
    expect(String.fromCharCode(b[0], b[1])).toBe('PK');
    const again = importBytes(exported.file.fileName, b, { conversation: 0 }).transcript;
    expect(again.format).toBe('inspect-ai');
    expect(again.messages.length).toBe(importBytes(path.basename(file), bytes, { conversation: 0 }).transcript.messages.length);
  });

  it('delete hides the transcript, undo brings it back', async () => {
    const out = await engine.importFile(read(chatText), path.basename(chatText));
    if (out.kind !== 'imported') throw new Error(JSON.stringify(out));
    await engine.deleteTranscript(out.meta.id);
    expect(await engine.listTranscripts()).toEqual([]);
    await expect(engine.getTimeline(out.meta.id)).rejects.toThrow(/No transcript/);
    await engine.undoDelete(out.meta.id);
    expect((await engine.listTranscripts()).map((m) => m.id)).toEqual([out.meta.id]);
    expect((await engine.getTimeline(out.meta.id)).turns.length).toBe(out.meta.turns);
  });
});
