/**
 * Issue 31 (compute once per log what does not depend on the plan): a log's replays kept across
 * page loads. A log never changes under its id, so what an earlier worker replayed is read back from
 * IndexedDB by the next one (lib/engine/replay.ts ReplayStore, lib/db/repo.ts storeReplays), under
 * the name of the engine's code (next.config.mjs engineBuild). Counted: policies replayed.
 */
import 'fake-indexeddb/auto';
import path from 'node:path';
import fs from 'node:fs';
import os from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { makeClaudeCodeSession } from '../../bench/generate';
import { importBytes } from '../formats/import';
import type { Transcript } from '../model/types';
import { REPLAY_POLICIES } from '../simulate/policies/replay';
import { Repo, REPLAY_OPTION_SETS_PER_LOG, replaySetOf } from '../db/repo';
import { ContextscopeDB } from '../db/schema';
import { freshDbName, makePayload } from '../db/test-helpers';
import { ReplayCache, replayEngine, replayOptionsKey, type ReplayOptions, type ReplayView } from './replay';
import { replayStoreFor } from './api';
// @ts-expect-error a JavaScript module without types
import { engineBuild } from '../../next.config.mjs';

const log = importBytes('session.jsonl', new TextEncoder().encode(makeClaudeCodeSession(60))).transcript;
const ID = 'tA';

const open: ContextscopeDB[] = [];
async function storedRepo(): Promise<Repo> {
  const db = new ContextscopeDB(freshDbName());
  open.push(db);
  const repo = new Repo(db);
  await repo.storeImport(null, makePayload({ id: ID }));
  return repo;
}
afterEach(() => {
  for (const db of open.splice(0)) db.close();
});

/** A worker's replay engine over this repo: a fresh cache each, as after a page load. */
function worker(repo: Repo, build: string | undefined) {
  const cache = new ReplayCache();
  // A copy of the log per worker, as each worker reads its own from IndexedDB.
  const own: Transcript = { ...log };
  const engine = replayEngine({ getTranscript: async () => own, store: replayStoreFor(() => repo, build), cache });
  return { engine, cache };
}

/** What the page shows of a view: everything but when it was stored. */
const shown = (v: ReplayView) => JSON.parse(JSON.stringify({ ...v, series: v.series.map(({ storedAt: _, ...s }) => ({ ...s, prompts: [...s.prompts], fired: [...s.fired], broken: [...s.broken], breakEven: [...s.breakEven].map(String), unpaid: [...s.unpaid] })), callTurns: [...v.callTurns], callMessages: [...v.callMessages] }));

/** The store's writes run after the answer: wait until the rows are in. */
async function settled(repo: Repo, n: number): Promise<void> {
  for (let i = 0; i < 200 && (await repo.db.replays.count()) < n; i++) await new Promise((r) => setTimeout(r, 5));
}

