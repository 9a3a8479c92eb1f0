/**
 * Bad input never crashes: each case is a specific ImportError whose user message names the file,
 * the line or JSON path, and what was expected — or, where the data is usable, an import with
 * warnings. Never a TypeError.
 */
import { describe, expect, it } from 'vitest';
import { ImportError, userMessage } from '../lib/errors';
import { importBytes } from '../lib/formats/import';
import type { Transcript } from '../lib/model/types';
import { formatById } from '../lib/formats/registry';

const enc = (s: string) => new TextEncoder().encode(s);

function importError(name: string, text: string | Uint8Array): ImportError {
  try {
    importBytes(name, typeof text === 'string' ? enc(text) : text);
  } catch (e) {
    if (!(e instanceof ImportError)) throw new Error(`expected an ImportError, got ${(e as Error)?.name}: ${(e as Error)?.message}`);
    return e;
  }
  throw new Error('expected the import to fail');
}

interface Case {
  name: string;
  file: string;
  text: string | Uint8Array;
  code: string;
  line?: number;
  path?: string;
  /** Words the user message must contain (what was expected). */
  says: RegExp;
}

const cases: Case[] = [
  { name: 'an empty file', file: 'empty.jsonl', text: '', code: 'empty:file', says: /empty.*Expected a transcript in JSON or JSONL/ },
  { name: 'only white space', file: 'blank.json', text: '  \n\t\r\n  ', code: 'empty:file', says: /white space/ },
  { name: '"Hello world"', file: 'hello.txt', text: 'Hello world', code: 'malformed:not-json', line: 1, says: /does not start with "\{" or "\["/ },
  { name: 'binary garbage', file: 'x.bin', text: new Uint8Array([0, 1, 2, 255, 254, 10, 3]), code: 'malformed:not-json', line: 1, says: /not JSON or JSONL/ },
  { name: 'not JSON (a syntax error)', file: 'bad.json', text: '{\n  "messages": [\n    {"role": "user",, "content": "hi"}\n  ]\n}', code: 'malformed:json', line: 3, says: /not valid JSON.*Expected a complete JSON document/ },
  { name: 'JSON of another shape: {"foo":1}', file: 'foo.json', text: '{\n  "foo": 1\n}\n', code: 'unsupported:format', says: /No importer recognises this JSON object \(keys: foo\).*Expected a Claude Code, Codex, OpenAI/ },
  { name: 'JSON of another shape: [1,2,3]', file: 'nums.json', text: '[1, 2, 3]', code: 'unsupported:format', says: /No importer recognises/ },
  { name: 'JSONL of another shape', file: 'other.jsonl', text: '{"foo":1}\n{"foo":2}\n', code: 'unsupported:format', says: /JSONL file/ },
  { name: 'a truncated JSON document', file: 'cut.json', text: '{\n  "messages": [\n    {"role": "user", "content": "hi"},\n    {"role": "assis', code: 'truncated:json', line: 4, says: /ends before it is complete/ },
  { name: 'a 0-turn transcript {"messages":[]}', file: 'zero.json', text: '{"messages":[]}', code: 'empty:transcript', says: /no messages.*Expected at least one message/ },
  { name: 'a 0-turn transcript (pretty)', file: 'zero2.json', text: '{\n  "messages": []\n}\n', code: 'empty:transcript', says: /no messages/ },
  { name: 'messages: "x"', file: 'x.json', text: '{\n  "model": "gpt-4o",\n  "messages": "x"\n}', code: 'malformed:openai-chat', line: 3, path: '$.messages', says: /"messages" is a string.*Expected an array of chat messages/ },
  { name: 'content as a number', file: 'n.json', text: '{\n  "messages": [\n    {"role": "system", "content": "be brief"},\n    {"role": "user", "content": 5}\n  ]\n}', code: 'malformed:openai-chat', line: 4, path: '$.messages[1].content', says: /content is a number.*Expected a string, null, or an array of content parts/ },
  { name: 'tool_calls not an array', file: 't.json', text: '[\n  {"role": "user", "content": "hi"},\n  {"role": "assistant", "content": null, "tool_calls": {"id": "c1"}}\n]', code: 'malformed:openai-chat', line: 3, path: '$[1].tool_calls', says: /tool_calls is an object.*Expected an array of tool calls/ },
  { name: 'a tool call without a function name', file: 'f.json', text: '[\n  {"role": "user", "content": "hi"},\n  {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"arguments": "{}"}}]}\n]', code: 'malformed:openai-chat', line: 3, path: '$[1].tool_calls[0].function.name', says: /no function name/ },
  { name: 'a Claude Code line whose content is a number', file: 's.jsonl', text: '{"parentUuid":null,"type":"user","sessionId":"s","uuid":"u1","message":{"role":"user","content":"hi"}}\n{"parentUuid":"u1","type":"user","sessionId":"s","uuid":"u2","message":{"role":"user","content":42}}\n', code: 'malformed:claude-code', line: 2, path: '$.message.content', says: /content on line 2 is a number.*Expected a string or an array of content blocks/ },
  { name: 'JSON nested 100,000 levels deep', file: 'deep.json', text: '{\n  "messages": [\n    {"role": "user", "content": "hi", "x": ' + '['.repeat(100_000) + ']'.repeat(100_000) + '}\n  ]\n}', code: 'too-deep:json', line: 3, says: /nests more than 1000 levels deep/ },
  { name: 'a JSONL line nested 100,000 levels deep', file: 'deep.jsonl', text: '{"parentUuid":null,"type":"user","sessionId":"s","uuid":"u","message":{"role":"user","content":"hi"}}\n{"x":' + '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000) + '}\n', code: 'too-deep:json', line: 2, says: /nests more than/ },
  { name: 'a zip that is not a zip', file: 'x.eval', text: new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3]), code: 'malformed:zip', says: /zip archive that cannot be read/ },
  { name: 'a .gz that does not decompress', file: 'x.jsonl.gz', text: new Uint8Array([0x1f, 0x8b, 8, 0, 1, 2, 3]), code: 'malformed:gzip', says: /does not decompress/ },
];

