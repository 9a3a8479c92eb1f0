import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAVED_FATES } from '@/lib/engine/preview-kinds';
import { BUDGET_KINDS } from '@/lib/tokens/totals';
import type { PreviewSummary } from '@/lib/engine/preview';
import { drawCompactionFrame, layoutLineLabels, scaleWithLines, type LabelBox } from './compaction-layer';
import { geometry, HEIGHT, PAD, yOfTokens } from './draw';
import { KINDS, type PackedTimeline } from './packed';

const overlap = (a: LabelBox, b: LabelBox) => a.x < b.x + b.width && a.x + a.width > b.x && a.top < b.top + b.height && a.top + a.height > b.top;
function expectNoOverlap(boxes: LabelBox[]) {
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) expect(overlap(boxes[i], boxes[j]), `labels ${i} and ${j} overlap: ${JSON.stringify([boxes[i], boxes[j]])}`).toBe(false);
}

describe('budget line labels', () => {
  // The timeline at a 1024 px window: the chart is about 600 px wide (plot 534 px).
  const geo = geometry(600, { start: 0, end: 2499 });
  const area = { left: PAD.left, right: PAD.left + geo.plotW, top: 1, bottom: PAD.top + geo.plotH };
  const yOf = (v: number) => Math.round(yOfTokens(geo, 210_000)(v)) + 0.5;

  it('the window, input budget, trigger and target of a long Claude Code chart, lines a few px apart: no two labels overlap, all stay on the plot, each next to its line', () => {
    // Sonnet: window 200k, input budget 200k − 32k = 168k, Claude Code's trigger 167k, a 190k
    // target + 6k overhead (196k, 3 px under the window line). Widths at 10 px type (≈5.5 px a character).
    const lines = [
      { lineY: yOf(200_000), align: 'right' as const, width: 125 }, // context window 200,000
      { lineY: yOf(168_000), align: 'left' as const, width: 114 }, // input budget 168,000
      { lineY: yOf(167_000), align: 'left' as const, width: 152 }, // Claude Code trigger 167,000
      { lineY: yOf(196_000), align: 'left' as const, width: 175 }, // target 190,000 + 6,000 overhead
    ];
    const boxes = layoutLineLabels(lines, lines.map((l) => l.width), area);
    expectNoOverlap(boxes);
    boxes.forEach((b, i) => {
      expect(b.x).toBeGreaterThanOrEqual(area.left);
      expect(b.x + b.width).toBeLessThanOrEqual(area.right);
      expect(b.top).toBeGreaterThanOrEqual(area.top);
      expect(b.top + b.height).toBeLessThanOrEqual(area.bottom);
      // Within two label heights of its line.
      expect(Math.abs(b.top + b.height / 2 - lines[i].lineY)).toBeLessThan(2 * 13 + 7);
    });
    // The first label of the crowd keeps its spot just above its line.
    expect(boxes[1].top).toBe(lines[1].lineY - 13);
  });

  it('off-scale lines named along the top edge stack in rows instead of running off the right of a narrow plot', () => {
    const lines = [
      { lineY: null, align: 'right' as const, width: 230 },
      { lineY: null, align: 'left' as const, width: 150 },
      { lineY: null, align: 'left' as const, width: 200 },
      { lineY: null, align: 'left' as const, width: 220 },
    ];
    const boxes = layoutLineLabels(lines, lines.map((l) => l.width), area);
    expectNoOverlap(boxes);
    for (const b of boxes) expect(b.x + b.width).toBeLessThanOrEqual(area.right);
  });

  it('any four lines anywhere on the plot (seeded random): no two labels overlap and all stay inside the plot', () => {
    let s = 12345;
    const rnd = () => ((s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32);
    for (let trial = 0; trial < 500; trial++) {
      const lines = Array.from({ length: 4 }, (_, i) => ({
        lineY: rnd() < 0.2 ? null : area.top + rnd() * (area.bottom - area.top),
        align: i === 0 ? ('right' as const) : ('left' as const),
        width: 60 + rnd() * (geo.plotW / 2 - 60),
      }));
      const boxes = layoutLineLabels(lines, lines.map((l) => l.width), area);
      expectNoOverlap(boxes);
      for (const b of boxes) {
        expect(b.x).toBeGreaterThanOrEqual(area.left);
        expect(b.x + b.width).toBeLessThanOrEqual(area.right);
      }
    }
  });

  it('the scale keeps the target line on it with the overhead the bars stack under it', () => {
    // Bars reach 20k; a 19k target plus 15k of overhead stands at 34k: the axis grows to show it.
    expect(scaleWithLines(20_000, 22_000, { target: 19_000 }, 15_000)).toBeCloseTo(34_000 * 1.05);
    expect(scaleWithLines(20_000, 22_000, { target: 19_000 })).toBe(22_000);
  });
});

/** A 2D context that records every drawing call with the fill/stroke style in force. */
function recordingContext() {
  const calls: Array<{ op: string; style: string; args: unknown[]; rects?: number[][] }> = [];
  const path: number[][] = [];
  const state = { fillStyle: '' as unknown, strokeStyle: '' as unknown, lineWidth: 1, font: '', textAlign: '', textBaseline: '' };
  /** How many times a fill or stroke style was set (each one a colour parsed by the canvas). */
  const styles = { set: 0 };
  const stack: Array<typeof state> = [];
  const ctx = {
    save: () => stack.push({ ...state }),
    restore: () => Object.assign(state, stack.pop()),
    measureText: (t: string) => ({ width: t.length * 5 }),
    setLineDash: () => {},
    beginPath: () => void (path.length = 0),
    closePath: () => {},
    clip: () => {},
    rect: (...args: number[]) => void path.push(args),
    moveTo: () => {},
    lineTo: () => {},
    arc: () => {},
    // A path's fill or stroke: the rects of the path in force (the layer fills a style's rects as one path).
    fill: () => calls.push({ op: 'fill', style: String(state.fillStyle), args: [], rects: [...path] }),
    stroke: () => calls.push({ op: 'stroke', style: String(state.strokeStyle), args: [state.lineWidth], rects: [...path] }),
    fillRect: (...args: number[]) => calls.push({ op: 'fillRect', style: String(state.fillStyle), args }),
    strokeRect: (...args: number[]) => calls.push({ op: 'strokeRect', style: String(state.strokeStyle), args }),
    fillText: (...args: unknown[]) => calls.push({ op: 'fillText', style: String(state.fillStyle), args }),
  };
  const g = new Proxy(ctx, {
    get: (t, k) => (k in t ? t[k as keyof typeof t] : k in state ? state[k as keyof typeof state] : undefined),
    set: (_t, k, v) => {
      if (k === 'fillStyle' || k === 'strokeStyle') styles.set++;
      (state as Record<string, unknown>)[k as string] = v;
      return true;
    },
  });
  return { g: g as unknown as CanvasRenderingContext2D, calls, styles };
}

describe('compaction layer draw order', () => {
  const w = globalThis as unknown as { window?: unknown };
  let had: unknown;
  beforeAll(() => {
    had = w.window;
    w.window = { devicePixelRatio: 1 };
  });
  afterAll(() => {
    w.window = had;
  });

  it('the context-window line is stroked after every ghost bar of a preview, and the labels after it', () => {
    // Three bars of 150k tokens each; the preview takes 60k out of each (truncated and removed):
    // the ghosts stack back up to 150k, above a 120k window line.
    const n = 3;
    const tops = new Float32Array(n * KINDS);
    for (let i = 0; i < n; i++) for (let k = 0; k < KINDS; k++) tops[i * KINDS + k] = 150_000;
    const packed: PackedTimeline = { count: n, turnNo: Int32Array.from([0, 1, 2]), tops, recorded: new Float32Array(n).fill(NaN), hasRecorded: false };
    const F = SAVED_FATES.length;
    const saved = new Float64Array(n * F);
    for (let t = 0; t < n; t++) {
      saved[t * F + SAVED_FATES.indexOf('truncated')] = 30_000;
      saved[t * F + SAVED_FATES.indexOf('removed')] = 30_000;
    }
    const kinds = BUDGET_KINDS;
    const delta = new Float64Array(n * kinds.length);
    for (let t = 0; t < n; t++) delta[t * kinds.length] = -60_000;
    const preview = { turns: n, kinds, delta, saved, summaries: [] } as unknown as PreviewSummary;
    const geo = geometry(600, { start: 0, end: n - 1 });
    const scale = { max: 160_000, windowOnScale: true };
    const { g, calls } = recordingContext();
    drawCompactionFrame(g, geo, { packed, scale, overhead: 0, dark: false, preview, lines: { inputBudget: 100_000 }, compare: null }, scale, 120_000);

    // The ghosts: every rect drawn in the ink's alpha, by fillRect/strokeRect or in a path's fill/stroke.
    const ghostIdx = calls.flatMap((c, i) => (['strokeRect', 'fillRect', 'fill', 'stroke'].includes(c.op) && c.style.startsWith('rgba(64,64,64') ? [i] : []));
    const ghostRects = ghostIdx.flatMap((i) => calls[i].rects ?? [calls[i].args as number[]]);
    const windowIdx = calls.findIndex((c) => c.op === 'stroke' && c.style === '#dc2626' && c.args[0] === 1.5);
    const windowLabelIdx = calls.findIndex((c) => c.op === 'fillText' && String(c.args[0]).startsWith('context window'));
    // Truncated (two rects a bar) and removed (one) on each of the 3 bars.
    expect(ghostRects.length).toBe(3 * n);
    expect(windowIdx).toBeGreaterThan(-1);
    expect(windowIdx).toBeGreaterThan(Math.max(...ghostIdx));
    expect(windowLabelIdx).toBeGreaterThan(windowIdx);
    // The ghosts do reach over the window's y (else the order would not matter).
    const yWindow = Math.round(yOfTokens(geo, scale.max)(120_000)) + 0.5;
    expect(ghostRects.some((r) => r[1] < yWindow)).toBe(true);
    expect(HEIGHT).toBeGreaterThan(yWindow);
  });

  it('a preview of 3,000 turns sets each style once, not once per segment of every bar', () => {
    // The frame that shows a preview at 3,000 turns spent most of its script setting a style, saving
    // and restoring for each segment of each of ~1,000 columns (e2e/preview-speed.spec.ts, profiled).
    const n = 3000;
    const tops = new Float32Array(n * KINDS);
    for (let i = 0; i < n; i++) for (let k = 0; k < KINDS; k++) tops[i * KINDS + k] = 1000 * (k + 1);
    const packed: PackedTimeline = { count: n, turnNo: Int32Array.from({ length: n }, (_, i) => i), tops, recorded: new Float32Array(n).fill(NaN), hasRecorded: false };
    const F = SAVED_FATES.length;
    const saved = new Float64Array(n * F);
    for (let t = 0; t < n; t++) for (let f = 0; f < F; f++) saved[t * F + f] = 100;
    const kinds = BUDGET_KINDS;
    const delta = new Float64Array(n * kinds.length).fill(-50);
    const preview = { turns: n, kinds, delta, saved, summaries: [] } as unknown as PreviewSummary;
    const geo = geometry(1100, { start: 0, end: n - 1 });
    const scale = { max: 20_000, windowOnScale: true };
    const { g, calls, styles } = recordingContext();
    drawCompactionFrame(g, geo, { packed, scale, overhead: 0, dark: false, preview, lines: {}, compare: null }, scale, undefined);
    // Every column's cover, kinds and fates were drawn …
    const rects = calls.filter((c) => c.op === 'fillRect' || c.op === 'strokeRect').length;
    expect(rects).toBeGreaterThan(geo.plotW * (1 + KINDS));
    // … with one style each: cover + kinds + fates (truncated has two).
    expect(styles.set).toBeLessThanOrEqual(1 + KINDS + F + 1);
  });
});
