/**
 * Hostile and malformed inputs, built in memory (nothing of size is committed): truncations of real
 * corpus files at seeded random points, wrong types in the fields of every format, broken pairing,
 * deep nesting, invalid UTF-8, a single 200 MB line, a zip bomb, prototype-pollution keys, BOM +
 * CRLF, gzip of garbage. Each case says what a correct importer does with it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync, zipSync } from 'fflate';
import { CORPUS_DIR } from '../corpus';
import { dedupShape } from '../compaction/reused-shapes';

export type Expectation =
  /** A specific ImportError: code, and where it points. */
  | { kind: 'error'; code: string | RegExp; where?: Array<'line' | 'path'>; path?: string }
  /** A usable import; `warnings` are codes that must be among the transcript's warnings. */
  | { kind: 'import'; format?: string; warnings?: string[] }
  /** Either a located ImportError or an import (formats whose owners decide how lenient to be). */
  | { kind: 'error-or-import' };

export interface HostileCase {
  name: string;
  /** File name given to the importer (the extension matters to detection tie-breaks). */
  fileName: string;
  what: string;
  bytes: () => Uint8Array;
  expect: Expectation;
  /** Force a format (skips detection) when the case is about that format's parser. */
  format?: string;
  /** The import must also export back to the same text (BOM stripped), byte for byte. */
  roundtrip?: boolean;
  /** CPU-time bound for a result (default 20 s): a hang / quadratic-path detector, generous for the shared CI cores. */
  timeLimitMs?: number;
}

/** mulberry32: a small seeded PRNG so truncation points are reproducible. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const enc = (s: string) => new TextEncoder().encode(s);
const json = (v: unknown, indent = 2) => enc(JSON.stringify(v, null, indent));
const jsonl = (lines: unknown[]) => enc(lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
const corpus = (family: string, file: string) => new Uint8Array(fs.readFileSync(path.join(CORPUS_DIR, family, file)));

/** Cut a JSON document at a seeded point strictly inside it (after the first byte, before the last 2). */
function truncateAt(bytes: Uint8Array, seed: number): Uint8Array {
  const r = seededRandom(seed)();
  const cut = 1 + Math.floor(r * (bytes.length - 3));
  return bytes.subarray(0, cut);
}

/** Cut a JSONL file inside its last line (a session still being written). */
function truncateLastLine(bytes: Uint8Array, seed: number): Uint8Array {
  let end = bytes.length;
  while (end > 0 && (bytes[end - 1] === 10 || bytes[end - 1] === 13)) end--;
  let start = end - 1;
  while (start > 0 && bytes[start - 1] !== 10) start--;
  const r = seededRandom(seed)();
  const cut = start + 1 + Math.floor(r * Math.max(1, end - start - 2));
  return bytes.subarray(0, cut);
}

/** Cut a JSONL file in the middle of line `n` (0-based, counting non-empty lines). */
function truncateInsideLine(bytes: Uint8Array, n: number, seed: number): Uint8Array {
  let line = 0;
  let start = 0;
  for (let i = 0; i < bytes.length && line < n; i++) if (bytes[i] === 10) (line++, (start = i + 1));
  let end = start;
  while (end < bytes.length && bytes[end] !== 10) end++;
  const cut = start + 1 + Math.floor(seededRandom(seed)() * Math.max(1, end - start - 2));
  return bytes.subarray(0, cut);
}

function nested(depth: number): unknown {
  let v: unknown = { leaf: 'x' };
  for (let i = 0; i < depth; i++) v = { level: i, child: v, list: [v === null ? 0 : i] };
  return v;
}

