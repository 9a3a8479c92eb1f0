import { describe, expect, it } from 'vitest';
import { lowerBound, parseSelection, prefixOfAdded, tokensInRange } from './selection';

describe('parseSelection', () => {
  it('reads 1-based ranges, in either order, clamped to the transcript', () => {
    expect(parseSelection('2-5', 10)).toEqual([1, 4]);
    expect(parseSelection('5-2', 10)).toEqual([1, 4]);
    expect(parseSelection('0-3', 10)).toEqual([0, 2]);
    expect(parseSelection('8-40', 10)).toEqual([7, 9]);
  });
  it('rejects what is not a range or lies past the end', () => {
    for (const bad of [null, '', '3', 'a-b', '1-2-3', ' 1-2']) expect(parseSelection(bad, 10)).toBeNull();
    expect(parseSelection('11-12', 10)).toBeNull();
  });
});

describe('tokensInRange', () => {
  // Turn 3 has no entry (a gap): ranges over it must still add up.
  const turns = [
    { turn: 0, addedTotal: 10 },
    { turn: 1, addedTotal: 20 },
    { turn: 2, addedTotal: 30 },
    { turn: 4, addedTotal: 50 },
    { turn: 5, addedTotal: 60 },
  ];
  const prefix = prefixOfAdded(turns);
  const naive = (from: number, to: number) => turns.filter((t) => t.turn >= from && t.turn <= to).reduce((s, t) => s + t.addedTotal, 0);

  it('equals the sum over the turns in the range, for every range', () => {
    for (let a = 0; a <= 6; a++) for (let b = a; b <= 6; b++) expect(tokensInRange(turns, prefix, [a, b]), `${a}-${b}`).toBe(naive(a, b));
  });
  it('binary-searches the first turn at or after an index', () => {
    expect(lowerBound(turns, 0)).toBe(0);
    expect(lowerBound(turns, 3)).toBe(3);
    expect(lowerBound(turns, 4)).toBe(3);
    expect(lowerBound(turns, 9)).toBe(5);
  });
  it('answers a 100k-turn range without a pass over the turns', () => {
    const many = Array.from({ length: 100_000 }, (_, i) => ({ turn: i, addedTotal: i % 7 }));
    const p = prefixOfAdded(many);
    expect(tokensInRange(many, p, [10, 99_990])).toBe(many.slice(10, 99_991).reduce((s, t) => s + t.addedTotal, 0));
  });
});

describe('the call axis (issue 10)', () => {
  it('is picked for few turns and more calls than turns, not for chats', async () => {
    const { autoAxis } = await import('./selection');
    expect(autoAxis(1, 40)).toBe('calls');
    expect(autoAxis(7, 8)).toBe('calls');
    expect(autoAxis(8, 400)).toBe('turns');
    expect(autoAxis(3, 3)).toBe('turns');
  });
  it('reads and writes `sel=cA-B` apart from turn selections', async () => {
    const { parseCallSelection, formatSelection } = await import('./selection');
    expect(parseCallSelection('c3-5', 10)).toEqual([2, 4]);
    expect(parseCallSelection('c5-3', 10)).toEqual([2, 4]);
    expect(parseCallSelection('c9-40', 10)).toEqual([8, 9]);
    expect(parseCallSelection('3-5', 10)).toBeNull();
    expect(parseSelection('c3-5', 10)).toBeNull();
    expect(formatSelection([2, 4], 'calls')).toBe('c3-5');
    expect(formatSelection([2, 4], 'turns')).toBe('3-5');
  });
  it('finds the bar holding a message', async () => {
    const { barOfMessage } = await import('./selection');
    const bars = [
      { firstMessage: 1, endMessage: 3 },
      { firstMessage: 4, endMessage: 6 },
    ];
    expect([0, 1, 2, 3, 4, 5, 6].map((i) => barOfMessage(bars, i))).toEqual([-1, 0, 0, -1, 1, 1, -1]);
  });
});
