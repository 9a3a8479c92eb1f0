import { describe, expect, it } from 'vitest';
import { niceStep, turnAtX, yAxisMax } from './scale';

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
