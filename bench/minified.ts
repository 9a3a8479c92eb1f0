/**
 * A minified (one-line) JSON document next to the same document pretty-printed: an OpenAI Chat
 * request of a coding-agent run (one prompt per turn, a tool call, its result, an answer) at 1k
 * and 10k turns. Columns: import time of each, the minified/pretty ratio (≈ 1×), and the growth
 * from 1k to 10k turns (linear ≈ 10×). A path that is quadratic in the length of one line (issue
 * #16: line numbers counted from the start of the text for every record) shows up here as a
 * growth of ~100× and a ratio far above 1.
 * `npm run bench -- minified`, or `npx tsx bench/minified.ts [FILE-PREFIX]` to also write the
 * 10k-turn files (FILE-PREFIX.min.json, FILE-PREFIX.pretty.json) for `cli inspect`.
 */
import fs from 'node:fs';
import { importBytes } from '../lib/formats/import';

const TOOLS = ['read_file', 'run_tests', 'grep', 'edit_file'];

/** An OpenAI Chat Completions request body with `turns` agent turns. */
export function makeChatRequest(turns: number): { model: string; messages: unknown[] } {
  const messages: unknown[] = [{ role: 'system', content: 'You are a coding agent working in a TypeScript repo.' }];
  for (let i = 0; i < turns; i++) {
    const file = `src/mod${i % 97}/file${i % 31}.ts`;
    const name = TOOLS[i % TOOLS.length];
    const id = `call_${i.toString(36)}`;
    const args = name === 'run_tests' ? { command: `npm test -- ${file}` } : name === 'edit_file' ? { path: file, old: `v${i % 7}`, new: `w${i % 7}` } : { path: file };
    const output =
      name === 'run_tests'
        ? `> npm test -- ${file}\n${Array.from({ length: 8 }, (_, k) => `  ✓ case ${k} (${(i * 7 + k) % 90} ms)`).join('\n')}\n${i % 5 === 0 ? `Error: expected ${i} to equal ${i + 1}` : 'all passed'}`
        : Array.from({ length: 10 }, (_, k) => `${k + 1}\texport const v${k} = ${i * k}; // ${file}`).join('\n');
    messages.push(
      { role: 'user', content: `Step ${i}: look at ${file} and fix the failing test` },
      { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] },
      { role: 'tool', tool_call_id: id, content: output },
      { role: 'assistant', content: `Done with ${file}.` },
    );
  }
  return { model: 'gpt-4o', messages };
}

export function minifiedAndPretty(turns: number): { minified: Uint8Array; pretty: Uint8Array } {
  const req = makeChatRequest(turns);
  const enc = new TextEncoder();
  return { minified: enc.encode(JSON.stringify(req)), pretty: enc.encode(JSON.stringify(req, null, 2) + '\n') };
}

function bestMs(n: number, fn: () => unknown): number {
  let best = Infinity;
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    fn();
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

export interface MinifiedRow {
  turns: number;
  minifiedMs: number;
  prettyMs: number;
}

export async function runMinifiedBench(sizes: number[] = [1_000, 10_000]): Promise<MinifiedRow[]> {
  console.log('\n## Minified JSON document (OpenAI Chat request, one line) vs the same pretty-printed');
  console.log(`${'turns'.padStart(7)} ${'minified'.padStart(10)} ${'pretty'.padStart(10)} ${'min/pretty'.padStart(11)} ${'growth (min)'.padStart(13)}`);
  const rows: MinifiedRow[] = [];
  for (const turns of sizes) {
    const { minified, pretty } = minifiedAndPretty(turns);
    // Warm once (JIT), then best of 2 for each.
    importBytes('warm.json', minified);
    const minifiedMs = bestMs(2, () => importBytes('request.min.json', minified));
    const prettyMs = bestMs(2, () => importBytes('request.json', pretty));
    const prev = rows[rows.length - 1];
    rows.push({ turns, minifiedMs, prettyMs });
    const growth = prev ? `${(minifiedMs / prev.minifiedMs).toFixed(1)}× / ${turns / prev.turns}×` : '';
    console.log(`${turns.toLocaleString('en-US').padStart(7)} ${minifiedMs.toFixed(0).padStart(7)} ms ${prettyMs.toFixed(0).padStart(7)} ms ${(minifiedMs / prettyMs).toFixed(2).padStart(10)}× ${growth.padStart(13)}`);
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const prefix = process.argv[2];
  if (prefix) {
    const { minified, pretty } = minifiedAndPretty(10_000);
    fs.writeFileSync(`${prefix}.min.json`, minified);
    fs.writeFileSync(`${prefix}.pretty.json`, pretty);
    console.log(`wrote ${prefix}.min.json (${minified.length} bytes) and ${prefix}.pretty.json (${pretty.length} bytes)`);
  } else {
    runMinifiedBench().catch((e) => {
      console.error(e);
      process.exit(1);
    });
  }
}
