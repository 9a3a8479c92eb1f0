/**
 * Byte-identity check for replay speed work (issue 31): writes JSON.stringify(simulate(log,
 * REPLAY_POLICIES)) of every corpus file and of generated 300- and 1,000-turn Claude Code sessions
 * to a directory, one file each, so two runs (before / after a change) can be compared with
 * `diff -r` (or `--compare dir` prints the files that differ).
 *
 *   npx tsx scripts/replay-json.ts OUT_DIR [--compare BEFORE_DIR]
 */
import fs from 'node:fs';
import path from 'node:path';
import { importBytes } from '../lib/formats/import';
import { simulate } from '../lib/simulate/calls';
import { REPLAY_POLICIES } from '../lib/simulate/policies/replay';
import { makeClaudeCodeSession } from '../bench/generate';

const out = process.argv[2];
const ci = process.argv.indexOf('--compare');
const against = ci > 0 ? process.argv[ci + 1] : undefined;
fs.mkdirSync(out, { recursive: true });
const corpus = path.resolve(process.cwd(), '../shared/corpus');
const files: string[] = [];
const walk = (d: string) => {
  for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const p = path.join(d, e.name);
    if (e.isDirectory()) walk(p);
    else if (!e.name.endsWith('.md')) files.push(p);
  }
};
walk(corpus);
const inputs: Array<[string, () => Uint8Array]> = [
  ...files.map((f) => [path.relative(corpus, f).replace(/\//g, '__'), () => new Uint8Array(fs.readFileSync(f))] as [string, () => Uint8Array]),
  ...[300, 1000].map((n) => [`generated-${n}.jsonl`, () => new TextEncoder().encode(makeClaudeCodeSession(n))] as [string, () => Uint8Array]),
];
let differ = 0;
let n = 0;
for (const [name, bytes] of inputs) {
  let json: string;
  try {
    const t = importBytes(name, bytes()).transcript;
    json = JSON.stringify(simulate(t, REPLAY_POLICIES));
  } catch (e) {
    json = `ERROR ${(e as Error).message}`;
  }
  n++;
  fs.writeFileSync(path.join(out, `${name}.json`), json);
  if (against) {
    const prev = fs.existsSync(path.join(against, `${name}.json`)) ? fs.readFileSync(path.join(against, `${name}.json`), 'utf8') : undefined;
    if (prev !== json) {
      differ++;
      console.log(`DIFFERS ${name}`);
    }
  }
}
console.log(`${n} files written to ${out}${against ? `; ${differ} differ from ${against}` : ''}`);
