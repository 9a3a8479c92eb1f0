/**
 * A real HTTP server on 127.0.0.1 (random port) speaking the OpenAI chat completions, Anthropic
 * Messages and Gemini generateContent wire formats, with scripted failure modes. Providers are
 * exercised through real sockets and real `fetch`, not mocks.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Wire = 'openai' | 'anthropic' | 'gemini';

export type Behaviour =
  | { kind: 'ok'; text: string; model?: string }
  /** Answer computed from the request: the system text and the user prompt as the wire format holds them. */
  | { kind: 'respond'; answer: (input: { system: string; prompt: string }) => string }
  | { kind: 'stream'; pieces: string[]; model?: string; badEvent?: boolean; stallAfter?: number }
  | { kind: 'slow'; ms: number; text?: string }
  | { kind: 'status'; status: number; body?: unknown; headers?: Record<string, string> }
  | { kind: 'malformed' }
  | { kind: 'wrong-shape' }
  | { kind: 'empty' }
  /** The provider's own compaction: OpenAI /responses/compact (an encrypted item `id`), Anthropic a compaction block holding `text`. */
  | { kind: 'compact'; id: string; text: string };

export interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

export interface WireServer {
  baseUrl: string;
  requests: SeenRequest[];
  /** What the next requests get (a queue; the last entry repeats). */
  script: Behaviour[];
  close(): Promise<void>;
}

function okBody(wire: Wire, text: string, model: string): unknown {
  if (wire === 'openai')
    return { id: 'chatcmpl-1', object: 'chat.completion', model, choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }], usage: { prompt_tokens: 100, completion_tokens: 20 } };
  if (wire === 'anthropic')
    return { id: 'msg_1', type: 'message', role: 'assistant', model, content: [{ type: 'text', text }], stop_reason: 'end_turn', usage: { input_tokens: 100, output_tokens: 20 } };
  return { candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 20 }, modelVersion: model };
}

function emptyBody(wire: Wire, model: string): unknown {
  if (wire === 'openai') return { id: 'chatcmpl-1', object: 'chat.completion', model, choices: [{ index: 0, message: { role: 'assistant', content: '' }, finish_reason: 'length' }] };
  if (wire === 'anthropic') return { id: 'msg_1', type: 'message', role: 'assistant', model, content: [], stop_reason: 'max_tokens' };
  return { candidates: [{ content: { role: 'model', parts: [] }, finishReason: 'SAFETY' }] };
}

