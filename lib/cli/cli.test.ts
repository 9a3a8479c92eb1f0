import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusFiles, CORPUS_DIR } from '../../tests/corpus';
import { importBytes } from '../formats/import';
import { transcriptTotals } from '../tokens/totals';
import { modelViewTotals } from '../compaction/project';
import { inspectTranscript, parseInspectArgs, renderTable } from './inspect';
import { listVerbs } from './main';
import { roundtripBytes, roundtripFile } from './roundtrip';
import { CLI_ENTRY } from '../../tests/cli-entry';

const SLOP = corpusFiles('claude-code').find((f) => path.basename(f).startsWith('slopometry'))!;
const TAU = corpusFiles('openai-chat').find((f) => path.basename(f).startsWith('tau-bench'))!;

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, [CLI_ENTRY, ...args], { encoding: 'utf8', cwd: process.cwd() });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('cli inspect', () => {
  it('reports the transcript with the one token definition and recorded usage', () => {
    const t = importBytes('s.jsonl', new Uint8Array(fs.readFileSync(SLOP))).transcript;
    const r = inspectTranscript(t, SLOP);
    expect(r).toMatchObject({ format: 'claude-code', title: t.title, model: t.model, messages: t.messages.length, turns: t.turnCount, toolCalls: 191, toolResults: 191 });
    expect(r.tokens).toEqual({ ...transcriptTotals(t), modelView: modelViewTotals(t).total });
    // Issue 30: the model's view (the app's figure) beside the whole file: 69,856 of 165,164.
    expect(r.tokens.modelView).toBeLessThan(r.tokens.total / 2);
    expect(r.usage.calls).toBe(187);
    expect(r.usage.output).toBe(t.usage.reduce((n, u) => n + u.output, 0));
    expect(r.markers).toEqual([expect.objectContaining({ source: 'claude-code-compact', trigger: 'auto', tokensBefore: 155317 })]);
    // Claude Code records no system prompt or tool schemas: the first call shows what they cost.
    const first = t.usage[0];
    expect(r.overhead).toEqual({ recordedAtFirstCall: first.input + first.cacheRead + first.cacheWrite, visibleEstimate: transcriptTotals({ messages: t.messages.slice(0, first.messageIndex), tools: [] }).total, invisible: expect.any(Number) });
    expect(r.overhead!.invisible).toBeGreaterThan(15000);
    const table = renderTable(r);
    expect(table).toMatch(new RegExp(`^invisible overhead\\s+${r.overhead!.invisible.toLocaleString('en-US')} `, 'm'));
    expect(table).toMatch(/^file\s+.*slopometry/m);
    expect(table).toMatch(new RegExp(`^model view tokens\\s+${r.tokens.modelView.toLocaleString('en-US')} \\(what the model sees`, 'm'));
    expect(table).toMatch(/^recorded calls\s+187$/m);
  });

  it('parses its options and rejects unknown ones', () => {
    expect(parseInspectArgs(['f.json', '--json', '--conversation', '3', '--format=openai-chat'])).toEqual({ file: 'f.json', json: true, conversation: 3, format: 'openai-chat', help: false, compactions: false, policies: [], pins: [] });
    expect(() => parseInspectArgs(['f.json', '--bogus'])).toThrow(/Unknown option/);
    expect(() => parseInspectArgs(['f.json', '--conversation', 'x'])).toThrow(/--conversation/);
  });

  it('end to end: --json with a container conversation; errors go to stderr with exit code 2', () => {
    const ok = cli('inspect', TAU, '--json', '--conversation', '7');
    expect(ok.code).toBe(0);
    const report = JSON.parse(ok.stdout);
    const raw = JSON.parse(fs.readFileSync(TAU, 'utf8'));
    expect(report.format).toBe('openai-chat');
    expect(report.messages).toBe(raw[7].traj.length);
    expect(report.conversations.length).toBe(200);
    expect(report.conversation).toBe(7);
    expect(report.tokens.modelView).toBe(report.tokens.total);
    for (const key of ['title', 'model', 'turns', 'toolCalls', 'toolResults', 'tokens', 'markers', 'usage', 'warnings']) expect(report).toHaveProperty(key);
    const bad = cli('inspect', path.join(CORPUS_DIR, 'SOURCES.md'));
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/^SOURCES\.md, line 1: The file is not JSON or JSONL/);
  }, 60_000);
});

describe('cli roundtrip', () => {
  it('passes real files and reports a differing record', () => {
    expect(roundtripFile(SLOP)).toEqual({ kind: 'ok', records: 707, format: 'claude-code' });
    expect(roundtripFile(path.join(CORPUS_DIR, 'SOURCES.md')).kind).toBe('skip');
    expect(roundtripBytes('x.json', new TextEncoder().encode('{"foo":1}')).kind).toBe('fail');
  });

  it('end to end: one line per file, a final count, exit 1 on failure', () => {
    const dir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'cs-roundtrip-'));
    const bad = path.join(dir, 'bad.json');
    fs.writeFileSync(bad, '{"foo": 1}');
    const r = cli('roundtrip', SLOP, path.join(CORPUS_DIR, 'SOURCES.md'), bad);
    fs.rmSync(dir, { recursive: true });
    expect(r.code).toBe(1);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toBe(`ok  ${SLOP}  (707 records)`);
    expect(lines[1]).toMatch(/^skip\s+.*SOURCES\.md: not a transcript/);
    expect(lines[2].startsWith(`FAIL ${bad}: `)).toBe(true);
    expect(lines[3]).toBe('1 passed, 1 failed');
  }, 60_000);
});

describe('cli main', () => {
  it('finds verbs by file and lists them in --help', () => {
    expect(listVerbs()).toEqual(expect.arrayContaining(['inspect', 'roundtrip']));
    expect(listVerbs()).not.toContain('main');
    const r = cli('--help');
    expect(r.code).toBe(0);
    for (const v of ['inspect', 'roundtrip']) expect(r.stdout).toMatch(new RegExp(`^  ${v}\\s`, 'm'));
    const unknown = cli('frobnicate');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/Unknown verb "frobnicate"/);
  }, 60_000);
});
