/**
 * The library's census of "Your sessions" (issue 26 §3), the worker's side: the engine fetches each
 * listed file from the real local server (lib/sessions/server.ts on a HOME of real corpus sessions)
 * and its table is the one `contextscope census --json` prints for the same HOME. A thousand
 * generated sessions: every file fetched once, only those with a compaction parsed, a progress
 * report per session, and it finishes. Work is counted, not timed.
 */
import 'fake-indexeddb/auto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import { freshDbName } from '../db/test-helpers';
import type { CensusProgress } from '../ledger/census';
import type { SessionList } from '../sessions/contract';
import { startServer, type RunningServer } from '../sessions/server';
import { resolveStores } from '../sessions/stores';
import { makeFakeHome, type FakeHome } from '../sessions/testing';
import { engine, useEngineDatabase } from './api';
import { censusFileStall } from './ledger';
import http from 'node:http';
import { CLI_ENTRY } from '../../tests/cli-entry';

beforeEach(() => useEngineDatabase(freshDbName()));

const staticDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-app-'));
fs.writeFileSync(path.join(staticDir, 'index.html'), '<h1>library</h1>');
afterAll(() => fs.rmSync(staticDir, { recursive: true, force: true }));

function cliCensus(home: string): unknown {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, USERPROFILE: home };
  delete env.CODEX_HOME;
  delete env.CLAUDE_CONFIG_DIR;
  delete env.GEMINI_CLI_HOME;
  const r = spawnSync(process.execPath, [CLI_ENTRY, 'census', '--json'], { encoding: 'utf8', cwd: process.cwd(), env, maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout);
}

async function list(srv: RunningServer): Promise<SessionList> {
  const get = () => fetch(`http://127.0.0.1:${srv.port}/api/sessions`, { headers: { Authorization: `Bearer ${srv.token}` } });
  // Once more after a network error: the server closes an idle kept-alive connection.
  const res = await get().catch(get);
  expect(res.status).toBe(200);
  return (await res.json()) as SessionList;
}

