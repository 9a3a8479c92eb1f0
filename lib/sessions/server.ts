/**
 * The local server of `contextscope open` and `npm start`: the static app (out/) and the sessions
 * API of contract.ts, on 127.0.0.1 only. Every request: a Host of 127.0.0.1, localhost or [::1]
 * (with this server's port, when one is given) else 403 — a page of another site that rebinds its
 * name to 127.0.0.1 sends its own name. Every /api/ request: `Authorization: Bearer <secret>`
 * else 401. No CORS header on any answer; OPTIONS (a preflight) and other methods are refused.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { SessionList } from './contract';
import { ListCache, countCompactionsWhole, listSessions } from './list';
import { ResumeInputError, resumeFork } from './resume';
import { PathRefused, checkReadable, isInside, storeRoots, type Stores } from './stores';

export const API_VERSION = 1;
/** Largest resume body (an export of a long session, as JSON text). */
export const MAX_BODY_BYTES = 256 * 1024 * 1024;

const MIME: Record<string, string> = {
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

export interface ServerOptions {
  stores: Stores;
  /** The static app (out/); without it only the API answers (and / says to build). */
  staticDir?: string;
  /** The per-run secret; a random one when not given. */
  token?: string;
  /** Test hook: called with each list. */
  onList?: (list: SessionList) => void;
  /** Entries kept between lists (startServer makes one). */
  cache?: ListCache;
}

export interface RunningServer {
  server: http.Server;
  port: number;
  token: string;
  url: string;
  close(): Promise<void>;
}

export function newToken(): string {
  return crypto.randomBytes(32).toString('base64url');
}

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** The Host header is this machine by name or address, with this server's port when it has one. */
export function hostAllowed(host: string | undefined, port: number): boolean {
  if (!host) return false;
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(host.trim().toLowerCase());
  if (!m || !LOCAL_HOSTS.has(m[1])) return false;
  return m[2] === undefined || Number(m[2]) === port;
}

function sameSecret(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
  res.end(text);
}

const fail = (res: http.ServerResponse, status: number, error: string) => json(res, status, { error });

function resolveStatic(root: string, urlPath: string): string | null {
  let p: string;
  try {
    p = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  const candidates = p.endsWith('/') ? [p + 'index.html'] : [p, p + '.html', p + '/index.html'];
  for (const c of candidates) {
    const full = path.join(root, path.normalize(c));
    if (!isInside(root, full)) return null;
    try {
      if (fs.statSync(full).isFile()) return full;
    } catch {
      /* next */
    }
  }
  return null;
}

function serveStatic(root: string | undefined, req: http.IncomingMessage, res: http.ServerResponse, pathname: string): void {
  if (!root) {
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('No app build here: run `npm run build` (the API answers under /api/).');
    return;
  }
  const file = resolveStatic(root, pathname);
  const served = file ?? path.join(root, '404.html');
  const type = MIME[path.extname(served).toLowerCase()] ?? 'application/octet-stream';
  fs.stat(served, (err, st) => {
    if (err) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found');
      return;
    }
    res.writeHead(file ? 200 : 404, {
      'Content-Type': type,
      'Content-Length': st.size,
      'Cache-Control': served.includes(`${path.sep}_next${path.sep}static${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
      'X-Content-Type-Options': 'nosniff',
    });
    if (req.method === 'HEAD') res.end();
    else fs.createReadStream(served).pipe(res);
  });
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let n = 0;
    req.on('data', (c: Buffer) => {
      n += c.length;
      if (n > MAX_BODY_BYTES) {
        reject(Object.assign(new Error(`body: larger than ${MAX_BODY_BYTES} bytes.`), { status: 413 }));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

const counting = new WeakMap<ListCache, Promise<void>>();

/** After a list: the compactions of files listed from their head and tail, counted over the whole file, one at a time. */
export function countInBackground(cache: ListCache): Promise<void> {
  const running = counting.get(cache);
  if (running) return running;
  const run = (async () => {
    for (const p of cache.partial()) {
      try {
        const n = await countCompactionsWhole(p.file, p.entry.agent === 'folder' ? p.entry.format : p.entry.agent);
        if (n !== undefined) cache.settle(p.file, p.size, p.mtimeMs, Math.max(n, p.entry.compactions));
      } catch {
        /* gone or unreadable: the next list says so */
      }
    }
  })().finally(() => counting.delete(cache));
  counting.set(cache, run);
  return run;
}

/** GET /api/session?path&offset: the bytes from offset to the size the file has now. */
function serveSession(stores: Stores, url: URL, req: http.IncomingMessage, res: http.ServerResponse): void {
  const file = url.searchParams.get('path');
  if (!file) return fail(res, 400, 'path: the absolute path of a session file is needed (?path=…).');
  const offRaw = url.searchParams.get('offset') ?? '0';
  if (!/^\d+$/.test(offRaw) || !Number.isSafeInteger(Number(offRaw))) return fail(res, 400, `offset: "${offRaw}" is not a non-negative integer.`);
  const offset = Number(offRaw);
  let real: string;
  try {
    real = checkReadable(file, storeRoots(stores));
  } catch (e) {
    if (e instanceof PathRefused) return fail(res, e.status, e.message);
    throw e;
  }
  const fd = fs.openSync(real, 'r');
  const st = fs.fstatSync(fd);
  const size = st.size;
  const length = Math.max(0, size - offset);
  res.writeHead(200, {
    'Content-Type': 'application/octet-stream',
    'Content-Length': length,
    'X-Session-Size': String(size),
    'X-Session-Mtime': st.mtime.toISOString(),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  if (req.method === 'HEAD' || length === 0) {
    fs.closeSync(fd);
    res.end();
    return;
  }
  // Exactly the bytes up to the size reported, even while the agent appends more.
  fs.createReadStream('', { fd, start: offset, end: size - 1, autoClose: true }).pipe(res);
}

async function handleApi(o: ServerOptions, url: URL, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const route = url.pathname;
  if (route === '/api/health' && (req.method === 'GET' || req.method === 'HEAD')) return json(res, 200, { ok: true, version: API_VERSION });
  if (route === '/api/sessions' && req.method === 'GET') {
    const list = listSessions(o.stores, { cache: o.cache });
    o.onList?.(list);
    json(res, 200, list);
    if (o.cache) countInBackground(o.cache);
    return;
  }
  if (route === '/api/session' && (req.method === 'GET' || req.method === 'HEAD')) return serveSession(o.stores, url, req, res);
  if (route === '/api/resume' && req.method === 'POST') {
    const type = String(req.headers['content-type'] ?? '');
    if (!/^application\/json\b/i.test(type)) return fail(res, 415, 'body: send JSON (Content-Type: application/json).');
    let body: unknown;
    try {
      body = JSON.parse((await readBody(req)).toString('utf8')) as unknown;
    } catch (e) {
      const status = (e as { status?: number }).status;
      return fail(res, status ?? 400, status ? (e as Error).message : 'body: not valid JSON.');
    }
    try {
      return json(res, 200, resumeFork(o.stores, body));
    } catch (e) {
      if (e instanceof ResumeInputError) return fail(res, 400, e.message);
      if (e instanceof PathRefused) return fail(res, e.status, e.message);
      throw e;
    }
  }
  if (['/api/health', '/api/sessions', '/api/session', '/api/resume'].includes(route)) return fail(res, 405, `${req.method} is not allowed on ${route}.`);
  return fail(res, 404, `No API route ${route}.`);
}

/** The request handler (exported for tests that drive it without a socket). */
export function handler(o: ServerOptions & { token: string; port: () => number }): http.RequestListener {
  const root = o.staticDir ? path.resolve(o.staticDir) : undefined;
  return (req, res) => {
    const port = o.port();
    if (!hostAllowed(req.headers.host, port)) return fail(res, 403, `Host "${req.headers.host ?? ''}" refused: this server answers 127.0.0.1, localhost and [::1] only.`);
    if (req.method === 'OPTIONS') {
      res.writeHead(405, { Allow: 'GET, HEAD, POST' }).end();
      return;
    }
    let url: URL;
    try {
      url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    } catch {
      return fail(res, 400, 'Bad URL.');
    }
    if (url.pathname === '/api' || url.pathname.startsWith('/api/')) {
      const auth = String(req.headers.authorization ?? '');
      const m = /^Bearer\s+(\S+)$/i.exec(auth);
      if (!m || !sameSecret(m[1], o.token)) return fail(res, 401, 'The secret of this run is needed (Authorization: Bearer …; the URL that `contextscope open` printed holds it).');
      handleApi(o, url, req, res).catch((e: unknown) => {
        if (!res.headersSent) fail(res, 500, e instanceof Error ? e.message : String(e));
        else res.destroy();
      });
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD' }).end();
      return;
    }
    serveStatic(root, req, res, url.pathname);
  };
}

/** Listens on 127.0.0.1:port (0 = a free port; a busy port falls back to a free one when `fallback`). */
export async function startServer(o: ServerOptions & { port?: number; fallback?: boolean }): Promise<RunningServer> {
  const token = o.token ?? newToken();
  let bound = 0;
  const server = http.createServer(handler({ ...o, cache: o.cache ?? new ListCache(), token, port: () => bound }));
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      const onError = (e: Error) => {
        server.off('listening', onListening);
        reject(e);
      };
      const onListening = () => {
        server.off('error', onError);
        resolve();
      };
      server.once('error', onError);
      server.once('listening', onListening);
      server.listen(port, '127.0.0.1');
    });
  try {
    await listen(o.port ?? 0);
  } catch (e) {
    if (!(o.fallback && (e as NodeJS.ErrnoException).code === 'EADDRINUSE')) throw e;
    await listen(0);
  }
  const addr = server.address();
  bound = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    server,
    port: bound,
    token,
    url: `http://127.0.0.1:${bound}/#token=${token}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
