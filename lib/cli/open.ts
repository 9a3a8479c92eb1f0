/**
 * `contextscope open [DIR…] [--port N] [--no-open] [--dir OUT]`: serves the app (out/) with the
 * local sessions API (lib/sessions/server.ts) on 127.0.0.1, prints
 * `http://127.0.0.1:PORT/#token=SECRET` and opens it in the browser (unless --no-open). The
 * secret is new at every run (CONTEXTSCOPE_TOKEN sets it, for tests). DIR… are folders whose
 * transcripts the library lists beside the agents' stores. Stops on Ctrl-C.
 */
import { firstNonFolder } from './_files';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveStores } from '../sessions/stores';
import { startServer } from '../sessions/server';

export const summary = 'Serve the app with the local sessions API on 127.0.0.1 and open it (lists your agents\' sessions without an upload)';

const USAGE = 'Usage: contextscope open [DIR…] [--port N] [--no-open] [--dir OUT]';

/** The repository's out/ (this file is lib/cli/open.ts from source, dist/cli/chunks/… when built). */
function defaultOut(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return path.join(dir, 'out');
    dir = path.dirname(dir);
  }
  return path.resolve('out');
}

function openBrowser(url: string): void {
  const cmd = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'cmd' : 'xdg-open';
  const args = process.platform === 'win32' ? ['/c', 'start', '', url] : [url];
  try {
    const child = spawn(cmd, args, { stdio: 'ignore', detached: true });
    child.on('error', () => process.stderr.write(`(could not start a browser: open the URL above)\n`));
    child.unref();
  } catch {
    process.stderr.write(`(could not start a browser: open the URL above)\n`);
  }
}

export async function run(args: string[]): Promise<number> {
  const envPort = process.env.PORT?.trim();
  let port = envPort ? Number(envPort) : 3000;
  let portGiven = Boolean(envPort);
  let open = true;
  let out: string | undefined;
  const dirs: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--help' || a === '-h') {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    if (a === '--port') {
      port = Number(args[++i]);
      portGiven = true;
      if (!Number.isInteger(port) || port < 0 || port > 65535) {
        process.stderr.write(`open: --port needs a port number (0 = a free one).\n`);
        return 2;
      }
    } else if (a === '--no-open') open = false;
    else if (a === '--dir') out = args[++i];
    else if (a.startsWith('--')) {
      process.stderr.write(`Unknown option ${a}.\n${USAGE}\n`);
      return 2;
    } else dirs.push(a);
  }
  const notFolder = firstNonFolder(dirs);
  if (notFolder !== undefined) {
    process.stderr.write(`open: "${notFolder}" is not a folder.
`);
    return 2;
  }
  const staticDir = path.resolve(out ?? defaultOut());
  const hasApp = fs.existsSync(path.join(staticDir, 'index.html'));
  if (!hasApp) process.stderr.write(`No app build in ${staticDir}: run \`npm run build\` first (the API answers meanwhile).\n`);
  const token = process.env.CONTEXTSCOPE_TOKEN;
  if (token !== undefined && token.length < 16) {
    process.stderr.write('open: CONTEXTSCOPE_TOKEN must be at least 16 characters.\n');
    return 2;
  }
  const s = await startServer({ stores: resolveStores(process.env, dirs.map((d) => path.resolve(d))), ...(hasApp && { staticDir }), ...(token && { token }), port, fallback: !portGiven });
  process.stdout.write(`Serving ${staticDir} with the sessions API at ${s.url}\n`);
  if (open) openBrowser(s.url);
  await new Promise<void>((resolve) => {
    for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => resolve());
  });
  await s.close();
  return 0;
}
