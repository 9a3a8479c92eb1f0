/**
 * Generated Claude Code sessions of any size, for the growth and CLI benches (and the CLI batch
 * tests): `turns` turns of a coding agent — a user prompt naming a file, an assistant line with a
 * tool_use (Read / Bash / Grep / Edit), the user line with its tool_result (and toolUseResult), an
 * assistant answer — with usage on every assistant line, so 4 messages per turn. Deterministic:
 * same arguments → same bytes (ids are counters, the clock is fixed).
 *
 *   npx tsx bench/generate.ts --turns 10000 --out /tmp/cc-10k.jsonl
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const TOOLS = ['Read', 'Bash', 'Grep', 'Edit'];
const hex = (n: number, width: number) => (n >>> 0).toString(16).padStart(width, '0').slice(-width);
const uuidOf = (i: number, salt: number) => `${hex(i * 2654435761 + salt, 8)}-${hex(i, 4)}-4${hex(salt, 3)}-8${hex(i >>> 16, 3)}-${hex(i, 12)}`;

export function makeClaudeCodeSession(turns: number, opts: { session?: number } = {}): string {
  const session = opts.session ?? 0;
  const sessionId = uuidOf(session, 0xabc);
  const env = { isSidechain: false, userType: 'external', cwd: '/home/dev/src/app', sessionId, version: '2.0.65', gitBranch: 'main' };
  const lines: string[] = [];
  let parent: string | null = null;
  let n = 0;
  let clock = Date.parse('2026-03-02T09:00:00.000Z');
  let context = 15000;
  const push = (v: Record<string, unknown>) => {
    const uuid = uuidOf(++n, session);
    clock += 1500;
    lines.push(JSON.stringify({ parentUuid: parent, ...env, ...v, uuid, timestamp: new Date(clock).toISOString() }));
    parent = uuid;
  };
  const usage = (out: number) => {
    const u = { input_tokens: 3, cache_creation_input_tokens: 400, cache_read_input_tokens: context, output_tokens: out, service_tier: 'standard' };
    context += 400;
    return u;
  };
  for (let i = 0; i < turns; i++) {
    const file = `src/mod${i % 97}/file${i % 31}.ts`;
    const name = TOOLS[i % TOOLS.length];
    const callId = `toolu_${session}_${i.toString(36).padStart(8, '0')}`;
    const output =
      name === 'Bash'
        ? `> npm test -- ${file}\n${Array.from({ length: 12 }, (_, k) => `  ✓ case ${k} (${(i * 7 + k) % 90} ms)`).join('\n')}\n${i % 5 === 0 ? `Error: expected ${i} to equal ${i + 1} at ${file}:${i % 200}` : 'all passed'}`
        : Array.from({ length: 16 }, (_, k) => `${k + 1}\texport const v${k} = ${i * k}; // ${file}`).join('\n');
    const input = name === 'Bash' ? { command: `npm test -- ${file}`, description: 'Run the tests' } : name === 'Edit' ? { file_path: file, old_string: `v${i % 7}`, new_string: `w${i % 7}` } : name === 'Grep' ? { pattern: `v${i % 7}`, path: file } : { file_path: file };
    push({ type: 'user', message: { role: 'user', content: `Step ${i}: look at ${file} and fix the failing test` } });
    const msgId = `msg_${session}_${i.toString(36).padStart(8, '0')}`;
    push({
      type: 'assistant',
      message: { model: 'claude-sonnet-4-5-20250929', id: msgId, type: 'message', role: 'assistant', content: [{ type: 'tool_use', id: callId, name, input }], stop_reason: 'tool_use', stop_sequence: null, usage: usage(40) },
      requestId: `req_${session}_${i}`,
    });
    push({ type: 'user', message: { role: 'user', content: [{ tool_use_id: callId, type: 'tool_result', content: output }] }, toolUseResult: { stdout: output, stderr: '', interrupted: false } });
    push({
      type: 'assistant',
      message: { model: 'claude-sonnet-4-5-20250929', id: `${msgId}b`, type: 'message', role: 'assistant', content: [{ type: 'text', text: `Done with ${file}.` }], stop_reason: 'end_turn', stop_sequence: null, usage: usage(12) },
      requestId: `req_${session}_${i}b`,
    });
  }
  return lines.join('\n') + '\n';
}

/** An OpenAI Chat request with `tools` function schemas and a short coding conversation. */
export function makeManyToolsRequest(tools: number): string {
  const schemas = Array.from({ length: tools }, (_, i) => ({
    type: 'function',
    function: {
      name: `tool_${i}`,
      description: `Tool number ${i}: reads the resource ${i} of the project and returns its contents as text, with line numbers and the git blame of each line.`,
      parameters: { type: 'object', properties: { path: { type: 'string', description: `The path of resource ${i}` }, limit: { type: 'integer', description: 'Lines to read' } }, required: ['path'] },
    },
  }));
  const messages = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Read src/a.ts with tool_7 and tell me what it exports.' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'tool_7', arguments: '{"path":"src/a.ts"}' } }] },
    { role: 'tool', tool_call_id: 'call_1', content: 'export const a = 1;' },
    { role: 'assistant', content: 'It exports `a`.' },
  ];
  return JSON.stringify({ model: 'gpt-4o', tools: schemas, messages });
}

if (process.argv[1]?.endsWith("generate.ts") && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const get = (k: string) => {
    const i = args.indexOf(k);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const out = get('--out');
  const tools = get('--tools');
  const text = tools ? makeManyToolsRequest(Number(tools)) : makeClaudeCodeSession(Number(get('--turns') ?? 1000));
  if (out) fs.writeFileSync(out, text);
  else process.stdout.write(text);
}

/**
 * An OpenAI Chat request (model gpt-4o: exact o200k counts) of at least `minChars` characters of
 * message text, made of the real codex and tau-bench texts of the corpus, each copy numbered so
 * that no two texts are the same (the tokenizer pool counts distinct texts).
 */
export function makeLargeOpenAiRequest(sourceTexts: readonly string[], minChars: number): string {
  const messages: Array<{ role: string; content: string }> = [{ role: 'system', content: 'You are a coding agent.' }];
  let chars = 0;
  for (let i = 0; chars < minChars; i++) {
    const content = `${sourceTexts[i % sourceTexts.length]} (#${i})`;
    messages.push({ role: i % 2 === 0 ? 'user' : 'assistant', content });
    chars += content.length;
  }
  return JSON.stringify({ model: 'gpt-4o', messages });
}
