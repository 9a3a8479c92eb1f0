/**
 * `census` (issue 26 §3): the per-agent table on a folder of corpus sessions, and a generated folder
 * of a thousand sessions — its work counted (files read once each, only those with a compaction
 * signature parsed, one progress report per session), not timed.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { corpusFiles, CORPUS_DIR } from '../../tests/corpus';
import { mayHoldCompaction, median, runCensus, type CensusInput, type CensusProgress } from '../ledger/census';
import { progressWriter } from './census';
import { CLI_ENTRY } from '../../tests/cli-entry';

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, [CLI_ENTRY, ...args], { encoding: 'utf8', cwd: process.cwd(), env: { ...process.env, HOME: os.tmpdir() } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'census-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('census', () => {
  it('on the corpus folder: one row per agent, with the agents\' own compactions, their ratio, survival and cache writes', () => {
    const r = cli('census', '--json', CORPUS_DIR);
    expect(r.code, r.stderr).toBe(0);
    const c = JSON.parse(r.stdout);
    const claude = c.rows.find((x: { agent: string }) => x.agent === 'Claude Code');
    const codex = c.rows.find((x: { agent: string }) => x.agent === 'Codex');
    // slopometry (1) + the schema-coverage fixture (2); the Codex fixtures: 1 + 6.
    expect(claude).toMatchObject({ compactions: 3, sessionsCompacted: 2 });
    expect(claude.sessions).toBe(corpusFiles('claude-code').length);
    expect(codex).toMatchObject({ compactions: 7, sessionsCompacted: 2 });
    // Slopometry's compaction is the one with recorded cache usage: its 16,371 tokens are Claude Code's cache writes.
    expect(claude.cacheWriteTokens).toBe(16371);
    expect(claude).toMatchObject({ cacheWriteRecorded: 2 }); // the schema-coverage fixture: one compaction has a call after it (0 written), one has none
    // Codex: of its 7 compactions only localpush's has a call after it (OpenAI bills no cache write: 0);
    // the other 6 recorded none, and are not summed as zeros.
    expect(codex).toMatchObject({ cacheWriteTokens: 0, cacheWriteUsd: 0, cacheWriteRecorded: 1 });
    const openai = c.rows.find((x: { agent: string }) => x.agent === 'OpenAI API');
    expect(openai).toMatchObject({ compactions: 1, cacheWriteRecorded: 0 });
    expect(claude.medianSurvival.commands).toBe(0);
    expect(claude.medianRatio).toBeGreaterThan(0);
    expect(claude.medianRatio).toBeLessThan(1);
    expect(c.files).toBeGreaterThan(40);
    expect(c.parsed).toBeLessThan(c.files / 2);
    const table = cli('census', CORPUS_DIR);
    expect(table.stdout).toMatch(/^agent\s+sessions\s+compacted\s+compactions\s+after\/before\s+instructions\s+paths\s+commands\s+errors\s+figures\s+cache writes$/m);
    expect(table.stdout).toMatch(/^Claude Code\s+\d+\s+2\s+3\s+0\.\d\d\s/m);
    expect(table.stdout).toMatch(/^Codex\s.*\s0 \(\$0\.00\) · 1 of 7$/m);
    expect(table.stdout).toMatch(/^OpenAI API\s.*\snot recorded$/m);
    expect(table.stdout).toMatch(/^Claude Code\s.*\s16,371 \(\$\d+\.\d\d\) · 2 of 3$/m);
    expect(table.stderr).toMatch(/census \[#+\] \d+\/\d+ sessions/);
  });

  it('a folder of a thousand sessions: each file read once, only the ones with a compaction parsed, progress for every session', () => {
    const plain = fs.readFileSync(corpusFiles('claude-code').find((f) => path.basename(f).startsWith('simonw_sample_session.jsonl'))!);
    const compacted = fs.readFileSync(corpusFiles('claude-code').find((f) => path.basename(f).startsWith('agent-sessions_claude_schema_coverage'))!);
    expect(mayHoldCompaction(plain)).toBe(false);
    expect(mayHoldCompaction(compacted)).toBe(true);
    const dir = path.join(tmp, 'thousand');
    for (let i = 0; i < 1000; i++) {
      const sub = path.join(dir, `p${i % 10}`);
      fs.mkdirSync(sub, { recursive: true });
      fs.writeFileSync(path.join(sub, `s${i}.jsonl`), i % 100 === 7 ? compacted : plain);
    }
    const files = fs.readdirSync(dir, { recursive: true }).map(String).filter((f) => f.endsWith('.jsonl')).map((f) => path.join(dir, f));
    const reads = new Map<string, number>();
    const inputs: CensusInput[] = files.map((f) => ({ path: f, read: () => (reads.set(f, (reads.get(f) ?? 0) + 1), new Uint8Array(fs.readFileSync(f))) }));
    const progress: CensusProgress[] = [];
    const c = runCensus(inputs, (p) => progress.push(p));
    expect(c.files).toBe(1000);
    expect([...reads.values()].every((n) => n === 1)).toBe(true);
    expect(reads.size).toBe(1000);
    expect(c.parsed).toBe(10); // the ten with compact_boundary lines; 990 needed one byte search each
    expect(progress).toHaveLength(1000);
    expect(progress.map((p) => p.done)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
    const claude = c.rows.find((r) => r.agent === 'Claude Code')!;
    expect(claude).toMatchObject({ sessions: 1000, sessionsCompacted: 10, compactions: 20 });
    // The CLI on it: the bar on stderr (a line per tenth off a terminal), the table on stdout.
    const r = cli('census', dir);
    expect(r.code, r.stderr).toBe(0);
    const bars = r.stderr.split('\n').filter((l) => l.startsWith('census ['));
    expect(bars.length).toBeGreaterThanOrEqual(10);
    expect(bars.length).toBeLessThanOrEqual(12);
    expect(bars.at(-1)).toMatch(/\] 1000\/1000 sessions, 10 with compactions parsed$/);
    expect(r.stdout).toMatch(/^Claude Code\s+1000\s+10\s+20\s/m);
  });

  it('the progress bar redraws in place on a terminal; bad input is named', () => {
    let out = '';
    const w = progressWriter({ isTTY: true, write: (s: string) => (out += s) });
    for (let i = 1; i <= 4; i++) w({ done: i, total: 4, parsed: 0, path: 'x' });
    expect(out.split('\r')).toHaveLength(5);
    expect(out.endsWith('4/4 sessions, 0 with compactions parsed\n')).toBe(true);
    expect(median([3, 1, 2])).toBe(2);
    expect(median([])).toBeNull();
    const bad = cli('census', path.join(tmp, 'nope'));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/is not a folder/);
  });
});
