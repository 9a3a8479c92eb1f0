import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResumeResult, SessionList } from './contract';
import { hostAllowed, startServer, type RunningServer } from './server';
import { resolveStores } from './stores';
import { makeFakeHome, sha256File, type FakeHome } from './testing';

let fake: FakeHome;
let srv: RunningServer;
let staticDir: string;
let outside: string;

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  json: () => any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** A raw request (fetch cannot set Host). */
function request(opts: { path: string; method?: string; headers?: Record<string, string>; body?: string; auth?: boolean }): Promise<Answer> {
  const headers: Record<string, string> = { Host: `127.0.0.1:${srv.port}`, ...(opts.auth !== false && { Authorization: `Bearer ${srv.token}` }), ...opts.headers };
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: srv.port, path: opts.path, method: opts.method ?? 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body.toString('utf8')) });
      });
    });
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

const q = (p: string) => encodeURIComponent(p);

beforeAll(async () => {
  fake = makeFakeHome();
  staticDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-app-'));
  fs.writeFileSync(path.join(staticDir, 'index.html'), '<h1>library</h1>');
  fs.writeFileSync(path.join(staticDir, '404.html'), '<h1>not found</h1>');
  outside = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-outside-'));
  fs.writeFileSync(path.join(outside, 'secret.jsonl'), '{"secret":true}\n');
  srv = await startServer({ stores: resolveStores({ HOME: fake.home }), staticDir });
});

afterAll(async () => {
  await srv.close();
  fake.cleanup();
  fs.rmSync(staticDir, { recursive: true, force: true });
  fs.rmSync(outside, { recursive: true, force: true });
});

