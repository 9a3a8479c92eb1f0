/**
 * Issue 28: a native compaction error (seed 002 Strategy A) is retried like a summary, then falls
 * back to Summarize (our prompt, same provider) — not to emergency, which drops the history — and
 * the CLI words a 500 as a server error, never as "rate limited". Against a recording HTTP server
 * on 127.0.0.1 whose /v1/responses/compact always answers 500.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusFiles } from '../corpus';
import { spawnCli } from './spawn-cli';

const CODEX = corpusFiles('codex-cli').find((f) => path.basename(f).startsWith('codex-session-view'))!;

describe('cli compact --strategy native when the compaction API fails', () => {
  let server: http.Server;
  let base = '';
  const urls: string[] = [];
  let dir: string;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (d) => (raw += d));
      req.on('end', () => {
        urls.push(req.url ?? '');
        res.setHeader('content-type', 'application/json');
        if (req.url === '/v1/responses/compact') {
          res.statusCode = 500;
          res.setHeader('retry-after', '0');
          res.end(JSON.stringify({ error: { message: 'internal error' } }));
        } else if (req.url?.endsWith('/chat/completions')) {
          const body = JSON.parse(raw) as { model: string };
          res.end(JSON.stringify({ id: 'c1', object: 'chat.completion', model: body.model, choices: [{ index: 0, message: { role: 'assistant', content: '## Active Task\nFALLBACK SUMMARY BY OUR PROMPT' }, finish_reason: 'stop' }], usage: { prompt_tokens: 100, completion_tokens: 10 } }));
        } else {
          res.statusCode = 404;
          res.end(JSON.stringify({ error: { message: `no route ${req.url}` } }));
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-native-fb-'));
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('retries the 500 (said as a server error), then summarizes with our prompt instead of dropping history', async () => {
    const out = path.join(dir, 'codex.jsonl');
    const r = await spawnCli(['compact', CODEX, '--strategy', 'native', '--budget', '3000', '--keep-last', '0', '--out', out, '--provider', 'openai', '--base-url', base, '--summary-model', 'gpt-5.2'], { OPENAI_API_KEY: 'sk-test-native-fallback' });
    const compactCalls = urls.filter((u) => u === '/v1/responses/compact').length;
    // One attempt and one retry for the first span (then its fallback), never more than twice per span.
    expect(compactCalls).toBeGreaterThanOrEqual(2);
    expect(urls.filter((u) => u.endsWith('/chat/completions')).length).toBeGreaterThan(0);
    expect(r.err).toMatch(/server error \(HTTP 500\): retrying in \d+ s/);
    expect(r.out + r.err).not.toMatch(/rate limit/i);
    expect(r.err).toMatch(/native compaction of turns? .* not used: the native call failed: .*HTTP 500.*; summarized with openai:gpt-5.2 instead/);
    expect(r.code, r.err).toBe(0);
    const written = fs.readFileSync(out, 'utf8');
    expect(written).toContain('FALLBACK SUMMARY BY OUR PROMPT');
    // Not emergency: its notice is not what replaced the span.
    expect(r.out).not.toMatch(/emergency/);
  }, 120_000);
});
