import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import { importFile } from '../formats/import';
import { sourceFromBytes } from '../read/source';
import { run } from '../cli/compact';
import { filler, makeTranscript } from './testing/make';
import { projectTranscript } from './project';
import type { Step } from './types';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'auto-cache-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const load = (name: string) => {
  const file = corpusFiles('claude-code').find((f) => path.basename(f) === name)!;
  return { file, log: importFile(sourceFromBytes(name, new Uint8Array(fs.readFileSync(file)))).transcript };
};
const autoStep = (budget: number, cacheAware = true): Step => ({ id: 's', range: { kind: 'all-but-last', n: 0 }, reducers: [{ id: 'auto', options: { cacheAware } }], keepLast: 1, budget, createdAt: '' });
const notes = (p: ReturnType<typeof projectTranscript>) => p.report.flatMap((r) => r.notes);

describe("Auto's cache check in the pipeline (Plan panel, compact --cache-aware)", () => {
  it('a real short session: Auto leaves the context as it was and says by how much compacting would cost more', () => {
    const { log } = load('claude-code-viewer_fe5e1c67.jsonl');
    const on = projectTranscript(log, [autoStep(3000)]);
    const off = projectTranscript(log, [autoStep(3000, false)]);
    expect(off.tokens.after.total).toBeLessThan(on.tokens.after.total);
    expect(on.tokens.after.total).toBe(on.tokens.start?.total ?? on.tokens.before.total);
    const note = notes(on).find((n) => n.includes('cache check'))!;
    expect(note).toMatch(/cache check: not compacted: .*cost \$[\d.]+ more than it saves/);
    // The calls it weighs are the main line's: 9 of the 170 recorded (inspect's "recorded calls");
    // the other 161 are a sub-agent's, which send a context of their own. The note says which.
    expect(log.usage.length).toBe(170);
    expect(note).toContain('9 main-line calls so far (not the 161 recorded calls of sub-agents, which send a context of their own)');
  });

  it('a synthetic long session of stale reads: compacting pays, Auto compacts and says what it expects to save', () => {
    const log = makeTranscript(
      Array.from({ length: 40 }, (_, i) => ({ user: `task ${i}`, tools: [{ name: 'Read', input: { file_path: `/src/f${i}.ts` }, output: filler(2000, `f${i}`) }], answer: `done ${i}` })),
      { model: 'claude-sonnet-4-5' },
    );
    const p = projectTranscript(log, [autoStep(20_000)]);
    expect(p.tokens.after.total).toBeLessThanOrEqual(20_000);
    expect(notes(p).some((n) => /cache check: compacted: expected to save \$[\d.]+ over ~\d+ calls/.test(n))).toBe(true);
  });

  it('a synthetic short session: a file read again after long answers — the dedup does not pay for rewriting them', () => {
    // Turn 1 reads a 15k-token file; two long answers follow; turn 4 reads it again. Dedup could
    // take the first read out, but everything after it (~40k) would be written to the cache again
    // for a saving of 15k tokens a call, with only ~6 calls made (as many to come).
    const big = filler(15_000, 'big');
    const log = makeTranscript(
      [
        { user: 'read it', tools: [{ name: 'Read', input: { file_path: '/src/big.ts' }, output: big }], answer: 'read' },
        { user: 'explain', answer: filler(12_000, 'why') },
        { user: 'plan', answer: filler(12_000, 'plan') },
        { user: 'read it again', tools: [{ name: 'Read', input: { file_path: '/src/big.ts' }, output: big }], answer: 'read again' },
        { user: 'go on', answer: 'ok' },
      ],
      { model: 'claude-sonnet-4-5' },
    );
    const p = projectTranscript(log, [autoStep(40_000)]);
    expect(p.tokens.after.total).toBe(p.tokens.before.total);
    expect(notes(p).some((n) => /cache check: not compacted: it would cost \$[\d.]+ more than it saves over ~\d+ calls/.test(n))).toBe(true);
    // Without the check Auto does compact it.
    expect(projectTranscript(log, [autoStep(40_000, false)]).tokens.after.total).toBeLessThan(p.tokens.before.total);
  });

  it('compact --cache-aware: exit 0, nothing written, the report gives the cost; without the flag it compacts', async () => {
    const { file } = load('claude-code-viewer_fe5e1c67.jsonl');
    const out = path.join(tmp, 'out.jsonl');
    let text = '';
    const o = vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => ((text += String(s)), true));
    const e = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const aware = await run([file, '--budget', '3000', '--cache-aware', '--out', out]);
    const awareText = text;
    const wroteAware = fs.existsSync(out);
    const plain = await run([file, '--budget', '3000', '--out', out]);
    o.mockRestore();
    e.mockRestore();
    expect(aware).toBe(0);
    expect(awareText).toMatch(/auto chose not to compact \(--cache-aware\): not compacted: .*cost \$[\d.]+ more than it saves.*; nothing written/);
    expect(wroteAware).toBe(false);
    expect(plain).toBe(0);
    expect(fs.existsSync(out)).toBe(true);
  });
});
