/**
 * Fingerprints of the preview path (issue 31, session 14): for generated Claude Code sessions
 * (400, 1k, 3k turns) and every corpus transcript, under Auto at several targets and ranges,
 * summarize, emergency and others, one line per projection with a hash of summarizePreview's
 * answer, of the projected messages, the fates, the report and the export's text. Run it on two
 * trees and diff the files: a speed-up must leave every line as it was.
 *
 *   npx tsx bench/preview-fingerprints.ts out.tsv
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { importBytes } from '../lib/formats/import';
import { formatById } from '../lib/formats/registry';
import { projectTranscript } from '../lib/compaction/project';
import { summarizePreview } from '../lib/engine/preview';
import { defaultPlan, planToDraft } from '../components/plan/plan';
import { makeClaudeCodeSession } from './generate';
import { importedCorpus } from '../tests/corpus';
import { step } from '../lib/compaction/testing/steps';
import type { Transcript } from '../lib/model/types';
const out = fs.createWriteStream(process.argv[2]);
const h = (s: string) => crypto.createHash('sha1').update(s).digest('hex');
// A Map (the preview's `changed`, session 16) as the object it was before, so the hashes compare across that change.
const ser = (v: unknown) => JSON.stringify(v, (_k, x) => (x instanceof Float64Array || x instanceof Float32Array || x instanceof Int32Array ? Array.from(x) : x instanceof Map ? Object.fromEntries(x) : x));
let n = 0;
function run(name: string, log: Transcript, steps: any[], sel: [number, number] | null, axis: 'turns' | 'calls' = 'turns') {
  const p = projectTranscript(log, steps);
  const s = summarizePreview(log, p, sel, axis);
  const fmt = formatById(log.format);
  let exp = '';
  try { exp = fmt ? h(fmt.serialize(log, p).text) : ''; } catch (e) { exp = 'err:' + String(e).slice(0, 80); }
  out.write(`${name}\t${h(ser(s))}\t${h(ser(p.messages))}\t${h(ser(p.fates))}\t${h(ser(p.report))}\t${exp}\n`);
  n++;
}
function autoStep(log: Transcript, sel: [number, number], frac: number, axis: 'turns' | 'calls' = 'turns') {
  const context = projectTranscript(log, []).tokens.after.total;
  return { ...planToDraft({ ...defaultPlan(context), targetBudget: Math.max(1, Math.round(context * frac)) }, 's-cmp', sel, undefined, axis)!, createdAt: '2026-01-01T00:00:00.000Z' };
}
for (const turns of [400, 1000, 3000]) {
  const log = importBytes(`cc-${turns}.jsonl`, new TextEncoder().encode(makeClaudeCodeSession(turns))).transcript;
  const N = log.turnCount;
  for (const [a, b] of [[0.1, 0.4], [0.5, 0.8], [0, 0.9]]) {
    const sel: [number, number] = [Math.floor(N * a), Math.floor(N * b)];
    for (const frac of [0.5, 0.2, 0.9]) run(`gen${turns} ${sel} ${frac}`, log, [autoStep(log, sel, frac)], sel);
  }
  run(`gen${turns} emergency`, log, [step([{ id: 'emergency', options: { keepN: 2 } }], { keepLast: 1 })], null);
  run(`gen${turns} emergency-budget`, log, [step([{ id: 'emergency', options: { keepN: 2, untilFits: true } }], { keepLast: 1, budget: 20000 })], null);
  run(`gen${turns} summarize`, log, [step(['summarize'], { keepLast: 1 })], null);
}
for (const { name, log } of importedCorpus()) {
  const N = log.turnCount;
  let total = 0;
  for (const m of log.messages) for (const b of m.blocks) total += b.tokens;
  const sel: [number, number] = [0, Math.max(0, N - 2)];
  for (const frac of [0.5, 0.25, 0.1]) run(`${name} auto ${frac}`, log, [autoStep(log, sel, frac)], sel);
  run(`${name} summarize`, log, [step(['summarize'], { keepLast: 1 })], null);
  run(`${name} emergency`, log, [step([{ id: 'emergency', options: { keepN: 2 } }], { keepLast: 1 })], null);
  run(`${name} auto-quarter`, log, [step(['auto'], { keepLast: 1, budget: Math.max(1, Math.floor(total / 4)) })], null);
  run(`${name} auto-half-mid`, log, [step(['auto'], { keepLast: 1, budget: Math.max(1, Math.floor(total / 2)), range: { kind: 'turns', from: Math.floor(N / 4), to: Math.floor(N / 2) } })], [Math.floor(N / 4), Math.floor(N / 2)]);
  run(`${name} summarize-narrow`, log, [step([{ id: 'summarize', options: { sizeFraction: 0.05 } }], { keepLast: 1 })], null);
  run(`${name} summarize-cc`, log, [step([{ id: 'summarize', options: { style: 'claude-code', sizeFraction: 0.1 } }], { keepLast: 1 })], null);
}
out.end();
console.error(`${n} previews`);
