/**
 * `contextscope census [--json] [DIR…]`: every compaction the agents made, across sessions, per
 * agent — how many, the median after/before ratio, the median survival of each category, the cache
 * writes they caused (lib/ledger/census.ts). Sessions are found where the agents keep them
 * (lib/sessions: Claude Code, Codex, Gemini CLI; HOME, CLAUDE_CONFIG_DIR, CODEX_HOME,
 * GEMINI_CLI_HOME honoured) — or, when folders are named, in those folders only. A progress bar on
 * stderr (a line per tenth when stderr is not a terminal); the table (or --json) on stdout.
 */
import { firstNonFolder } from './_files';
import fs from 'node:fs';
import path from 'node:path';
import { listSessions } from '../sessions/list';
import { isInside, resolveStores } from '../sessions/stores';
import { censusInputOf, renderCensus, runCensus, type CensusInput, type CensusProgress } from '../ledger/census';

export const summary = 'Every compaction across the sessions on this machine (or in DIR…), per agent: count, median after/before, survival by category, cache writes';

const USAGE = 'Usage: contextscope census [--json] [DIR…]';

/** A progress bar: redrawn in place on a terminal, else one line per tenth. */
export function progressWriter(stream: NodeJS.WriteStream | { write(s: string): unknown; isTTY?: boolean }): (p: CensusProgress) => void {
  let lastTenth = -1;
  return (p) => {
    const frac = p.total ? p.done / p.total : 1;
    const width = 30;
    const full = Math.round(frac * width);
    const bar = `census [${'#'.repeat(full)}${'.'.repeat(width - full)}] ${p.done}/${p.total} sessions, ${p.parsed} with compactions parsed`;
    if (stream.isTTY) {
      stream.write(`\r${bar}${p.done === p.total ? '\n' : ''}`);
      return;
    }
    const tenth = Math.floor(frac * 10);
    if (tenth !== lastTenth || p.done === p.total) {
      lastTenth = tenth;
      stream.write(bar + '\n');
    }
  };
}

export async function run(args: string[]): Promise<number> {
  let asJson = false;
  const dirs: string[] = [];
  for (const a of args) {
    if (a === '--help' || a === '-h') {
      process.stdout.write(`${USAGE}\n${summary}\n`);
      return 0;
    }
    if (a === '--json') asJson = true;
    else if (a.startsWith('-')) {
      process.stderr.write(`Unknown option ${a}.\n${USAGE}\n`);
      return 2;
    } else dirs.push(path.resolve(a));
  }
  const notFolder = firstNonFolder(dirs);
  if (notFolder !== undefined) {
    process.stderr.write(`census: "${notFolder}" is not a folder.
`);
    return 2;
  }
  const list = listSessions(resolveStores(process.env, dirs));
  // Named folders: their sessions only (not the agents' stores as well).
  const entries = dirs.length ? list.sessions.filter((s) => dirs.some((d) => s.path === d || isInside(d, s.path))) : list.sessions;
  const inputs: CensusInput[] = entries.map((s) => ({ ...censusInputOf(s), read: () => new Uint8Array(fs.readFileSync(s.path)) }));
  const census = runCensus(inputs, progressWriter(process.stderr));
  for (const s of [...(list.skipped ?? []), ...census.skipped]) process.stderr.write(`skipped ${s.path}: ${s.reason}\n`);
  process.stdout.write((asJson ? JSON.stringify(census, null, 2) : renderCensus(census)) + '\n');
  return 0;
}