function streamEvents(wire: Wire, pieces: string[], model: string): string[] {
  const sse = (data: unknown, event?: string) => `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;
  if (wire === 'openai')
    return [
      ...pieces.map((p) => sse({ id: 'c', object: 'chat.completion.chunk', model, choices: [{ index: 0, delta: { content: p }, finish_reason: null }] })),
      sse({ id: 'c', object: 'chat.completion.chunk', model, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
      'data: [DONE]\n\n',
    ];
  if (wire === 'anthropic')
    return [
      sse({ type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model, content: [], usage: { input_tokens: 100 } } }, 'message_start'),
      sse({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, 'content_block_start'),
      ': keep-alive comment\n\n',
      ...pieces.map((p) => sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: p } }, 'content_block_delta')),
      sse({ type: 'content_block_stop', index: 0 }, 'content_block_stop'),
      sse({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 20 } }, 'message_delta'),
      sse({ type: 'message_stop' }, 'message_stop'),
    ];
  return pieces.map((p, i) => sse({ candidates: [{ content: { role: 'model', parts: [{ text: p }] }, ...(i === pieces.length - 1 ? { finishReason: 'STOP' } : {}) }], modelVersion: model }));
}

/** The system text and user prompt of a request, per wire format. */
export function promptOf(wire: Wire, body: unknown): { system: string; prompt: string } {
  const b = body as Record<string, any>;
  if (wire === 'openai') return { system: b.messages?.[0]?.content ?? '', prompt: b.messages?.[1]?.content ?? '' };
  if (wire === 'anthropic') return { system: b.system ?? '', prompt: b.messages?.[0]?.content ?? '' };
  return { system: b.systemInstruction?.parts?.[0]?.text ?? '', prompt: b.contents?.[0]?.parts?.[0]?.text ?? '' };
}

export interface WireServerOptions {
  /** Answer CORS preflights and allow any origin (what a browser page needs to call the server). */
  cors?: boolean;
}

export async function startWireServer(wire: Wire, script: Behaviour[] = [{ kind: 'ok', text: 'summary' }], options: WireServerOptions = {}): Promise<WireServer> {
  const requests: SeenRequest[] = [];
  const state = { script };
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    if (options.cors) {
      res.setHeader('access-control-allow-origin', '*');
      res.setHeader('access-control-allow-headers', 'content-type, authorization, x-api-key, anthropic-version, anthropic-dangerous-direct-browser-access, x-goog-api-key, anthropic-beta');
      res.setHeader('access-control-allow-methods', 'POST, OPTIONS');
      res.setHeader('access-control-expose-headers', 'retry-after');
      if (req.method === 'OPTIONS') {
        res.writeHead(204);
        return res.end();
      }
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: unknown = undefined;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = Buffer.concat(chunks).toString('utf8');
      }
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const behaviour = state.script.length > 1 ? state.script.shift()! : state.script[0];
      const model = (body as { model?: string } | undefined)?.model ?? 'gemini-test';
      const json = (status: number, data: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(data));
      };
      switch (behaviour.kind) {
        case 'compact': {
          if (wire === 'openai') {
            const input = ((body as { input?: Array<{ type?: string; role?: string }> }).input ?? []).filter((i) => i.type === 'message' && i.role === 'user');
            return json(200, { id: 'resp_compact', object: 'response.compaction', model, output: [...input, { type: 'compaction', id: behaviour.id, encrypted_content: `gAAAA${'x'.repeat(100)}` }], usage: { input_tokens: 500, output_tokens: 50 } });
          }
          return json(200, { id: 'msg_c', type: 'message', role: 'assistant', model, content: [{ type: 'compaction', content: behaviour.text }], stop_reason: 'compaction', usage: { input_tokens: 60_000, output_tokens: 500 } });
        }
        case 'ok':
          return json(200, okBody(wire, behaviour.text, behaviour.model ?? model));
        case 'respond':
          return json(200, okBody(wire, behaviour.answer(promptOf(wire, body)), model));
        case 'empty':
          return json(200, emptyBody(wire, model));
        case 'malformed':
          res.writeHead(200, { 'content-type': 'application/json' });
          return res.end('{"choices": [ this is not json');
        case 'wrong-shape':
          return json(200, { hello: 'world' });
        case 'status':
          return json(behaviour.status, behaviour.body ?? { error: { message: `status ${behaviour.status}` } }, behaviour.headers);
        case 'slow': {
          const timer = setTimeout(() => json(200, okBody(wire, behaviour.text ?? 'late', model)), behaviour.ms);
          res.on('close', () => clearTimeout(timer));
          return;
        }
        case 'stream': {
          res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
          const events = streamEvents(wire, behaviour.pieces, behaviour.model ?? model);
          if (behaviour.badEvent) events.splice(1, 0, 'data: {not json\n\n');
          let i = 0;
          const next = () => {
            // A server that stops sending mid-stream without closing: only a timeout ends it.
            if (behaviour.stallAfter !== undefined && i >= behaviour.stallAfter) return;
            if (i >= events.length) return res.end();
            res.write(events[i++]);
            setTimeout(next, 2);
          };
          return next();
        }
      }
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: wire === 'openai' ? `http://127.0.0.1:${port}/v1` : `http://127.0.0.1:${port}`,
    requests,
    get script() {
      return state.script;
    },
    set script(s: Behaviour[]) {
      state.script = s;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on (bound then released). */
export async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}
