/**
 * The three providers against real HTTP servers on 127.0.0.1 speaking each wire format: success
 * (plain and streamed), and every failure mode mapped to its typed error — with the API key absent
 * from every message, serialized error and console line.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { createProvider, maskKey, ProviderError, testConnection, type ProviderConfig, type ProviderKind } from '../../lib/summarize/providers';
import { ANTHROPIC_VERSION } from '../../lib/summarize/providers/anthropic';
import { parseRetryAfter } from '../../lib/summarize/providers/http';
import { closedPort, startWireServer, type Behaviour, type WireServer } from './wire-server';

export const SECRET = 'sk-test-SECRET-9f8e7d6c5b4a3210-do-not-leak';

const KINDS: ProviderKind[] = ['openai', 'anthropic', 'gemini'];

let consoleSpies: MockInstance[] = [];
beforeEach(() => {
  consoleSpies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((m) => vi.spyOn(console, m));
});
afterEach(() => {
  for (const spy of consoleSpies) {
    for (const call of spy.mock.calls) expect(JSON.stringify(call.map(String))).not.toContain(SECRET);
    spy.mockRestore();
  }
});

/** The error a promise rejects with, asserted to be a ProviderError that does not carry the key. */
async function failure(p: Promise<unknown>): Promise<ProviderError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ProviderError);
  const err = e as ProviderError;
  expect(err.message).not.toContain(SECRET);
  expect(String(err.stack)).not.toContain(SECRET);
  expect(JSON.stringify(err)).not.toContain(SECRET);
  expect(JSON.stringify(err.toJSON())).not.toContain(SECRET);
  expect(String((err.cause as Error | undefined)?.message ?? '')).not.toContain(SECRET);
  return err;
}

