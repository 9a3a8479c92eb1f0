import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import type { ProjectedBlock, ProjectedMessage, Projection } from '../compaction/types';
import { ImportError } from '../errors';
import { validatePairing } from '../model/pairing';
import type { Message, Transcript } from '../model/types';
import { sourceFromText } from '../read/source';
import { importBytes, importFile } from './import';
import { openaiChat } from './openai-chat';
import { checkFixture } from './testing/fixture-check';

const files = corpusFiles('openai-chat');
const TAU = files.find((f) => path.basename(f).startsWith('tau-bench'))!;
const RESPONSE = files.find((f) => path.basename(f).includes('chat-completion'))!;
const load = (f: string, conversation?: number) => importBytes(path.basename(f), new Uint8Array(fs.readFileSync(f)), conversation === undefined ? {} : { conversation }).transcript;
const loadText = (name: string, text: string, options: { conversation?: number; format?: string } = {}) => importBytes(name, new TextEncoder().encode(text), options).transcript;
const tauRaw = () => JSON.parse(fs.readFileSync(TAU, 'utf8')) as Array<{ task_id: number; trial: number; traj: Array<Record<string, unknown>> }>;

function identity(messages: readonly Message[]): ProjectedMessage[] {
  return messages.map((m) => ({ sourceId: m.id, role: m.role, turn: m.turn, blocks: [...m.blocks] }));
}
function projectionOf(t: Transcript, messages: ProjectedMessage[]): Projection {
  const zero = { total: 0, byKind: {}, tools: 0 };
  return { messages, tools: [...t.tools], fates: {}, report: [], summaries: [], tokens: { before: zero, after: zero } };
}
const summaryMessage = (text: string): ProjectedMessage => ({ role: 'user', turn: 0, synthetic: 'summary', span: [0, 1], blocks: [{ kind: 'summary', id: 's.0', tokens: 1, text }] });
/** Stub every tool result of a message: a new block derived from the source one. */
function stubResults(pm: ProjectedMessage, stub: string): ProjectedMessage {
  return { ...pm, blocks: pm.blocks.map((b) => (b.kind === 'tool_result' ? ({ ...b, content: stub, sourceBlockId: b.id } as ProjectedBlock) : b)) };
}

describe('openai-chat: corpus', () => {
  for (const f of files) it(path.basename(f), () => void checkFixture(f, expect, { format: 'openai-chat' }));
  for (const k of [1, 199]) it(`tau-bench conversation ${k}`, () => void checkFixture(TAU, expect, { format: 'openai-chat', conversation: k }));
});

