/**
 * `cli summarize`: offline by default; with --provider over a real HTTP server (the key from the
 * environment only, never printed); --tangents lists; --test-connection words its failure. One
 * run goes through the real entry point in a child process (the built bundle, tests/cli-entry.ts).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { run } from '../../lib/cli/summarize';
import { corpusFiles } from '../corpus';
import { promptOf, startWireServer, type WireServer } from './wire-server';
import { CLI_ENTRY } from '../cli-entry';

const SECRET = 'sk-cli-summarize-SECRET-00112233445566';
const FILE = corpusFiles('claude-code').find((f) => f.endsWith('vibecodingtracker_claude_code_v1.0.95.jsonl'))!;

/** Run the verb in-process with stdout/stderr captured. */
async function runCaptured(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  const out: string[] = [];
  const err: string[] = [];
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => (out.push(String(s)), true));
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => (err.push(String(s)), true));
  try {
    const code = await run(args);
    return { code, out: out.join(''), err: err.join('') };
  } finally {
    o.mockRestore();
    e.mockRestore();
    for (const k of Object.keys(env)) delete process.env[k];
    Object.assign(process.env, saved);
  }
}

describe('cli summarize', () => {
  let server: WireServer;
  beforeAll(async () => {
    server = await startWireServer('anthropic', [{ kind: 'respond', answer: ({ prompt }) => `## Active Task\nCLI SUMMARY of ${/Summarize turns ([\d–]+)/.exec(prompt)?.[1]}` }]);
  });
  afterAll(async () => {
    await server.close();
  });
  afterEach(() => {
    server.script = [{ kind: 'respond', answer: ({ prompt }) => `## Active Task\nCLI SUMMARY of ${/Summarize turns ([\d–]+)/.exec(prompt)?.[1]}` }];
  });

  it('offline by default: the structured summary of the range, no request', async () => {
    const before = server.requests.length;
    const r = await runCaptured([FILE, '--turns', '1-3']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^## Active Task\n/);
    expect(r.out).toContain('go.mod');
    expect(server.requests.length).toBe(before);
  });

  it('with --provider: the provider writes it; the key comes from the environment and is never printed', async () => {
    const r = await runCaptured([FILE, '--turns', '2-5', '--provider', 'anthropic', '--base-url', server.baseUrl, '--model', 'claude-cli'], { ANTHROPIC_API_KEY: SECRET });
    expect(r.code).toBe(0);
    expect(r.out.startsWith('## Active Task\nCLI SUMMARY of 2–5\n')).toBe(true);
    expect(r.err).toMatch(/^summarizing turns 2–5 with anthropic:claude-cli at http:\/\/127\.0\.0\.1:\d+ \(key from the environment\)…/);
    expect(r.out + r.err).not.toContain(SECRET);
    expect(server.requests.at(-1)!.headers['x-api-key']).toBe(SECRET);
  });

  it('a provider failure is a clear message and exit 1', async () => {
    server.script = [{ kind: 'status', status: 429, headers: { 'retry-after': '120' } }];
    const r = await runCaptured([FILE, '--provider', 'anthropic', '--base-url', server.baseUrl], { CONTEXTSCOPE_API_KEY: SECRET });
    expect(r.code).toBe(1);
    expect(r.err).toContain('rate limiting requests (HTTP 429); retry after 120 seconds');
    expect(r.out + r.err).not.toContain(SECRET);
  });

  it('--tangents lists what the provider proposes (1-based turns)', async () => {
    server.script = [{ kind: 'ok', text: '{"tangents": [{"turn": 4, "reason": "asked about golang docs, then dropped it"}]}' }];
    const r = await runCaptured([FILE, '--tangents', '--provider', 'anthropic', '--base-url', server.baseUrl], { ANTHROPIC_API_KEY: SECRET });
    expect(r.code).toBe(0);
    // The model answers in the prompt's 1-based [turn N] labels; the CLI prints them the same way.
    expect(r.out).toBe('turn 4: asked about golang docs, then dropped it\n');
    expect(promptOf('anthropic', server.requests.at(-1)!.body).system).toMatch(/tangential/);
  });

  it('--test-connection: ok, or the reason', async () => {
    server.script = [{ kind: 'ok', text: 'OK' }];
    const ok = await runCaptured(['--test-connection', '--provider', 'anthropic', '--base-url', server.baseUrl], { ANTHROPIC_API_KEY: SECRET });
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/^ok: anthropic:claude-haiku-4-5 at http:\/\/127\.0\.0\.1:\d+/);
    server.script = [{ kind: 'status', status: 401 }];
    const bad = await runCaptured(['--test-connection', '--provider', 'anthropic', '--base-url', server.baseUrl], { ANTHROPIC_API_KEY: SECRET });
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/rejected the API key \(HTTP 401\)/);
  });

  it('usage errors exit 2', async () => {
    expect((await runCaptured([FILE, '--turns', '5-2'])).code).toBe(2);
    expect((await runCaptured([FILE, '--provider', 'openai'])).err).toMatch(/needs an API key/);
    expect((await runCaptured([FILE, '--tangents'])).code).toBe(2);
  });

  it('through the real entry point (child process)', async () => {
    const child = spawn(process.execPath, [CLI_ENTRY, 'summarize', FILE, '--turns', '1-2', '--provider', 'anthropic', '--base-url', server.baseUrl, '--model', 'claude-child'], {
      env: { ...process.env, ANTHROPIC_API_KEY: SECRET },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code, err).toBe(0);
    // The model's text, then the files it did not name, marked as added from the tool calls.
    expect(out).toMatch(/^## Active Task\nCLI SUMMARY of 1–2\n\nAlso touched in these turns \(not named above; added from the tool calls\): .*`\/home\/wei\/repo\/claude-code\/go\.mod` \(read/);
    expect(out + err).not.toContain(SECRET);
  });
});