/** A tiny valid SWE-agent 1.x trajectory to mutate. */
function sweDoc(): Record<string, unknown> {
  return {
    trajectory: [],
    history: [
      { role: 'system', content: 'sys', agent: 'main', message_type: 'system_prompt' },
      { role: 'user', content: 'fix the bug', agent: 'main', message_type: 'observation' },
      { role: 'assistant', content: 'look', agent: 'main', message_type: 'action', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } }] },
      { role: 'tool', content: 'a b', agent: 'main', message_type: 'observation', tool_call_ids: ['c1'] },
    ],
    info: { model_stats: { tokens_sent: 10, tokens_received: 2, api_calls: 1, instance_cost: 0 } },
  };
}

function inspectDoc(): Record<string, any> {
  return {
    version: 2,
    status: 'success',
    eval: { task: 't', model: 'openai/gpt-4o' },
    samples: [
      {
        id: 1,
        epoch: 1,
        messages: [
          { id: 'm0', role: 'user', content: 'hi', source: 'input' },
          { id: 'm1', role: 'assistant', content: '', tool_calls: [{ id: 'c1', function: 'bash', arguments: { cmd: 'ls' }, type: 'function' }] },
          { id: 'm2', role: 'tool', content: 'a b', tool_call_id: 'c1', function: 'bash' },
          { id: 'm3', role: 'assistant', content: 'done' },
        ],
        events: [{ event: 'model', model: 'openai/gpt-4o', output: { choices: [{ message: { id: 'm1' } }], usage: { input_tokens: 10, output_tokens: 2 } } }],
        attachments: {},
      },
    ],
  };
}

function openhandsEvents(): any[] {
  return [
    { id: 0, source: 'user', message: 'go', action: 'message', args: { content: 'go' } },
    { id: 1, source: 'agent', message: 'Running command: ls', action: 'run', args: { command: 'ls', thought: 'look' }, tool_call_metadata: { function_name: 'execute_bash', tool_call_id: 'c1' } },
    { id: 2, source: 'agent', cause: 1, observation: 'run', content: 'a b', extras: {} },
  ];
}

/** A zip whose one sample entry declares `declared` uncompressed bytes (patched headers: nothing that large exists). */
function zipDeclaring(declared: number): Uint8Array {
  const real = 1_000_000;
  const zip = zipSync({ 'header.json': enc('{"version":2,"eval":{"task":"t"}}'), 'samples/1_epoch_1.json': new Uint8Array(real) });
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  for (let i = 0; i + 30 <= zip.length; i++) {
    const sig = view.getUint32(i, true);
    if (sig === 0x04034b50 && view.getUint32(i + 22, true) === real) view.setUint32(i + 22, declared >>> 0, true);
    if (sig === 0x02014b50 && i + 28 <= zip.length && view.getUint32(i + 24, true) === real) view.setUint32(i + 24, declared >>> 0, true);
  }
  return zip;
}

/** One JSONL line of ~`mb` megabytes, generated straight into bytes. */
function bigLine(mb: number): Uint8Array {
  const head = enc('{"messages":[{"role":"user","content":"');
  const tail = enc('"}]}\n');
  const out = new Uint8Array(head.length + mb * 1024 * 1024 + tail.length);
  out.set(head, 0);
  out.fill(0x61, head.length, head.length + mb * 1024 * 1024); // 'a'
  out.set(tail, head.length + mb * 1024 * 1024);
  return out;
}

