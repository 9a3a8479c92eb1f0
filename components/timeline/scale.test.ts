import { describe, expect, it } from 'vitest';
import { fullView, lowerBound, MIN_VIEW_TURNS, niceStep, panView, turnAtX, turnAtXInView, yAxisMax, zoomView } from './scale';

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
