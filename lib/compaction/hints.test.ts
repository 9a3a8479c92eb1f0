import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalArgs } from './hints';

// The reference: every object's keys sorted, at every depth.
function sorted(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sorted);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted((v as Record<string, unknown>)[k])]));
  return v;
}

describe('canonicalArgs', () => {
  it('is the JSON of the arguments with sorted keys, for flat objects (the fast path) and nested ones', () => {
    const key = fc.oneof(fc.constantFrom('a', 'b', 'file_path', 'offset', '10', '9', '0', 'Z', 'é'), fc.string({ maxLength: 4 }));
    const json = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, fc.string({ maxLength: 6 }), fc.integer(), fc.boolean(), fc.constant(null), tie('object'), fc.array(tie('value'), { maxLength: 3 })),
      object: fc.dictionary(key, tie('value'), { maxKeys: 5 }),
    }));
    fc.assert(
      fc.property(json.object, (o) => {
        const copy = JSON.parse(JSON.stringify(o)) as object;
        expect(canonicalArgs(copy)).toBe(JSON.stringify(sorted(copy)));
        // Key order does not matter.
        const reversed = Object.fromEntries(Object.entries(copy).reverse());
        expect(canonicalArgs(reversed)).toBe(canonicalArgs(copy));
      }),
      { numRuns: 3000, seed: 11 },
    );
  });

  it('reads arguments that came as a JSON string like the parsed object', () => {
    expect(canonicalArgs('{"b":1,"a":{"d":2,"c":3}}')).toBe(canonicalArgs({ a: { c: 3, d: 2 }, b: 1 }));
    expect(canonicalArgs('not json')).toBe('"not json"');
  });
});
