import { describe, expect, it } from 'vitest';
import { labelPlacer, scaleWithLines } from './compaction-layer';

describe('budget line labels', () => {
  it('a label that would overlap one already placed moves right past it; one on another row stays', () => {
    const place = labelPlacer(8);
    // "input budget 136,000 ↑" along the top edge, then a trigger line just under it.
    expect(place(56, 0, 13, 120)).toBe(56);
    expect(place(55, 5, 17, 200)).toBe(56 + 120 + 8);
    // A third overlapping both is moved past both.
    expect(place(56, 0, 20, 10)).toBe(56 + 120 + 8 + 200 + 8);
    // Further down: no overlap, stays where wanted.
    expect(place(55, 60, 72, 200)).toBe(55);
  });
  it('the scale keeps the target line on it with the overhead the bars stack under it', () => {
    // Bars reach 20k; a 19k target plus 15k of overhead stands at 34k: the axis grows to show it.
    expect(scaleWithLines(20_000, 22_000, { target: 19_000 }, 15_000)).toBeCloseTo(34_000 * 1.05);
    expect(scaleWithLines(20_000, 22_000, { target: 19_000 })).toBe(22_000);
  });
});
