/**
 * The CLI verbs of the sessions API on a temporary HOME holding corpus sessions of the three agents:
 * `sessions --json` lists them all; a session of each agent compacted by `compact` and written back
 * by `resume --json` lands where the agent looks, with a new id, the original byte-identical.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importBytes } from '../formats/import';
import { modelViewTotals } from '../compaction/project';
import type { SessionEntry } from '../sessions/contract';
import { makeFakeHome, sha256File, type FakeHome } from '../sessions/testing';
import { CLI_ENTRY } from '../../tests/cli-entry';

let fake: FakeHome;
let work: string;
beforeAll(() => {
  fake = makeFakeHome();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-cli-sessions-'));
});
afterAll(() => {
  fake.cleanup();
  fs.rmSync(work, { recursive: true, force: true });
});

function cli(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [CLI_ENTRY, ...args], { encoding: 'utf8', cwd: process.cwd(), env: { ...process.env, HOME: fake.home, CLAUDE_CONFIG_DIR: '', CODEX_HOME: '', GEMINI_CLI_HOME: '', ...env }, timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('contextscope sessions', () => {
  it('--json lists every session of the three agents in HOME, with the contract fields', () => {
    const r = cli(['sessions', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout) as SessionEntry[];
    expect(list.map((s) => s.path).sort()).toEqual(fake.sessions.map((s) => s.path).sort());
    for (const s of list) {
      for (const k of ['agent', 'path', 'sessionId', 'updatedAt', 'bytes'] as const) expect(s[k], `${s.path} ${k}`).toBeDefined();
      const placed = fake.sessions.find((p) => p.path === s.path)!;
      expect(s.sessionId).toBe(placed.sessionId);
      if (placed.cwd) expect(s.cwd).toBe(placed.cwd);
      if (!placed.parent) expect(s.firstPrompt, s.path).toBeTruthy();
      if (!placed.parent) expect(s.startedAt, s.path).toBeTruthy();
    }
    // The table: sub-agents under their parent; a folder named on the command line is searched too.
    const folder = fs.mkdtempSync(path.join(work, 'named-'));
    fs.copyFileSync(path.join(fake.sessions[0].source), path.join(folder, 'mine.jsonl'));
    const table = cli(['sessions', folder]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/\n {2}└ agent-a1b2c3d4 /);
    // A count from the head and tail only is a lower bound, and says so.
    expect(table.stdout).toMatch(/^0f112eb4-a676-476d-8986-d6c78693cd5b {2}claude-code .* 0\+ compaction\(s\)/m);
    expect(table.stdout).toContain(path.join(folder, 'mine.jsonl'));
    expect(table.stdout).toMatch(new RegExp(`^${fake.sessions.length + 1} session\\(s\\)$`, 'm'));
    expect(cli(['sessions', path.join(work, 'missing')]).stderr).toMatch(/is not a folder/);
  });
});

const CASES = [
  { agent: 'claude-code', id: 'e9f146fa-3b20-48d0-9be4-d99ca901cae4' },
  { agent: 'codex-cli', id: '01996135-afde-7911-97f0-d863511eca56' },
  { agent: 'gemini-cli', id: '0ab84937-9fe7-4284-986a-33c832af0b6a' },
] as const;

describe('contextscope resume', () => {
  for (const c of CASES)
    it(`${c.agent}: compact, then resume --json writes a new session where the agent looks; the original unchanged`, () => {
      const src = fake.sessions.find((s) => s.sessionId === c.id)!;
      const before = sha256File(src.path);
      const t = importBytes(path.basename(src.path), new Uint8Array(fs.readFileSync(src.path))).transcript;
      const budget = Math.floor(modelViewTotals(t).total / 4);
      const out = path.join(work, `${c.agent}-compacted${path.extname(src.path)}`);
      const comp = cli(['compact', src.path, '--strategy', 'summarize', '--budget', String(budget), '--out', out]);
      expect(fs.existsSync(out), comp.stderr).toBe(true);
      const r = cli(['resume', out, '--agent', c.agent, '--json', ...(c.agent === 'gemini-cli' ? ['--cwd', fake.geminiProject] : [])]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const res = JSON.parse(r.stdout) as { agent: string; sessionId: string; path: string; command: string };
      expect(Object.keys(res).slice(0, 4)).toEqual(['agent', 'sessionId', 'path', 'command']);
      expect(res.agent).toBe(c.agent);
      expect(res.sessionId).not.toBe(c.id);
      expect(fs.existsSync(res.path)).toBe(true);
      if (c.agent === 'claude-code') {
        expect(path.dirname(res.path)).toBe(path.dirname(src.path));
        expect(res.command).toBe(`cd /home/wei/repo/claude-code && claude --resume ${res.sessionId}`);
      } else if (c.agent === 'codex-cli') {
        expect(res.path.startsWith(path.join(fake.home, '.codex', 'sessions') + path.sep)).toBe(true);
        expect(res.command).toBe(`codex resume ${res.sessionId}`);
      } else {
        expect(path.dirname(res.path)).toBe(path.dirname(src.path));
        expect(res.command).toBe(`cd /home/mai/repo/discordbot && gemini --resume ${res.sessionId}`);
      }
      expect(sha256File(src.path)).toBe(before);
      // The fork is a session of that agent to our importer, and the list shows where it came from.
      expect(importBytes(path.basename(res.path), new Uint8Array(fs.readFileSync(res.path))).transcript.format).toBe(c.agent);
      const list = JSON.parse(cli(['sessions', '--json']).stdout) as SessionEntry[];
      const entry = list.find((s) => s.path === res.path)!;
      expect(entry.sessionId).toBe(res.sessionId);
      // Under its source session in the store (found by the id the export keeps), with the export named.
      expect(entry.derivedFrom).toMatchObject({ tool: 'contextscope', sourcePath: src.path, exportPath: out });
      // A second resume of the same export is another new session, never the first one's file.
      const again = JSON.parse(cli(['resume', out, '--agent', c.agent, '--json', ...(c.agent === 'gemini-cli' ? ['--cwd', fake.geminiProject] : [])]).stdout) as { path: string; sessionId: string };
      expect(again.sessionId).not.toBe(res.sessionId);
      expect(again.path).not.toBe(res.path);
    }, 180_000);

  it('says what is wrong: an unknown agent, a file of another agent, a missing file', () => {
    const claude = fake.sessions.find((s) => s.agent === 'claude-code')!.path;
    expect(cli(['resume', claude, '--agent', 'cursor']).stderr).toMatch(/--agent "cursor" is not one of claude-code, codex-cli, gemini-cli/);
    const wrong = cli(['resume', claude, '--agent', 'codex-cli']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/not a Codex session/);
    expect(cli(['resume', path.join(work, 'nope.jsonl'), '--agent', 'codex-cli']).code).toBe(2);
    expect(cli(['resume', '--agent', 'codex-cli']).stderr).toMatch(/^Usage: contextscope resume FILE/);
  });
});