describe('openai-chat: containers (tau-bench)', () => {
  it('lists all 200 conversations with titles that say which', () => {
    const raw = tauRaw();
    const list = openaiChat.listConversations!(sourceFromText(path.basename(TAU), fs.readFileSync(TAU, 'utf8')));
    expect(list.length).toBe(raw.length);
    expect(list[12].title).toBe(`tau-bench task ${raw[12].task_id} trial ${raw[12].trial} (13/200)`);
    expect(list.map((c) => c.messages)).toEqual(raw.map((e) => e.traj.length));
  });

  it('reads the chosen conversation: its messages, from inside its record', () => {
    const raw = tauRaw();
    for (const k of [0, 1, raw.length - 1]) {
      const t = load(TAU, k);
      expect(t.messages.length).toBe(raw[k].traj.length);
      expect(t.records.length).toBe(raw.length);
      expect(t.messages.every((m) => m.recordRefs.length === 1 && m.recordRefs[0] === k)).toBe(true);
      expect(t.messages[0].role).toBe('system');
      const firstUser = raw[k].traj.find((m) => m.role === 'user')!;
      expect(t.messages.find((m) => m.role === 'user')!.blocks[0]).toMatchObject({ kind: 'text', text: firstUser.content });
    }
  });

  it('re-used tool call ids (49 of 200 conversations) are disambiguated so pairing is exact', () => {
    const raw = tauRaw();
    const withDuplicates = raw.filter((e) => {
      const ids = e.traj.flatMap((m) => ((m.tool_calls as Array<{ id: string }> | undefined) ?? []).map((c) => c.id));
      return new Set(ids).size !== ids.length;
    }).length;
    expect(withDuplicates).toBe(49);
    const t = load(TAU, 0);
    expect(validatePairing(t.messages)).toEqual([]);
    expect(t.warnings.some((w) => w.code === 'renamed:duplicate-call-id')).toBe(true);
    const calls = t.messages.flatMap((m) => m.blocks.filter((b) => b.kind === 'tool_call'));
    expect(new Set(calls.map((c) => (c.kind === 'tool_call' ? c.callId : ''))).size).toBe(calls.length);
    // Arguments are kept verbatim as rawInput and parsed for input.
    const first = raw[0].traj.find((m) => m.tool_calls)!.tool_calls as Array<{ function: { arguments: string } }>;
    const block = calls[0];
    expect(block.kind === 'tool_call' && block.rawInput).toBe(first[0].function.arguments);
    expect(block.kind === 'tool_call' && block.input).toEqual(JSON.parse(first[0].function.arguments));
  });

  it('an out-of-range conversation is a specific error', () => {
    try {
      load(TAU, 200);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ImportError);
      expect((e as ImportError).code).toBe('invalid:conversation');
      expect((e as ImportError).expected).toContain('0 to 199');
    }
  });

  it('exports a projection: only the chosen record is re-written; stubs, drops and the summary land in its traj', () => {
    const k = 3;
    const t = load(TAU, k);
    const text = fs.readFileSync(TAU, 'utf8');
    const firstTurn2 = t.messages.findIndex((m) => m.turn === 2);
    const kept = t.messages.filter((m) => m.role === 'system' || m.turn >= 2);
    const pms = identity(kept);
    const stubAt = pms.findIndex((pm) => pm.blocks.some((b) => b.kind === 'tool_result'));
    pms[stubAt] = stubResults(pms[stubAt], '[stubbed: get_user_details ok]');
    pms.splice(1, 0, summaryMessage('Summary of turns 0-1: the user asked to book a flight.'));
    const out = openaiChat.serialize(t, projectionOf(t, pms));
    const before = JSON.parse(text);
    const after = JSON.parse(out.text);
    expect(after.length).toBe(before.length);
    for (let i = 0; i < before.length; i++) if (i !== k) expect(after[i]).toEqual(before[i]);
    const traj = after[k].traj as Array<Record<string, unknown>>;
    expect(traj.length).toBe(kept.length + 1);
    expect(traj[1]).toEqual({ role: 'user', content: 'Summary of turns 0-1: the user asked to book a flight.' });
    expect(traj.some((m) => m.content === '[stubbed: get_user_details ok]' && m.role === 'tool')).toBe(true);
    // The other fields of the container element are untouched, and every other record is byte-identical.
    expect({ ...after[k], traj: undefined }).toEqual({ ...before[k], traj: undefined });
    const back = importBytes(path.basename(TAU), new TextEncoder().encode(out.text), { conversation: k }).transcript;
    expect(back.records.filter((_, i) => i !== k).map((r) => r.text)).toEqual(t.records.filter((_, i) => i !== k).map((r) => r.text));
    expect(validatePairing(back.messages)).toEqual([]);
    expect(back.messages.length).toBe(kept.length + 1);
    expect(firstTurn2).toBeGreaterThan(1);
  });
});

