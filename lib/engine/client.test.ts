import 'fake-indexeddb/auto';
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { Repo } from '../db/repo';
import { corpusFiles } from '../../tests/corpus';
import { freshDbName } from '../db/test-helpers';
import { engine, useEngineDatabase, type ImportProgress } from './api';
import { PREVIEW_GRACE_MS, TIMELINE_SLICE, WorkerBridge, warmEngine } from './client';
import { LIBRARY_CHANNEL, listenLibrary } from './channel';
import { ORIGINAL_VERSION } from './versions';
import { makeLongTranscript } from '../../scripts/make-long-transcript';
import { makeClaudeCodeSession } from '../../bench/generate';
import { defaultPlan, planToDraft } from '../../components/plan/plan';
import { lostIndexStats } from '../compaction/lost';
import { projectionStats } from './compaction';
import { buildRows, rowIndexOf } from './rows';
import { parseQuery, searchRows } from './search';
import { replayView } from './replay';
import { REPLAY_POLICIES } from '../simulate/policies/replay';
import { importFile } from '../formats/import';
import { sourceFromBytes } from '../read/source';
import { ChannelWorker, channelBridge as sharedChannelBridge } from './testing/channel-worker';

/** A bridge over ChannelWorkers (the real engine unless `engineFor(n)` says otherwise). */
const channelBridge = (engineFor: (n: number) => object = () => engine) => sharedChannelBridge(engineFor);

const chatFile = corpusFiles('openai-chat').find((f) => f.includes('completion-text'))!;
const bufferOf = (p: string) => {
  const b = fs.readFileSync(p);
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
};

beforeEach(() => useEngineDatabase(freshDbName()));

