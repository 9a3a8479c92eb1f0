/**
 * The timeline stored at import (lib/db/schema.ts LayoutRow): opening reads it instead of every
 * message, and what it gives is what building from the stored messages gives, on every corpus file.
 */
import 'fake-indexeddb/auto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openRepo, Repo } from '../db/repo';
import { freshDbName } from '../db/test-helpers';
import { allCorpusFiles } from '../../tests/corpus';
import { engine, useEngineDatabase } from './api';
import { buildTimeline, contextWindowFor, TIMELINE_VERSION } from './timeline';

afterEach(() => vi.restoreAllMocks());

async function importOne(file: string): Promise<string> {
  const bytes = new Uint8Array(fs.readFileSync(file));
  let out = await engine.importFile(bytes.slice(), path.basename(file));
  if (out.kind === 'choose') out = await engine.importFile(bytes.slice(), path.basename(file), { conversation: out.conversations[0].index });
  if (out.kind !== 'imported') throw new Error(`${file}: ${JSON.stringify(out)}`);
  return out.meta.id;
}

/** The timeline built now from what storage holds (the path an open took before timelines were stored). */
async function rebuilt(name: string, id: string) {
  const r = openRepo(name);
  const meta = (await r.getMeta(id))!;
  const details = (await r.getDetails(id))!;
  return buildTimeline({ messages: await r.getAllMessages(id), usage: details.usage, markers: details.markers, tools: details.tools, contextWindow: contextWindowFor(meta.model, details.usage), axis: 'turns' });
}

describe('the timeline stored at import', () => {
  it('every corpus file: a restarted engine opens its timeline without reading a message, equal to one built from the messages', async () => {
    const name = freshDbName();
    useEngineDatabase(name);
    const ids: string[] = [];
    for (const file of allCorpusFiles()) ids.push(await importOne(file));
    expect(ids.length).toBeGreaterThanOrEqual(47);

    useEngineDatabase(name); // a new worker: empty caches
    const reads = vi.spyOn(Repo.prototype, 'getAllMessages');
    for (const id of ids) {
      const layout = await openRepo(name).getLayout(id);
      expect(layout?.version, id).toBe(TIMELINE_VERSION);
      reads.mockClear();
      const timeline = await engine.getTimeline(id);
      expect(reads, id).not.toHaveBeenCalled();
      expect(timeline, id).toEqual(await rebuilt(name, id));
    }
  }, 240_000);

  it('a timeline of another version, or none (imported before they were stored), is built from the messages and stored for the next open', async () => {
    const name = freshDbName();
    useEngineDatabase(name);
    const codex = allCorpusFiles().find((f) => f.includes('codex'))!;
    const claude = allCorpusFiles().find((f) => f.includes('claude-code'))!;
    const stale = await importOne(codex);
    const missing = await importOne(claude);
    const db = openRepo(name).db;
    const old = (await db.layouts.get(stale))!;
    // A build whose timeline differed: same row, another version, different figures.
    await db.layouts.put({ ...old, version: TIMELINE_VERSION - 1, timeline: { ...old.timeline, maxContext: -1 } });
    await db.layouts.delete(missing);

    useEngineDatabase(name);
    const reads = vi.spyOn(Repo.prototype, 'getAllMessages');
    for (const id of [stale, missing]) {
      const timeline = await engine.getTimeline(id);
      expect(timeline, id).toEqual(await rebuilt(name, id));
      expect(timeline.maxContext).toBeGreaterThan(0);
      expect((await db.layouts.get(id))?.version, id).toBe(TIMELINE_VERSION);
    }
    expect(reads).toHaveBeenCalled();

    // The next open (a new worker) reads the stored row again.
    useEngineDatabase(name);
    reads.mockClear();
    expect(await engine.getTimeline(stale)).toEqual(await rebuilt(name, stale));
    expect(reads).toHaveBeenCalledTimes(1); // rebuilt() above, not the engine
  });

  it('a purged transcript takes its timeline with it', async () => {
    const name = freshDbName();
    useEngineDatabase(name);
    const id = await importOne(allCorpusFiles().find((f) => f.includes('gemini'))!);
    expect(await openRepo(name).getLayout(id)).toBeDefined();
    await engine.deleteTranscript(id);
    await engine.purgeDeleted();
    expect(await openRepo(name).getLayout(id)).toBeUndefined();
  });
});
