import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FrameQueue, type FramePiece } from './frame-queue';
import { drawBase, drawBaseAxes, drawBaseStrip, geometry, PAD, planBase, stripEdges } from './draw';
import { KINDS, type PackedTimeline } from './packed';

/** Frames run by hand: `tick()` is one animation frame. */
function manualFrames() {
  let next: (() => void) | null = null;
  return {
    scheduler: { request: (cb: () => void) => ((next = cb), 1), cancel: () => void (next = null) },
    tick: () => {
      const cb = next;
      next = null;
      cb?.();
      return cb !== null;
    },
  };
}

const log = (out: string[], name: string, light = false): FramePiece => ({ run: () => out.push(name), light });

describe('the timeline frame queue (issue 31: the first draw split across frames)', () => {
  it('runs at most one heavy piece a frame, every light piece, the canvases in their order', () => {
    const f = manualFrames();
    const q = new FrameQueue(['overlay', 'layer', 'base', 'overview'], f.scheduler);
    const ran: string[] = [];
    // Opening: the four canvases asked for in one commit.
    q.schedule('base', [log(ran, 'strip 1'), log(ran, 'strip 2'), log(ran, 'strip 3'), log(ran, 'axes', true)]);
    q.schedule('overview', [log(ran, 'overview')]);
    q.schedule('overlay', [log(ran, 'overlay', true)]);
    let layerDone = false;
    q.schedule('layer', [log(ran, 'layer')], () => (layerDone = true));
    const frames: string[][] = [];
    while (f.tick()) frames.push(ran.splice(0));
    expect(frames).toEqual([['overlay', 'layer'], ['strip 1'], ['strip 2'], ['strip 3', 'axes'], ['overview']]);
    expect(layerDone).toBe(true);
    expect(q.stats.heavyPerFrameMax).toBe(1);
  });

  it('a draw asked for again replaces the one waiting (the newest data wins), and cancel drops it', () => {
    const f = manualFrames();
    const q = new FrameQueue(['base'], f.scheduler);
    const ran: string[] = [];
    q.schedule('base', [log(ran, 'old 1'), log(ran, 'old 2'), log(ran, 'old 3')]);
    f.tick();
    q.schedule('base', [log(ran, 'new 1'), log(ran, 'new 2')]);
    while (f.tick());
    expect(ran).toEqual(['old 1', 'new 1', 'new 2']);
    q.schedule('base', [log(ran, 'gone')]);
    q.cancel('base');
    expect(f.tick()).toBe(false);
    expect(() => q.schedule('nope', [])).toThrow(/unknown canvas "nope"/);
  });
});

/** A 2D context that records the rects filled, with the clip in force. */
function recorder() {
  const rects: Array<{ x: number; y: number; w: number; h: number; style: string; clip: [number, number] | null }> = [];
  const state = { fillStyle: '', strokeStyle: '', lineWidth: 1, font: '', textAlign: '', textBaseline: '', clip: null as [number, number] | null, pending: null as [number, number] | null };
  const stack: Array<typeof state> = [];
  const texts: string[] = [];
  const ctx = {
    save: () => stack.push({ ...state }),
    restore: () => Object.assign(state, stack.pop()),
    beginPath: () => {},
    rect: (x: number, _y: number, w: number) => void (state.pending = [x, x + w]),
    clip: () => void (state.clip = state.pending),
    clearRect: () => {},
    moveTo: () => {},
    lineTo: () => {},
    stroke: () => {},
    fillRect: (x: number, y: number, w: number, h: number) => rects.push({ x, y, w, h, style: state.fillStyle, clip: state.clip }),
    fillText: (t: string) => void texts.push(t),
  };
  const g = new Proxy(ctx, {
    get: (t, k) => (k in t ? t[k as keyof typeof t] : state[k as keyof typeof state]),
    set: (_t, k, v) => (((state as Record<string, unknown>)[k as string] = v), true),
  });
  return { g: g as unknown as CanvasRenderingContext2D, rects, texts };
}

describe('the base layer in strips', () => {
  const w = globalThis as unknown as { window?: unknown };
  let had: unknown;
  beforeAll(() => ((had = w.window), (w.window = { devicePixelRatio: 1 })));
  afterAll(() => void (w.window = had));

  for (const n of [300, 10_000]) it(`${n} turns: the strips fill every rect of the one-go draw, each inside its strip's clip, and no strip draws them all`, () => {
    const tops = new Float32Array(n * KINDS);
    for (let i = 0; i < n; i++) for (let k = 0; k < KINDS; k++) tops[i * KINDS + k] = (k + 1) * 1000 + (i % 37) * 50;
    const packed: PackedTimeline = { count: n, turnNo: Int32Array.from({ length: n }, (_, i) => i), tops, recorded: new Float32Array(n).fill(NaN), hasRecorded: false };
    const geo = geometry(1214 + PAD.left + PAD.right, { start: 0, end: n - 1 });
    const layer = { packed, bands: [], scale: { max: 10_000, windowOnScale: false }, dark: false };
    const whole = recorder();
    drawBase(whole.g, geo, layer);
    const plan = planBase(geo, layer);
    const edges = stripEdges(geo, 256);
    expect(edges.length - 1).toBe(5);
    expect(edges[0]).toBe(PAD.left);
    expect(edges[edges.length - 1]).toBe(PAD.left + geo.plotW);
    const strips = recorder();
    const perStrip: number[] = [];
    for (let i = 0; i + 1 < edges.length; i++) {
      const before = strips.rects.length;
      drawBaseStrip(strips.g, plan, edges[i], edges[i + 1]);
      perStrip.push(strips.rects.length - before);
    }
    drawBaseAxes(strips.g, plan);
    const key = (r: { x: number; y: number; w: number; h: number; style: string }) => `${r.style} ${r.x} ${r.y} ${r.w} ${r.h}`;
    const inStrips = new Set(strips.rects.map(key));
    for (const r of whole.rects) expect(inStrips.has(key(r)), key(r)).toBe(true);
    for (const r of strips.rects) expect(r.x + r.w > r.clip![0] && r.x < r.clip![1], `${key(r)} outside its strip ${r.clip}`).toBe(true);
    // A bar across an edge is filled in both strips; otherwise each strip fills its own share.
    expect(strips.rects.length).toBeLessThan(whole.rects.length * 1.05);
    for (const k of perStrip) expect(k).toBeLessThan(whole.rects.length / 3);
    expect(strips.texts).toEqual(whole.texts);
  });
});
