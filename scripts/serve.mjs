#!/usr/bin/env node
/**
 * A tiny static server for the exported app in out/ (`next start` refuses `output: 'export'`).
 * Correct MIME types matter: module workers load only when .js is served as text/javascript.
 * `/inspect` → inspect.html (static export writes one file per route), unknown paths → 404.html.
 *
 * Usage: node scripts/serve.mjs [--port N] [--dir out]   (PORT env works too; 0 = a free port)
 * Prints "Serving out/ at http://127.0.0.1:PORT" once listening.
 *
 * With --api [DIR…]: the same server as `contextscope open --no-open` (lib/sessions/server.ts): the
 * app plus the local sessions API over the stores found from HOME (CLAUDE_CONFIG_DIR, CODEX_HOME,
 * GEMINI_CLI_HOME honoured) and the folders named; the per-run secret is CONTEXTSCOPE_TOKEN when
 * set (an e2e test opens http://127.0.0.1:PORT/#token=<it>), else random and printed.
 */
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);

if (args.includes('--api')) {
  // Delegate to the CLI's `open` verb (built from lib/ on demand by scripts/cli.mjs).
  const rest = args.filter((a) => a !== '--api');
  process.argv = [process.argv[0], process.argv[1], 'open', '--no-open', ...rest];
  await import('./cli.mjs');
} else {
  await serveStatic();
}

async function serveStatic() {
const arg = (name) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const root = path.resolve(arg('dir') ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'out'));
const port = Number(arg('port') ?? process.env.PORT ?? 3000);
const host = arg('host') ?? process.env.HOST ?? '127.0.0.1';

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.jsonl': 'application/jsonl; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
};

if (!fs.existsSync(path.join(root, 'index.html'))) {
  console.error(`No build in ${root}: run \`npm run build\` first.`);
  process.exit(1);
}

/** Map a URL path to a file inside root, or null. Never escapes root. */
function resolveFile(urlPath) {
  let p;
  try {
    p = decodeURIComponent(urlPath.split('?')[0]);
  } catch {
    return null;
  }
  const candidates = p.endsWith('/') ? [p + 'index.html'] : [p, p + '.html', p + '/index.html'];
  for (const c of candidates) {
    const full = path.join(root, path.normalize(c));
    if (!full.startsWith(root)) return null;
    try {
      if (fs.statSync(full).isFile()) return full;
    } catch {
      /* next candidate */
    }
  }
  return null;
}

const server = http.createServer((req, res) => {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { Allow: 'GET, HEAD' }).end();
    return;
  }
  const file = resolveFile(new URL(req.url ?? '/', 'http://x').pathname);
  const status = file ? 200 : 404;
  const served = file ?? path.join(root, '404.html');
  const type = MIME[path.extname(served).toLowerCase()] ?? 'application/octet-stream';
  const headers = {
    'Content-Type': type,
    // Hashed assets are immutable; pages are revalidated so a rebuild shows at once.
    'Cache-Control': served.includes(`${path.sep}_next${path.sep}static${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
    'X-Content-Type-Options': 'nosniff',
  };
  fs.stat(served, (err, st) => {
    if (err) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found');
      return;
    }
    res.writeHead(status, { ...headers, 'Content-Length': st.size });
    if (req.method === 'HEAD') res.end();
    else fs.createReadStream(served).pipe(res);
  });
});

server.listen(port, host, () => {
  const addr = server.address();
  const actual = typeof addr === 'object' && addr ? addr.port : port;
  console.log(`Serving ${path.relative(process.cwd(), root) || '.'}/ at http://${host}:${actual}`);
});

for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => server.close(() => process.exit(0)));
}
