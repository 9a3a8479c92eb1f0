import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sameJson } from './claude-code';

describe('sameJson (replay detection without stringifying both lines)', () => {
  it('agrees with comparing JSON.stringify of parsed JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        const pa = JSON.parse(JSON.stringify(a));
        const pb = JSON.parse(JSON.stringify(b));
        expect(sameJson(pa, pb)).toBe(JSON.stringify(pa) === JSON.stringify(pb));
        expect(sameJson(pa, JSON.parse(JSON.stringify(a)))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
  it('is key-order sensitive like the string comparison', () => {
    expect(sameJson({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(false);
    expect(sameJson({ a: [1, { c: 'x' }] }, { a: [1, { c: 'x' }] })).toBe(true);
  });
});