describe('WorkerBridge', () => {
  it('imports through Comlink with progress callbacks and a transferred buffer', async () => {
    const { bridge, workers } = channelBridge();
    const stages: ImportProgress['stage'][] = [];
    const buffer = bufferOf(chatFile);
    const size = buffer.byteLength;
    const out = await bridge.importFile(undefined, buffer, path.basename(chatFile), {}, (p) => {
      if (stages[stages.length - 1] !== p.stage) stages.push(p.stage);
    });
    expect(out.kind).toBe('imported');
    // Transferred, not copied: the caller's buffer is detached.
    expect(buffer.byteLength).toBe(0);
    // Progress callbacks are fire-and-forget messages: they may still arrive after the result.
    await new Promise((r) => setTimeout(r, 20));
    expect(stages).toEqual(['reading', 'parsing', 'counting', 'storing', 'done']);
    const list = await bridge.listTranscripts();
    expect(list).toHaveLength(1);
    expect(list[0].size).toBe(size);
    // Start-up recovery ran once, on the first worker.
    expect(await bridge.recovered()).toMatchObject({ removedPartial: [] });
    // Two lanes: import and query each have their worker.
    expect(bridge.startedWorkers).toBe(2);
    bridge.terminate();
    expect(workers.every((w) => w.terminated)).toBe(true);
  });

  it('on abort terminates the lane worker, rejects with AbortError, and starts a new worker next time', async () => {
    let never: () => void = () => {};
    // The first worker never answers (stuck in CPU-bound work): not even its start-up recovery.
    const hanging = { ...engine, init: () => new Promise<never>(() => {}), listTranscripts: () => new Promise<never>((resolve) => (never = resolve as () => void)) };
    const { bridge, workers } = channelBridge((n) => (n === 0 ? hanging : engine));
    const controller = new AbortController();
    const pending = bridge.listTranscripts(controller.signal);
    await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(workers[0].terminated).toBe(true);
    never();

    // Already-aborted signals never start work.
    await expect(bridge.listTranscripts(controller.signal)).rejects.toMatchObject({ name: 'AbortError' });
    expect(bridge.startedWorkers).toBe(1);

    // The next call gets a fresh worker, which answers.
    expect(await bridge.listTranscripts(new AbortController().signal)).toEqual([]);
    expect(bridge.startedWorkers).toBe(2);
    bridge.terminate();
  });

  it('a call aborted on a shared lane does not fail the reads started beside it: they are sent again to a fresh worker', async () => {
    // The first worker never answers (the stale preview stuck in CPU-bound work).
    const hanging = { ...engine, init: () => new Promise<never>(() => {}) };
    const { bridge, workers } = channelBridge((n) => (n === 0 ? hanging : engine));
    // TanStack Query starts the new key's fetch before it cancels the stale one.
    const stale = new AbortController();
    const stalePreview = bridge.listTranscripts(stale.signal);
    const current = bridge.listTranscripts(new AbortController().signal);
    const other = bridge.getMeta(undefined, 'nope');
    await new Promise((r) => setTimeout(r, 20));
    stale.abort();
    await expect(stalePreview).rejects.toMatchObject({ name: 'AbortError' });
    expect(workers[0].terminated).toBe(true);
    // Before: both rejected with "The operation was aborted." (the Plan panel showed "Preview failed").
    expect(await current).toEqual([]);
    expect(await other).toBeNull();
    expect(bridge.startedWorkers).toBe(2);
    bridge.terminate();
  });

  it('a cancelled preview that finishes within the grace keeps its warm worker; one still running after it is stopped and the current preview goes to a fresh worker', async () => {
    // Stale previews: one takes 50 ms more (kept), one never ends (stopped after the grace).
    let calls = 0;
    const slowThenHang = {
      ...engine,
      listTranscripts: () => (calls++ === 0 ? new Promise((r) => setTimeout(() => r([]), 50)) : new Promise<never>(() => {})),
    };
    const { bridge, workers } = channelBridge((n) => (n === 0 ? slowThenHang : engine));
    const preview = (signal: AbortSignal) => bridge.run(signal, 'preview', (r) => r.listTranscripts());

    const stale = new AbortController();
    const stalePreview = preview(stale.signal);
    await new Promise((r) => setTimeout(r, 10));
    stale.abort();
    await expect(stalePreview).rejects.toMatchObject({ name: 'AbortError' });
    await new Promise((r) => setTimeout(r, PREVIEW_GRACE_MS + 100));
    expect(workers[0].terminated).toBe(false);
    expect(bridge.startedWorkers).toBe(1);

    // The second stale preview hangs: its worker is stopped once the grace is over, not before,
    // and the preview started beside it is answered by a fresh worker.
    const stale2 = new AbortController();
    const hung = preview(stale2.signal);
    const current = preview(new AbortController().signal);
    await new Promise((r) => setTimeout(r, 10));
    stale2.abort();
    await expect(hung).rejects.toMatchObject({ name: 'AbortError' });
    expect(workers[0].terminated).toBe(false);
    expect(await current).toEqual([]);
    expect(workers[0].terminated).toBe(true);
    expect(bridge.startedWorkers).toBe(2);
    bridge.terminate();
  });

  it('the export dialog runs on the worker that previewed and applied: the note and the file project nothing, index nothing (issue 31)', async () => {
    // Which worker each engine call ran on (the n-th worker started), counted per method.
    const ran: Array<[number, string]> = [];
    const recording = (n: number) =>
      Object.fromEntries(Object.entries(engine).map(([k, f]) => [k, typeof f === 'function' ? (...a: unknown[]) => (ran.push([n, k]), (f as (...x: unknown[]) => unknown)(...a)) : f]));
    const { bridge } = channelBridge(recording);
    const out = await bridge.importFile(undefined, new TextEncoder().encode(makeClaudeCodeSession(200)).buffer as ArrayBuffer, 'cc-200.jsonl', {});
    if (out.kind !== 'imported') throw new Error(JSON.stringify(out));
    const id = out.meta.id;
    await bridge.getInspectorData(undefined, id);
    await bridge.warmPreview(undefined, id);
    const draft = planToDraft(defaultPlan(out.meta.tokens.total), 's-export', [40, 120])!;
    await bridge.preview(undefined, id, { versionId: ORIGINAL_VERSION });
    await bridge.preview(undefined, id, { versionId: ORIGINAL_VERSION, draft, selection: [40, 120] });
    const version = await bridge.applyStep(undefined, id, ORIGINAL_VERSION, draft);
    await bridge.preview(undefined, id, { versionId: version.id });
    const previewWorker = ran.find(([, k]) => k === 'preview')![0];

    const projected = projectionStats.projected;
    const builds = lostIndexStats.builds;
    const left = await bridge.historyLeftOut(undefined, id, version.id);
    expect(left.keepsHistory).toBe(true);
    const file = await bridge.exportVersion(undefined, id, version.id, { withAudit: true });
    if (file.kind !== 'file') throw new Error(JSON.stringify(file));
    expect(file.file.audit).toBeDefined();
    const losses = await bridge.conversionLosses(undefined, id, version.id, 'openai-chat');
    expect(losses.kind).toBe('losses');
    // Where they ran: the preview's worker (its log, its lost index, the applied version's projection).
    const workerOf = (method: string) => ran.filter(([, k]) => k === method).map(([n]) => n);
    expect(workerOf('historyLeftOut')).toEqual([previewWorker]);
    expect(workerOf('exportVersion')).toEqual([previewWorker]);
    expect(workerOf('conversionLosses')).toEqual([previewWorker]);
    // What they did there: the version's projection is the applied preview's, the index the warm-up's.
    expect(projectionStats.projected - projected).toBe(0);
    expect(lostIndexStats.builds - builds).toBe(0);
    bridge.terminate();
  });

  it("the Replay page's replay in parts, on the preview worker: the view of one call; left between parts, it asks no more and stops no worker (issue 31)", async () => {
    const { bridge, workers } = channelBridge();
    const text = makeClaudeCodeSession(150);
    const out = await bridge.importFile(undefined, new TextEncoder().encode(text).buffer as ArrayBuffer, 'cc-150.jsonl', {});
    if (out.kind !== 'imported') throw new Error(JSON.stringify(out));
    const id = out.meta.id;
    const ids = REPLAY_POLICIES.map((p) => p.id);
    const parts = [['recorded', 'none', 'claude-code'], ['contextscope-auto'], ids.filter((p) => !['recorded', 'none', 'claude-code', 'contextscope-auto'].includes(p))];
    const seen: number[] = [];
    const view = await bridge.replayInParts(undefined, id, parts, {}, (v) => seen.push(v.series.length));
    // Told after each part but the last (the answer itself is the whole view).
    expect(seen).toEqual([3, 4]);
    expect(bridge.replayCalls).toBe(3);
    // The policies of every part, each as one call of them all gives it.
    const whole = replayView(importFile(sourceFromBytes('cc-150.jsonl', new TextEncoder().encode(text))).transcript);
    const byId = new Map(view.series.map((x) => [x.id, x]));
    expect([...byId.keys()].sort()).toEqual([...ids].sort());
    for (const w of whole.series) {
      expect(byId.get(w.id)!.row).toEqual(w.row);
      expect([...byId.get(w.id)!.prompts]).toEqual([...w.prompts]);
      expect([...byId.get(w.id)!.fired]).toEqual([...w.fired]);
    }
    expect(view.recordedError).toBe(whole.recordedError);
    expect([...view.callTurns]).toEqual([...whole.callTurns]);

    // The page left while its second part replays (a part slower than the grace a stale preview
    // gets): that part finishes on the worker, the third is not asked, no worker is stopped.
    const slow = { ...engine, replay: async (...a: Parameters<typeof engine.replay>) => (await new Promise((r) => setTimeout(r, PREVIEW_GRACE_MS + 500)), engine.replay(...a)) };
    const two = channelBridge(() => slow);
    const controller = new AbortController();
    const left = two.bridge.replayInParts(controller.signal, id, parts, { cacheTtl: '1h' }, () => setTimeout(() => controller.abort(), 100));
    await expect(left).rejects.toMatchObject({ name: 'AbortError' });
    await new Promise((r) => setTimeout(r, PREVIEW_GRACE_MS + 1000));
    expect(two.bridge.replayCalls).toBe(2);
    expect(two.workers.filter((w) => w.terminated)).toHaveLength(0);
    expect(two.bridge.startedWorkers).toBe(1);
    two.bridge.terminate();
    bridge.terminate();
  }, 120_000);

  it('a worker crashing mid-operation: the page goes on with a new one, reads are answered, the import in flight fails with what happened and nothing of it is stored', async () => {
    const other = corpusFiles('claude-code').find((f) => f.includes('vibecodingtracker'))!;
    // The query lane's first worker will hang on the library list, then crash.
    const hanging = { ...engine, listTranscripts: () => new Promise<never>(() => {}) };
    const { bridge, workers } = channelBridge((n) => (n === 1 ? hanging : engine));
    const first = await bridge.importFile(undefined, bufferOf(chatFile), path.basename(chatFile), {});
    expect(first.kind).toBe('imported');
    const importWorker = workers[0];

    // A read in flight when its worker dies is sent again to a new worker.
    const listing = bridge.listTranscripts(undefined);
    await new Promise((r) => setTimeout(r, 20));
    workers[1].crash('Out of memory');
    expect((await listing).map((m) => m.fileName)).toEqual([path.basename(chatFile)]);
    expect(workers.length).toBe(3);

    // The import worker dies while storing: the import fails with the reason, nothing is listed.
    const store = vi.spyOn(Repo.prototype, 'storeImport').mockImplementationOnce(() => {
      importWorker.crash('Out of memory');
      return new Promise<never>(() => {});
    });
    await expect(bridge.importFile(undefined, bufferOf(other), path.basename(other), {})).rejects.toThrow(/engine worker stopped \(Out of memory\).*keeps nothing.*Try again/);
    store.mockRestore();
    expect((await bridge.listTranscripts(undefined)).map((m) => m.fileName)).toEqual([path.basename(chatFile)]);

    // Trying again works on a fresh worker; what was there before is all still there.
    const again = await bridge.importFile(undefined, bufferOf(other), path.basename(other), {});
    expect(again.kind).toBe('imported');
    expect((await bridge.listTranscripts(undefined)).map((m) => m.fileName).sort()).toEqual([path.basename(chatFile), path.basename(other)].sort());
    expect(importWorker.terminated).toBe(true);
    bridge.terminate();
  });

  it('another tab hears of every version written here (BroadcastChannel); this tab does not hear itself', async () => {
    const file = corpusFiles('claude-code').find((f) => f.includes('vibecodingtracker'))!;
    const { bridge } = channelBridge();
    const out = await bridge.importFile(undefined, bufferOf(file), path.basename(file), {});
    if (out.kind !== 'imported') throw new Error(JSON.stringify(out));
    const id = out.meta.id;
    const otherTab: unknown[] = [];
    const ch = new BroadcastChannel(LIBRARY_CHANNEL);
    ch.onmessage = (ev) => otherTab.push(ev.data);
    const thisTab: unknown[] = [];
    const stop = listenLibrary((m) => thisTab.push(m));
    try {
      const strip = { id: 's1', range: { kind: 'turns' as const, from: 0, to: out.meta.turns - 2 }, reducers: [{ id: 'strip-tool-results' as const }], keepLast: 0 };
      const v1 = await bridge.applyStep(undefined, id, ORIGINAL_VERSION, strip);
      await bridge.renameVersion(undefined, id, v1.id, 'named');
      const fork = await bridge.forkVersion(undefined, id, v1.id);
      await bridge.removeVersion(undefined, id, fork.id);
      await bridge.undoStep(undefined, id, v1.id);
      await expect.poll(() => otherTab.length).toBe(5);
      expect(new Set(otherTab.map((m) => JSON.stringify(m)))).toEqual(new Set([JSON.stringify({ kind: 'versions', transcriptId: id })]));
      // A refused write announces nothing.
      await expect(bridge.applyStep(undefined, id, ORIGINAL_VERSION, { ...strip, id: 's2', range: { kind: 'turns', from: out.meta.turns - 1, to: out.meta.turns - 1 }, keepLast: 1 })).rejects.toThrow(/changes nothing/);
      await new Promise((r) => setTimeout(r, 50));
      expect(otherTab).toHaveLength(5);
      expect(thisTab).toEqual([]);
    } finally {
      stop();
      ch.close();
      bridge.terminate();
    }
  });

  it('an abort never terminates a worker with a write in flight (a write is never sent twice)', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    let renames = 0;
    const slowWrites = {
      ...engine,
      renameTranscript: async (id: string, title: string) => {
        renames++;
        await gate;
        return engine.renameTranscript(id, title);
      },
      listTranscripts: () => new Promise<never>(() => {}),
    };
    // The import lane's worker comes first; the query lane's is the second.
    const { bridge, workers } = channelBridge((n) => (n === 1 ? slowWrites : engine));
    const out = await bridge.importFile(undefined, bufferOf(chatFile), path.basename(chatFile), {});
    if (out.kind !== 'imported') throw new Error(JSON.stringify(out));
    const queryWorkers = () => workers.slice(1);
    const write = bridge.renameTranscript(undefined, out.meta.id, 'renamed');
    const reader = new AbortController();
    const read = bridge.listTranscripts(reader.signal);
    await new Promise((r) => setTimeout(r, 20));
    reader.abort();
    await expect(read).rejects.toMatchObject({ name: 'AbortError' });
    expect(queryWorkers().map((w) => w.terminated)).toEqual([false]);
    release();
    await write;
    expect(renames).toBe(1);
    expect((await bridge.getMeta(undefined, out.meta.id))?.title).toBe('renamed');
    bridge.terminate();
  });

  it('opens a long transcript in slices: the timeline turns in several messages, the list as an index plus row windows, search by index', async () => {
    const bridge = new WorkerBridge(() => new ChannelWorker(engine) as unknown as Worker);
    const turns = TIMELINE_SLICE + 300;
    const text = makeLongTranscript({ turns });
    const out = await bridge.importFile(undefined, new TextEncoder().encode(text).buffer as ArrayBuffer, 'long.json', {});
    if (out.kind !== 'imported') throw new Error(JSON.stringify(out));
    const id = out.meta.id;

    const sliced = await bridge.getInspectorData(undefined, id);
    // The same turns as the engine's one-message answer, in order.
    const whole = await engine.getInspectorData(id);
    expect(sliced.timeline.turns.length).toBeGreaterThan(TIMELINE_SLICE);
    expect(sliced).toEqual(whole);

    const rows = buildRows(await engine.getMessages(id, 0, out.meta.turns), whole.timeline.turns);
    const index = await bridge.getRowIndex(undefined, id);
    const expectedIndex = rowIndexOf(rows);
    expect(index.count).toBe(rows.length);
    expect([...index.turn]).toEqual([...expectedIndex.turn]);
    expect([...index.header]).toEqual([...expectedIndex.header]);
    expect([...index.height]).toEqual([...expectedIndex.height]);
    // A window from the middle, and one running past the end.
    const mid = Math.floor(rows.length / 2);
    expect(await bridge.getRows(undefined, id, mid, mid + 64)).toEqual(rows.slice(mid, mid + 64));
    expect(await bridge.getRows(undefined, id, rows.length - 10, rows.length + 54)).toEqual(rows.slice(rows.length - 10));
    // Search answers row indexes, as the in-process search over the same rows.
    for (const q of ['role:user', 'tool:', 'turn 4000']) expect(await bridge.searchRows(undefined, id, q)).toEqual(searchRows(rows, parseQuery(q)));
    expect((await bridge.searchRows(undefined, id, 'role:user', 5)).length).toBe(5);
    bridge.terminate();
  });
});

