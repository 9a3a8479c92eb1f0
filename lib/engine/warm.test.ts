import 'fake-indexeddb/auto';
import { expose } from 'comlink';
import { beforeEach, describe, expect, it } from 'vitest';
import { freshDbName } from '../db/test-helpers';
import { engine, useEngineDatabase } from './api';
import { WorkerBridge, warmEngine } from './client';

/** The real engine over a MessageChannel (a Worker stand-in), counting the calls it receives. */
function channelWorker(calls: string[]): Worker {
  const { port1, port2 } = new MessageChannel();
  const counted = new Proxy(engine, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(String(key));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  expose(counted, port1);
  port2.start();
  return Object.assign(port2, { terminate: () => port2.close() }) as unknown as Worker;
}

beforeEach(() => useEngineDatabase(freshDbName()));

describe('WorkerBridge.warm: the query worker starts before the first query', () => {
  it('starts the query worker and its recovery at once; the first list query uses that worker', async () => {
    const calls: string[] = [];
    const bridge = new WorkerBridge(() => channelWorker(calls));
    expect(bridge.startedWorkers).toBe(0);
    bridge.warm();
    expect(bridge.startedWorkers, 'warm() starts the worker without a call').toBe(1);
    expect(bridge.recovered(), 'recovery started with it').not.toBeNull();
    await bridge.recovered();
    expect(calls).toEqual(['init']);

    expect(await bridge.listTranscripts()).toEqual([]);
    bridge.warm();
    expect(bridge.startedWorkers, 'the query and a second warm() reuse the warm worker').toBe(1);
    expect(calls).toEqual(['init', 'listTranscripts']);
    bridge.terminate();
  });

  it('warmEngine does nothing outside a browser (the static export prerenders in Node)', () => {
    expect(typeof window).toBe('undefined');
    expect(() => warmEngine()).not.toThrow();
  });
});
