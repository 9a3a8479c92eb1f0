import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import { importBytes } from '../formats/import';
import { run } from './convert';
import { modelViewTotals } from '../compaction/project';
import { transcriptTotals } from '../tokens/totals';

describe('cli convert', () => {
  let dir: string;
  let out: string[];
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-convert-'));
    out = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((s) => (out.push(String(s)), true));
    vi.spyOn(process.stderr, 'write').mockImplementation((s) => (out.push(String(s)), true));
  });
  afterEach(() => {
    vi.restoreAllMocks();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('converts conversation 2 of an OpenHands eval output to Anthropic and writes a file that imports', async () => {
    const file = corpusFiles('openhands').find((f) => f.endsWith('.jsonl'))!;
    const dest = path.join(dir, 'out.json');
    expect(await run([file, '--to', 'anthropic-messages', '--out', dest, '--conversation', '2'])).toBe(0);
    const t = importBytes('out.json', new Uint8Array(fs.readFileSync(dest)), { format: 'anthropic-messages' }).transcript;
    expect(t.messages.length).toBeGreaterThan(10);
    expect(out.join('')).toMatch(/validated/);
  });

  it('prints what was dropped', async () => {
    const file = corpusFiles('claude-code').find((f) => f.endsWith('slopometry_transcript_opus45_compact.jsonl'))!;
    const dest = path.join(dir, 'out.json');
    expect(await run([file, '--to', 'openai-chat', '--out', dest])).toBe(0);
    expect(out.join('')).toMatch(/Dropped \(\d+\):[\s\S]*reasoning/);
  });

  it('writes what the model is sent by default (the model\'s view of a compacted session); the full history only with --full-history', async () => {
    // Issue 30: slopometry auto-compacted (the model sees ~70k tokens); convert wrote all 392 messages, 165,164 tokens.
    const file = corpusFiles('claude-code').find((f) => f.endsWith('slopometry_transcript_opus45_compact.jsonl'))!;
    const log = importBytes(path.basename(file), new Uint8Array(fs.readFileSync(file))).transcript;
    const view = modelViewTotals(log).total;
    const dest = path.join(dir, 'view.json');
    expect(await run([file, '--to', 'anthropic-messages', '--out', dest])).toBe(0);
    const back = importBytes('view.json', new Uint8Array(fs.readFileSync(dest)), { format: 'anthropic-messages' }).transcript;
    const written = transcriptTotals(back).total;
    // What the model sees, within the re-encoding's difference (tool schemas, summary as text): never the whole history.
    expect(Math.abs(written - view) / view).toBeLessThan(0.1);
    expect(back.messages.length).toBeLessThan(log.messages.length / 2);
    expect(out.join('')).toMatch(/Wrote the model's view: \d+ message\(s\)/);
    out.length = 0;
    const full = path.join(dir, 'full.json');
    expect(await run([file, '--to', 'anthropic-messages', '--out', full, '--full-history'])).toBe(0);
    const all = importBytes('full.json', new Uint8Array(fs.readFileSync(full)), { format: 'anthropic-messages' }).transcript;
    expect(transcriptTotals(all).total).toBeGreaterThan(2 * view);
    expect(out.join('')).toMatch(/Wrote the full history \(--full-history\)/);
  });

  it('fails with exit 2 (bad input) on an unknown target, a malformed file or bad usage, and writes nothing', async () => {
    const file = corpusFiles('swe-agent')[0];
    expect(await run([file, '--to', 'nope', '--out', path.join(dir, 'x')])).toBe(2);
    expect(out.join('')).toMatch(/Unknown format "nope"/);
    const bad = path.join(dir, 'bad.json');
    fs.writeFileSync(bad, '{"messages": [');
    expect(await run([bad, '--to', 'openai-chat', '--out', path.join(dir, 'y')])).toBe(2);
    expect(fs.existsSync(path.join(dir, 'y'))).toBe(false);
    expect(await run([file, '--to', 'openai-chat'])).toBe(2);
  });
});
