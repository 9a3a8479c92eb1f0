import { describe, expect, it } from 'vitest';
import { completeLength } from './live';

const enc = (s: string) => new TextEncoder().encode(s);

describe('completeLength', () => {
  it('counts whole lines only: an unfinished last line waits for its newline', () => {
    expect(completeLength(enc('{"a":1}\n{"b":2}\n'))).toBe(16);
    expect(completeLength(enc('{"a":1}\n{"b":'))).toBe(8);
    expect(completeLength(enc('{"a":1}\n{"b":2}'))).toBe(8);
    expect(completeLength(enc('{"b":'))).toBe(0);
    expect(completeLength(enc(''))).toBe(0);
  });

  it('at open, a last record without a newline counts when it is whole JSON', () => {
    expect(completeLength(enc('{"a":1}\n{"b":2}'), true)).toBe(15);
    expect(completeLength(enc('{"a":1}\n{"b":2'), true)).toBe(8);
    expect(completeLength(enc('{"a":1}\n  '), true)).toBe(10);
  });

  it('counts bytes, not characters', () => {
    const s = enc('{"t":"é→"}\n{"t":"');
    expect(completeLength(s)).toBe(enc('{"t":"é→"}\n').length);
  });
});
