/**
 * A very long, deterministic OpenAI Chat transcript for the long-transcript e2e test and for
 * profiling: `turns` user turns of small messages, every fourth turn with a tool call and its result.
 *
 *   npx tsx scripts/make-long-transcript.ts [--turns 100000] [--out /tmp/long.json]
 *
 * Written as a request object `{model, tools, messages}` (one JSON document), one message per line
 * so the file stays greppable. Same arguments → same bytes (no clock, no randomness beyond a seeded
 * LCG), so a failure can be replayed with the exact file.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface LongTranscriptOptions {
  turns: number;
  /** Every `toolEvery`-th turn the assistant calls a tool before answering. */
  toolEvery?: number;
  /** Every `longResultEvery`-th tool result is a long file (LONG_RESULT_LINES lines: collapsed in the list). */
  longResultEvery?: number;
}

export const LONG_RESULT_LINES = 80;

const WORDS = ['parser', 'cache', 'window', 'budget', 'turn', 'token', 'worker', 'index', 'stream', 'record', 'schema', 'buffer', 'render', 'canvas', 'query', 'import'];

/** Small deterministic PRNG (LCG): the content varies without depending on Math.random. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s;
  };
}

/** The transcript as text. Turn i (1-based) asks about item i, so each turn is recognisable. */
export function makeLongTranscript({ turns, toolEvery = 4, longResultEvery = 0 }: LongTranscriptOptions): string {
  const next = lcg(0xc0ffee);
  const word = () => WORDS[next() % WORDS.length];
  const lines: string[] = [JSON.stringify({ role: 'system', content: 'You are a terse assistant working on a synthetic long session.' })];
  for (let i = 1; i <= turns; i++) {
    lines.push(JSON.stringify({ role: 'user', content: `Turn ${i}: check the ${word()} ${word()} of item ${i}.` }));
    if (i % toolEvery === 0) {
      const callId = `call_${i.toString(36)}`;
      lines.push(
        JSON.stringify({
          role: 'assistant',
          content: null,
          tool_calls: [{ id: callId, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: `src/${word()}/item_${i}.ts` }) } }],
        }),
      );
      const long = longResultEvery > 0 && (i / toolEvery) % longResultEvery === 0;
      const content = long
        ? Array.from({ length: LONG_RESULT_LINES }, (_, k) => `export const item${i}_${k + 1} = '${word()}'; // line ${k + 1} of item ${i}`).join('\n')
        : `export const item${i} = '${word()}'; // ${word()} ${word()}`;
      lines.push(JSON.stringify({ role: 'tool', tool_call_id: callId, content }));
    }
    lines.push(JSON.stringify({ role: 'assistant', content: `Item ${i}: the ${word()} is fine.` }));
  }
  const tools = [
    {
      type: 'function',
      function: { name: 'read_file', description: 'Read a file of the workspace.', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
    },
  ];
  return `{\n"model": "gpt-4o-mini",\n"tools": ${JSON.stringify(tools)},\n"messages": [\n${lines.join(',\n')}\n]\n}\n`;
}

/** Write the transcript into `dir` (default: the OS temp dir) and return its path. */
export function writeLongTranscript(options: LongTranscriptOptions, dir = os.tmpdir()): string {
  const file = path.join(dir, `contextscope-long-${options.turns}${options.longResultEvery ? `-long${options.longResultEvery}` : ''}.json`);
  fs.writeFileSync(file, makeLongTranscript(options));
  return file;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const arg = (name: string) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const turns = Number(arg('turns') ?? 100_000);
  const out = arg('out');
  const text = makeLongTranscript({ turns });
  const file = out ?? path.join(os.tmpdir(), `contextscope-long-${turns}.json`);
  fs.writeFileSync(file, text);
  process.stdout.write(`${file}\n${turns} turns, ${text.length} bytes\n`);
}