describe('openai-chat: shapes', () => {
  it('reads usage from a chat.completion response', () => {
    const raw = JSON.parse(fs.readFileSync(RESPONSE, 'utf8'));
    const t = load(RESPONSE);
    expect(t.model).toBe(raw.model);
    expect(t.usage).toEqual([{ messageIndex: 0, model: raw.model, input: raw.usage.prompt_tokens, cacheRead: 0, cacheWrite: 0, output: raw.usage.completion_tokens }]);
  });

  it('a request object: tools, model, tool_calls ↔ tool_call_id, reasoning_content, images, legacy function calls', () => {
    const request = {
      model: 'gpt-4o-mini',
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
      messages: [
        { role: 'developer', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }] },
        { role: 'assistant', content: null, reasoning_content: 'I should call the tool.', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }, { id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: '{"city": broken' } }] },
        { role: 'tool', tool_call_id: 'call_2', content: 'error' },
        { role: 'tool', tool_call_id: 'call_1', content: [{ type: 'text', text: '18°C' }] },
        { role: 'assistant', content: null, function_call: { name: 'lookup', arguments: '{}' } },
        { role: 'function', name: 'lookup', content: 'found' },
        { role: 'assistant', content: 'Paris: 18°C.' },
      ],
    };
    const t = loadText('req.json', JSON.stringify(request, null, 2));
    expect(t.format).toBe('openai-chat');
    expect(t.model).toBe('gpt-4o-mini');
    expect(t.tools.map((x) => x.name)).toEqual(['get_weather']);
    expect(t.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool', 'assistant', 'tool', 'assistant']);
    expect(t.messages[1].blocks.map((b) => b.kind)).toEqual(['text', 'attachment']);
    expect(t.messages[1].blocks[1]).toMatchObject({ kind: 'attachment', mediaType: 'image/png' });
    expect(t.messages[2].blocks.map((b) => b.kind)).toEqual(['reasoning', 'tool_call', 'tool_call']);
    const broken = t.messages[2].blocks[2];
    expect(broken.kind === 'tool_call' && broken.input).toBe('{"city": broken');
    expect(t.messages[4].blocks[0]).toMatchObject({ kind: 'tool_result', callId: 'call_1', content: '18°C', name: 'get_weather' });
    expect(t.messages[6].blocks[0]).toMatchObject({ kind: 'tool_result', name: 'lookup' });
    expect(validatePairing(t.messages)).toEqual([]);
    expect(openaiChat.serialize(t).text).toBe(JSON.stringify(request, null, 2));
  });

  it('fine-tune JSONL: each line a conversation; round-trip byte-identical', () => {
    const lines = [0, 1, 2].map((i) => JSON.stringify({ messages: [{ role: 'user', content: `question ${i}` }, { role: 'assistant', content: `answer ${i}` }], parallel_tool_calls: false }));
    const text = lines.join('\n') + '\n';
    const list = openaiChat.listConversations!(sourceFromText('ft.jsonl', text));
    expect(list.map((c) => c.title)).toEqual(['Conversation 1/3: question 0', 'Conversation 2/3: question 1', 'Conversation 3/3: question 2']);
    const t = loadText('ft.jsonl', text, { conversation: 2 });
    expect(t.format).toBe('openai-chat');
    expect(t.messages.map((m) => (m.blocks[0] as { text: string }).text)).toEqual(['question 2', 'answer 2']);
    expect(openaiChat.serialize(t).text).toBe(text);
    // A projection re-writes line 3 only, compact like the rest.
    const pms = identity(t.messages);
    pms.splice(0, 1, summaryMessage('asked a question'));
    const out = openaiChat.serialize(t, projectionOf(t, pms)).text.split('\n');
    expect(out.slice(0, 2)).toEqual(lines.slice(0, 2));
    expect(JSON.parse(out[2])).toEqual({ messages: [{ role: 'user', content: 'asked a question' }, { role: 'assistant', content: 'answer 2' }], parallel_tool_calls: false });
  });

  it('legacy `functions` declarations are read as tool schemas', () => {
    const t = loadText('f.json', JSON.stringify({ model: 'gpt-3.5-turbo', functions: [{ name: 'lookup', parameters: { type: 'object' } }], messages: [{ role: 'user', content: 'hi' }] }));
    expect(t.tools.map((x) => [x.name, x.parameters])).toEqual([['lookup', { type: 'object' }]]);
    expect(t.tools[0].tokens).toBeGreaterThan(0);
  });

  it('a BOM + CRLF pretty document: lossless, and a re-written message keeps CRLF and the indent', () => {
    const request = { model: 'gpt-4o', messages: [{ role: 'user', content: 'question' }, { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] }, { role: 'tool', tool_call_id: 'c1', content: 'a long tool output' }, { role: 'assistant', content: 'answer' }] };
    const text = JSON.stringify(request, null, 4).replace(/\n/g, '\r\n') + '\r\n';
    const t = importBytes('crlf.json', new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(text)])).transcript;
    expect(t.style).toMatchObject({ eol: '\r\n', indent: 4, bom: true });
    expect(openaiChat.serialize(t).text).toBe(text);
    const pms = identity(t.messages).map((pm) => stubResults(pm, 'stub'));
    const out = openaiChat.serialize(t, projectionOf(t, pms)).text;
    expect(out).toBe(text.replace('"a long tool output"', '"stub"'));
  });

  it('prune-tools: the tools array next to the messages loses the pruned tools, the rest stays verbatim', () => {
    const tool = (name: string) => ({ type: 'function', function: { name, description: `${name} things`, parameters: { type: 'object', properties: {} } } });
    const request = { model: 'gpt-4o', tools: [tool('used'), tool('never_used'), tool('also_used')], messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }], temperature: 0 };
    for (const indent of [0, 2]) {
      const text = JSON.stringify(request, null, indent);
      const t = loadText('tools.json', text);
      expect(t.tools.map((x) => x.name)).toEqual(['used', 'never_used', 'also_used']);
      const p = { ...projectionOf(t, identity(t.messages)), tools: t.tools.filter((x) => x.name !== 'never_used') };
      const out = openaiChat.serialize(t, p).text;
      expect(JSON.parse(out)).toEqual({ ...request, tools: [tool('used'), tool('also_used')] });
      expect(out).toBe(JSON.stringify({ ...request, tools: [tool('used'), tool('also_used')] }, null, indent));
      // Fine-tune JSONL lines carry tools too.
      const lines = [JSON.stringify({ messages: request.messages, tools: request.tools }), JSON.stringify({ messages: request.messages, tools: request.tools })].join('\n') + '\n';
      const ft = loadText('ft.jsonl', lines, { conversation: 1 });
      const outFt = openaiChat.serialize(ft, { ...projectionOf(ft, identity(ft.messages)), tools: ft.tools.filter((x) => x.name === 'used') }).text.split('\n');
      expect(JSON.parse(outFt[1]).tools).toEqual([tool('used')]);
      expect(outFt[0]).toBe(lines.split('\n')[0]);
    }
  });

  it('does not claim Anthropic-shaped messages', () => {
    const anthropic = { messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'x', input: {} }] }] };
    const src = sourceFromText('a.json', JSON.stringify(anthropic));
    expect(openaiChat.detect({ name: 'a.json', text: '', values: [anthropic], container: 'json' })).toBeNull();
    expect(src.name).toBe('a.json');
  });
});

