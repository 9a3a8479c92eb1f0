import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let dir: string;
let server: ChildProcess;
let base: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-serve-'));
  fs.writeFileSync(path.join(dir, 'index.html'), '<h1>library</h1>');
  fs.writeFileSync(path.join(dir, 'inspect.html'), '<h1>inspector</h1>');
  fs.writeFileSync(path.join(dir, '404.html'), '<h1>not found</h1>');
  fs.mkdirSync(path.join(dir, '_next/static/chunks'), { recursive: true });
  fs.writeFileSync(path.join(dir, '_next/static/chunks/worker.js'), 'self.onmessage = () => {};');
  fs.mkdirSync(path.join(dir, 'sample'));
  fs.writeFileSync(path.join(dir, 'sample/demo.jsonl'), '{"a":1}\n');
  server = spawn(process.execPath, [path.join(__dirname, 'serve.mjs'), '--port', '0', '--dir', dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  base = await new Promise<string>((resolve, reject) => {
    server.stdout!.on('data', (d: Buffer) => {
      const m = /http:\/\/[\d.]+:\d+/.exec(d.toString());
      if (m) resolve(m[0]);
    });
    server.on('exit', (code) => reject(new Error(`serve.mjs exited with ${code}`)));
  });
});

afterAll(() => {
  server?.kill();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('scripts/serve.mjs', () => {
  it('serves pages by route name and module workers as JavaScript', async () => {
    const inspect = await fetch(`${base}/inspect?id=t1&sel=2-5`);
    expect(inspect.status).toBe(200);
    expect(inspect.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await inspect.text()).toContain('inspector');
    expect(await (await fetch(`${base}/`)).text()).toContain('library');

    const js = await fetch(`${base}/_next/static/chunks/worker.js`);
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(js.headers.get('cache-control')).toContain('immutable');
    expect((await fetch(`${base}/sample/demo.jsonl`)).headers.get('content-type')).toMatch(/^application\/jsonl/);
  });

  it('answers unknown paths with the 404 page and never leaves its directory', async () => {
    const missing = await fetch(`${base}/nope`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('not found');
    const escape = await fetch(`${base}/..%2f..%2fetc%2fpasswd`);
    expect(escape.status).toBe(404);
    expect((await fetch(`${base}/`, { method: 'POST' })).status).toBe(405);
  });
});
