import { spawn } from 'node:child_process';
import path from 'node:path';

/** The real CLI entry point (tsx lib/cli/main.ts) in a child process, with extra environment. */
export function spawnCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [path.resolve('node_modules/tsx/dist/cli.mjs'), 'lib/cli/main.ts', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out, err })));
}
