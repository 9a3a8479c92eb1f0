import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { threadCpuMs } from '../../tests/cpu';
import { HEAD_MAX_BYTES, ListCache, TAIL_BYTES, countCompactionsWhole, listSessions, type ListStats } from './list';
import { resolveStores } from './stores';
import { makeFakeHome, type FakeHome } from './testing';

let fake: FakeHome;
beforeAll(() => {
  fake = makeFakeHome();
});
afterAll(() => fake.cleanup());

describe('listSessions on a HOME holding corpus sessions of the three agents', () => {
  it('lists every session where each agent keeps it, with its id, project folder, prompt, times, size, model and tokens', () => {
    const list = listSessions(resolveStores({ HOME: fake.home }));
    expect(list.skipped ?? []).toEqual([]);
    expect(list.sessions.map((s) => s.path).sort()).toEqual(fake.sessions.map((s) => s.path).sort());
    for (const placed of fake.sessions) {
      const e = list.sessions.find((s) => s.path === placed.path)!;
      expect(e.agent).toBe(placed.agent);
      expect(e.sessionId).toBe(placed.sessionId);
      expect(e.bytes).toBe(fs.statSync(placed.path).size);
      if (placed.cwd) expect(e.cwd).toBe(placed.cwd);
      if (placed.parent) expect(e.parent).toBe(placed.parent);
      expect(Date.parse(e.updatedAt)).toBeGreaterThan(0);
    }
    const vibe = list.sessions.find((s) => s.sessionId === 'e9f146fa-3b20-48d0-9be4-d99ca901cae4')!;
    expect(vibe.firstPrompt).toMatch(/^幫我檢查一下 go\.mod/);
    expect(vibe.model).toBe('claude-sonnet-4-20250514');
    expect(vibe.startedAt).toBe('2025-08-28T12:57:08.611Z');
    expect(vibe.tokens).toBeGreaterThan(10_000);
    const codex = list.sessions.find((s) => s.sessionId === '01996135-afde-7911-97f0-d863511eca56')!;
    expect(codex.cwd).toBe('/proj/ds906659/gai/claude-code');
    expect(codex.firstPrompt).toMatch(/My request for Codex/);
    expect(codex.startedAt).toBe('2025-09-19T09:02:12.446Z');
    const archived = list.sessions.find((s) => s.sessionId === '019c8a59-e9dd-71f0-9ae3-4079fe9726a9')!;
    expect(archived.path).toContain(`${path.sep}archived_sessions${path.sep}`);
    expect(archived.tokens).toBe(162073);
    const gem = list.sessions.find((s) => s.sessionId === '0ab84937-9fe7-4284-986a-33c832af0b6a')!;
    expect(gem.cwd).toBe(fake.geminiProject);
    expect(gem.model).toMatch(/^gemini-/);
    // Its first two user messages are Gemini CLI's, not the user's: /init's prompt ("You are an AI
    // agent that brings the power of Gemini…") and "System: Please continue." (issue 30 follow-up).
    expect(gem.firstPrompt).toMatch(/^幫我做一個小修改/);
    const legacy = list.sessions.find((s) => s.sessionId === '8a20078e-2d5e-4f81-a640-9b879bbb7e6d')!;
    expect(legacy.firstPrompt).toMatch(/^請幫我依照專案實際狀況更新 README\.md/);
    expect(legacy.updatedAt).toBe('2026-03-27T10:22:00.022Z');
    // Newest first.
    const times = list.sessions.map((s) => s.updatedAt);
    expect([...times].sort().reverse()).toEqual(times);
    expect(list.roots.filter((r) => r.exists).map((r) => r.agent).sort()).toEqual(['claude-code', 'codex-cli', 'codex-cli', 'gemini-cli']);
  });

  it("counts the agent's own compactions in what it reads, and says when the middle was not read", () => {
    const list = listSessions(resolveStores({ HOME: fake.home }));
    // slopometry's compact_boundary is in its middle (3.2 MB): not read, so the count is a lower bound and says so.
    const slop = list.sessions.find((s) => s.sessionId === '0f112eb4-a676-476d-8986-d6c78693cd5b')!;
    expect(slop.scanned).toBe('head-tail');
    // A compact_boundary inside the window is counted.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-compact-'));
    const lines = fs.readFileSync(slop.path, 'utf8').split('\n');
    const b = lines.findIndex((l) => l.includes('"subtype":"compact_boundary"'));
    expect(b).toBeGreaterThan(0);
    fs.writeFileSync(path.join(dir, 'small.jsonl'), lines.slice(b - 5, b + 10).join('\n') + '\n');
    const small = listSessions(resolveStores({ HOME: path.join(dir, 'none') }, [dir])).sessions[0];
    expect(small.format).toBe('claude-code');
    expect(small.scanned).toBe('whole');
    expect(small.compactions).toBe(1);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("Gemini CLI: a sub-agent's chats/<parent id>/<id>.jsonl is listed under its parent session", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-gem-sub-'));
    const gem = fake.sessions.find((s) => s.sessionId === '0ab84937-9fe7-4284-986a-33c832af0b6a')!;
    const chats = path.join(dir, '.gemini', 'tmp', 'proj', 'chats');
    fs.mkdirSync(path.join(chats, gem.sessionId), { recursive: true });
    const parent = path.join(chats, path.basename(gem.path));
    fs.copyFileSync(gem.path, parent);
    const sub = path.join(chats, gem.sessionId, 'f00dfeed-0000-4000-8000-000000000001.jsonl');
    fs.writeFileSync(sub, JSON.stringify({ sessionId: 'f00dfeed-0000-4000-8000-000000000001', projectHash: 'x', startTime: '2026-04-23T12:55:00.000Z', lastUpdated: '2026-04-23T12:56:00.000Z', kind: 'subagent' }) + '\n' + JSON.stringify({ id: 'm1', timestamp: '2026-04-23T12:55:01.000Z', type: 'user', content: [{ text: 'Investigate the tests' }] }) + '\n');
    const list = listSessions(resolveStores({ HOME: dir }));
    expect(list.sessions.find((s) => s.path === sub)).toMatchObject({ agent: 'gemini-cli', sessionId: 'f00dfeed-0000-4000-8000-000000000001', parent, firstPrompt: 'Investigate the tests', updatedAt: '2026-04-23T12:56:00.000Z' });
    expect(list.sessions.find((s) => s.path === parent)?.parent).toBeUndefined();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('with a cache, a second list reads nothing of unchanged files and re-reads a file that grew', () => {
    const stores = resolveStores({ HOME: fake.home });
    const cache = new ListCache();
    const first: ListStats = { files: 0, bytesRead: 0 };
    const a = listSessions(stores, { cache, stats: first });
    expect(first.files).toBe(fake.sessions.length);
    const again: ListStats = { files: 0, bytesRead: 0 };
    expect(listSessions(stores, { cache, stats: again })).toEqual(a);
    expect(again.files).toBe(0);
    const grown = fake.sessions.find((s) => s.agent === 'codex-cli')!;
    const before = fs.readFileSync(grown.path);
    fs.appendFileSync(grown.path, '{"timestamp":"2030-01-01T00:00:00.000Z","type":"event_msg","payload":{"type":"agent_message","message":"later"}}\n');
    const third: ListStats = { files: 0, bytesRead: 0 };
    const c = listSessions(stores, { cache, stats: third });
    expect(third.files).toBe(1);
    expect(c.sessions.find((s) => s.path === grown.path)?.updatedAt).toBe('2030-01-01T00:00:00.000Z');
    fs.writeFileSync(grown.path, before);
  });

  it("counts the agent's compactions over a whole file by its marker bytes, across chunk boundaries", async () => {
    const slop = fake.sessions.find((s) => s.sessionId === '0f112eb4-a676-476d-8986-d6c78693cd5b')!;
    expect(await countCompactionsWhole(slop.path, 'claude-code')).toBe(1);
    const codex = fake.sessions.find((s) => s.sessionId === '019c8a59-e9dd-71f0-9ae3-4079fe9726a9')!;
    expect(await countCompactionsWhole(codex.path, 'codex-cli')).toBe(1);
    // A marker cut by the 1 MiB chunk boundary is still counted once.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-count-'));
    const marker = '{"type":"system","subtype":"compact_boundary"}\n';
    const cut = 1024 * 1024 - 10;
    const file = path.join(dir, 'x.jsonl');
    fs.writeFileSync(file, ' '.repeat(cut) + marker + ' '.repeat(100) + marker);
    expect(await countCompactionsWhole(file, 'claude-code')).toBe(2);
    expect(await countCompactionsWhole(file, undefined)).toBeUndefined();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('lists a folder of 2,000 sessions from their heads and tails: bytes read bounded, not the files', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-many-'));
    const src = fs.readFileSync(fake.sessions.find((s) => s.sessionId === '0f112eb4-a676-476d-8986-d6c78693cd5b')!.source);
    const small = fs.readFileSync(fake.sessions.find((s) => s.agent === 'codex-cli')!.source);
    const projects = path.join(dir, '.claude', 'projects', '-p');
    fs.mkdirSync(projects, { recursive: true });
    const codexDir = path.join(dir, '.codex', 'sessions', '2026', '01', '01');
    fs.mkdirSync(codexDir, { recursive: true });
    // 1,000 large Claude Code sessions (3.2 MB each, hard links: no disk) and 1,000 Codex ones (81 KB).
    for (let i = 0; i < 1000; i++) {
      const f = path.join(projects, `00000000-0000-4000-8000-${String(i).padStart(12, '0')}.jsonl`);
      if (i === 0) fs.writeFileSync(f, src);
      else fs.linkSync(path.join(projects, '00000000-0000-4000-8000-000000000000.jsonl'), f);
    }
    for (let i = 0; i < 1000; i++) fs.writeFileSync(path.join(codexDir, `rollout-2026-01-01T00-00-00-01996135-afde-7911-97f0-${String(i).padStart(12, '0')}.jsonl`), small);
    const total = 1000 * src.length + 1000 * small.length;
    const stats: ListStats = { files: 0, bytesRead: 0 };
    const t0 = threadCpuMs();
    const list = listSessions(resolveStores({ HOME: dir }), { stats });
    const cpu = threadCpuMs() - t0;
    expect(list.sessions).toHaveLength(2000);
    expect(stats.files).toBe(2000);
    // At most a grown head and a tail per file; the large files are never read in full.
    // At most a grown head and a tail per file (a small file is read once, whole); 3.3 GB are never read.
    expect(stats.bytesRead).toBeLessThanOrEqual(1000 * (HEAD_MAX_BYTES + TAIL_BYTES) + 1000 * small.length);
    expect(stats.bytesRead).toBeLessThan(total / 8);
    const big = list.sessions.filter((s) => s.agent === 'claude-code');
    expect(big.every((s) => s.scanned === 'head-tail' && s.bytes === src.length && s.firstPrompt?.startsWith('we have a slopometry'))).toBe(true);
    // Seconds, not minutes: measured ≈1.5 s of CPU on this machine.
    expect(cpu).toBeLessThan(8000);
    console.log(`2,000 sessions (${(total / 1e6).toFixed(0)} MB): read ${(stats.bytesRead / 1e6).toFixed(1)} MB, ${cpu} ms CPU`);
    fs.rmSync(dir, { recursive: true, force: true });
  }, 180_000);

  it('Gemini CLI legacy JSON past the head: the first prompt read from the raw text skips what Gemini CLI sent in the user\'s place', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-gem-legacy-'));
    const chats = path.join(dir, '.gemini', 'tmp', 'proj', 'chats');
    fs.mkdirSync(chats, { recursive: true });
    const msg = (i: number, type: string, text: string) => ({ id: `m${i}`, timestamp: '2026-03-27T10:20:00.000Z', type, content: [{ text }] });
    const messages = [msg(0, 'user', 'System: Please continue.'), msg(1, 'user', 'Update the README for users'), msg(2, 'gemini', 'x'.repeat(HEAD_MAX_BYTES + TAIL_BYTES))];
    const file = path.join(chats, 'session-2026-03-27T10-19-8a20078e.json');
    fs.writeFileSync(file, JSON.stringify({ sessionId: '8a20078e-0000-4000-8000-000000000002', projectHash: 'x', startTime: '2026-03-27T10:19:12.584Z', lastUpdated: '2026-03-27T10:22:00.022Z', messages }));
    const e = listSessions(resolveStores({ HOME: dir })).sessions[0];
    expect(e.scanned).toBe('head-tail');
    expect(e.firstPrompt).toBe('Update the README for users');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('lists regular files only: a symlink (dangling or not) and a folder named like a session are not sessions', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-skip-'));
    const p = path.join(dir, '.claude', 'projects', '-x');
    fs.mkdirSync(p, { recursive: true });
    fs.copyFileSync(fake.sessions[0].source, path.join(p, 'a.jsonl'));
    fs.symlinkSync(path.join(dir, 'missing'), path.join(p, 'b.jsonl'));
    fs.mkdirSync(path.join(p, 'c.jsonl'));
    fs.symlinkSync('/etc/hostname', path.join(p, 'd.jsonl'));
    const list = listSessions(resolveStores({ HOME: dir }));
    expect(list.sessions.map((s) => path.basename(s.path))).toEqual(['a.jsonl']);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