describe('WorkerBridge.warm: the query worker starts before the first query', () => {
  /** The real engine, recording the name of each call it receives. */
  const counting = (calls: string[]) =>
    new Proxy(engine, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          calls.push(String(key));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });

  it('starts the query worker and its recovery at once; the first list query uses that worker', async () => {
    const calls: string[] = [];
    const { bridge, workers } = channelBridge(() => counting(calls));
    expect(bridge.startedWorkers).toBe(0);
    bridge.warm();
    expect(bridge.startedWorkers, 'warm() starts the worker without a call').toBe(1);
    expect(bridge.recovered(), 'recovery started with it').not.toBeNull();
    await bridge.recovered();
    expect(calls).toEqual(['init']);

    expect(await bridge.listTranscripts()).toEqual([]);
    bridge.warm();
    expect(bridge.startedWorkers, 'the query and a second warm() reuse the warm worker').toBe(1);
    expect(workers).toHaveLength(1);
    expect(calls).toEqual(['init', 'listTranscripts']);
    bridge.terminate();
  });

  it('warmEngine does nothing outside a browser (the static export prerenders in Node)', () => {
    expect(typeof window).toBe('undefined');
    expect(() => warmEngine()).not.toThrow();
  });
});

describe('the preview lane takes the idle import worker (session 17: one engine start fewer per drop → open)', () => {
  /** The n-th worker started, per call name, as the bridge used them. */
  const recordingOn = (ran: Array<[number, string]>) => (n: number) =>
    Object.fromEntries(Object.entries(engine).map(([k, f]) => [k, typeof f === 'function' ? (...a: unknown[]) => (ran.push([n, k]), (f as (...x: unknown[]) => unknown)(...a)) : f]));
  const sessionBytes = (turns: number) => new TextEncoder().encode(makeClaudeCodeSession(turns)).buffer as ArrayBuffer;

  it('import → open → preview: the query worker and the import worker, which then previews; the next import starts a worker of its own', async () => {
    const ran: Array<[number, string]> = [];
    const { bridge, workers } = channelBridge(recordingOn(ran));
    bridge.warm();
    const out = await bridge.importFile(undefined, sessionBytes(60), 'cc-60.jsonl', {});
    if (out.kind !== 'imported') throw new Error(JSON.stringify(out));
    expect(bridge.startedWorkers, 'query + import').toBe(2);
    await bridge.getInspectorData(undefined, out.meta.id);
    await bridge.warmPreview(undefined, out.meta.id);
    const shown = await bridge.preview(undefined, out.meta.id, { versionId: ORIGINAL_VERSION });
    expect(shown.kind).toBe('preview');
    expect(bridge.startedWorkers, 'the preview lane started no worker').toBe(2);
    expect(bridge.handedOverWorkers).toBe(1);
    const workerOf = (method: string) => [...new Set(ran.filter(([, k]) => k === method).map(([n]) => n))];
    expect(workerOf('importFile')).toEqual([1]);
    expect(workerOf('warmPreview')).toEqual([1]);
    expect(workerOf('preview')).toEqual([1]);

    // The next drop: a worker of its own, and the preview lane keeps the one it took.
    const second = await bridge.importFile(undefined, sessionBytes(30), 'cc-30.jsonl', {});
    expect(second.kind).toBe('imported');
    expect(bridge.startedWorkers).toBe(3);
    expect(workerOf('importFile')).toEqual([1, 2]);
    await bridge.preview(undefined, out.meta.id, { versionId: ORIGINAL_VERSION });
    expect(workerOf('preview')).toEqual([1]);
    expect(workers.map((w) => w.terminated)).toEqual([false, false, false]);
    bridge.terminate();
  });

  it('an import in flight keeps its worker: a preview meanwhile starts its own, and the import is answered', async () => {
    const ran: Array<[number, string]> = [];
    const { bridge } = channelBridge(recordingOn(ran));
    const first = await bridge.importFile(undefined, sessionBytes(30), 'cc-30.jsonl', {});
    if (first.kind !== 'imported') throw new Error(JSON.stringify(first));
    const inFlight = bridge.importFile(undefined, sessionBytes(400), 'cc-400.jsonl', {});
    const warmed = bridge.warmPreview(undefined, first.meta.id);
    await warmed;
    expect((await inFlight).kind).toBe('imported');
    const workerOf = (method: string) => [...new Set(ran.filter(([, k]) => k === method).map(([n]) => n))];
    expect(workerOf('importFile')).toEqual([0]);
    expect(workerOf('warmPreview')).toEqual([1]);
    expect(bridge.handedOverWorkers).toBe(0);
    bridge.terminate();
  });

  it('a worker crashing on the lane it was handed to: the page goes on with a new one on that lane, and the import lane starts its own', async () => {
    const { bridge, workers } = channelBridge();
    const out = await bridge.importFile(undefined, sessionBytes(30), 'cc-30.jsonl', {});
    if (out.kind !== 'imported') throw new Error(JSON.stringify(out));
    await bridge.warmPreview(undefined, out.meta.id);
    expect(bridge.handedOverWorkers).toBe(1);
    workers[0].crash('out of memory');
    expect((await bridge.preview(undefined, out.meta.id, { versionId: ORIGINAL_VERSION })).kind).toBe('preview');
    expect(bridge.startedWorkers, 'the preview lane got a new worker after the crash').toBe(2);
    expect((await bridge.importFile(undefined, sessionBytes(20), 'cc-20.jsonl', {})).kind).toBe('imported');
    expect(bridge.startedWorkers).toBe(3);
    bridge.terminate();
  });
});

