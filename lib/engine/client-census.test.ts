/**
 * The census lane of the WorkerBridge (session 19: CI's census that reached "1,000 / 1,000" and
 * never showed its table). The worker is the engine exposed with Comlink over a MessageChannel, as
 * in client.test.ts, with its census calls replaced by fakes that answer in the orders a browser
 * can deliver: a progress report after the answer (Chromium does not keep the order between the
 * proxy's port and the worker's), a worker that goes silent, a worker whose start-up recovery
 * dies with it; and Cancel followed by a second census on the import worker it took.
 */
import 'fake-indexeddb/auto';
import { beforeEach, describe, expect, it } from 'vitest';
import { freshDbName } from '../db/test-helpers';
import type { Census, CensusProgress } from '../ledger/census';
import { engine, useEngineDatabase } from './api';
import { channelBridge } from './testing/channel-worker';

const census = (files: number): Census => ({ rows: [], files, parsed: 0, skipped: [] });
const progress = (done: number, total: number): CensusProgress => ({ done, total, parsed: 0, path: `/s/${done}.jsonl` });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** 'pending' if `p` has not settled within `ms`. */
const within = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p.then((v) => ({ settled: 'resolved' as const, v }), (e: unknown) => ({ settled: 'rejected' as const, e })), sleep(ms).then(() => ({ settled: 'pending' as const }))]);

beforeEach(() => useEngineDatabase(freshDbName()));

describe('WorkerBridge: the census lane', () => {
  it('a progress report delivered after the answer is not passed on: the page hears nothing after the table', async () => {
    // The worker's reports travel on the proxy's port, its answer on its own: here the last report
    // is delivered 30 ms after the answer, as Chromium delivers them.
    const late = {
      ...engine,
      libraryCensus: async (onProgress: (p: CensusProgress) => void) => {
        onProgress(progress(1, 2));
        setTimeout(() => onProgress(progress(2, 2)), 30);
        return census(2);
      },
    };
    const { bridge } = channelBridge(() => late);
    const heard: Array<CensusProgress | 'answer'> = [];
    const c = await bridge.libraryCensus(new AbortController().signal, (p) => heard.push(p));
    heard.push('answer');
    expect(c.files).toBe(2);
    await sleep(150);
    expect(heard[heard.length - 1]).toBe('answer');
    bridge.terminate();
  });

  it('a worker that goes silent: the census fails with a message that says so, its worker is stopped, and the next census runs', async () => {
    let calls = 0;
    const silent = {
      ...engine,
      libraryCensus: (onProgress: (p: CensusProgress) => void) => {
        if (calls++ > 0) return Promise.resolve(census(3));
        onProgress(progress(1, 3));
        return new Promise<never>(() => {}); // the worker stopped answering (or its fetch never returns)
      },
    };
    const { bridge, workers } = channelBridge(() => silent);
    bridge.censusStallMs = 300;
    const heard: CensusProgress[] = [];
    const out = await within(bridge.libraryCensus(new AbortController().signal, (p) => heard.push(p)), 3000);
    expect(out.settled).toBe('rejected');
    expect(String((out as { e: unknown }).e)).toMatch(/The census stopped answering: its worker reported nothing for 300 ms, after 1 of 3 \(the last one counted: \/s\/1\.jsonl\)\. It was stopped; Count again/);
    expect(heard.map((p) => p.done)).toEqual([1]);
    const censusWorker = workers[workers.length - 1];
    expect(censusWorker.terminated).toBe(true);
    // Count again: a fresh worker answers.
    expect((await bridge.libraryCensus(new AbortController().signal)).files).toBe(3);
    bridge.terminate();
  });

  it('a census that reports keeps running past the stall time: only silence ends it', async () => {
    const steady = {
      ...engine,
      libraryCensus: async (onProgress: (p: CensusProgress) => void) => {
        for (let i = 1; i <= 30; i++) {
          await sleep(50);
          onProgress(progress(i, 30));
        }
        return census(30);
      },
    };
    const { bridge } = channelBridge(() => steady);
    // 1.5 s in all, a report every 50 ms: 20 times that between two reports before the 1 s stall time
    // (it was 100 ms against 300 ms, and a loaded machine once left 317 ms between two).
    bridge.censusStallMs = 1000;
    expect((await bridge.libraryCensus(new AbortController().signal, () => {})).files).toBe(30);
    bridge.terminate();
  });

  it("start-up recovery dying with its worker does not strand a census that waits for it", async () => {
    // The query lane's worker (started first: the app warms it) hangs in its recovery; a census
    // waits for recovery; then a query on that lane is aborted and its worker stopped.
    const stuck = { ...engine, init: () => new Promise<never>(() => {}), listTranscripts: () => new Promise<never>(() => {}) };
    const counting = { ...engine, libraryCensus: async () => census(5) };
    const { bridge, workers } = channelBridge((n) => (n === 0 ? stuck : counting));
    bridge.warm();
    const running = bridge.libraryCensus(new AbortController().signal);
    await sleep(20);
    const stale = new AbortController();
    const query = bridge.listTranscripts(stale.signal);
    await sleep(20);
    stale.abort();
    await expect(query).rejects.toMatchObject({ name: 'AbortError' });
    expect(workers[0].terminated).toBe(true);
    // Before: the census waited for the first recovery's promise, which a stopped worker never settles.
    const out = await within(running, 3000);
    expect(out).toMatchObject({ settled: 'resolved', v: { files: 5 } });
    // Recovery ran again, once, and the page's next queries work.
    expect(await bridge.recovered()).toMatchObject({ removedPartial: [] });
    expect(await bridge.listTranscripts(new AbortController().signal)).toEqual([]);
    bridge.terminate();
  });

  it('Cancel, then Count again on a HOME of many sessions: the first run stops, the second answers on a fresh worker, untouched by the first', async () => {
    // The first census runs on the idle import worker it took (takeIdleImportWorker); it reports and
    // never ends until cancelled. The second one counts to the end.
    let runs = 0;
    const slow = {
      ...engine,
      libraryCensus: async (onProgress: (p: CensusProgress) => void) => {
        const run = runs++;
        for (let i = 1; i <= 50; i++) {
          await sleep(run === 0 ? 20 : 2);
          onProgress(progress(i, 50));
        }
        return census(50);
      },
    };
    const { bridge, workers } = channelBridge(() => slow);
    bridge.censusStallMs = 5000;
    await bridge.importFile(undefined, new TextEncoder().encode('{"messages":[{"role":"user","content":"hi"}]}').buffer as ArrayBuffer, 'chat.json', {}).catch(() => undefined);
    const first = new AbortController();
    const heardFirst: number[] = [];
    const one = bridge.libraryCensus(first.signal, (p) => heardFirst.push(p.done));
    await sleep(150);
    expect(bridge.handedOverWorkers).toBe(1);
    first.abort();
    await expect(one).rejects.toMatchObject({ name: 'AbortError' });
    const firstWorker = workers[0];
    expect(firstWorker.terminated).toBe(true);
    const stoppedAt = heardFirst.length;
    const heard: number[] = [];
    const two = await bridge.libraryCensus(new AbortController().signal, (p) => heard.push(p.done));
    expect(two.files).toBe(50);
    // A stopped worker's reports still in the proxy's port are not passed on (the fake worker here
    // even goes on reporting: it shares the test's thread).
    expect(heardFirst.length).toBe(stoppedAt);
    expect(Math.max(...heard)).toBeLessThanOrEqual(50);
    bridge.terminate();
  });
});