describe('openai-chat: fromMessages (conversion target)', () => {
  it('writes a valid Chat request from a Claude Code session: every call answered right after it, reasoning listed as dropped', () => {
    const cc = corpusFiles('claude-code').find((f) => path.basename(f).startsWith('slopometry'))!;
    const t = importBytes(path.basename(cc), new Uint8Array(fs.readFileSync(cc))).transcript;
    const main = t.messages.filter((m) => !m.sidechain);
    const out = openaiChat.fromMessages!({ messages: identity(main), tools: t.tools, model: t.model, title: t.title, baseName: 'slopometry' });
    const req = JSON.parse(out.text) as { model: string; messages: Array<{ role: string; tool_calls?: Array<{ id: string }>; tool_call_id?: string }> };
    expect(req.model).toBe(t.model);
    // Results immediately follow the assistant message that made the calls.
    for (let i = 0; i < req.messages.length; i++) {
      const m = req.messages[i];
      if (!m.tool_calls) continue;
      const answers = req.messages.slice(i + 1, i + 1 + m.tool_calls.length);
      expect(answers.map((a) => a.tool_call_id)).toEqual(m.tool_calls.map((c) => c.id));
    }
    expect(out.dropped.some((d) => d.includes('reasoning'))).toBe(true);
    const back = loadText('converted.json', out.text);
    expect(back.format).toBe('openai-chat');
    expect(validatePairing(back.messages)).toEqual([]);
    const calls = main.reduce((n, m) => n + m.blocks.filter((b) => b.kind === 'tool_call').length, 0);
    expect(back.messages.reduce((n, m) => n + m.blocks.filter((b) => b.kind === 'tool_call').length, 0)).toBe(calls);
  });

  it('puts system messages first and answers an unanswered call with a placeholder', () => {
    const t = load(TAU, 0);
    const pms = identity(t.messages);
    // Drop one tool result: the converter must still answer its call.
    const resultAt = pms.findIndex((pm) => pm.role === 'tool');
    pms.splice(resultAt, 1);
    const out = openaiChat.fromMessages!({ messages: pms, tools: [], title: t.title, baseName: 'tau' });
    const req = JSON.parse(out.text);
    expect(req.messages[0].role).toBe('system');
    expect(out.dropped.some((d) => d.includes('no result recorded'))).toBe(true);
    expect(validatePairing(loadText('x.json', out.text).messages)).toEqual([]);
  });
});

describe('a request on one line, larger than the detection head', () => {
  it('is parsed once, whoever asks (detection, the layout check, the conversation list, the document), and imports as before', () => {
    const tools = Array.from({ length: 2_000 }, (_, i) => ({ type: 'function', function: { name: `tool_${i}`, description: `Tool ${i} reads resource ${i}.`, parameters: { type: 'object', properties: { path: { type: 'string' } } } } }));
    const messages = [
      { role: 'user', content: 'Read a.ts with tool_7.' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'tool_7', arguments: '{"path":"a.ts"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'export const a = 1;' },
    ];
    // 2,000 schemas of ~150 characters: one line of ~300 KB, longer than the 64 KB detection head.
    const text = JSON.stringify({ model: 'gpt-4o', tools, messages });
    const file = sourceFromText('request.json', text);
    const parse = JSON.parse;
    let whole = 0;
    JSON.parse = ((s: string, r?: Parameters<typeof JSON.parse>[1]) => {
      if (typeof s === 'string' && s.length >= text.length - 2) whole++;
      return parse(s, r);
    }) as typeof JSON.parse;
    let t: Transcript;
    try {
      expect(openaiChat.listConversations!(file)).toEqual([]); // one conversation: nothing to choose
      t = importFile(file).transcript;
    } finally {
      JSON.parse = parse;
    }
    expect(whole).toBe(1);
    expect(t.tools).toHaveLength(2_000);
    expect(t.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    // The same transcript as a fresh file read once by the importer alone.
    expect(importBytes('request.json', new TextEncoder().encode(text)).transcript.messages).toEqual(t.messages);
  });
});