describe("the preview's warm-up in parts (issue 31, session 18: a tick is not queued behind the whole warm-up)", () => {
  it('a replay asked while the warm-up reads the log runs after the part running, before the rest; the log is read once', async () => {
    const name = freshDbName();
    useEngineDatabase(name);
    const { bridge: importer } = channelBridge();
    const text = makeClaudeCodeSession(150);
    const out = await importer.importFile(undefined, new TextEncoder().encode(text).buffer as ArrayBuffer, 'cc-150.jsonl', {});
    if (out.kind !== 'imported') throw new Error(JSON.stringify(out));
    importer.terminate();
    useEngineDatabase(name); // the reloaded page's worker: nothing cached
    const order: string[] = [];
    // The warm-up's first part is held until the tick reaches the worker: the tick comes while it runs.
    let tickArrived!: () => void;
    const tick = new Promise<void>((r) => (tickArrived = r));
    const recording = {
      ...engine,
      warmPreview: async (id: string, part?: number) => {
        order.push(`warm ${part}`);
        if (part === 0) await tick;
        return engine.warmPreview(id, part);
      },
      replay: (...a: Parameters<typeof engine.replay>) => (order.push('replay'), tickArrived(), engine.replay(...a).finally(() => order.push('replayed'))),
    };
    const originals = vi.spyOn(Repo.prototype, 'getOriginal');
    const { bridge } = channelBridge(() => recording);
    const warm = bridge.warmPreview(undefined, out.meta.id);
    await vi.waitFor(() => expect(order.length).toBeGreaterThan(0));
    const view = await bridge.replay(undefined, out.meta.id, { policies: ['contextscope-auto'] });
    await warm;
    // Before: one call of the whole warm-up, the replay queued behind all of it (['warm undefined', 'replay', …]).
    expect(order).toEqual(['warm 0', 'replay', 'replayed', 'warm 1', 'warm 2', 'warm 3']);
    expect(originals).toHaveBeenCalledTimes(1);
    // The rows are replayView's, in one go.
    const whole = replayView(importFile(sourceFromBytes('cc-150.jsonl', new TextEncoder().encode(text))).transcript, { policies: ['contextscope-auto'] });
    expect([...view.series[0].prompts]).toEqual([...whole.series[0].prompts]);
    expect(bridge.startedWorkers).toBe(1);
    bridge.terminate();
  }, 60_000);
});
