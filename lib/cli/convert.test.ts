import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import { importBytes } from '../formats/import';
import { run } from './convert';

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