describe('replays kept across page loads (issue 31)', () => {
  it('a new worker reads back what the last one replayed of this log: no policy replays again, the same view', async () => {
    const repo = await storedRepo();
    const first = worker(repo, 'build-1');
    const overlay = await first.engine.replay(ID, { policies: ['claude-code', 'none'] });
    expect(first.cache.replayed).toBe(2);
    expect(overlay.series.every((s) => s.storedAt === undefined)).toBe(true);
    const page = await first.engine.replay(ID, {});
    expect(first.cache.replayed).toBe(REPLAY_POLICIES.length);
    // Asked again of the same worker (its cache; the replay's error is known from here on).
    const overlayAfter = await first.engine.replay(ID, { policies: ['claude-code', 'none'] });
    expect(first.cache.replayed).toBe(REPLAY_POLICIES.length);
    await settled(repo, REPLAY_POLICIES.length + 1);
    expect(await repo.db.replays.count()).toBe(REPLAY_POLICIES.length + 1); // every policy, and the head

    const second = worker(repo, 'build-1');
    const again = await second.engine.replay(ID, {});
    expect(second.cache.replayed).toBe(0);
    expect(again.series.every((s) => typeof s.storedAt === 'string')).toBe(true);
    expect(shown(again)).toEqual(shown(page));
    // The overlay's policies on a third load: read back too.
    const third = worker(repo, 'build-1');
    expect(shown(await third.engine.replay(ID, { policies: ['none', 'claude-code'] }))).toEqual(shown(overlayAfter));
    expect(third.cache.replayed).toBe(0);
  });

  it('only what the store lacks replays; another model or cache lifetime is another replay', async () => {
    const repo = await storedRepo();
    await worker(repo, 'b').engine.replay(ID, { policies: ['claude-code'] });
    await settled(repo, 2);
    const next = worker(repo, 'b');
    const v = await next.engine.replay(ID, { policies: ['claude-code', 'codex'] });
    expect(next.cache.replayed).toBe(1);
    expect(v.series.map((s) => [s.id, typeof s.storedAt])).toEqual([
      ['claude-code', 'string'],
      ['codex', 'undefined'],
    ]);
    await next.engine.replay(ID, { model: 'gpt-5', policies: ['claude-code'] });
    expect(next.cache.replayed).toBe(2);
    // And another cache lifetime.
    const ttl = await next.engine.replay(ID, { cacheTtl: '1h', policies: ['claude-code'] });
    expect(next.cache.replayed).toBe(3);
    expect(ttl.series[0].storedAt).toBeUndefined();
  });

  it('another build of the engine never reads a replay this one stored, and its store removes the old rows', async () => {
    const repo = await storedRepo();
    await worker(repo, 'old').engine.replay(ID, { policies: ['none'] });
    await settled(repo, 2);
    const next = worker(repo, 'new');
    const v = await next.engine.replay(ID, { policies: ['none'] });
    expect(next.cache.replayed).toBe(1);
    expect(v.series[0].storedAt).toBeUndefined();
    for (let i = 0; i < 200 && (await repo.db.replays.where('transcriptId').equals(ID).and((r) => r.build === 'old').count()) > 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect((await repo.db.replays.toArray()).map((r) => r.build)).toEqual(['new', 'new']);
  });

  it('nothing is stored without a build (next dev, Node), for a deleted log, and a purge removes a log\'s replays', async () => {
    const repo = await storedRepo();
    const plain = worker(repo, undefined);
    await plain.engine.replay(ID, { policies: ['none'] });
    await new Promise((r) => setTimeout(r, 50));
    expect(await repo.db.replays.count()).toBe(0);

    await worker(repo, 'b').engine.replay(ID, { policies: ['none'] });
    await settled(repo, 2);
    expect(await repo.db.replays.count()).toBe(2);
    await repo.deleteTranscript(ID);
    // Deleted (undo still possible): a replay that finishes now is not kept.
    await worker(repo, 'b').engine.replay(ID, { policies: ['claude-code'] });
    await new Promise((r) => setTimeout(r, 50));
    expect((await repo.db.replays.toArray()).map((r) => r.policy).sort()).toEqual(['', 'none']);
    await repo.purgeDeleted([ID]);
    expect(await repo.db.replays.count()).toBe(0);
  });

  it('recovery on start removes replays whose log is gone (an interrupted purge)', async () => {
    const repo = await storedRepo();
    await worker(repo, 'b').engine.replay(ID, { policies: ['none'] });
    await settled(repo, 2);
    const [row] = await repo.db.replays.toArray();
    await repo.db.replays.put({ ...row, transcriptId: 'gone' });
    const report = await repo.recover();
    expect(report.removedOrphans).toBe(1);
    expect((await repo.db.replays.toArray()).map((r) => r.transcriptId)).toEqual([ID, ID]);
  });

  it('a store that fails to read or write costs the replay nothing: the view is the same, the next load replays', async () => {
    const cache = new ReplayCache();
    const broken = { build: 'b', load: async () => Promise.reject(new Error('closed')), save: async () => Promise.reject(new Error('quota')) };
    const warn = console.warn;
    const warned: unknown[] = [];
    console.warn = (...a: unknown[]) => void warned.push(a[0]);
    try {
      const v = await replayEngine({ getTranscript: async () => log, store: broken, cache }).replay(ID, { policies: ['none'] });
      const plain = await replayEngine({ getTranscript: async () => ({ ...log }) }).replay(ID, { policies: ['none'] });
      expect(shown(v)).toEqual(shown(plain));
      await new Promise((r) => setTimeout(r, 10));
    } finally {
      console.warn = warn;
    }
    expect(warned).toEqual(['Contextscope: the stored replays could not be read; replaying.', 'Contextscope: the replay could not be stored.']);
  });

  it('a log keeps the replays of 4 models and cache lifetimes: a fifth removes the oldest other than its own and the one being written', async () => {
    const repo = await storedRepo();
    const sets: ReplayOptions[] = [{}, { cacheTtl: '1h' }, { model: 'gpt-5' }, { model: 'gpt-5', cacheTtl: '1h' }, { model: 'claude-sonnet-4-5' }];
    const setsStored = async () => new Set((await repo.db.replays.toArray()).map((r) => replaySetOf(r.key)));
    for (const [i, options] of sets.slice(0, REPLAY_OPTION_SETS_PER_LOG).entries()) {
      await worker(repo, 'b').engine.replay(ID, { ...options, policies: ['none'] });
      await settled(repo, 2 * (i + 1));
    }
    expect((await setsStored()).size).toBe(REPLAY_OPTION_SETS_PER_LOG);
    expect(await repo.db.replays.count()).toBe(2 * REPLAY_OPTION_SETS_PER_LOG);
    // The 1-hour set again, one more policy: written last, but its head is the oldest of the others.
    await worker(repo, 'b').engine.replay(ID, { cacheTtl: '1h', policies: ['none', 'claude-code'] });
    await settled(repo, 2 * REPLAY_OPTION_SETS_PER_LOG + 1);
    // A fifth set: the oldest head but the log's own set (no model or lifetime chosen, the oldest of
    // all) is the 1-hour lifetime's: it goes, whole.
    await worker(repo, 'b').engine.replay(ID, { ...sets[4], policies: ['none'] });
    for (let i = 0; i < 200 && !(await setsStored()).has(`b|${replayOptionsKey(sets[4])}|`); i++) await new Promise((r) => setTimeout(r, 5));
    const kept = await setsStored();
    expect([...kept].sort()).toEqual([sets[0], sets[2], sets[3], sets[4]].map((o) => `b|${replayOptionsKey(o)}|`).sort());
    expect(await repo.db.replays.count()).toBe(2 * REPLAY_OPTION_SETS_PER_LOG);
    // What is kept still reads back; what went replays again.
    const next = worker(repo, 'b');
    await next.engine.replay(ID, { policies: ['none'] });
    await next.engine.replay(ID, { model: 'gpt-5', policies: ['none'] });
    expect(next.cache.replayed).toBe(0);
    await next.engine.replay(ID, { cacheTtl: '1h', policies: ['none'] });
    expect(next.cache.replayed).toBe(1);
  });

  it("a stored series that is not this log's length is left out and replays", async () => {
    const repo = await storedRepo();
    await worker(repo, 'b').engine.replay(ID, { policies: ['none'] });
    await settled(repo, 2);
    const row = (await repo.db.replays.toArray()).find((r) => r.policy === 'none')!;
    await repo.db.replays.put({ ...row, series: { ...row.series!, prompts: row.series!.prompts.slice(1) } });
    const next = worker(repo, 'b');
    const v = await next.engine.replay(ID, { policies: ['none'] });
    expect(next.cache.replayed).toBe(1);
    expect(v.series[0].prompts.length).toBe(v.callTurns.length);
  });
});

describe('the engine build name (next.config.mjs engineBuild)', () => {
  it('changes with any byte of the engine\'s sources, not with a test file or another folder', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-build-'));
    try {
      fs.mkdirSync(path.join(dir, 'lib', 'simulate'), { recursive: true });
      fs.mkdirSync(path.join(dir, 'workers'));
      fs.mkdirSync(path.join(dir, 'components'));
      fs.writeFileSync(path.join(dir, 'lib', 'simulate', 'calls.ts'), 'export const a = 1;\n');
      fs.writeFileSync(path.join(dir, 'workers', 'engine.worker.ts'), 'expose(engine);\n');
      fs.writeFileSync(path.join(dir, 'package-lock.json'), '{"lockfileVersion":3}\n');
      const a = engineBuild(dir);
      expect(engineBuild(dir)).toBe(a);
      fs.writeFileSync(path.join(dir, 'lib', 'simulate', 'calls.test.ts'), 'test\n');
      fs.writeFileSync(path.join(dir, 'components', 'X.tsx'), 'x\n');
      expect(engineBuild(dir)).toBe(a);
      fs.writeFileSync(path.join(dir, 'lib', 'simulate', 'calls.ts'), 'export const a = 2;\n');
      const b = engineBuild(dir);
      expect(b).not.toBe(a);
      fs.writeFileSync(path.join(dir, 'package-lock.json'), '{"lockfileVersion":3,"x":1}\n');
      expect(engineBuild(dir)).not.toBe(b);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
