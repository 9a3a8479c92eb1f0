/**
 * `npm run -s cli -- simulate FILE [--policy ID]… [--model M] [--cache-ttl 5m|1h] [--json|--csv] [--conversation K]`
 * Replay the session call by call under each policy (lib/simulate/calls.ts): what every call
 * would have sent, billed with prompt caching, and what each policy would have forgotten.
 * Exit codes: 0 success, 2 bad input.
 */
import fs from 'node:fs';
import path from 'node:path';
import { userMessage } from '../errors';
import { importFile } from '../formats/import';
import { readSource } from './_files';
import { simulate, type Simulation } from '../simulate/calls';
import { REPLAY_POLICIES, replayPolicyById } from '../simulate/policies/replay';
import { recordedError, REPLAY_COLUMNS, replayCsv, replayRows } from '../simulate/table';

export const summary = 'Replay the session call by call under each compaction policy: cost with prompt caching, peak context, what each forgot';

const USAGE = `Usage: npm run -s cli -- simulate FILE [--policy ID]… [--model M] [--cache-ttl 5m|1h] [--json | --csv] [--conversation K]
Policies (default: all): ${REPLAY_POLICIES.map((p) => p.id).join(', ')}
--cache-ttl: Anthropic's cache lives 5 min (default) or 1 h (written at 2× the input price);
OpenAI's up to an hour (default 1h, the documented longest; 5m the shortest), scaled by the
session's recorded hit share.
Exit codes: 0 success, 2 bad input.`;

interface SimulateArgs {
  file?: string;
  policies: string[];
  model?: string;
  cacheTtl?: '5m' | '1h';
  json: boolean;
  csv: boolean;
  conversation?: number;
  help: boolean;
}

export function parseSimulateArgs(args: string[]): SimulateArgs {
  const out: SimulateArgs = { policies: [], json: false, csv: false, help: false };
  const value = (i: number, name: string) => {
    const v = args[i];
    if (v === undefined || v.startsWith('--')) throw new Error(`${name} needs a value.`);
    return v;
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--help' || a === '-h') out.help = true;
    else if (a === '--json') out.json = true;
    else if (a === '--csv') out.csv = true;
    else if (a === '--policy') out.policies.push(...value(++i, '--policy').split(','));
    else if (a === '--model') out.model = value(++i, '--model');
    else if (a === '--cache-ttl') {
      const v = value(++i, '--cache-ttl');
      if (v !== '5m' && v !== '1h') throw new Error(`--cache-ttl takes 5m or 1h (got "${v}").`);
      out.cacheTtl = v;
    } else if (a === '--conversation') out.conversation = Number(value(++i, '--conversation'));
    else if (a.startsWith('-')) throw new Error(`Unknown option ${a}.`);
    else if (out.file === undefined) out.file = a;
    else throw new Error(`Only one FILE can be simulated (got "${out.file}" and "${a}").`);
  }
  for (const p of out.policies) if (!replayPolicyById(p)) throw new Error(`Unknown policy "${p}". Policies: ${REPLAY_POLICIES.map((x) => x.id).join(', ')}.`);
  if (out.json && out.csv) throw new Error('--json and --csv cannot be combined.');
  if (out.conversation !== undefined && (!Number.isInteger(out.conversation) || out.conversation < 0)) throw new Error('--conversation takes a number from 0.');
  return out;
}

const fmt = (n: number) => n.toLocaleString('en-US');

export function renderSimulation(sim: Simulation): string {
  const rows = replayRows(sim);
  const cells = rows.map((r) => REPLAY_COLUMNS.map((c) => (c.key === 'usd' || c.key === 'compactionUsd' ? (r[c.key] as number).toFixed(4) : typeof r[c.key] === 'number' ? fmt(r[c.key] as number) : String(r[c.key]))));
  const head = REPLAY_COLUMNS.map((c) => c.label);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((row) => row[i].length)));
  const line = (row: string[]) => row.map((v, i) => (i === 0 ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join('  ');
  const m = sim.model;
  const out = [
    `model ${m.label ?? m.id ?? 'unknown'}${m.assumed ? ' (not in the catalog: window assumed)' : ''}, window ${fmt(m.contextWindow)}, cache ${sim.cache.provider}${sim.cache.provider !== 'none' ? ` (TTL ${sim.cache.ttlMs / 60_000} min, min ${fmt(sim.cache.minTokens)} tokens)` : ''}${m.priced ? '' : ', no price: costs are 0'}`,
    `calibration ×${sim.calibration.factor.toFixed(2)}, invisible overhead ${fmt(sim.calibration.overhead)} tokens${sim.calibration.fromUsage ? ' (from recorded usage)' : ' (no recorded usage: estimates)'}`,
  ];
  const err = recordedError(sim);
  const pct = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)} %`;
  if (sim.recorded && err !== undefined)
    out.push(
      `recorded bill $${sim.recorded.usd.toFixed(4)}; the "as recorded" replay bills $${(sim.recorded.usd * (1 + err)).toFixed(4)} (${pct(err)})` +
        (sim.cacheFit && sim.cacheFit.hitScale !== 1 ? `; cache hits scaled ×${sim.cacheFit.hitScale.toFixed(2)} to the hits recorded (the cache model alone: ${pct(sim.cacheFit.rawError)})` : ''),
    );
  out.push('', line(head), ...cells.map(line));
  for (const r of sim.results) if (r.note) out.push(`  ${r.label}: ${r.note}`);
  for (const w of sim.warnings) out.push(`warning: ${w}`);
  return out.join('\n');
}

export async function run(args: string[]): Promise<number> {
  let parsed: SimulateArgs;
  try {
    parsed = parseSimulateArgs(args);
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (parsed.help || !parsed.file) {
    (parsed.help ? process.stdout : process.stderr).write(USAGE + '\n');
    return parsed.help ? 0 : 2;
  }
  const file = parsed.file;
  try {
    const source = readSource(file);
    const { transcript } = importFile(source, { ...(parsed.conversation !== undefined && { conversation: parsed.conversation }) });
    const policies = parsed.policies.length ? parsed.policies.map((p) => replayPolicyById(p)!) : REPLAY_POLICIES;
    const sim = simulate(transcript, policies, { ...(parsed.model && { model: parsed.model }), ...(parsed.cacheTtl && { cacheTtl: parsed.cacheTtl }) });
    if (parsed.json) {
      const err = recordedError(sim);
      process.stdout.write(JSON.stringify({ file, model: sim.model, cache: sim.cache, cacheFit: sim.cacheFit ?? null, calibration: sim.calibration, recorded: sim.recorded ?? null, recordedError: err ?? null, warnings: sim.warnings, rows: replayRows(sim), results: sim.results }, null, 2) + '\n');
    } else if (parsed.csv) process.stdout.write(replayCsv(replayRows(sim)));
    else process.stdout.write(renderSimulation(sim) + '\n');
    return 0;
  } catch (e) {
    process.stderr.write(userMessage(e) + '\n');
    return 2;
  }
}
