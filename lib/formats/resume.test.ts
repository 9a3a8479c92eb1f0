/**
 * What a real agent sends the model when it resumes one of our compacted exports (issue 10 §4,
 * issue 13 "exports drop history"). `npm run test:clients` checks this against the real Claude
 * Code, Codex and Gemini CLI; these tests hold the same facts on the same corpus files with the
 * clients' own resume rules written out:
 *  - Claude Code loads user/assistant/system/attachment lines from its last compact_boundary on,
 *    walks parentUuid up from the newest line; where a parent is not a loaded line it falls back to
 *    the loaded line with the nearest earlier timestamp (the first in the file on a tie).
 *  - Codex replays the rollout: response_items append, a `compacted` line's replacement_history
 *    replaces the whole history.
 * Every export is made the way `compact` makes it (compactTranscript), from the real files.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import { compactTranscript, parseCompactArgs, stepFromArgs } from '../cli/compact';
import { modelViewTotals, startingContext } from '../compaction/project';
import { validatePairing } from '../model/pairing';
import type { Transcript } from '../model/types';
import { textEncodingOf } from '../read/encode';
import { sourceFromBytes } from '../read/source';
import { importFile } from './import';

type Line = Record<string, any>;
const byName = (family: string, prefix: string) => corpusFiles(family).find((f) => path.basename(f).startsWith(prefix))!;
const VIBE = byName('claude-code', 'vibecodingtracker_claude_code');
const SLOP = byName('claude-code', 'slopometry');
const LOCALPUSH = byName('codex-cli', 'localpush');
const WEB = byName('claude-code', 'simonw_sample_session_web_export');
const GEMINI = byName('gemini-cli', 'vibecodingtracker_gemini_session.jsonl');

function load(file: string): Transcript {
  return importFile(sourceFromBytes(path.basename(file), new Uint8Array(fs.readFileSync(file)))).transcript as Transcript;
}

/** `compact FILE --budget B [--strategy …]`, as the CLI runs it: the bytes it writes. */
function compact(file: string, budget: number, ...strategy: string[]): { t: Transcript; bytes: Uint8Array; text: string; back: Transcript } {
  const source = sourceFromBytes(path.basename(file), new Uint8Array(fs.readFileSync(file)));
  const t = importFile(source).transcript as Transcript;
  const args = parseCompactArgs([file, '--budget', String(budget), ...strategy.flatMap((s) => ['--strategy', s])]);
  const out = compactTranscript(t, stepFromArgs(args, undefined, budget), budget, { write: true, encoding: textEncodingOf(source) });
  const text = new TextDecoder().decode(out.bytes!);
  const back = importFile(sourceFromBytes(out.fileName!, out.bytes!)).transcript as Transcript;
  return { t, bytes: out.bytes!, text, back };
}

const lines = (text: string): Line[] => text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Line);
const LOADED = new Set(['user', 'assistant', 'system', 'attachment']);

/** The lines Claude Code sends on resume, oldest first (its loader and parent walk, see the header). */
function claudeResume(values: Line[]): Line[] {
  const start = values.map((v) => v.type === 'system' && v.subtype === 'compact_boundary').lastIndexOf(true);
  const loaded = values.slice(Math.max(0, start)).filter((v) => LOADED.has(v.type) && typeof v.uuid === 'string' && v.isSidechain !== true);
  const byUuid = new Map(loaded.map((v) => [v.uuid as string, v]));
  const chain: Line[] = [];
  const seen = new Set<string>();
  let cur: Line | undefined = [...loaded].reverse().find((v) => v.type === 'user' || v.type === 'assistant');
  while (cur && !seen.has(cur.uuid)) {
    seen.add(cur.uuid);
    chain.push(cur);
    if (cur.parentUuid === null || cur.parentUuid === undefined) break;
    const parent = byUuid.get(cur.parentUuid);
    if (parent) {
      cur = parent;
      continue;
    }
    // Not a loaded line: the nearest earlier timestamp, first in the file on a tie.
    const at: string = cur.timestamp;
    let best: Line | undefined;
    for (const v of loaded) if (v.timestamp < at && !seen.has(v.uuid) && (!best || v.timestamp > best.timestamp)) best = v;
    cur = best;
  }
  return chain.reverse();
}

/** The items Codex sends on resume (its rollout replay, see the header). */
function codexResume(values: Line[]): Line[] {
  let history: Line[] = [];
  for (const v of values) {
    if (v.type === 'response_item') history.push(v.payload);
    else if (v.type === 'compacted' && Array.isArray(v.payload?.replacement_history)) history = [...v.payload.replacement_history];
  }
  return history;
}

const mv = (t: Transcript) => modelViewTotals(t).total;

