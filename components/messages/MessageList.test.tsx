// @vitest-environment happy-dom
/**
 * The message list's work when rows are measured (issue 31, "no main-thread task over 50 ms"): a
 * drag on the timeline scrolls the list to the selection and a screenful of new rows is measured.
 * At 2,000 turns (~8k rows) TanStack Virtual rebuilt every row's offset from each measured row on
 * (its estimate read again, an object or two per row), in the scroll event's flushSync render and in
 * the ResizeObserver's callback: tasks of 28–37 ms CPU under the profiler, 45–56 ms in the app
 * bench. The list now keeps the offsets in one typed array, copied from the index's estimates once
 * and summed again from the first changed row once per frame of measurements. Counted here: how
 * often a row's estimate (`index.height[i]`) is read while the rows on screen are measured, at the
 * top and after a jump to the middle. On the old layout it is read for every row at each rebuild.
 */
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Row, RowIndex } from '@/lib/engine/rows';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const ROWS = 8_000;
const ESTIMATE = 40;
const MEASURED = 30;
const VIEW = 800;

const rows: Row[] = Array.from({ length: ROWS }, (_, i) => ({ kind: 'turn', key: `t${i}`, turn: i }));
vi.mock('@/lib/engine/client', () => ({
  getBridge: () => ({ getRows: async (_signal: unknown, _id: string, from: number, to: number) => rows.slice(from, to) }),
}));

import { MessageList, type MessageListHandle } from './MessageList';

/** Every ResizeObserver made (the list's, or a virtualizer's), with what it observes. */
const observers: Array<{ cb: ResizeObserverCallback; targets: Set<Element> }> = [];
class FakeResizeObserver {
  private readonly me: { cb: ResizeObserverCallback; targets: Set<Element> };
  constructor(cb: ResizeObserverCallback) {
    this.me = { cb, targets: new Set() };
    observers.push(this.me);
  }
  observe(el: Element) {
    this.me.targets.add(el);
  }
  unobserve(el: Element) {
    this.me.targets.delete(el);
  }
  disconnect() {
    this.me.targets.clear();
  }
}

const isScroller = (el: Element) => el.getAttribute('data-testid') === 'message-list';
const sizeOf = (el: Element) => (isScroller(el) ? VIEW : MEASURED);

let root: Root;
let host: HTMLElement;
const restore: Array<() => void> = [];
function stub<T extends object>(obj: T, key: string, desc: PropertyDescriptor) {
  const old = Object.getOwnPropertyDescriptor(obj, key);
  Object.defineProperty(obj, key, { configurable: true, ...desc });
  restore.push(() => (old ? Object.defineProperty(obj, key, old) : delete (obj as Record<string, unknown>)[key]));
}

beforeEach(() => {
  observers.length = 0;
  stub(globalThis, 'ResizeObserver', { value: FakeResizeObserver, writable: true });
  stub(window, 'ResizeObserver', { value: FakeResizeObserver, writable: true });
  const proto = window.HTMLElement.prototype;
  stub(proto, 'clientHeight', { get(this: Element) { return sizeOf(this); } });
  stub(proto, 'offsetHeight', { get(this: Element) { return sizeOf(this); } });
  stub(proto, 'getBoundingClientRect', {
    value(this: Element) {
      const h = sizeOf(this);
      return { x: 0, y: 0, top: 0, left: 0, width: 600, height: h, right: 600, bottom: h, toJSON() {} };
    },
  });
  host = document.createElement('div');
  document.body.appendChild(host);
  root = createRoot(host);
});
afterEach(() => {
  act(() => root.unmount());
  host.remove();
  while (restore.length) restore.pop()!();
});

/** Let the rows arrive, the frames run and every observer report its targets' sizes, a few rounds. */
async function settle() {
  for (let round = 0; round < 4; round++) {
    await act(async () => {
      await new Promise((r) => setTimeout(r, 20));
    });
    await act(async () => {
      for (const o of [...observers]) {
        const entries = [...o.targets].map((target) => ({ target, borderBoxSize: [{ blockSize: sizeOf(target), inlineSize: 600 }], contentRect: target.getBoundingClientRect() }) as unknown as ResizeObserverEntry);
        if (entries.length) o.cb(entries, o as unknown as ResizeObserver);
      }
      await new Promise((r) => setTimeout(r, 20));
    });
  }
}

describe('MessageList at 8,000 rows', () => {
  it('measuring the rows on screen, at the top and after a jump to the middle, reads each estimate about once, not once per measurement', async () => {
    let reads = 0;
    const estimates = new Array<number>(ROWS).fill(ESTIMATE);
    const height = new Proxy(estimates, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
        return Reflect.get(target, key, receiver);
      },
    });
    const offsets = new Float64Array(ROWS + 1);
    for (let i = 0; i < ROWS; i++) offsets[i + 1] = offsets[i] + ESTIMATE;
    const index = { count: ROWS, turn: Int32Array.from(rows, (r) => r.turn), header: new Uint8Array(ROWS).fill(1), height, offsets, message: new Int32Array(ROWS).fill(-1) } as unknown as RowIndex;
    const handle: { current: MessageListHandle | null } = { current: null };
    await act(async () => root.render(<MessageList ref={handle} id="s" index={index} activeTurn={null} />));
    await settle();
    const list = host.querySelector<HTMLElement>('[data-testid=message-list]')!;
    expect(list.getAttribute('data-virtual')).toBe('yes');
    const mountedTop = host.querySelectorAll('[data-row]').length;
    expect(mountedTop).toBeGreaterThan(10);
    // A screenful measured: the copy of the estimates (ROWS reads) and the mounted rows' own. The
    // old layout (TanStack Virtual) read all of them at each rebuild: 23,941 here.
    const atTop = reads;
    expect(atTop).toBeLessThan(ROWS + 20 * mountedTop);
    // The timeline's drag: the list jumps to a row in the middle, and the rows there are measured.
    await act(async () => handle.current!.scrollToRow(ROWS / 2));
    await act(async () => {
      list.dispatchEvent(new Event('scroll'));
    });
    await settle();
    expect(host.querySelector(`[data-row="${ROWS / 2}"]`)).not.toBeNull();
    // The jump reads only the estimates of the rows it mounts.
    console.log(`estimate reads: ${atTop} at the top, ${reads - atTop} for the jump (${ROWS} rows, ${mountedTop} mounted at the top)`);
    expect(reads - atTop).toBeLessThan(20 * mountedTop);
  });
});
