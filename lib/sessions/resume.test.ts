import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importBytes } from '../formats/import';
import { listSessions, SIDECAR_SUFFIX } from './list';
import { ResumeInputError, claudeProjectName, resumeFork, uuidv7 } from './resume';
import { PathRefused, resolveStores, type Stores } from './stores';
import { makeFakeHome, sha256File, type FakeHome } from './testing';

let fake: FakeHome;
let stores: Stores;
beforeAll(() => {
  fake = makeFakeHome();
  stores = resolveStores({ HOME: fake.home });
});
afterAll(() => fake.cleanup());

const placed = (id: string) => fake.sessions.find((s) => s.sessionId === id)!;
const lines = (text: string) => text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Record<string, unknown>);
const NOW = new Date('2026-11-27T08:09:10Z');

function refused(fn: () => unknown): PathRefused {
  try {
    fn();
  } catch (e) {
    if (e instanceof PathRefused) return e;
    throw e;
  }
  throw new Error('not refused');
}

describe('resumeFork', () => {
  it('Claude Code: a new id in every record and the file name, under the project folder of the cwd, lineage in a sidecar, the original untouched', () => {
    const src = placed('e9f146fa-3b20-48d0-9be4-d99ca901cae4');
    const before = sha256File(src.path);
    const content = fs.readFileSync(src.path, 'utf8');
    const r = resumeFork(stores, { agent: 'claude-code', content, lineage: { sourcePath: src.path, version: 'v2', steps: ['Stub old tool results'], budget: 40000 } }, { now: NOW });
    expect(r.sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(r.path).toBe(path.join(fake.home, '.claude', 'projects', '-home-wei-repo-claude-code', `${r.sessionId}.jsonl`));
    expect(r.command).toBe(`cd /home/wei/repo/claude-code && claude --resume ${r.sessionId}`);
    const out = fs.readFileSync(r.path, 'utf8');
    const recs = lines(out);
    const withId = recs.filter((x) => 'sessionId' in x);
    expect(withId.length).toBe(lines(content).filter((x) => 'sessionId' in x).length);
    expect(withId.every((x) => x.sessionId === r.sessionId)).toBe(true);
    expect(out).not.toContain('e9f146fa-3b20-48d0-9be4-d99ca901cae4');
    // Everything else is the same bytes: each changed line is the original with the id replaced.
    const orig = content.split('\n').filter((l) => l.trim());
    out.split('\n').filter((l) => l.trim()).forEach((l, i) => expect(l).toBe(orig[i].replace(/"sessionId":"[^"]+"/, `"sessionId":"${r.sessionId}"`)));
    const lineage = JSON.parse(fs.readFileSync(r.path + SIDECAR_SUFFIX, 'utf8'));
    expect(lineage).toMatchObject({ tool: 'contextscope', sourcePath: src.path, sourceSessionId: 'b162b1ae-97bc-475f-9b5f-ffbf55ca5b3f', version: 'v2', steps: ['Stub old tool results'], budget: 40000, createdAt: NOW.toISOString() });
    expect(sha256File(src.path)).toBe(before);
    // The library shows it with its lineage.
    const entry = listSessions(stores).sessions.find((s) => s.path === r.path)!;
    expect(entry.sessionId).toBe(r.sessionId);
    expect(entry.derivedFrom?.sourcePath).toBe(src.path);
    // Still a Claude Code session to our importer.
    expect(importBytes('x.jsonl', new Uint8Array(fs.readFileSync(r.path))).transcript.format).toBe('claude-code');
  });

  it('Claude Code: --cwd decides the project folder', () => {
    const content = fs.readFileSync(placed('5c0375b4-57a5-4f26-b12d-d022ee4e51b7').path, 'utf8');
    const r = resumeFork(stores, { agent: 'claude-code', content, cwd: '/work/my project.v2' }, { now: NOW });
    expect(path.dirname(r.path)).toBe(path.join(fake.home, '.claude', 'projects', '-work-my-project-v2'));
    expect(r.command).toBe(`cd '/work/my project.v2' && claude --resume ${r.sessionId}`);
    expect(claudeProjectName('/a/' + 'x'.repeat(300))).toMatch(/^-a-x{197}-[0-9a-z]+$/);
  });

  it("Codex: a new session_meta id and rollout file under today's date folder, the original untouched", () => {
    const src = placed('01996135-afde-7911-97f0-d863511eca56');
    const before = sha256File(src.path);
    const content = fs.readFileSync(src.path, 'utf8');
    const r = resumeFork(stores, { agent: 'codex-cli', content }, { now: NOW });
    expect(r.sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const d = NOW;
    const p2 = (n: number) => String(n).padStart(2, '0');
    const day = path.join(fake.home, '.codex', 'sessions', String(d.getFullYear()), p2(d.getMonth() + 1), p2(d.getDate()));
    expect(path.dirname(r.path)).toBe(day);
    expect(path.basename(r.path)).toBe(`rollout-${d.getFullYear()}-${p2(d.getMonth() + 1)}-${p2(d.getDate())}T${p2(d.getHours())}-${p2(d.getMinutes())}-${p2(d.getSeconds())}-${r.sessionId}.jsonl`);
    expect(r.command).toBe(`codex resume ${r.sessionId}`);
    const recs = lines(fs.readFileSync(r.path, 'utf8'));
    expect(recs[0]).toMatchObject({ type: 'session_meta', payload: { id: r.sessionId, cwd: '/proj/ds906659/gai/claude-code' } });
    expect(recs.length).toBe(lines(content).length);
    // No lineage given: the source is found in the store by the id the export carries.
    expect(JSON.parse(fs.readFileSync(r.path + SIDECAR_SUFFIX, 'utf8'))).toMatchObject({ sourceSessionId: '01996135-afde-7911-97f0-d863511eca56', sourcePath: src.path, tool: 'contextscope' });
    expect(sha256File(src.path)).toBe(before);
    expect(listSessions(stores).sessions.find((s) => s.path === r.path)?.derivedFrom?.sourceSessionId).toBe('01996135-afde-7911-97f0-d863511eca56');
  });

  it('Codex: --cwd becomes the session_meta cwd', () => {
    const content = fs.readFileSync(placed('01996135-afde-7911-97f0-d863511eca56').path, 'utf8');
    const r = resumeFork(stores, { agent: 'codex-cli', content, cwd: '/srv/elsewhere' }, { now: NOW });
    expect(lines(fs.readFileSync(r.path, 'utf8'))[0]).toMatchObject({ type: 'session_meta', payload: { id: r.sessionId, cwd: '/srv/elsewhere' } });
    expect(r.cwd).toBe('/srv/elsewhere');
  });

  it("Gemini CLI: the project's chats folder, a new header id and projectHash, lineage in the header; the legacy JSON kept JSON", () => {
    for (const id of ['0ab84937-9fe7-4284-986a-33c832af0b6a', '8a20078e-2d5e-4f81-a640-9b879bbb7e6d']) {
      const src = placed(id);
      const before = sha256File(src.path);
      const content = fs.readFileSync(src.path, 'utf8');
      const r = resumeFork(stores, { agent: 'gemini-cli', content, cwd: fake.geminiProject }, { now: NOW });
      expect(path.dirname(r.path)).toBe(path.join(fake.home, '.gemini', 'tmp', 'discordbot', 'chats'));
      expect(path.basename(r.path)).toBe(`session-2026-11-27T08-09-${r.sessionId.slice(0, 8)}${path.extname(src.path)}`);
      expect(r.command).toBe(`cd /home/mai/repo/discordbot && gemini --resume ${r.sessionId}`);
      const text = fs.readFileSync(r.path, 'utf8');
      const header = src.path.endsWith('.json') ? JSON.parse(text) : lines(text)[0];
      expect(header.sessionId).toBe(r.sessionId);
      expect(header.projectHash).toBe(crypto.createHash('sha256').update(fake.geminiProject).digest('hex'));
      expect(header.contextscope).toMatchObject({ tool: 'contextscope', sourceSessionId: id, sourcePath: src.path });
      // Written now: Gemini CLI's retention (30 days by default) deletes by lastUpdated at start.
      expect(header.lastUpdated).toBe(NOW.toISOString());
      if (src.path.endsWith('.jsonl')) expect(lines(text).at(-1)).toEqual({ $set: { lastUpdated: NOW.toISOString() } });
      expect(listSessions(stores).sessions.find((s) => s.path === r.path)?.updatedAt).toBe(NOW.toISOString());
      // The old id stays only in the lineage.
      expect(text.split(id).length - 1).toBe(1);
      expect(sha256File(src.path)).toBe(before);
      expect(listSessions(stores).sessions.find((s) => s.path === r.path)?.derivedFrom?.sourceSessionId).toBe(id);
    }
  });

  it('Gemini CLI: finds the project from the header hash, or claims a new slug with a .project_root marker (projects.json untouched)', () => {
    const src = placed('0ab84937-9fe7-4284-986a-33c832af0b6a');
    const content = fs.readFileSync(src.path, 'utf8').replace(/"projectHash":"[0-9a-f]+"/, `"projectHash":"${crypto.createHash('sha256').update(fake.geminiProject).digest('hex')}"`);
    expect(path.dirname(resumeFork(stores, { agent: 'gemini-cli', content }, { now: NOW }).path)).toBe(path.join(fake.home, '.gemini', 'tmp', 'discordbot', 'chats'));
    expect(() => resumeFork(stores, { agent: 'gemini-cli', content: fs.readFileSync(src.path, 'utf8') })).toThrow(/give the folder \(--cwd\)/);
    const registry = fs.readFileSync(path.join(fake.home, '.gemini', 'projects.json'), 'utf8');
    const r = resumeFork(stores, { agent: 'gemini-cli', content, cwd: '/srv/New Project' }, { now: NOW });
    expect(path.dirname(r.path)).toBe(path.join(fake.home, '.gemini', 'tmp', 'new-project', 'chats'));
    expect(fs.readFileSync(path.join(fake.home, '.gemini', 'tmp', 'new-project', '.project_root'), 'utf8')).toBe('/srv/New Project');
    expect(fs.readFileSync(path.join(fake.home, '.gemini', 'projects.json'), 'utf8')).toBe(registry);
    expect(listSessions(stores).sessions.find((s) => s.path === r.path)?.cwd).toBe('/srv/New Project');
  });

  it('refuses an existing file (409), a symlink on the path inside the store (403), a path outside the store (403)', () => {
    const src = placed('e9f146fa-3b20-48d0-9be4-d99ca901cae4');
    const content = fs.readFileSync(src.path, 'utf8');
    // Existing: the same second and the same random id cannot be forced, so an existing name is made by a fixed clock and a taken day folder name.
    const codex = fs.readFileSync(placed('01996135-afde-7911-97f0-d863511eca56').path, 'utf8');
    const orig = crypto.randomBytes;
    const fixed = Buffer.alloc(16, 7);
    (crypto as { randomBytes: unknown }).randomBytes = () => Buffer.from(fixed);
    try {
      const first = resumeFork(stores, { agent: 'codex-cli', content: codex }, { now: NOW });
      const before = sha256File(first.path);
      const e = refused(() => resumeFork(stores, { agent: 'codex-cli', content: codex }, { now: NOW }));
      expect(e.status).toBe(409);
      expect(e.message).toMatch(/exists already/);
      expect(sha256File(first.path)).toBe(before);
    } finally {
      (crypto as { randomBytes: unknown }).randomBytes = orig;
    }
    expect(uuidv7(0)).toMatch(/^00000000-0000-7/);
    // A symlink inside the store: a project folder that points elsewhere.
    const elsewhere = fs.mkdtempSync(path.join(fake.home, 'elsewhere-'));
    fs.symlinkSync(elsewhere, path.join(fake.home, '.claude', 'projects', '-tmp-linked'));
    const s = refused(() => resumeFork(stores, { agent: 'claude-code', content, cwd: '/tmp/linked' }));
    expect(s.status).toBe(403);
    expect(s.message).toMatch(/symlink/);
    expect(fs.readdirSync(elsewhere)).toEqual([]);
    // Outside the store: a projects.json whose slug climbs out.
    const reg = path.join(fake.home, '.gemini', 'projects.json');
    const saved = fs.readFileSync(reg);
    fs.writeFileSync(reg, JSON.stringify({ projects: { '/evil': '../../outside' } }));
    try {
      const o = refused(() => resumeFork(stores, { agent: 'gemini-cli', content: fs.readFileSync(placed('0ab84937-9fe7-4284-986a-33c832af0b6a').path, 'utf8'), cwd: '/evil' }));
      expect(o.status).toBe(403);
      expect(o.message).toMatch(/would leave the store/);
      expect(fs.existsSync(path.join(fake.home, 'outside'))).toBe(false);
    } finally {
      fs.writeFileSync(reg, saved);
    }
  });

  it('says which field is wrong in a bad request', () => {
    const bad = (body: unknown) => {
      try {
        resumeFork(stores, body);
      } catch (e) {
        expect(e).toBeInstanceOf(ResumeInputError);
        return (e as Error).message;
      }
      throw new Error('accepted');
    };
    expect(bad(null)).toMatch(/^body:/);
    expect(bad({ agent: 'cursor', content: 'x' })).toMatch(/^agent: "cursor" is not one of claude-code, codex-cli, gemini-cli/);
    expect(bad({ agent: 'codex-cli', content: '' })).toMatch(/^content:/);
    expect(bad({ agent: 'codex-cli', content: '{"a":1}\nnot json' })).toMatch(/^content: line 2 is not JSON/);
    expect(bad({ agent: 'codex-cli', content: '{"type":"response_item"}' })).toMatch(/^content: the first line is not a session_meta/);
    expect(bad({ agent: 'claude-code', content: '{"type":"user"}' })).toMatch(/^content: no record carries a sessionId/);
    expect(bad({ agent: 'claude-code', content: '{"sessionId":"a"}', cwd: 'relative' })).toMatch(/^cwd:/);
    expect(bad({ agent: 'claude-code', content: '{"sessionId":"a"}' })).toMatch(/^cwd: the session records no working folder/);
    expect(bad({ agent: 'claude-code', content: '{"sessionId":"a"}', cwd: '/x', lineage: { budget: -1 } })).toMatch(/^lineage\.budget/);
    expect(bad({ agent: 'claude-code', content: '{"sessionId":"a"}', cwd: '/x', lineage: { steps: [1] } })).toMatch(/^lineage\.steps/);
  });
});
