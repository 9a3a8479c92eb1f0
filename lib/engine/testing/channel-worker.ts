/**
 * Test stand-ins for the engine worker: an object exposed with Comlink over a MessageChannel, so the
 * bridge's Comlink path (transfer, proxy callbacks, structured clone) runs for real in Node.
 */
import { expose } from 'comlink';
import { WorkerBridge } from '../client';

export class ChannelWorker extends EventTarget {
  terminated = false;
  private readonly port: MessagePort;
  constructor(target: object) {
    super();
    const { port1, port2 } = new MessageChannel();
    expose(target, port1);
    this.port = port2;
    port2.start();
  }
  postMessage(message: unknown, transfer?: Transferable[]): void {
    if (!this.terminated) this.port.postMessage(message, transfer ?? []);
  }
  addEventListener(type: string, listener: EventListenerOrEventListenerObject | null): void {
    if (type === 'message') this.port.addEventListener('message', listener as EventListener);
    else super.addEventListener(type, listener);
  }
  removeEventListener(type: string, listener: EventListenerOrEventListenerObject | null): void {
    if (type === 'message') this.port.removeEventListener('message', listener as EventListener);
    else super.removeEventListener(type, listener);
  }
  terminate(): void {
    this.terminated = true;
    this.port.close();
  }
  /** What the browser does when a worker dies (out of memory, an uncaught error): an `error` event, then silence. */
  crash(message: string): void {
    this.terminate();
    this.dispatchEvent(Object.assign(new Event('error'), { message }));
  }
}

/** A bridge over ChannelWorkers; `engineFor(n)` is the engine the n-th worker started exposes. */
export function channelBridge(engineFor: (n: number) => object): { bridge: WorkerBridge; workers: ChannelWorker[] } {
  const workers: ChannelWorker[] = [];
  const bridge = new WorkerBridge(() => {
    const w = new ChannelWorker(engineFor(workers.length));
    workers.push(w);
    return w as unknown as Worker;
  });
  return { bridge, workers };
}