describe('the local sessions API', () => {
  it('listens on 127.0.0.1 only, with a random per-run secret in the URL it prints', async () => {
    const addr = srv.server.address() as { address: string };
    expect(addr.address).toBe('127.0.0.1');
    expect(srv.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(srv.url).toBe(`http://127.0.0.1:${srv.port}/#token=${srv.token}`);
    const other = await startServer({ stores: resolveStores({ HOME: fake.home }) });
    expect(other.token).not.toBe(srv.token);
    await other.close();
  });

  it('serves the app and answers /api/health with the secret', async () => {
    const page = await request({ path: '/', auth: false });
    expect(page.status).toBe(200);
    expect(page.body.toString()).toContain('library');
    // The app's folder is never left: encoded ../ lands on the 404 page.
    for (const p of ['/..%2f..%2fetc%2fpasswd', '/%2e%2e/%2e%2e/etc/passwd', `/..%2f${path.basename(outside)}%2fsecret.jsonl`]) {
      const r = await request({ path: p, auth: false });
      expect(r.status, p).toBe(404);
      expect(r.body.toString()).not.toContain('secret');
    }
    const h = await request({ path: '/api/health' });
    expect(h.status).toBe(200);
    expect(h.json()).toEqual({ ok: true, version: 1 });
  });

  it('refuses a request without the secret, or with another one (401)', async () => {
    for (const headers of [{} as Record<string, string>, { Authorization: 'Bearer nope' }, { Authorization: `Basic ${srv.token}` }, { Authorization: `Bearer ${srv.token}x` }]) {
      const r = await request({ path: '/api/sessions', auth: false, headers });
      expect(r.status).toBe(401);
      expect(r.json().error).toMatch(/secret/);
    }
    // The secret in the query string is not the secret in the header.
    expect((await request({ path: `/api/sessions?token=${srv.token}`, auth: false })).status).toBe(401);
  });

  it('refuses a foreign Host (DNS rebinding) with 403, even with the secret, and accepts the local names', async () => {
    for (const host of ['evil.example', `evil.example:${srv.port}`, `127.0.0.1.evil.example:${srv.port}`, `localhost:${srv.port + 1}`, '10.0.0.1']) {
      const r = await request({ path: '/api/sessions', headers: { Host: host } });
      expect(r.status, JSON.stringify(host)).toBe(403);
    }
    expect((await request({ path: '/', auth: false, headers: { Host: 'evil.example' } })).status).toBe(403);
    for (const host of [`127.0.0.1:${srv.port}`, `localhost:${srv.port}`, `[::1]:${srv.port}`, 'localhost', 'LOCALHOST']) expect((await request({ path: '/api/health', headers: { Host: host } })).status, host).toBe(200);
    expect(hostAllowed(undefined, 1)).toBe(false);
    // No Host at all (HTTP/1.0): refused too.
    const raw = await new Promise<string>((resolve, reject) => {
      const sock = net.connect(srv.port, '127.0.0.1', () => sock.end(`GET /api/health HTTP/1.0\r\nAuthorization: Bearer ${srv.token}\r\n\r\n`));
      let got = '';
      sock.on('data', (d) => (got += d.toString()));
      sock.on('end', () => resolve(got));
      sock.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 403/);
  });

  it('sends no CORS header and refuses a preflight', async () => {
    const pre = await request({ path: '/api/resume', method: 'OPTIONS', auth: false, headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' } });
    expect(pre.status).toBe(405);
    const answers = [pre, await request({ path: '/api/sessions', headers: { Origin: 'https://evil.example' } }), await request({ path: '/', headers: { Origin: 'https://evil.example' } })];
    for (const a of answers) expect(Object.keys(a.headers).filter((k) => k.startsWith('access-control-'))).toEqual([]);
  });

  it('lists the sessions of the three agents', async () => {
    const r = await request({ path: '/api/sessions' });
    expect(r.status).toBe(200);
    const list = r.json() as SessionList;
    expect(list.sessions.map((s) => s.path).sort()).toEqual(fake.sessions.map((s) => s.path).sort());
    expect(new Set(list.sessions.map((s) => s.agent))).toEqual(new Set(['claude-code', 'codex-cli', 'gemini-cli']));
  });

  it('counts in the background what a list read only the head and tail of: the next list has exact compactions', async () => {
    const fresh = await startServer({ stores: resolveStores({ HOME: fake.home }) });
    const list = async () => (await fetch(`http://127.0.0.1:${fresh.port}/api/sessions`, { headers: { Authorization: `Bearer ${fresh.token}` } })).json() as Promise<SessionList>;
    const first = await list();
    const slop = (l: SessionList) => l.sessions.find((s) => s.sessionId === '0f112eb4-a676-476d-8986-d6c78693cd5b')!;
    expect(slop(first)).toMatchObject({ scanned: 'head-tail', compactions: 0 });
    let later = first;
    for (let i = 0; i < 100 && later.sessions.some((s) => s.scanned !== 'whole'); i++) {
      await new Promise((r) => setTimeout(r, 100));
      later = await list();
    }
    await fresh.close();
    expect(slop(later)).toMatchObject({ scanned: 'whole', compactions: 1 });
    expect(later.sessions.find((s) => s.sessionId === '019c8a59-e9dd-71f0-9ae3-4079fe9726a9')).toMatchObject({ scanned: 'whole', compactions: 1 });
  });

  it('reads a session inside a store from an offset: only the bytes after it, and the size now', async () => {
    const s = fake.sessions[0];
    const bytes = fs.readFileSync(s.path);
    const all = await request({ path: `/api/session?path=${q(s.path)}` });
    expect(all.status).toBe(200);
    expect(all.headers['content-type']).toBe('application/octet-stream');
    expect(Number(all.headers['x-session-size'])).toBe(bytes.length);
    expect(all.body.equals(bytes)).toBe(true);
    // The agent appends: only the new bytes come back.
    const added = '{"type":"user","message":{"role":"user","content":"more"},"sessionId":"x","uuid":"u-new","timestamp":"2026-11-27T08:00:00.000Z"}\n';
    fs.appendFileSync(s.path, added);
    const more = await request({ path: `/api/session?path=${q(s.path)}&offset=${bytes.length}` });
    expect(more.body.toString('utf8')).toBe(added);
    expect(Number(more.headers['x-session-size'])).toBe(bytes.length + Buffer.byteLength(added));
    const none = await request({ path: `/api/session?path=${q(s.path)}&offset=${bytes.length + Buffer.byteLength(added)}` });
    expect(none.status).toBe(200);
    expect(none.body.length).toBe(0);
    // Past the end (the file was rewritten shorter): nothing, and the size says so.
    const past = await request({ path: `/api/session?path=${q(s.path)}&offset=${bytes.length * 2}` });
    expect(past.body.length).toBe(0);
    expect(Number(past.headers['x-session-size'])).toBe(bytes.length + Buffer.byteLength(added));
    fs.writeFileSync(s.path, bytes);
    expect((await request({ path: `/api/session?path=${q(s.path)}&offset=-1` })).status).toBe(400);
    expect((await request({ path: `/api/session?path=${q(s.path)}&offset=1e3` })).json().error).toMatch(/^offset:/);
    expect((await request({ path: '/api/session' })).json().error).toMatch(/^path:/);
  });

  it('refuses to read outside the stores, through a symlink that leaves them, or a file that is not a session (403)', async () => {
    const outsideFile = path.join(outside, 'secret.jsonl');
    const r1 = await request({ path: `/api/session?path=${q(outsideFile)}` });
    expect(r1.status).toBe(403);
    expect(r1.json().error).toMatch(/outside/);
    // ../ out of a store.
    const climb = path.join(fake.home, '.claude', 'projects', '..', '..', '..', path.basename(outside), 'secret.jsonl');
    expect((await request({ path: `/api/session?path=${q(climb)}` })).status).toBe(403);
    // A symlink inside a store that points out of it.
    const link = path.join(fake.home, '.claude', 'projects', '-home-wei-repo-claude-code', 'link.jsonl');
    fs.symlinkSync(outsideFile, link);
    const r2 = await request({ path: `/api/session?path=${q(link)}` });
    expect(r2.status).toBe(403);
    expect(r2.json().error).toMatch(/symlink/);
    expect(r2.body.toString()).not.toContain('"secret":true');
    fs.unlinkSync(link);
    // A folder symlinked into a store.
    const dirLink = path.join(fake.home, '.codex', 'sessions', 'linked');
    fs.symlinkSync(outside, dirLink);
    expect((await request({ path: `/api/session?path=${q(path.join(dirLink, 'secret.jsonl'))}` })).status).toBe(403);
    fs.unlinkSync(dirLink);
    // Files of the agents' config beside the stores are not sessions of a store.
    fs.writeFileSync(path.join(fake.home, '.claude', '.credentials.json'), '{"token":"x"}');
    expect((await request({ path: `/api/session?path=${q(path.join(fake.home, '.claude', '.credentials.json'))}` })).status).toBe(403);
    expect((await request({ path: `/api/session?path=${q('/etc/passwd')}` })).status).toBe(403);
    expect((await request({ path: `/api/session?path=${q('relative/x.jsonl')}` })).status).toBe(403);
    expect((await request({ path: `/api/session?path=${q(path.join(fake.home, '.claude', 'projects', 'missing.jsonl'))}` })).status).toBe(404);
  });

  it('resumes as a fork: a new file in the store, the original unchanged; refuses an existing file (409), a symlink (403), a bad body (400)', async () => {
    const src = fake.sessions.find((s) => s.agent === 'claude-code')!;
    const before = sha256File(src.path);
    const body = JSON.stringify({ agent: 'claude-code', content: fs.readFileSync(src.path, 'utf8'), lineage: { sourcePath: src.path, steps: ['x'] } });
    const r = await request({ path: '/api/resume', method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
    expect(r.status).toBe(200);
    const res = r.json() as ResumeResult;
    expect(res.agent).toBe('claude-code');
    expect(res.path.startsWith(path.join(fake.home, '.claude', 'projects') + path.sep)).toBe(true);
    expect(res.command).toContain(`claude --resume ${res.sessionId}`);
    expect(fs.existsSync(res.path)).toBe(true);
    expect(sha256File(src.path)).toBe(before);
    // The fork shows in the list under its source.
    const list = (await request({ path: '/api/sessions' })).json() as SessionList;
    expect(list.sessions.find((s) => s.path === res.path)?.derivedFrom?.sourcePath).toBe(src.path);
    // Existing: the project folder's file name taken by a symlink → 403; the project folder itself a symlink → 403.
    const linked = path.join(fake.home, '.claude', 'projects', '-srv-linked');
    fs.symlinkSync(outside, linked);
    const sym = await request({ path: '/api/resume', method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ agent: 'claude-code', content: fs.readFileSync(src.path, 'utf8'), cwd: '/srv/linked' }) });
    expect(sym.status).toBe(403);
    expect(sym.json().error).toMatch(/symlink/);
    expect(fs.readdirSync(outside)).toEqual(['secret.jsonl']);
    fs.unlinkSync(linked);
    // Outside the store: a Gemini CLI registry whose slug climbs out.
    const reg = path.join(fake.home, '.gemini', 'projects.json');
    const saved = fs.readFileSync(reg);
    fs.writeFileSync(reg, JSON.stringify({ projects: { '/p': '..' } }));
    const gem = fake.sessions.find((s) => s.agent === 'gemini-cli')!;
    const out = await request({ path: '/api/resume', method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ agent: 'gemini-cli', content: fs.readFileSync(gem.path, 'utf8'), cwd: '/p' }) });
    fs.writeFileSync(reg, saved);
    expect(out.status).toBe(403);
    // Existing file: 409. The new id is random: fixed here so the second fork gets the same name.
    const orig = crypto.randomUUID;
    (crypto as { randomUUID: unknown }).randomUUID = () => '11111111-2222-4333-8444-555555555555';
    try {
      const once = await request({ path: '/api/resume', method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
      expect(once.status).toBe(200);
      const made = (once.json() as ResumeResult).path;
      const hash = sha256File(made);
      const twice = await request({ path: '/api/resume', method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
      expect(twice.status).toBe(409);
      expect(twice.json().error).toMatch(/exists already/);
      expect(sha256File(made)).toBe(hash);
      // A symlink in the file's place: 403, nothing written through it.
      fs.unlinkSync(made);
      fs.unlinkSync(made + '.contextscope.json');
      fs.symlinkSync(path.join(outside, 'secret.jsonl'), made);
      const viaLink = await request({ path: '/api/resume', method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
      expect(viaLink.status).toBe(403);
      expect(fs.readFileSync(path.join(outside, 'secret.jsonl'), 'utf8')).toBe('{"secret":true}\n');
      fs.unlinkSync(made);
    } finally {
      (crypto as { randomUUID: unknown }).randomUUID = orig;
    }
    const codex = fake.sessions.find((s) => s.agent === 'codex-cli')!;
    const day = new Date();
    const dir = path.join(fake.home, '.codex', 'sessions', String(day.getFullYear()), String(day.getMonth() + 1).padStart(2, '0'), String(day.getDate()).padStart(2, '0'));
    const first = await request({ path: '/api/resume', method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ agent: 'codex-cli', content: fs.readFileSync(codex.path, 'utf8') }) });
    expect(first.status).toBe(200);
    expect(path.dirname((first.json() as ResumeResult).path)).toBe(dir);
    // 400s name the field.
    const bad = await request({ path: '/api/resume', method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ agent: 'nope', content: 'x' }) });
    expect(bad.status).toBe(400);
    expect(bad.json().error).toMatch(/^agent:/);
    expect((await request({ path: '/api/resume', method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{not json' })).json().error).toMatch(/^body:/);
    expect((await request({ path: '/api/resume', method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: body })).status).toBe(415);
    expect((await request({ path: '/api/resume' })).status).toBe(405);
    expect((await request({ path: '/api/nothing' })).status).toBe(404);
  });
});
