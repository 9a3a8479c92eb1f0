/**
 * Issue 30: `simulate` trusted any usage. Negative counts were billed ("input −999,879"), a huge
 * count printed "$Infinity" and "NaN %", and timestamps that go backwards made the replay measure
 * a cache's life from the wrong time (every cache expired: +25 % here, +37 % in the issue).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { importBytes } from '../formats/import';
import { simulate } from './calls';
import { REPLAY_POLICIES } from './policies/replay';
import { run } from '../cli/simulate';
import { claudeSession } from '../../tests/compaction/reused-shapes';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sim-bad-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const turns = Array.from({ length: 12 }, (_, i) => [
  { role: 'user' as const, content: `step ${i}: ` + 'please continue the work on the module '.repeat(200) },
  { role: 'assistant' as const, content: [{ type: 'text', text: `done ${i} ` + 'word '.repeat(300) }] },
]);
const lines = claudeSession(turns).trim().split('\n').map((l) => JSON.parse(l));
const t0 = Date.parse('2025-12-12T10:00:00Z');
/** One line a minute; `back`: line 14 (turn 7's prompt) stamped 3 hours early. `usage`: edit the recorded usage. */
function session(opts: { back?: boolean; usage?: (u: Record<string, number>, i: number) => Record<string, number> | undefined } = {}): string {
  return (
    lines
      .map((v, i) => ({ ...v, timestamp: new Date(t0 + i * 60_000 - (opts.back && i === 13 ? 3 * 3600_000 : 0)).toISOString(), ...(v.message.usage && { message: { ...v.message, usage: opts.usage ? opts.usage(v.message.usage, i) : undefined } }) }))
      .map((v) => JSON.stringify(v))
      .join('\n') + '\n'
  );
}

async function cli(text: string): Promise<{ code: number; out: string; err: string }> {
  const file = path.join(tmp, `s${Math.random().toString(36).slice(2)}.jsonl`);
  fs.writeFileSync(file, text);
  let out = '';
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => ((out += String(s)), true));
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => ((err += String(s)), true));
  try {
    return { code: await run([file]), out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

describe('simulate on usage it cannot trust', () => {
  it('a timestamp that goes backwards: a warning naming the call, and the bill of the monotone session', async () => {
    const bill = (text: string) => {
      const sim = simulate(importBytes('s.jsonl', new TextEncoder().encode(text)).transcript, REPLAY_POLICIES);
      return { usd: sim.results.map((r) => r.calls.reduce((n, c) => n + c.usd, 0)), warnings: sim.warnings };
    };
    const straight = bill(session());
    const back = bill(session({ back: true }));
    expect(straight.warnings).toEqual([]);
    expect(straight.usd[0]).toBeGreaterThan(0);
    // Before: 0.2711 against 0.2161 (+25 %), with no warning.
    expect(back.usd).toEqual(straight.usd);
    expect(back.warnings).toEqual([expect.stringMatching(/^1 call\(s\) have a timestamp earlier than a call before them \(first: message 14, 2025-12-12T07:13:00\.000Z\)/)]);
    const r = await cli(session({ back: true }));
    expect(r.code).toBe(0);
    expect(r.out).toContain('warning: 1 call(s) have a timestamp earlier than a call before them');
  });

  it('a negative count is refused, naming the message and the field (it billed "input −999,879")', async () => {
    const r = await cli(session({ usage: (u, i) => (i === 3 ? { ...u, input_tokens: -999_879 } : u) }));
    expect(r.code).toBe(2);
    expect(r.err).toContain('The usage recorded for message 4: its input token count is negative (-999,879). The bill cannot be computed from it.');
    expect(r.out).toBe('');
  });

  it('a huge count is refused, not billed as "$Infinity" and "NaN %"', async () => {
    const r = await cli(session({ usage: (u, i) => (i === 5 ? { ...u, output_tokens: 1e300 } : u) }));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/The usage recorded for message 6: its output token count is 1(,000)+, more than any call uses \(the limit here is 1,000,000,000,000\)/);
    expect(r.out + r.err).not.toMatch(/Infinity|NaN/);
  });
});
