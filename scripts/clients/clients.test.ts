/**
 * The mock model server and the request checks of `npm run test:clients`, without the clients:
 * the server answers each API the way the clients accept and records what it got; the checks
 * find unanswered tool calls in each API's shape.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENTS, conversationTokens } from './clients';
import { startMockServer, valueForSchema, type MockServer } from './mock-server';

let mock: MockServer;
beforeAll(async () => {
  mock = await startMockServer();
});
afterAll(async () => {
  await mock.close();
});

async function post(path: string, body: unknown): Promise<{ status: number; text: string }> {
  const r = await fetch(mock.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: r.status, text: await r.text() };
}

describe('mock model server', () => {
  it('listens on 127.0.0.1 only and records every request with its parsed body', async () => {
    expect(mock.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    mock.reset();
    await post('/v1/messages?beta=true', { model: 'm', stream: false, messages: [{ role: 'user', content: 'hi' }] });
    expect(mock.requests).toHaveLength(1);
    expect(mock.requests[0]).toMatchObject({ method: 'POST', path: '/v1/messages?beta=true', body: { messages: [{ role: 'user', content: 'hi' }] } });
  });

  it('streams a complete Anthropic message, Responses reply and Gemini candidate', async () => {
    const a = await post('/v1/messages', { stream: true, messages: [] });
    expect(a.text).toContain('event: message_stop');
    const o = await post('/v1/responses', { stream: true, input: [] });
    expect(o.text).toContain('"type":"response.completed"');
    const g = await post('/v1beta/models/gemini-x:streamGenerateContent?alt=sse', { contents: [] });
    expect(JSON.parse(g.text.replace(/^data: /, '')).candidates[0].finishReason).toBe('STOP');
  });

  it("answers Gemini CLI's routing call with JSON its validator accepts (score ≥ 1 though the schema sets no minimum)", async () => {
    const schema = { type: 'OBJECT', properties: { complexity_reasoning: { type: 'STRING' }, complexity_score: { type: 'INTEGER' } }, required: ['complexity_reasoning', 'complexity_score'] };
    expect(valueForSchema(schema)).toEqual({ complexity_reasoning: 'OK', complexity_score: 1 });
    const r = await post('/v1beta/models/flash:generateContent', { contents: [], generationConfig: { responseMimeType: 'application/json', responseJsonSchema: schema } });
    expect(JSON.parse(JSON.parse(r.text).candidates[0].content.parts[0].text)).toEqual({ complexity_reasoning: 'OK', complexity_score: 1 });
  });

  it('refuses a WebSocket upgrade at once (Codex then falls back to HTTPS)', async () => {
    const net = await import('node:net');
    const answer = await new Promise<string>((resolve) => {
      const s = net.connect(mock.port, '127.0.0.1', () => s.write(`GET /v1/responses HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: x\r\nSec-WebSocket-Version: 13\r\n\r\n`));
      let got = '';
      s.on('data', (d) => (got += d.toString()));
      s.on('close', () => resolve(got));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 426/);
  });
});

describe('request checks', () => {
  it('Anthropic: a tool_use without a tool_result in the next user message is unanswered', () => {
    const conv = [
      { role: 'assistant', content: [{ type: 'tool_use', id: 'a' }, { type: 'tool_use', id: 'b' }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a' }] },
    ];
    expect(CLIENTS['claude-code'].pairing(conv)).toEqual({ calls: 2, unanswered: ['b'] });
  });

  it('Responses: a function_call without its output is unanswered', () => {
    const conv = [{ type: 'function_call', call_id: 'x' }, { type: 'function_call_output', call_id: 'x' }, { type: 'custom_tool_call', call_id: 'y' }];
    expect(CLIENTS.codex.pairing(conv)).toEqual({ calls: 2, unanswered: ['y'] });
  });

  it('Gemini: functionCalls are answered by functionResponses in the next content', () => {
    const conv = [
      { role: 'model', parts: [{ functionCall: { name: 'ls' } }, { functionCall: { name: 'cat' } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'ls' } }] },
    ];
    expect(CLIENTS['gemini-cli'].pairing(conv)).toEqual({ calls: 2, unanswered: ['cat'] });
  });

  it('counts text at chars / 4 and an image as a flat 1,600, leaving structure and opaque payloads out', () => {
    expect(conversationTokens([{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'x'.repeat(400) }] }])).toBe(100);
    expect(conversationTokens([{ type: 'reasoning', encrypted_content: 'y'.repeat(4000) }])).toBe(0);
    expect(conversationTokens([{ type: 'input_image', image_url: 'data:' + 'z'.repeat(9000) }])).toBe(1600);
  });
});