describe.each(KINDS)('%s provider over HTTP', (kind) => {
  let server: WireServer;
  const config = (extra: Partial<ProviderConfig> = {}): ProviderConfig => ({ kind, baseUrl: server.baseUrl, model: `${kind}-model-1`, apiKey: SECRET, timeoutMs: 5_000, ...extra });
  const run = (extra: Partial<ProviderConfig> = {}, onDelta?: (t: string) => void, signal?: AbortSignal) =>
    createProvider(config(extra)).complete({ system: 'SYSTEM PROMPT', prompt: 'USER PROMPT with src/app.ts', onDelta, signal });
  const use = (...script: Behaviour[]) => {
    server.script = script;
  };

  beforeAll(async () => {
    server = await startWireServer(kind);
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.requests.length = 0;
  });

  it('returns the reply text and speaks the wire format (path, auth header, body)', async () => {
    use({ kind: 'ok', text: '## Active Task\nFix src/app.ts' });
    const result = await run();
    expect(result.text).toBe('## Active Task\nFix src/app.ts');
    expect(result.usage?.output).toBe(20);
    const req = server.requests[0];
    expect(req.method).toBe('POST');
    const body = req.body as Record<string, any>;
    if (kind === 'openai') {
      expect(req.url).toBe('/v1/chat/completions');
      expect(req.headers.authorization).toBe(`Bearer ${SECRET}`);
      expect(body.model).toBe('openai-model-1');
      expect(body.messages).toEqual([
        { role: 'system', content: 'SYSTEM PROMPT' },
        { role: 'user', content: 'USER PROMPT with src/app.ts' },
      ]);
      expect(body.max_tokens).toBeGreaterThan(0);
    } else if (kind === 'anthropic') {
      expect(req.url).toBe('/v1/messages');
      expect(req.headers['x-api-key']).toBe(SECRET);
      expect(req.headers['anthropic-version']).toBe(ANTHROPIC_VERSION);
      expect(req.headers['anthropic-dangerous-direct-browser-access']).toBe('true');
      expect(body.system).toBe('SYSTEM PROMPT');
      expect(body.messages).toEqual([{ role: 'user', content: 'USER PROMPT with src/app.ts' }]);
      expect(body.max_tokens).toBeGreaterThan(0);
    } else {
      expect(req.url).toBe('/v1beta/models/gemini-model-1:generateContent');
      expect(req.headers['x-goog-api-key']).toBe(SECRET);
      expect(req.url).not.toContain(SECRET);
      expect(body.systemInstruction).toEqual({ parts: [{ text: 'SYSTEM PROMPT' }] });
      expect(body.contents).toEqual([{ role: 'user', parts: [{ text: 'USER PROMPT with src/app.ts' }] }]);
    }
  });

  it('streams: assembles the deltas and reports each one', async () => {
    use({ kind: 'stream', pieces: ['## Active', ' Task\n', 'Fix `src/app.ts`'] });
    const deltas: string[] = [];
    const result = await run({ stream: true }, (t) => deltas.push(t));
    expect(result.text).toBe('## Active Task\nFix `src/app.ts`');
    expect(deltas).toEqual(['## Active', ' Task\n', 'Fix `src/app.ts`']);
    const req = server.requests[0];
    if (kind === 'gemini') expect(req.url).toBe('/v1beta/models/gemini-model-1:streamGenerateContent?alt=sse');
    else expect((req.body as { stream?: boolean }).stream).toBe(true);
  });

  it('a stream with a broken event is a malformed reply', async () => {
    use({ kind: 'stream', pieces: ['a', 'b'], badEvent: true });
    const err = await failure(run({ stream: true }));
    expect(err.code).toBe('malformed');
  });

  it('a stream that stalls mid-way → timeout (the timer covers the body, not just the headers)', async () => {
    use({ kind: 'stream', pieces: ['a', 'b', 'c'], stallAfter: 2 });
    const deltas: string[] = [];
    const err = await failure(run({ stream: true, timeoutMs: 300 }, (t) => deltas.push(t)));
    expect(err.code).toBe('timeout');
  });

  it('slow server → timeout', async () => {
    // The server would answer after 60 s; the client gives up after 0.2 s. A timeout is a matter of
    // the wall clock, so the bound is half the server's delay: a busy machine that delays the timer
    // by seconds still passes, a timer that does not fire (the reply arrives) fails.
    use({ kind: 'slow', ms: 60_000 });
    const started = Date.now();
    const err = await failure(run({ timeoutMs: 200 }));
    expect(err.code).toBe('timeout');
    expect(err.message).toMatch(/did not answer in time/);
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('the caller’s AbortSignal cancels the request', async () => {
    use({ kind: 'slow', ms: 3_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const err = await failure(run({}, undefined, controller.signal));
    expect(err.code).toBe('aborted');
  });

  it('429 with retry-after → rate-limit with the seconds', async () => {
    use({ kind: 'status', status: 429, headers: { 'retry-after': '7' }, body: { error: { message: 'Rate limit reached' } } });
    const err = await failure(run());
    expect(err.code).toBe('rate-limit');
    expect(err.retryAfterSeconds).toBe(7);
    expect(err.message).toContain('retry after 7 seconds');
  });

  it('500 → server error with the server’s own message', async () => {
    use({ kind: 'status', status: 500, body: { error: { message: 'upstream exploded' } } });
    const err = await failure(run());
    expect(err.code).toBe('server');
    expect(err.status).toBe(500);
    expect(err.message).toContain('upstream exploded');
  });

  it('401 → auth error; a server that echoes the key does not leak it', async () => {
    use({ kind: 'status', status: 401, body: { error: { message: `Incorrect API key provided: ${SECRET}` } } });
    const err = await failure(run());
    expect(err.code).toBe('auth');
    expect(err.message).toMatch(/rejected the API key/);
    expect(err.message).toContain('[key]');
  });

  it('403 → auth error', async () => {
    use({ kind: 'status', status: 403 });
    expect((await failure(run())).code).toBe('auth');
  });

  it('404 (unknown model) → bad-request', async () => {
    use({ kind: 'status', status: 404, body: { error: { message: 'model not found' } } });
    const err = await failure(run());
    expect(err.code).toBe('bad-request');
    expect(err.message).toContain('model not found');
    expect(err.message).toContain(`check the base URL (${new URL(server.baseUrl).origin}) and the model name`);
  });

  it('malformed JSON → malformed', async () => {
    use({ kind: 'malformed' });
    expect((await failure(run())).code).toBe('malformed');
  });

  it('JSON of the wrong shape → malformed', async () => {
    use({ kind: 'wrong-shape' });
    expect((await failure(run())).code).toBe('malformed');
  });

  it('empty content → empty', async () => {
    use({ kind: 'empty' });
    const err = await failure(run());
    expect(err.code).toBe('empty');
    expect(err.message).toMatch(/empty summary/);
  });

  it('nothing listening → network error naming the origin and CORS', async () => {
    const port = await closedPort();
    const base = kind === 'openai' ? `http://127.0.0.1:${port}/v1` : `http://127.0.0.1:${port}`;
    const err = await failure(run({ baseUrl: base }));
    expect(err.code).toBe('network');
    expect(err.message).toContain(`http://127.0.0.1:${port}`);
    expect(err.message).toMatch(/CORS/);
  });

  it('testConnection reports success and failures in words', async () => {
    use({ kind: 'ok', text: 'OK' });
    const ok = await testConnection(config());
    expect(ok).toMatchObject({ ok: true, reply: 'OK' });
    use({ kind: 'status', status: 401 });
    const bad = await testConnection(config());
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.code).toBe('auth');
      expect(bad.message).not.toContain(SECRET);
    }
  });
});

describe('OpenAI-compatible base URL', () => {
  it('a bare origin (as Ollama and LM Studio print it) gets /v1', async () => {
    const server = await startWireServer('openai', [{ kind: 'ok', text: 'from /v1' }]);
    try {
      const origin = server.baseUrl.replace(/\/v1$/, '');
      const result = await createProvider({ kind: 'openai', baseUrl: origin, model: 'llama3.2' }).complete({ system: 's', prompt: 'p' });
      expect(result.text).toBe('from /v1');
      expect(server.requests[0].url).toBe('/v1/chat/completions');
      expect(server.requests[0].headers.authorization).toBeUndefined();
    } finally {
      await server.close();
    }
  });
});

describe('key handling', () => {
  it('maskKey shows only enough to recognise the key', () => {
    const masked = maskKey(SECRET);
    expect(masked).not.toContain(SECRET.slice(3, -4));
    expect(masked).toBe('sk-…leak');
    expect(maskKey('short')).toBe('•••••');
    expect(maskKey(undefined)).toBe('');
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('12')).toBe(12);
    expect(parseRetryAfter(new Date(Date.UTC(2030, 0, 1, 0, 0, 30)).toUTCString(), Date.UTC(2030, 0, 1, 0, 0, 0))).toBe(30);
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
  });

  it('an invalid base URL is a config error, not a crash', async () => {
    const err = await failure(createProvider({ kind: 'openai', baseUrl: 'not a url', model: 'm', apiKey: SECRET }).complete({ system: 's', prompt: 'p' }));
    expect(err.code).toBe('config');
  });
});