export function makeCases(): HostileCase[] {
  const cases: HostileCase[] = [];
  const add = (c: HostileCase) => cases.push(c);
  const truncatedJson: Expectation = { kind: 'error', code: /^(truncated|malformed):json$/, where: ['line'] };

  // --- Truncated JSON documents (seeded cut points), every JSON family ---------------------------
  const jsonDocs: Array<[string, string]> = [
    ['swe-agent', 'swe-agent_marshmallow-1867_function_calling.traj'],
    ['swe-agent', 'swe-agent_gpt4_pydicom-1458_legacy.traj'],
    ['mini-swe-agent', 'mini-swe-agent_github_issue_test_messages.json'],
    ['openhands', 'openhands_trajs_basic_gui_mode.json'],
    ['inspect-ai', 'inspect_browser_gpt4o-mini.json'],
    ['openai-chat', 'vercel-ai_openai-chat-completion-text.json'],
    ['anthropic-messages', 'vercel-ai_anthropic-reasoning-high.1.json'],
    ['openai-responses', 'vercel-ai_openai-compaction.1.json'],
    ['gemini-api', 'inspect_live_gemini_request_contents.json'],
    ['gemini-cli', 'vibecodingtracker_gemini_session_legacy.json'],
    ['claude-code', 'simonw_sample_session_web_export.json'],
  ];
  jsonDocs.forEach(([family, file], i) =>
    add({ name: `truncated ${family}/${file}`, fileName: file, what: 'a JSON document cut at a seeded random point', bytes: () => truncateAt(corpus(family, file), 1000 + i), expect: truncatedJson }),
  );

  // --- Truncated JSONL (last line cut: usable with a warning) ----------------------------------
  const jsonlDocs: Array<[string, string]> = [
    ['claude-code', 'claude-code-viewer_5c0375b4.jsonl'],
    ['codex-cli', 'vibecodingtracker_codex_0.39.0.jsonl'],
    ['openai-responses', 'nemo-gym_newton_bench_gpt-oss_rollouts.jsonl'],
    ['gemini-cli', 'vibecodingtracker_gemini_session.jsonl'],
  ];
  jsonlDocs.forEach(([family, file], i) =>
    add({ name: `truncated last line ${family}/${file}`, fileName: file, what: 'a JSONL session cut inside its last line', bytes: () => truncateLastLine(corpus(family, file), 2000 + i), expect: { kind: 'import', warnings: ['truncated:last-line'] }, roundtrip: true }),
  );
  add({
    name: 'truncated openhands eval output (inside line 2 of 3)',
    fileName: 'output.jsonl',
    what: 'eval output cut in the middle of the second instance: the first is usable',
    bytes: () => truncateInsideLine(corpus('openhands', 'openhands_multi_swe_bench_output.jsonl'), 1, 3001),
    expect: { kind: 'import', format: 'openhands', warnings: ['truncated:last-line'] },
  });

  // --- Wrong types: our trajectory formats (specific codes and paths) --------------------------
  const swe = (mutate: (d: any) => void) => () => {
    const d = sweDoc();
    mutate(d);
    return json(d);
  };
  add({ name: 'swe-agent history not an array', fileName: 'x.traj', what: 'history is an object', bytes: swe((d) => (d.history = { role: 'user' })), format: 'swe-agent', expect: { kind: 'error', code: 'malformed:structure', where: ['path'], path: '$.history' } });
  add({ name: 'swe-agent content a number', fileName: 'x.traj', what: 'a message content is 42', bytes: swe((d) => (d.history[1].content = 42)), expect: { kind: 'error', code: 'malformed:structure', where: ['path', 'line'], path: '$.history[1].content' } });
  add({ name: 'swe-agent tool_calls an object', fileName: 'x.traj', what: 'tool_calls is an object', bytes: swe((d) => (d.history[2].tool_calls = { id: 'c1' })), expect: { kind: 'error', code: 'malformed:structure', where: ['path', 'line'], path: '$.history[2].tool_calls' } });
  add({ name: 'swe-agent null record', fileName: 'x.traj', what: 'a history element is null', bytes: swe((d) => (d.history[1] = null)), expect: { kind: 'error', code: 'malformed:structure', where: ['path', 'line'], path: '$.history[1]' } });
  add({ name: 'swe-agent unknown role', fileName: 'x.traj', what: 'role "wizard"', bytes: swe((d) => (d.history[1].role = 'wizard')), expect: { kind: 'error', code: 'malformed:role', where: ['path', 'line'], path: '$.history[1].role' } });
  add({ name: 'swe-agent model_stats strings', fileName: 'x.traj', what: 'usage totals are strings', bytes: swe((d) => (d.info.model_stats = { tokens_sent: '10', api_calls: 'many' })), expect: { kind: 'import', format: 'swe-agent', warnings: ['usage:totals-only'] } });
  add({ name: 'swe-agent duplicate call ids', fileName: 'x.traj', what: 'two calls share an id, each answered', bytes: swe((d) => d.history.push({ ...d.history[2] }, { ...d.history[3] })), expect: { kind: 'import', format: 'swe-agent', warnings: ['repaired:duplicate-call-id'] } });
  add({ name: 'swe-agent orphaned result', fileName: 'x.traj', what: 'a tool message answering no call', bytes: swe((d) => d.history.push({ role: 'tool', content: 'late', agent: 'main', message_type: 'observation', tool_call_ids: ['nobody'] })), expect: { kind: 'import', format: 'swe-agent', warnings: ['pairing:orphan-result'] } });
  add({
    name: 'mini-swe-agent messages not an array',
    fileName: 'x.traj.json',
    what: 'messages is a string',
    bytes: () => json({ info: { mini_version: '1' }, messages: 'none', trajectory_format: 'mini-swe-agent-1.1' }),
    format: 'mini-swe-agent',
    expect: { kind: 'error', code: 'malformed:structure', where: ['path'], path: '$.messages' },
  });
  add({
    name: 'mini-swe-agent null message',
    fileName: 'x.traj.json',
    what: 'a null element among the messages',
    bytes: () => json({ info: { mini_version: '1' }, messages: [{ role: 'system', content: 's' }, null], trajectory_format: 'mini-swe-agent-1.1' }),
    expect: { kind: 'error', code: 'malformed:structure', where: ['path', 'line'], path: '$.messages[1]' },
  });
  add({
    name: 'openhands args a string',
    fileName: 'traj.json',
    what: 'an action whose args is a string',
    bytes: () => {
      const e = openhandsEvents();
      e[1].args = 'ls';
      return json(e);
    },
    expect: { kind: 'error', code: 'malformed:structure', where: ['path', 'line'], path: '$[1].args' },
  });
  add({
    name: 'openhands observation content a number',
    fileName: 'traj.json',
    what: 'content 7',
    bytes: () => {
      const e = openhandsEvents();
      e[2].content = 7;
      return json(e);
    },
    expect: { kind: 'error', code: 'malformed:structure', where: ['path', 'line'], path: '$[2].content' },
  });
  add({
    name: 'openhands eval output history not an array',
    fileName: 'output.jsonl',
    what: 'history: "…" on line 1',
    bytes: () => jsonl([{ instance_id: 'a', history: openhandsEvents() }, { instance_id: 'b', history: openhandsEvents() }].map((v, i) => (i === 0 ? { ...v, history: 'lost' } : v))),
    format: 'openhands',
    expect: { kind: 'error', code: 'malformed:structure', where: ['path', 'line'], path: '$.history' },
  });
  add({
    name: 'openhands orphan observation and call without result',
    fileName: 'traj.json',
    what: 'an observation caused by a missing action; an action never observed',
    bytes: () => {
      const e = openhandsEvents();
      e[2].cause = 99;
      e.push({ id: 3, source: 'agent', message: 'x', action: 'run', args: { command: 'pwd' }, tool_call_metadata: { function_name: 'execute_bash', tool_call_id: 'c2' } }, { id: 4, source: 'user', message: 'and?', action: 'message', args: { content: 'and?' } });
      return json(e);
    },
    expect: { kind: 'import', format: 'openhands', warnings: ['pairing:missing-result'] },
  });
  const insp = (mutate: (d: any) => void) => () => {
    const d = inspectDoc();
    mutate(d);
    return json(d);
  };
  add({ name: 'inspect samples not an array', fileName: 'log.json', what: 'samples is a number', bytes: insp((d) => (d.samples = 3)), expect: { kind: 'error', code: 'malformed:structure', where: ['path'], path: '$.samples' } });
  add({ name: 'inspect content a number', fileName: 'log.json', what: 'a message content is 42', bytes: insp((d) => (d.samples[0].messages[0].content = 42)), expect: { kind: 'error', code: 'malformed:structure', where: ['path', 'line'], path: '$.samples[0].messages[0].content' } });
  add({ name: 'inspect tool_calls an object', fileName: 'log.json', what: 'tool_calls is an object', bytes: insp((d) => (d.samples[0].messages[1].tool_calls = { id: 'c1' })), expect: { kind: 'error', code: 'malformed:structure', where: ['path', 'line'], path: '$.samples[0].messages[1].tool_calls' } });
  add({ name: 'inspect usage strings', fileName: 'log.json', what: 'usage counts are strings', bytes: insp((d) => (d.samples[0].events[0].output.usage = { input_tokens: '10', output_tokens: 'two' })), expect: { kind: 'import', format: 'inspect-ai' } });
  add({
    name: 'inspect call without result',
    fileName: 'log.json',
    what: 'the tool message is missing and the conversation goes on',
    bytes: insp((d) => d.samples[0].messages.splice(2, 1)),
    expect: { kind: 'import', format: 'inspect-ai', warnings: ['pairing:missing-result'] },
  });
  add({ name: 'inspect 50-level nesting in tool arguments', fileName: 'log.json', what: 'arguments nested 50 levels deep', bytes: insp((d) => (d.samples[0].messages[1].tool_calls[0].arguments = nested(50))), expect: { kind: 'import', format: 'inspect-ai' } });
  add({ name: 'inspect 2000-level nesting in tool arguments', fileName: 'log.json', what: 'arguments nested 2000 levels deep', bytes: insp((d) => (d.samples[0].messages[1].tool_calls[0].arguments = nested(2000))), expect: { kind: 'error-or-import' } });

  // --- Wrong types in the other formats (their owners choose error vs repair; never a crash) ----
  const others: Array<[string, string, () => Uint8Array]> = [
    ['openai-chat messages not an array', 'chat.json', () => json({ model: 'gpt-4o', messages: 5 })],
    ['openai-chat content a number', 'chat.json', () => json([{ role: 'system', content: 's' }, { role: 'user', content: 12 }, { role: 'assistant', content: 'x', tool_calls: { id: 'c' } }])],
    ['openai-chat orphaned tool result', 'chat.json', () => json([{ role: 'user', content: 'q' }, { role: 'tool', tool_call_id: 'ghost', content: 'r' }, { role: 'assistant', content: 'a' }])],
    ['anthropic messages an object', 'req.json', () => json({ model: 'claude', system: 's', messages: { role: 'user' } })],
    ['anthropic content block null', 'req.json', () => json({ model: 'claude', system: 's', messages: [{ role: 'user', content: [null, { type: 'tool_result', tool_use_id: 5 }] }] })],
    ['claude-code message content a number', 'session.jsonl', () => jsonl([{ type: 'user', sessionId: 's', uuid: 'u1', parentUuid: null, message: { role: 'user', content: 5 } }, { type: 'assistant', sessionId: 's', uuid: 'u2', parentUuid: 'u1', message: { role: 'assistant', content: 'str', usage: 'lots' } }])],
    ['claude-code null lines', 'session.jsonl', () => enc('{"type":"user","sessionId":"s","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"hi"}}\nnull\n[]\n"x"\n')],
    ['codex payload null', 'rollout.jsonl', () => jsonl([{ type: 'session_meta', payload: null }, { type: 'response_item', payload: { type: 'message', role: 'user', content: 3 } }, { type: 'event_msg', payload: { type: 'token_count', info: 'n/a' } }])],
    ['responses input items wrong types', 'resp.json', () => json({ input: [{ type: 'message', role: 'user', content: 9 }, { type: 'function_call', call_id: 1, arguments: {} }] })],
    ['gemini contents parts a string', 'req.json', () => json({ contents: [{ role: 'user', parts: 'hello' }, { role: 'model', parts: [{ functionCall: 'x' }] }] })],
    ['gemini-cli messages not an array', 'session.json', () => json({ sessionId: 's', projectHash: 'h', startTime: 't', messages: 'none' })],
  ];
  for (const [name, fileName, bytes] of others) add({ name, fileName, what: name, bytes, expect: { kind: 'error-or-import' } });

  // --- Bytes-level hostility ---------------------------------------------------------------------
  add({
    name: 'invalid UTF-8 inside a SWE-agent string',
    fileName: 'x.traj',
    what: 'bytes 0xC3 0x28 and 0xFF inside a message',
    bytes: () => {
      const text = JSON.stringify(sweDoc(), null, 2).replace('fix the bug', 'fix the @@');
      const b = enc(text);
      const at = text.indexOf('@@');
      b[at] = 0xc3;
      b[at + 1] = 0xff;
      return b;
    },
    expect: { kind: 'import', format: 'swe-agent', warnings: ['decoding:invalid-utf8'] },
  });
  add({
    name: 'invalid UTF-8 in a Claude Code JSONL line',
    fileName: 'session.jsonl',
    what: 'a lone continuation byte in a line',
    bytes: () => {
      const b = corpus('claude-code', 'simonw_sample_session.jsonl').slice();
      const i = b.indexOf(0x65); // an "e" somewhere in the first line's text
      b[i] = 0x80;
      return b;
    },
    expect: { kind: 'error-or-import' },
  });
  // 13–22 s measured on the shared 2-core machine (load 10+), once 59 s at load 14: the bound is a
  // hang detector, not a benchmark.
  add({ name: 'a single 200 MB line', fileName: 'big.jsonl', what: 'one JSONL line of 200 MB (a huge pasted output)', bytes: () => bigLine(200), expect: { kind: 'import' }, timeLimitMs: 120_000 });
  add({ name: 'zip bomb .eval (2 GB declared)', fileName: 'bomb.eval', what: 'an entry declaring 2 GB uncompressed', bytes: () => zipDeclaring(2_000_000_000), expect: { kind: 'error', code: 'too-large:zip', where: ['path'] } });
  add({ name: 'zip with a 3 GB entry', fileName: 'huge.eval', what: 'an entry declaring 3 GB (past 32-bit sizes in spirit)', bytes: () => zipDeclaring(3_000_000_000), expect: { kind: 'error', code: 'too-large:zip', where: ['path'] } });
  add({ name: 'zip with a 400 MB entry from ~1 KB', fileName: 'ratio.eval', what: 'under the size cap, but a compression ratio no log has', bytes: () => zipDeclaring(400_000_000), expect: { kind: 'error', code: 'malformed:zip-bomb', where: ['path'] } });
  add({ name: 'corrupt zip', fileName: 'broken.eval', what: 'a zip signature then garbage', bytes: () => new Uint8Array([0x50, 0x4b, 0x03, 0x04, ...Array.from({ length: 200 }, (_, i) => (i * 37) & 0xff)]), expect: { kind: 'error', code: 'malformed:zip' } });
  add({
    name: 'zip without header.json',
    fileName: 'other.eval',
    what: 'a valid zip that is not an eval log',
    bytes: () => zipSync({ 'readme.txt': enc('hello') }),
    expect: { kind: 'error', code: 'unsupported:format' },
  });
  add({
    name: '__proto__ keys (swe-agent)',
    fileName: 'x.traj',
    what: '__proto__ and constructor.prototype payloads in records, args and info',
    bytes: () => {
      const text = JSON.stringify(sweDoc(), null, 2)
        .replace('"role": "user",', '"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}, "role": "user",')
        .replace('"tokens_sent": 10', '"__proto__": {"polluted": "yes"}, "tokens_sent": 10');
      return enc(text.replace('{\\"command\\":\\"ls\\"}', '{\\"__proto__\\":{\\"polluted\\":\\"yes\\"},\\"command\\":\\"ls\\"}'));
    },
    expect: { kind: 'import', format: 'swe-agent' },
  });
  add({
    name: '__proto__ keys (inspect attachments and arguments)',
    fileName: 'log.json',
    what: 'attachments and tool arguments with __proto__ keys',
    bytes: () => {
      const text = JSON.stringify(inspectDoc(), null, 2)
        .replace('"attachments": {}', '"attachments": {"__proto__": {"polluted": "yes"}, "constructor": "attachment://__proto__"}')
        .replace('"cmd": "ls"', '"cmd": "attachment://__proto__", "__proto__": {"polluted": "yes"}');
      return enc(text);
    },
    expect: { kind: 'import', format: 'inspect-ai' },
  });
  add({
    name: '__proto__ keys (openhands + chat)',
    fileName: 'traj.json',
    what: 'events with __proto__ in args and metadata',
    bytes: () => enc(JSON.stringify(openhandsEvents(), null, 2).replace('"command": "ls"', '"__proto__": {"polluted": "yes"}, "command": "ls"').replace('"extras": {}', '"extras": {"__proto__": {"polluted": "yes"}}')),
    expect: { kind: 'import', format: 'openhands' },
  });
  add({
    name: 'BOM + CRLF SWE-agent trajectory',
    fileName: 'crlf.traj',
    what: 'UTF-8 BOM and Windows line endings',
    bytes: () => enc('\uFEFF' + JSON.stringify(sweDoc(), null, 2).replace(/\n/g, '\r\n') + '\r\n'),
    expect: { kind: 'import', format: 'swe-agent' },
    roundtrip: true,
  });
  add({
    name: 'BOM + CRLF OpenHands eval output',
    fileName: 'crlf.jsonl',
    what: 'UTF-8 BOM and CRLF between JSONL records',
    bytes: () => enc('\uFEFF' + [{ instance_id: 'a', history: openhandsEvents() }, { instance_id: 'b', history: openhandsEvents() }].map((v) => JSON.stringify(v)).join('\r\n') + '\r\n'),
    expect: { kind: 'import', format: 'openhands' },
    roundtrip: true,
  });
  add({
    name: 'gzip of garbage',
    fileName: 'garbage.jsonl.gz',
    what: 'valid gzip around random bytes',
    bytes: () => {
      const r = seededRandom(7);
      return gzipSync(Uint8Array.from({ length: 4096 }, () => Math.floor(r() * 256)));
    },
    expect: { kind: 'error', code: /^(malformed:not-json|malformed:json|unsupported:format|malformed:jsonl)$/ },
  });
  add({ name: 'gzip header then garbage', fileName: 'bad.json.gz', what: 'gzip magic bytes, no gzip stream', bytes: () => new Uint8Array([0x1f, 0x8b, 0x08, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9]), expect: { kind: 'error', code: 'malformed:gzip' } });
  add({ name: 'empty file', fileName: 'empty.json', what: 'zero bytes', bytes: () => new Uint8Array(0), expect: { kind: 'error', code: 'empty:file' } });
  add({ name: 'whitespace only', fileName: 'blank.jsonl', what: 'spaces and newlines', bytes: () => enc('  \n\n \r\n'), expect: { kind: 'error', code: 'empty:file' } });
  add({ name: 'a JSON scalar', fileName: 'n.json', what: 'the document is 42', bytes: () => enc('42'), expect: { kind: 'error', code: 'malformed:not-json' } });
  add({ name: 'plain text', fileName: 'notes.json', what: 'Hello world', bytes: () => enc('Hello world\n'), expect: { kind: 'error', code: 'malformed:not-json', where: ['line'] } });

  // Issue 18 / 13: gzip members, JSON inside strings, leading blank lines, mixed formats.
  const claudeSession = () => corpus('claude-code', 'simonw_sample_session.jsonl');
  add({
    name: 'multi-member gzip (cat a.gz b.gz)',
    fileName: 'session.jsonl.gz',
    what: 'a Claude Code session gzipped in two members',
    bytes: () => {
      const b = claudeSession();
      const cut = b.indexOf(10, b.length >> 1) + 1;
      return new Uint8Array([...gzipSync(b.subarray(0, cut)), ...gzipSync(b.subarray(cut))]);
    },
    expect: { kind: 'import', format: 'claude-code' },
  });
  add({
    name: 'gzip with a wrong ISIZE trailer',
    fileName: 'session.jsonl.gz',
    what: 'the last 4 bytes claim 7 bytes uncompressed: damage, refused like gzip -t (issue 30)',
    bytes: () => {
      const gz = gzipSync(claudeSession());
      gz.set([7, 0, 0, 0], gz.length - 4);
      return gz;
    },
    expect: { kind: 'error', code: 'malformed:gzip-truncated' },
  });
  add({
    name: 'Claude Code: two calls sharing one tool_use id in one message, one result (issue 30)',
    fileName: 'reused-id.jsonl',
    what: 'each occurrence gets its own id (call_1, call_1#2); the unanswered one is named',
    bytes: () => enc(dedupShape()),
    expect: { kind: 'import', format: 'claude-code', warnings: ['pairing:missing-result'] },
    roundtrip: true,
  });
  add({
    name: 'gzip cut just before its trailer (issue 30)',
    fileName: 'session.jsonl.gz',
    what: 'every line decompresses; only the 8-byte trailer is missing (gzip -t: unexpected end of file)',
    bytes: () => {
      const gz = gzipSync(claudeSession());
      return gz.subarray(0, gz.length - 8);
    },
    expect: { kind: 'error', code: 'malformed:gzip-truncated' },
  });
  add({
    name: 'tool-call arguments: JSON nested 50,000 deep in a string',
    fileName: 'deep-args.json',
    what: 'OpenAI Chat arguments "[[[[…]]]]" 50,000 levels',
    bytes: () => json({ messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '['.repeat(50_000) + ']'.repeat(50_000) } }] }, { role: 'tool', tool_call_id: 'c1', content: 'ok' }] }),
    expect: { kind: 'error', code: 'too-deep:json', where: ['path'], path: '$.messages[1].tool_calls[0].function.arguments' },
    timeLimitMs: 10_000,
  });
  add({
    name: 'swe-agent arguments nested 50,000 deep in a string',
    fileName: 'x.traj',
    what: 'function.arguments a string of 50,000 levels',
    bytes: swe((d) => (d.history[2].tool_calls[0].function.arguments = '{"a":'.repeat(50_000) + '1' + '}'.repeat(50_000))),
    expect: { kind: 'error', code: 'too-deep:json', where: ['path'] },
    timeLimitMs: 10_000,
  });
  add({
    name: 'a session after 1 MB of blank lines',
    fileName: 'late.jsonl',
    what: 'a million newlines, then a Claude Code session',
    bytes: () => new Uint8Array([...new Uint8Array(1_000_000).fill(10), ...claudeSession()]),
    expect: { kind: 'import', format: 'claude-code' },
    roundtrip: true,
  });
  add({
    name: 'Codex lines inside a Claude Code session',
    fileName: 'mixed.jsonl',
    what: 'a Claude Code session followed by three Codex rollout lines',
    bytes: () => enc(new TextDecoder().decode(claudeSession()).replace(/\n?$/, '\n') + [1, 2, 3].map((i) => JSON.stringify({ timestamp: 't', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: `codex ${i}` }] } })).join('\n') + '\n'),
    expect: { kind: 'import', format: 'claude-code', warnings: ['skipped:foreign-lines'] },
    roundtrip: true,
  });
  return cases;
}
