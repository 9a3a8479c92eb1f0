import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import { importFile } from '../formats/import';
import { sourceFromBytes } from '../read/source';
import { lookupModel } from '../tokens/catalog';
import { projectTranscript } from '../compaction/project';
import { filler, makeTranscript } from '../compaction/testing/make';
import { nextCallCost, recordedCost } from './cost';

describe('cost', () => {
  it('prices the recorded calls of a real Claude Code session', () => {
    const f = corpusFiles('claude-code').find((x) => x.includes('slopometry'))!;
    const t = importFile(sourceFromBytes(path.basename(f), new Uint8Array(fs.readFileSync(f)))).transcript;
    const c = recordedCost(t);
    expect(c.calls).toBe(t.usage.length);
    expect(c.usd).toBeGreaterThan(0);
    const opus = lookupModel('claude-opus-4-5')!;
    const manual = t.usage.reduce((s, u) => s + (u.input * 5 + u.cacheRead * 0.5 + u.cacheWrite * 6.25 + u.output * 25) / 1e6, 0);
    expect(recordedCost(t, opus).usd).toBeCloseTo(manual, 6);
  });
  it('a prefix-stable compaction makes the next call cheaper than one that rewrites the front', () => {
    const log = makeTranscript(Array.from({ length: 6 }, (_, i) => ({ user: `q${i}`, tools: [{ name: 'Bash', input: { command: `c${i}` }, output: filler(500) }], answer: 'a' })));
    const sonnet = lookupModel('claude-sonnet-4-5')!;
    const whole = projectTranscript(log, []);
    const tailOnly = projectTranscript(log, [{ id: 's', range: { kind: 'turns', from: 4, to: 4 }, reducers: [{ id: 'strip-tool-results' }], keepLast: 1, createdAt: '' }]);
    const front = projectTranscript(log, [{ id: 's', range: { kind: 'turns', from: 0, to: 0 }, reducers: [{ id: 'strip-tool-results' }], keepLast: 1, createdAt: '' }]);
    expect(tailOnly.tokens.after.total).toBe(front.tokens.after.total);
    expect(nextCallCost(tailOnly, sonnet).usd).toBeLessThan(nextCallCost(front, sonnet).usd);
    expect(nextCallCost(whole, sonnet).cachedTokens).toBe(whole.tokens.after.total);
  });
});