describe('bad input: a specific ImportError, never a crash', () => {
  for (const c of cases) {
    it(c.name, () => {
      const e = importError(c.file, c.text);
      expect(e.code).toBe(c.code);
      expect(e.where.file).toBe(c.file);
      if (c.line !== undefined) expect(e.where.line).toBe(c.line);
      if (c.path !== undefined) expect(e.where.path).toBe(c.path);
      const msg = userMessage(e);
      expect(msg.startsWith(c.file)).toBe(true);
      if (c.line !== undefined) expect(msg).toContain(`line ${c.line}`);
      if (c.path !== undefined) expect(msg).toContain(c.path);
      expect(msg).toMatch(c.says);
    });
  }

  it('a container conversation out of range names the range', () => {
    const text = '{"messages":[{"role":"user","content":"a"}]}\n{"messages":[{"role":"user","content":"b"}]}\n';
    try {
      importBytes('ft.jsonl', enc(text), { conversation: 5 });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ImportError);
      expect((e as ImportError).code).toBe('invalid:conversation');
      expect(userMessage(e)).toMatch(/^ft\.jsonl: Conversation 5 does not exist: the file holds 2\. Expected a conversation index from 0 to 1\./);
    }
  });
});

describe('bad input that is still usable: imports with warnings', () => {
  const lines = [
    '{"parentUuid":null,"type":"user","sessionId":"s","uuid":"u1","message":{"role":"user","content":"fix the bug"}}',
    '{"parentUuid":"u1","type":"assistant","sessionId":"s","uuid":"a1","message":{"id":"msg_1","role":"assistant","model":"claude-x","content":[{"type":"text","text":"done"}],"usage":{"input_tokens":10,"output_tokens":5}}}',
    '{"parentUuid":"a1","type":"user","sessionId":"s","uuid":"u2","message":{"role":"user","content":"thanks"}}',
  ];

  it('a JSONL line truncated in the middle of the file: skipped with a warning naming the line, kept for export', () => {
    const text = [lines[0], '{"parentUuid":"u1","type":"assistant","sessi', lines[1], lines[2]].join('\n') + '\n';
    const t: Transcript = importBytes('mid.jsonl', enc(text)).transcript;
    expect(t.format).toBe('claude-code');
    expect(t.messages.length).toBe(3);
    expect(t.warnings).toContainEqual(expect.objectContaining({ code: 'skipped:line', line: 2 }));
    expect(formatById(t.format)!.serialize(t).text).toBe(text);
  });

  it('a truncated last line: a warning, the rest imports, the export is byte-identical', () => {
    const text = lines.join('\n') + '\n' + lines[2].slice(0, 30);
    const t = importBytes('live.jsonl', enc(text)).transcript;
    expect(t.warnings).toContainEqual(expect.objectContaining({ code: 'truncated:last-line', line: 4 }));
    expect(t.messages.length).toBe(3);
    expect(formatById(t.format)!.serialize(t).text).toBe(text);
  });

  it('mostly garbage JSONL is rejected, not silently emptied', () => {
    const text = [lines[0], '{garbage', '{more garbage', '{still garbage', lines[2]].join('\n') + '\n';
    const e = importError('junk.jsonl', text);
    expect(e.code).toBe('malformed:jsonl');
    expect(userMessage(e)).toMatch(/Most lines are not valid JSON/);
  });

  it('unknown roles and non-object elements: not claimed by detection; imported as Chat on request, skipped with warnings naming the JSON path', () => {
    const text = JSON.stringify([{ role: 'user', content: 'hi' }, { role: 'narrator', content: 'meanwhile' }, 7, { role: 'assistant', content: 'hello' }], null, 2);
    expect(importError('odd.json', text).code).toBe('unsupported:format');
    const t = importBytes('odd.json', enc(text), { format: 'openai-chat' }).transcript;
    expect(t.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(t.warnings).toContainEqual(expect.objectContaining({ code: 'unknown:role', path: '$[1].role', line: 6 }));
    expect(t.warnings).toContainEqual(expect.objectContaining({ code: 'skipped:message', path: '$[2]' }));
    expect(formatById(t.format)!.serialize(t).text).toBe(text);
  });

  it('__proto__ keys are plain data: no prototype pollution, no crash', () => {
    const text = '{\n  "__proto__": {"polluted": true},\n  "messages": [\n    {"role": "user", "content": "hi", "__proto__": {"role": "x", "polluted": true}},\n    {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{\\"__proto__\\": {\\"polluted\\": true}}"}}]},\n    {"role": "tool", "tool_call_id": "c1", "content": "ok"}\n  ]\n}';
    const t = importBytes('proto.json', enc(text)).transcript;
    expect(t.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
    const call = t.messages[1].blocks[0];
    expect(call.kind === 'tool_call' && Object.getPrototypeOf(call.input)).toBe(Object.prototype);
    expect(formatById(t.format)!.serialize(t).text).toBe(text);
  });

  it('a JSON document forced to import as Claude Code says it is not JSONL', () => {
    try {
      importBytes('doc.json', enc('{\n  "messages": [\n    {"role": "user", "content": "hi"}\n  ]\n}\n'), { format: 'claude-code' });
      expect.unreachable();
    } catch (e) {
      expect((e as ImportError).code).toBe('malformed:claude-code');
      expect(userMessage(e)).toMatch(/^doc\.json, line 1: .*Expected JSONL: one JSON object per line/);
    }
  });

  it('a Claude Code line without a message object is kept, with a warning', () => {
    const text = [lines[0], '{"parentUuid":"u1","type":"assistant","sessionId":"s","uuid":"a0"}', lines[1]].join('\n') + '\n';
    const t = importBytes('nomsg.jsonl', enc(text)).transcript;
    expect(t.warnings).toContainEqual(expect.objectContaining({ code: 'skipped:line', line: 2, path: '$.message' }));
    expect(t.records.length).toBe(3);
    expect(formatById(t.format)!.serialize(t).text).toBe(text);
  });
});
