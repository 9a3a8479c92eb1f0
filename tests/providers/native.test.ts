/**
 * `cli compact --strategy native` (seed 002, Strategy A) against a recording HTTP server on
 * 127.0.0.1: the request each provider's compaction API documents (OpenAI `POST /v1/responses/compact`
 * with the span as Responses items; Anthropic Messages with the `compact-2026-01-12` beta and a
 * `compact_20260112` edit), the result stored as the summary, and the cases where Native cannot run:
 * offline (exit 2, with the reason), and Anthropic's trigger not reached (our summary stands in, said).
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusFiles } from '../corpus';
import { spawnCli } from './spawn-cli';

const SECRET = 'sk-native-SECRET-1234567890';
const CODEX = corpusFiles('codex-cli').find((f) => path.basename(f).startsWith('codex-session-view'))!;
const CLAUDE = corpusFiles('claude-code').find((f) => path.basename(f).startsWith('slopometry'))!;
const SMALL_CLAUDE = corpusFiles('claude-code').find((f) => path.basename(f).startsWith('claude-code-viewer_fe5e1c67'))!;

interface Recorded {
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

const cli = spawnCli;

describe('cli compact --strategy native', () => {
  let server: http.Server;
  let base = '';
  const requests: Recorded[] = [];
  let dir: string;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (d) => (raw += d));
      req.on('end', () => {
        const body = JSON.parse(raw) as Record<string, unknown>;
        requests.push({ url: req.url ?? '', headers: req.headers, body });
        res.setHeader('content-type', 'application/json');
        if (req.url === '/v1/responses/compact') {
          const firstUser = (body.input as Array<Record<string, unknown>>).find((i) => i.type === 'message' && i.role === 'user');
          res.end(JSON.stringify({ id: 'resp_c1', object: 'response.compaction', model: body.model, output: [firstUser, { type: 'compaction', id: 'cmp_1', encrypted_content: 'gAAAA' + 'x'.repeat(300) }], usage: { input_tokens: 1234, output_tokens: 56 } }));
        } else if (req.url === '/v1/messages' && body.context_management) {
          res.end(JSON.stringify({ id: 'msg_1', type: 'message', role: 'assistant', model: body.model, content: [{ type: 'compaction', content: '## Summary of Conversation\nNATIVE ANTHROPIC SUMMARY' }], stop_reason: 'compaction', usage: { input_tokens: 60000, output_tokens: 700 } }));
        } else if (req.url === '/v1/messages') {
          res.end(JSON.stringify({ id: 'msg_2', type: 'message', role: 'assistant', model: body.model, content: [{ type: 'text', text: '## Active Task\nOUR PROMPT SUMMARY' }], stop_reason: 'end_turn', usage: { input_tokens: 100, output_tokens: 10 } }));
        } else {
          res.statusCode = 404;
          res.end(JSON.stringify({ error: { message: `no route ${req.url}` } }));
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-native-'));
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('offline: unavailable, exit 2, and says why', async () => {
    const r = await cli(['compact', CODEX, '--strategy', 'native', '--budget', '3000', '--keep-last', '0', '--out', path.join(dir, 'off.jsonl')], {});
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--strategy native: Native compaction calls the provider’s own compaction API, and no provider is configured \(offline\)/);
    expect(fs.existsSync(path.join(dir, 'off.jsonl'))).toBe(false);
  }, 60_000);

  it('OpenAI: POST /v1/responses/compact with the span as Responses items; the encrypted item is said, the user messages kept', async () => {
    requests.length = 0;
    const out = path.join(dir, 'codex.jsonl');
    const r = await cli(['compact', CODEX, '--strategy', 'native', '--budget', '3000', '--keep-last', '0', '--out', out, '--provider', 'openai', '--base-url', base, '--summary-model', 'gpt-5.2'], { OPENAI_API_KEY: SECRET });
    expect(r.code, r.err).toBe(0);
    const calls = requests.filter((q) => q.url === '/v1/responses/compact');
    expect(calls.length).toBeGreaterThan(0);
    const q = calls[0];
    expect(q.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(q.body.model).toBe('gpt-5.2');
    const input = calls.flatMap((c) => c.body.input as Array<Record<string, unknown>>);
    expect(input.some((i) => i.type === 'message' && i.role === 'user')).toBe(true);
    // Every function_call of the span is answered by its output, with the same call_id.
    const callIds = input.filter((i) => i.type === 'function_call').map((i) => i.call_id);
    const outputIds = new Set(input.filter((i) => i.type === 'function_call_output').map((i) => i.call_id));
    expect(callIds.length).toBeGreaterThan(0);
    // Reasoning goes only as the untouched encrypted item the API can verify.
    for (const i of input.filter((x) => x.type === 'reasoning')) expect(typeof i.encrypted_content).toBe('string');
    for (const id of callIds) expect(outputIds.has(id)).toBe(true);
    const written = fs.readFileSync(out, 'utf8');
    expect(written).toContain('Native compaction by OpenAI (gpt-5.2)');
    expect(written).toContain('encrypted compaction item (305 characters, id cmp_1)');
    expect(r.out + r.err + written).not.toContain(SECRET);
  }, 60_000);

  it('issue 28: a Codex rollout carries the encrypted compaction item, and a chunked span is chained on the item, not on the note', async () => {
    requests.length = 0;
    const out = path.join(dir, 'codex-carry.jsonl');
    const r = await cli(['compact', CODEX, '--strategy', 'native', '--budget', '3000', '--keep-last', '0', '--out', out, '--provider', 'openai', '--base-url', base, '--summary-model', 'gpt-5.2'], { OPENAI_API_KEY: SECRET });
    expect(r.code, r.err).toBe(0);
    const lines = fs.readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; payload: { replacement_history?: Array<Record<string, unknown>> } });
    const compacted = lines.filter((l) => l.type === 'compacted').at(-1)!;
    const carried = compacted.payload.replacement_history!.find((i) => i.type === 'compaction');
    expect(carried, JSON.stringify(compacted.payload.replacement_history).slice(0, 400)).toEqual({ type: 'compaction', id: 'cmp_1', encrypted_content: 'gAAAA' + 'x'.repeat(300) });
    // Chunks after the first start from the previous chunk's items: the encrypted item, not our note.
    const calls = requests.filter((q) => q.url === '/v1/responses/compact');
    expect(calls.length).toBeGreaterThan(1);
    for (const q of calls.slice(1)) {
      const input = q.body.input as Array<Record<string, unknown>>;
      expect(input.some((i) => i.type === 'compaction' && i.encrypted_content === 'gAAAA' + 'x'.repeat(300))).toBe(true);
      expect(JSON.stringify(input)).not.toContain('Native compaction by OpenAI');
    }
  }, 60_000);

  it('Anthropic: the compact_20260112 edit with its beta header; the compaction block becomes the summary', async () => {
    requests.length = 0;
    const out = path.join(dir, 'claude.jsonl');
    const r = await cli(['compact', CLAUDE, '--strategy', 'native', '--budget', '40000', '--keep-last', '1', '--out', out, '--provider', 'anthropic', '--base-url', base, '--summary-model', 'claude-opus-4-6'], { ANTHROPIC_API_KEY: SECRET });
    expect(r.code, r.err).toBe(0);
    const q = requests.find((x) => x.url === '/v1/messages' && x.body.context_management)!;
    expect(q).toBeDefined();
    expect(q.headers['anthropic-beta']).toBe('compact-2026-01-12');
    expect(q.headers['x-api-key']).toBe(SECRET);
    expect(q.body.context_management).toEqual({ edits: [{ type: 'compact_20260112', trigger: { type: 'input_tokens', value: 50_000 }, pause_after_compaction: true }] });
    const messages = q.body.messages as Array<{ role: string }>;
    expect(messages[0].role).toBe('user');
    for (let i = 1; i < messages.length; i++) expect(messages[i].role).not.toBe(messages[i - 1].role);
    expect(fs.readFileSync(out, 'utf8')).toContain('NATIVE ANTHROPIC SUMMARY');
  }, 60_000);

  it('Anthropic below its 50,000-token trigger: no compaction call, our prompt summarizes instead, and the CLI says so', async () => {
    requests.length = 0;
    const out = path.join(dir, 'small.jsonl');
    const r = await cli(['compact', SMALL_CLAUDE, '--strategy', 'native', '--budget', '4000', '--keep-last', '0', '--out', out, '--provider', 'anthropic', '--base-url', base], { ANTHROPIC_API_KEY: SECRET });
    expect(r.code, r.err).toBe(0);
    expect(requests.some((x) => x.body.context_management)).toBe(false);
    expect(r.err).toMatch(/native compaction of turns \d+–\d+ not used: Anthropic compacts only past its minimum trigger of 50,000 input tokens/);
    expect(fs.readFileSync(out, 'utf8')).toContain('OUR PROMPT SUMMARY');
  }, 60_000);
});
