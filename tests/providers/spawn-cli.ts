import { spawn } from 'node:child_process';
import path from 'node:path';
import { CLI_ENTRY } from '../cli-entry';

/** The real CLI entry point (the built bundle, tests/cli-entry.ts) in a child process, with extra environment. */
export function spawnCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [CLI_ENTRY, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out, err })));
}
