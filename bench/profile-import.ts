/**
 * Profile helper: importBytes of real Claude Code sessions concatenated (bench/import.ts) vs
 * decode + JSON.parse of the same lines, CPU ms best of 3.  npx tsx bench/profile-import.ts [MB]
 */
import { importBytes } from '../lib/formats/import';
import { makeLargeClaudeCodeFile } from './import';

const mb = Number(process.argv[2] ?? 20);
const bytes = makeLargeClaudeCodeFile(mb * 1024 * 1024);
const cpu = (fn: () => unknown) => {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const c0 = process.cpuUsage();
    fn();
    const c = process.cpuUsage(c0);
    best = Math.min(best, (c.user + c.system) / 1000);
  }
  return best;
};
const parse = cpu(() => {
  const text = new TextDecoder().decode(bytes);
  for (const line of text.split('\n')) if (line) JSON.parse(line);
});
const imp = cpu(() => importBytes('big.jsonl', bytes));
console.log(`${(bytes.length / 1024 / 1024).toFixed(0)} MB: decode + JSON.parse ${parse.toFixed(0)} ms, importBytes ${imp.toFixed(0)} ms, ratio ${(imp / parse).toFixed(2)}×`);
