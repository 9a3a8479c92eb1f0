/**
 * A model server on 127.0.0.1 for `npm run test:clients`: it speaks just enough of the Anthropic
 * Messages API (Claude Code), the OpenAI Responses API (Codex) and the Gemini API (Gemini CLI) for
 * a client to send one request and accept the answer, and it RECORDS every request (path + parsed
 * body) so the test can check what the client actually sent the model.
 *
 * Answers are the smallest valid reply: one text block "OK" (streamed when asked to stream).
 * Gemini CLI's routing call asks for JSON matching a schema (`responseJsonSchema` /
 * `responseSchema`): it gets an object built from that schema, or it retries for ~100 s.
 * Codex first tries a WebSocket: an upgrade request is refused (426) so it falls back to HTTPS.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The raw body (bytes as sent). */
  raw: string;
  /** The parsed JSON body, or undefined when it was not JSON. */
  body: unknown;
  at: number;
}

export interface MockServer {
  url: string;
  port: number;
  requests: RecordedRequest[];
  reset(): void;
  close(): Promise<void>;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const REPLY = 'OK';

function sse(res: http.ServerResponse, events: Array<{ event?: string; data: unknown }>): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'close' });
  for (const e of events) res.write(`${e.event ? `event: ${e.event}\n` : ''}data: ${JSON.stringify(e.data)}\n\n`);
  res.end();
}

function json(res: http.ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

// ---------------------------------------------------------------------------------------------
// Anthropic Messages

function anthropic(body: Obj, res: http.ServerResponse): void {
  const model = typeof body.model === 'string' ? body.model : 'claude-mock';
  const id = `msg_mock_${Date.now().toString(36)}`;
  const usage = { input_tokens: 10, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  if (body.stream !== true) {
    return json(res, 200, { id, type: 'message', role: 'assistant', model, content: [{ type: 'text', text: REPLY }], stop_reason: 'end_turn', stop_sequence: null, usage });
  }
  sse(res, [
    { event: 'message_start', data: { type: 'message_start', message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage } } },
    { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
    { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: REPLY } } },
    { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
    { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 1 } } },
    { event: 'message_stop', data: { type: 'message_stop' } },
  ]);
}

// ---------------------------------------------------------------------------------------------
// OpenAI Responses

function responses(body: Obj, res: http.ServerResponse): void {
  const model = typeof body.model === 'string' ? body.model : 'gpt-mock';
  const id = `resp_mock_${Date.now().toString(36)}`;
  const item = { type: 'message', id: `msg_${id}`, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: REPLY, annotations: [] }] };
  const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 1, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 11 };
  const response = { id, object: 'response', created_at: Math.floor(Date.now() / 1000), status: 'completed', model, output: [item], usage };
  if (body.stream !== true) return json(res, 200, response);
  sse(res, [
    { event: 'response.created', data: { type: 'response.created', sequence_number: 0, response: { ...response, status: 'in_progress', output: [] } } },
    { event: 'response.output_item.added', data: { type: 'response.output_item.added', sequence_number: 1, output_index: 0, item: { ...item, status: 'in_progress', content: [] } } },
    { event: 'response.output_text.delta', data: { type: 'response.output_text.delta', sequence_number: 2, output_index: 0, content_index: 0, item_id: item.id, delta: REPLY } },
    { event: 'response.output_item.done', data: { type: 'response.output_item.done', sequence_number: 3, output_index: 0, item } },
    { event: 'response.completed', data: { type: 'response.completed', sequence_number: 4, response } },
  ]);
}

// ---------------------------------------------------------------------------------------------
// Gemini generateContent / streamGenerateContent

/** A value that satisfies a JSON schema (OpenAPI-style `type` names upper or lower case). */
export function valueForSchema(schema: unknown, depth = 0): unknown {
  if (!isObj(schema) || depth > 8) return null;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  if ('const' in schema) return schema.const;
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const list = schema[key];
    if (Array.isArray(list) && list.length) return valueForSchema(list[0], depth + 1);
  }
  const type = (Array.isArray(schema.type) ? schema.type[0] : schema.type)?.toString().toLowerCase();
  switch (type) {
    case 'object': {
      const out: Obj = {};
      const props = isObj(schema.properties) ? schema.properties : {};
      for (const [k, v] of Object.entries(props)) out[k] = valueForSchema(v, depth + 1);
      return out;
    }
    case 'array':
      return schema.minItems ? [valueForSchema(schema.items, depth + 1)] : [];
    case 'string':
      return REPLY;
    case 'number':
    case 'integer':
      // Gemini CLI's router validates a score from 1 to 100 that its schema does not bound.
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean':
      return false;
    default:
      return isObj(schema.properties) ? valueForSchema({ ...schema, type: 'object' }, depth) : null;
  }
}

function gemini(body: Obj, streaming: boolean, res: http.ServerResponse): void {
  const cfg = isObj(body.generationConfig) ? body.generationConfig : isObj(body.config) ? body.config : {};
  const schema = cfg.responseJsonSchema ?? cfg.responseSchema;
  const text = schema !== undefined ? JSON.stringify(valueForSchema(schema)) : REPLY;
  const reply = {
    candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 1, totalTokenCount: 11 },
    modelVersion: 'gemini-mock',
  };
  if (!streaming) return json(res, 200, reply);
  sse(res, [{ data: reply }]);
}

// ---------------------------------------------------------------------------------------------

export function startMockServer(): Promise<MockServer> {
  const requests: RecordedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = undefined;
      }
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      requests.push({ method: req.method ?? 'GET', path: url.pathname + url.search, headers: req.headers, raw, body, at: Date.now() });
      const p = url.pathname;
      const b = isObj(body) ? body : {};
      if (req.method === 'POST' && /\/messages\/count_tokens$/.test(p)) return json(res, 200, { input_tokens: 10 });
      if (req.method === 'POST' && /\/messages$/.test(p)) return anthropic(b, res);
      if (req.method === 'POST' && /\/responses$/.test(p)) return responses(b, res);
      if (req.method === 'POST' && /:streamGenerateContent$/.test(p)) return gemini(b, true, res);
      if (req.method === 'POST' && /:generateContent$/.test(p)) return gemini(b, false, res);
      if (req.method === 'POST' && /:countTokens$/.test(p)) return json(res, 200, { totalTokens: 10 });
      if (req.method === 'POST' && /:embedContent$/.test(p)) return json(res, 200, { embedding: { values: [0] } });
      if (req.method === 'GET' && /\/models$/.test(p)) return json(res, 200, { object: 'list', data: [], models: [] });
      json(res, 404, { error: { message: `mock server: no route for ${req.method} ${p}`, type: 'not_found' } });
    });
  });
  // Codex tries a WebSocket first: refuse the upgrade at once so it falls back to HTTPS.
  server.on('upgrade', (req, socket) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    requests.push({ method: 'UPGRADE', path: url.pathname, headers: req.headers, raw: '', body: undefined, at: Date.now() });
    socket.end('HTTP/1.1 426 Upgrade Required\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        port,
        requests,
        reset: () => void requests.splice(0),
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