describe('Claude Code resumes our exports with the summary', () => {
  it('vibecodingtracker, --strategy summarize at a quarter: boundary < summary < first kept line, and the walk reaches the summary and the latest prompt', () => {
    const t = load(VIBE);
    const { text } = compact(VIBE, Math.floor(mv(t) / 4), 'summarize');
    const values = lines(text);
    const bi = values.map((v) => v.subtype === 'compact_boundary').lastIndexOf(true);
    const boundary = values[bi];
    const summary = values[bi + 1];
    const firstKept = values.slice(bi + 2).find((v) => v.type === 'user' || v.type === 'assistant')!;
    expect(summary.isCompactSummary).toBe(true);
    expect(boundary.timestamp < summary.timestamp).toBe(true);
    expect(summary.timestamp < firstKept.timestamp).toBe(true);
    // The file-history-delta the kept tail held no longer sits in the chain.
    const delta = values.find((v) => v.type === 'file-history-delta');
    if (delta) expect(values.slice(bi).some((v) => v.parentUuid === delta.uuid)).toBe(false);
    const sent = claudeResume(values);
    expect(sent.some((v) => v.isCompactSummary === true)).toBe(true);
    const latest = [...t.messages].reverse().find((m) => m.role === 'user' && !m.meta && m.blocks.some((b) => b.kind === 'text'))!;
    const latestText = latest.blocks.find((b) => b.kind === 'text')!;
    expect(JSON.stringify(sent)).toContain(JSON.stringify((latestText as { text: string }).text).slice(1, 60));
  });

  it('slopometry at half: every turn stays in the file (14 of 14), the model sees half', () => {
    const t = load(SLOP);
    const budget = Math.floor(mv(t) / 2);
    const { back, text } = compact(SLOP, budget);
    expect(back.turnCount).toBe(t.turnCount);
    expect(back.messages.length).toBeGreaterThanOrEqual(t.messages.length);
    expect(mv(back)).toBeLessThanOrEqual(budget);
    // Every line before the session's own compaction is there, byte for byte.
    const boundaryAt = t.records.findIndex((r) => (r.value as Line)?.subtype === 'compact_boundary');
    const written = new Set(text.split('\n'));
    for (const r of t.records.slice(0, boundaryAt + 1)) expect(written.has(r.text), `line ${r.line}`).toBe(true);
  });
});

describe('Codex resumes our exports with the summary', () => {
  it('localpush, --strategy summarize at a quarter: one new compacted line, after the session own, whose replacement_history ends the replay with our summary in it', () => {
    const t = load(LOCALPUSH);
    const { text, back } = compact(LOCALPUSH, Math.floor(mv(t) / 4), 'summarize');
    const values = lines(text);
    const compacted = values.map((v, i) => (v.type === 'compacted' ? i : -1)).filter((i) => i >= 0);
    const sourceCompacted = t.records.filter((r) => (r.value as Line).type === 'compacted').length;
    expect(compacted.length).toBe(sourceCompacted + 1);
    const ours = values[compacted[compacted.length - 1]];
    const sent = codexResume(values);
    expect(JSON.stringify(sent)).toContain(JSON.stringify(ours.payload.message).slice(1, 80));
    expect(ours.payload.replacement_history.some((it: Line) => it.role === 'user' && JSON.stringify(it).includes(JSON.stringify(ours.payload.message).slice(1, 80)))).toBe(true);
    // Every call sent has its output.
    const outputs = new Set(sent.filter((it) => String(it.type).endsWith('_call_output')).map((it) => it.call_id));
    for (const it of sent) if (it.type === 'function_call' || it.type === 'custom_tool_call') expect(outputs.has(it.call_id), it.call_id).toBe(true);
    expect(validatePairing(startingContext(back, 'model-view').messages)).toEqual([]);
  });

  it('localpush at half: the file keeps every turn (69 of 69), the model sees half', () => {
    const t = load(LOCALPUSH);
    const budget = Math.floor(mv(t) / 2);
    const { back } = compact(LOCALPUSH, budget);
    expect(back.turnCount).toBeGreaterThanOrEqual(t.turnCount);
    expect(mv(back)).toBeLessThanOrEqual(budget);
  });
});

describe('Gemini CLI resumes our exports with the summary', () => {
  it('vibecodingtracker session, --strategy summarize at a quarter: the summary record comes before the first kept record, in time as in the file', () => {
    const t = load(GEMINI);
    const { text, back } = compact(GEMINI, Math.floor(mv(t) / 4), 'summarize');
    const values = lines(text);
    const at = values.findIndex((v) => typeof v.id === 'string' && v.id.startsWith('contextscope-summary'));
    expect(at).toBeGreaterThan(0);
    const next = values.slice(at + 1).find((v) => typeof v.timestamp === 'string' && (v.type === 'user' || v.type === 'gemini'))!;
    expect(values[at].timestamp < next.timestamp).toBe(true);
    expect(validatePairing(startingContext(back, 'model-view').messages)).toEqual([]);
  });
});

describe('a compact whose budget is already met writes the original bytes', () => {
  for (const f of [SLOP, LOCALPUSH, WEB]) {
    it(path.basename(f), () => {
      const t = load(f);
      const { bytes } = compact(f, mv(t) + 1000);
      expect(Buffer.compare(Buffer.from(bytes), fs.readFileSync(f))).toBe(0);
    });
  }
});
