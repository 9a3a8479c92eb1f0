import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { fullView, lowerBound, MIN_VIEW_TURNS, niceStep, panView, turnAtX, turnAtXInView, yAxisFor, yAxisMax, zoomView } from './scale';
import { packTimeline, viewMax } from './packed';
import { importBytes } from '@/lib/formats/import';
import { buildTimeline } from '@/lib/engine/timeline';
import { corpusFiles } from '../../tests/corpus';

describe('timeline scale', () => {
  it('picks nice steps', () => {
    expect(niceStep(100_000)).toBe(25_000);
    expect(niceStep(7_300)).toBe(2_000);
    expect(niceStep(0)).toBe(1);
  });
  it('shows the context window only when the data comes near it', () => {
    expect(yAxisMax(150_000, 200_000).windowOnScale).toBe(true);
    expect(yAxisMax(150_000, 200_000).max).toBeCloseTo(210_000);
    expect(yAxisMax(5_000, 200_000).windowOnScale).toBe(false);
    expect(yAxisMax(5_000, 200_000).max).toBeCloseTo(5_500);
    expect(yAxisMax(5_000, undefined).windowOnScale).toBe(false);
  });
  it('a Codex rollout whose context is 29k after its own compaction fills the plot under a 400k window, in auto and fit to data; the window stays named off scale', () => {
    const file = corpusFiles('codex-cli').find((f) => f.includes('localpush'))!;
    const t = importBytes(path.basename(file), new Uint8Array(fs.readFileSync(file))).transcript;
    const timeline = buildTimeline({ messages: t.messages, usage: t.usage, markers: t.markers, tools: t.tools, contextWindow: 400_000 });
    const packed = packTimeline(timeline);
    const last = timeline.turns[timeline.turns.length - 1];
    expect(last.contextTotal).toBeGreaterThan(25_000);
    expect(last.contextTotal).toBeLessThan(35_000);
    // Auto fits the bars, not the recorded peak before the source's compaction (issue 30: that peak
    // squeezed the bars into the bottom tenth): the 400k window is off scale and named.
    const auto = yAxisFor('auto', timeline.maxContext, 0, 400_000);
    expect(auto.windowOnScale).toBe(false);
    const lastTop = last.contextTotal + timeline.overhead;
    expect(lastTop / auto.max).toBeGreaterThan(0.15);
    // Fit to data (the bars of the turns in view, here all of them): the last bar fills most of the height; the window is off scale.
    const fit = yAxisFor('fit', timeline.maxContext, viewMax(packed, fullView(timeline.turns.length)), 400_000);
    expect(fit.windowOnScale).toBe(false);
    expect(lastTop / fit.max).toBeGreaterThan(0.5);
    // The window scale always shows the window.
    expect(yAxisFor('window', 5_000, 5_000, 400_000)).toEqual({ max: 420_000, windowOnScale: true });
  });
  it('maps x to a turn', () => {
    expect(turnAtX(10, 50, 100, 10)).toBe(-1);
    expect(turnAtX(50, 50, 100, 10)).toBe(0);
    expect(turnAtX(149.9, 50, 100, 10)).toBe(9);
    expect(turnAtX(95, 50, 100, 10)).toBe(4);
  });
});

describe('timeline view (zoom, pan, hit test)', () => {
  it('maps x to a turn inside a zoomed view, clamped to it', () => {
    const view = { start: 100, end: 199 };
    expect(turnAtXInView(50, 50, 100, view)).toBe(100);
    expect(turnAtXInView(95.5, 50, 100, view)).toBe(145);
    expect(turnAtXInView(10, 50, 100, view)).toBe(100);
    expect(turnAtXInView(900, 50, 100, view)).toBe(199);
  });
  it('zooms around the pointer and never below the minimum span or past the ends', () => {
    const z = zoomView(fullView(1000), 0.5, 0.7, 1000);
    expect(z.end - z.start + 1).toBe(500);
    expect(z.start + 0.7 * 500).toBeCloseTo(700, 0);
    let v = fullView(1000);
    for (let i = 0; i < 50; i++) v = zoomView(v, 0.5, 0, 1000);
    expect(v).toEqual({ start: 0, end: MIN_VIEW_TURNS - 1 });
    expect(zoomView(v, 1000, 0.5, 1000)).toEqual(fullView(1000));
    expect(zoomView(fullView(3), 0.5, 0.5, 3)).toEqual(fullView(3));
  });
  it('pans keeping the width, stopping at the ends', () => {
    expect(panView({ start: 10, end: 19 }, 5, 100)).toEqual({ start: 15, end: 24 });
    expect(panView({ start: 10, end: 19 }, -50, 100)).toEqual({ start: 0, end: 9 });
    expect(panView({ start: 10, end: 19 }, 500, 100)).toEqual({ start: 90, end: 99 });
  });
  it('binary-searches sorted turn numbers', () => {
    const turns = Int32Array.from([0, 1, 3, 4, 9]);
    expect(lowerBound(turns, 3)).toBe(2);
    expect(lowerBound(turns, 5)).toBe(4);
    expect(lowerBound(turns, 10)).toBe(5);
    expect(lowerBound(turns, -1)).toBe(0);
  });
});
