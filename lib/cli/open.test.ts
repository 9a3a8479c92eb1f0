/**
 * `contextscope open` and `serve.mjs --api`: the printed URL carries a per-run secret that the API
 * needs; the app is served beside it; a taken default port falls back to a free one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFakeHome, type FakeHome } from '../sessions/testing';
import { CLI_ENTRY } from '../../tests/cli-entry';

let fake: FakeHome;
let app: string;
const children: ChildProcess[] = [];

beforeAll(() => {
  fake = makeFakeHome();
  app = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-open-app-'));
  fs.writeFileSync(path.join(app, 'index.html'), '<h1>library</h1>');
  fs.writeFileSync(path.join(app, '404.html'), '<h1>not found</h1>');
});

afterAll(() => {
  for (const c of children) c.kill();
  fake.cleanup();
  fs.rmSync(app, { recursive: true, force: true });
});

/** Starts a command and resolves with the first http://127.0.0.1 URL it prints. */
function start(args: string[], env: Record<string, string> = {}): Promise<string> {
  const full: Record<string, string | undefined> = { ...process.env, HOME: fake.home, CLAUDE_CONFIG_DIR: '', CODEX_HOME: '', GEMINI_CLI_HOME: '', ...env };
  delete full.PORT;
  const child = spawn(process.execPath, args, { cwd: process.cwd(), env: full as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /http:\/\/127\.0\.0\.1:\d+\/\S*/.exec(out);
      if (m) resolve(m[0]);
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
  });
}

describe('contextscope open', () => {
  it('prints http://127.0.0.1:PORT/#token=SECRET; the API answers that secret only; the app is served', async () => {
    const url = await start([CLI_ENTRY, 'open', '--no-open', '--port', '0', '--dir', app]);
    const m = /^http:\/\/127\.0\.0\.1:(\d+)\/#token=([A-Za-z0-9_-]{43})$/.exec(url)!;
    expect(m).not.toBeNull();
    const base = `http://127.0.0.1:${m[1]}`;
    expect(await (await fetch(`${base}/`)).text()).toContain('library');
    expect((await fetch(`${base}/api/health`)).status).toBe(401);
    const list = await fetch(`${base}/api/sessions`, { headers: { Authorization: `Bearer ${m[2]}` } });
    expect(list.status).toBe(200);
    expect(((await list.json()) as { sessions: unknown[] }).sessions).toHaveLength(fake.sessions.length);
    // Another run, another secret.
    const url2 = await start([CLI_ENTRY, 'open', '--no-open', '--port', '0', '--dir', app]);
    expect(url2.split('#token=')[1]).not.toBe(m[2]);
  }, 60_000);

  it('falls back to a free port when the default 3000 is taken', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => {
      blocker.once('error', () => resolve()); // someone else holds 3000: taken all the same
      blocker.listen(3000, '127.0.0.1', () => resolve());
    });
    try {
      const url = await start([CLI_ENTRY, 'open', '--no-open', '--dir', app]);
      const port = Number(/:(\d+)\//.exec(url)![1]);
      expect(port).not.toBe(3000);
      expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(200);
    } finally {
      blocker.close();
    }
  }, 60_000);

  it('serve.mjs --api is the same server, with the secret from CONTEXTSCOPE_TOKEN', async () => {
    const token = 'e2e-secret-0123456789abcdef';
    const url = await start(['scripts/serve.mjs', '--api', '--port', '0', '--dir', app], { CONTEXTSCOPE_TOKEN: token });
    expect(url).toMatch(new RegExp(`#token=${token}$`));
    const base = url.split('/#')[0];
    const h = await fetch(`${base}/api/health`, { headers: { Authorization: `Bearer ${token}` } });
    expect(await h.json()).toEqual({ ok: true, version: 1 });
    expect((await fetch(`${base}/api/health`, { headers: { Authorization: 'Bearer other-secret-0123456789' } })).status).toBe(401);
  }, 180_000);
});
