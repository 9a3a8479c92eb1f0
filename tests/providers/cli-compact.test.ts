/**
 * `cli compact --strategy summarize` with a provider, through the real entry point in a child
 * process against a real HTTP server: the summaries come from the provider (key from the
 * environment), the written file holds them and re-imports, nothing prints the key. A failing
 * provider falls back (emergency) and says why on stderr.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusFiles } from '../corpus';
import { spawnCli } from './spawn-cli';
import { startWireServer, type WireServer } from './wire-server';

const SECRET = 'sk-compact-SECRET-99887766554433';
const TAU = corpusFiles('openai-chat').find((f) => path.basename(f).startsWith('tau-bench'))!;

const cli = spawnCli;

describe('cli compact --strategy summarize --provider', () => {
  let server: WireServer;
  let dir: string;
  beforeAll(async () => {
    server = await startWireServer('openai', [{ kind: 'respond', answer: ({ prompt }) => `## Active Task\nPROVIDER SUMMARY of turns ${/Summarize turns ([\d–]+)/.exec(prompt)?.[1]}` }]);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-compact-'));
  });
  afterAll(async () => {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('writes the provider’s summary into the compacted file', async () => {
    const out = path.join(dir, 'tau.json');
    const r = await cli(['compact', TAU, '--strategy', 'summarize', '--budget', '6000', '--keep-last', '1', '--out', out, '--provider', 'openai', '--base-url', server.baseUrl, '--summary-model', 'local-sum'], { OPENAI_API_KEY: SECRET });
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(/summarizing turns \d+–\d+ with openai:local-sum…/);
    expect(server.requests.length).toBeGreaterThan(0);
    expect(server.requests[0].headers.authorization).toBe(`Bearer ${SECRET}`);
    const written = fs.readFileSync(out, 'utf8');
    expect(written).toContain('PROVIDER SUMMARY of turns');
    expect(r.out + r.err + written).not.toContain(SECRET);
  }, 60_000);

  it('a failing provider falls back and says why', async () => {
    server.script = [{ kind: 'status', status: 503, body: { error: { message: 'overloaded' } } }];
    const out = path.join(dir, 'tau-fallback.json');
    const r = await cli(['compact', TAU, '--strategy', 'summarize', '--budget', '6000', '--keep-last', '1', '--out', out, '--provider', 'openai', '--base-url', server.baseUrl], { CONTEXTSCOPE_API_KEY: SECRET });
    expect(r.err).toMatch(/server error \(HTTP 503\)/);
    expect(r.out).toMatch(/fell back to emergency/);
    expect(r.out + r.err).not.toContain(SECRET);
  }, 60_000);
});