describe('engine.sessionsCensus: the sessions the local server lists', () => {
  let fake: FakeHome;
  let srv: RunningServer;
  beforeAll(async () => {
    fake = makeFakeHome();
    srv = await startServer({ stores: resolveStores({ HOME: fake.home }), staticDir });
  });
  afterAll(async () => {
    await srv.close();
    fake.cleanup();
  });

  it('real corpus sessions in an agents\' HOME: the same table as `census --json` on that HOME', async () => {
    const { sessions } = await list(srv);
    expect(sessions.length).toBe(fake.sessions.length);
    const progress: CensusProgress[] = [];
    const c = await engine.sessionsCensus(sessions, { origin: `http://127.0.0.1:${srv.port}`, token: srv.token }, (p) => progress.push(p));
    expect(c).toEqual(cliCensus(fake.home));
    // Claude Code's compaction (slopometry) and Codex's (localpush) are there, with their cache writes.
    expect(c.rows.find((r) => r.agent === 'Claude Code')).toMatchObject({ compactions: 1, cacheWriteTokens: 16371 });
    expect(c.rows.find((r) => r.agent === 'Codex')!.compactions).toBeGreaterThan(0);
    expect(progress.map((p) => p.done)).toEqual(sessions.map((_, i) => i + 1));
    expect(progress.at(-1)).toMatchObject({ done: sessions.length, total: sessions.length, parsed: c.parsed });
  });

  it('a file the server refuses is skipped with the reason, never a crash', async () => {
    const { sessions } = await list(srv);
    const c = await engine.sessionsCensus([...sessions.slice(0, 1), { path: '/etc/passwd', agent: 'claude-code' }], { origin: `http://127.0.0.1:${srv.port}`, token: srv.token });
    expect(c.files).toBe(2);
    expect(c.skipped).toEqual([{ path: '/etc/passwd', reason: expect.stringMatching(/^the local server refused it \(403/) }]);
    const bad = await engine.sessionsCensus(sessions.slice(0, 1), { origin: `http://127.0.0.1:${srv.port}`, token: 'wrong' });
    expect(bad.skipped[0].reason).toMatch(/refused it \(401/);
  });
});

describe('engine.sessionsCensus: a file the server stops sending', () => {
  it('is skipped with the reason after the stall time, and the census goes on to the next file (no response, or headers then silence)', async () => {
    const file = corpusFiles('claude-code').find((f) => f.endsWith('slopometry_transcript_opus45_compact.jsonl'))!;
    const open = new Set<http.ServerResponse>();
    const server = http.createServer((req, res) => {
      const which = new URL(req.url!, 'http://x').searchParams.get('path');
      if (which === 'silent') return void open.add(res);
      if (which === 'half') {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        res.write(fs.readFileSync(file).subarray(0, 1000));
        return void open.add(res);
      }
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(fs.readFileSync(file));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const was = censusFileStall.ms;
    censusFileStall.ms = 1000;
    try {
      const sessions = ['silent', 'whole', 'half', 'whole2'].map((path) => ({ path, agent: 'claude-code' as const, format: 'claude-code' as const }));
      const c = await engine.sessionsCensus(sessions, { origin, token: 't' });
      expect(c.files).toBe(4);
      expect(c.skipped).toEqual([
        { path: 'silent', reason: 'the local server sent nothing for 1 s' },
        { path: 'half', reason: 'the local server sent nothing for 1 s' },
      ]);
      // The two files sent whole are counted: each has Claude Code's one compaction.
      expect(c.rows.find((r) => r.agent === 'Claude Code')).toMatchObject({ compactions: 2 });
    } finally {
      censusFileStall.ms = was;
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  }, 20_000);
});

describe('engine.sessionsCensus: a thousand sessions', () => {
  let home: string;
  let srv: RunningServer;
  beforeAll(async () => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-home-1000-'));
    const plain = fs.readFileSync(corpusFiles('claude-code').find((f) => path.basename(f).startsWith('simonw_sample_session.jsonl'))!);
    const compacted = fs.readFileSync(corpusFiles('claude-code').find((f) => path.basename(f).startsWith('agent-sessions_claude_schema_coverage'))!);
    for (let i = 0; i < 1000; i++) {
      const dir = path.join(home, '.claude', 'projects', `-work-p${i % 10}`);
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, `00000000-0000-4000-8000-${String(i).padStart(12, '0')}.jsonl`), i % 100 === 7 ? compacted : plain);
    }
    srv = await startServer({ stores: resolveStores({ HOME: home }), staticDir });
  }, 120_000);
  afterAll(async () => {
    await srv.close();
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('every file fetched once, ten parsed, a progress report per session, and it finishes', async () => {
    const { sessions } = await list(srv);
    expect(sessions).toHaveLength(1000);
    const fetched = new Map<string, number>();
    const realFetch = globalThis.fetch;
    globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
      const u = new URL(String(input));
      if (u.pathname === '/api/session') fetched.set(u.searchParams.get('path')!, (fetched.get(u.searchParams.get('path')!) ?? 0) + 1);
      return realFetch(input, init);
    }) as typeof fetch;
    const progress: CensusProgress[] = [];
    try {
      const c = await engine.sessionsCensus(sessions, { origin: `http://127.0.0.1:${srv.port}`, token: srv.token }, (p) => progress.push(p));
      expect(c.files).toBe(1000);
      expect(c.parsed).toBe(10);
      expect(c.skipped).toEqual([]);
      expect(c.rows).toHaveLength(1);
      expect(c.rows[0]).toMatchObject({ agent: 'Claude Code', sessions: 1000, sessionsCompacted: 10, compactions: 20 });
    } finally {
      globalThis.fetch = realFetch;
    }
    expect(fetched.size).toBe(1000);
    expect([...fetched.values()].every((n) => n === 1)).toBe(true);
    expect(progress).toHaveLength(1000);
    expect(progress.map((p) => p.done)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
    expect(progress.every((p) => p.total === 1000)).toBe(true);
    expect(progress.at(-1)!.parsed).toBe(10);
  }, 300_000);
});

describe('engine.libraryCensus: the imported transcripts', () => {
  it('reports progress per transcript', async () => {
    for (const f of corpusFiles('claude-code').filter((x) => /slopometry|vibecodingtracker/.test(x))) {
      const out = await engine.importFile(new Uint8Array(fs.readFileSync(f)), path.basename(f));
      expect(out.kind).toBe('imported');
    }
    const progress: CensusProgress[] = [];
    const c = await engine.libraryCensus((p) => progress.push(p));
    expect(c.files).toBe(2);
    expect(progress.map((p) => [p.done, p.total])).toEqual([
      [1, 2],
      [2, 2],
    ]);
    expect(progress.at(-1)!.parsed).toBe(1);
    expect(c.rows[0]).toMatchObject({ agent: 'Claude Code', sessions: 2, compactions: 1 });
  });
});
