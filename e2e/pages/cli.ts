import { execFileSync } from 'node:child_process';
import path from 'node:path';

/** What `npm run -s cli -- inspect FILE --json` says about a file: the truth the UI must show. */
export interface CliInspect {
  format: string;
  turns: number;
  messages: number;
  tokens: { total: number };
  /** The model's input the file leaves out, inferred from the first call's recorded usage. */
  overhead: { invisible: number } | null;
}

/** The repository root: Playwright and the scripts run from it (as e2e/fixtures.ts assumes). */
const root = process.cwd();

/**
 * Run the real CLI (tsx lib/cli/main.ts, the same code path as `npm run -s cli`) in a child
 * process, so the expectation is computed by the project's own inspect verb, not by the test.
 */
export function cliInspect(file: string, conversation?: number): CliInspect {
  const args = [path.join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), path.join(root, 'lib', 'cli', 'main.ts'), 'inspect', file, '--json'];
  if (conversation !== undefined) args.push('--conversation', String(conversation));
  const out = execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 60_000 });
  return JSON.parse(out) as CliInspect;
}

/** Tokens as the app prints them (components/ui/format.ts formatTokens: en-US thousands separators). */
export function tokensText(n: number): string {
  return new Intl.NumberFormat('en-US').format(Math.round(n));
}

/** One policy's row as `npm run -s cli -- simulate FILE --json` prints it (lib/simulate/table.ts). */
export interface CliReplayRow {
  policy: string;
  label: string;
  compactions: number;
  peakContext: number;
  callsOverWindow: number;
  usd: number;
  cacheHitPct: number;
  identifiersLost: number;
  userMessagesLost: number;
}

/** Run the real CLI's `simulate --json` on a file (same code path as `npm run -s cli`). */
export function cliSimulate(file: string, extra: string[] = []): { rows: CliReplayRow[]; recordedError: number | null } {
  const args = [path.join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), path.join(root, 'lib', 'cli', 'main.ts'), 'simulate', file, '--json', ...extra];
  const out = execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, timeout: 120_000 });
  return JSON.parse(out);
}
