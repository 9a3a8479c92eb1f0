/**
 * Growth: import → compact (auto, budget 25 %) → serialize → re-import check, the path of
 * `cli compact`, for every format we can generate at 1k and 10k turns, printing the growth ratio
 * 10k / 1k. Linear ≈ 10×; a quadratic path shows as ≈ 100×. Limit: ≤ 20× (noise and GC).
 *
 * Inputs: a generated Claude Code session (bench/generate.ts), and the same conversation written
 * in every format that can be written from canonical messages (lib/formats/convert.ts targets).
 * Times are CPU milliseconds of this process (process.cpuUsage), so a neighbour's load on the
 * shared machine does not count; each size is run once (the 10k run dominates the ratio).
 */
import { importBytes } from '../lib/formats/import';
import { conversionTargets, convertTranscript } from '../lib/formats/convert';
import { compactTranscript, parseCompactArgs, stepFromArgs } from '../lib/cli/compact';
import { transcriptTotals } from '../lib/tokens/totals';
import { makeClaudeCodeSession } from './generate';

export const GROWTH_LIMIT = 20;

function cpu<T>(fn: () => T): { ms: number; value: T } {
  const c0 = process.cpuUsage();
  const value = fn();
  const c = process.cpuUsage(c0);
  return { ms: (c.user + c.system) / 1000, value };
}

interface Case {
  format: string;
  name: string;
  bytes: Uint8Array;
}

function cases(turns: number): Case[] {
  const text = makeClaudeCodeSession(turns);
  const bytes = new TextEncoder().encode(text);
  const out: Case[] = [{ format: 'claude-code', name: 'session.jsonl', bytes }];
  const t = importBytes('session.jsonl', bytes).transcript;
  for (const target of conversionTargets()) {
    if (target.id === 'claude-code') continue;
    const c = convertTranscript(t, target.id);
    out.push({ format: target.id, name: c.fileName, bytes: new TextEncoder().encode(c.text) });
  }
  return out;
}

export interface GrowthRow {
  format: string;
  turns: number;
  importMs: number;
  compactMs: number;
  totalMs: number;
}

export function measure(c: Case, turns: number): GrowthRow {
  const imp = cpu(() => importBytes(c.name, c.bytes).transcript);
  const t = imp.value;
  const budget = Math.max(1, Math.floor(transcriptTotals(t).total / 4));
  const step = stepFromArgs(parseCompactArgs([c.name, '--budget', String(budget)]), undefined, budget);
  const compact = cpu(() => compactTranscript(t, step, budget, { write: true }));
  return { format: c.format, turns, importMs: imp.ms, compactMs: compact.ms, totalMs: imp.ms + compact.ms };
}

export async function runGrowthBench(sizes: [number, number] = [1_000, 10_000]): Promise<Array<{ format: string; small: GrowthRow; large: GrowthRow; ratio: number }>> {
  const [a, b] = sizes;
  console.log(`\n## Growth: import → compact → serialize → re-import, ${a} vs ${b} turns (CPU ms; linear ≈ ${b / a}×, limit ≤ ${GROWTH_LIMIT}×)`);
  const small = cases(a);
  const large = cases(b);
  // Warm-up: JIT the whole path once so the 1k figure is not mostly compilation.
  for (const c of small) measure(c, a);
  const rows = [];
  const k = (n: number) => (n >= 1000 && n % 1000 === 0 ? `${n / 1000}k` : String(n));
  console.log(`${'format'.padEnd(20)} ${`import ${k(a)}`.padStart(11)} ${`compact ${k(a)}`.padStart(12)} ${`import ${k(b)}`.padStart(11)} ${`compact ${k(b)}`.padStart(12)} ${'growth'.padStart(7)}  verdict`);
  for (let i = 0; i < small.length; i++) {
    const s = measure(small[i], a);
    const l = measure(large[i], b);
    const ratio = l.totalMs / s.totalMs;
    rows.push({ format: s.format, small: s, large: l, ratio });
    console.log(
      `${s.format.padEnd(20)} ${s.importMs.toFixed(0).padStart(11)} ${s.compactMs.toFixed(0).padStart(12)} ${l.importMs.toFixed(0).padStart(11)} ${l.compactMs.toFixed(0).padStart(12)} ${ratio.toFixed(1).padStart(6)}×  ${ratio <= GROWTH_LIMIT ? 'linear' : 'SUPERLINEAR'}`,
    );
  }
  return rows;
}
