/**
 * Issue 27 item 4: `compact --pointers` writes pointers that resolve. Each stubbed result of the
 * written export names the source file and a line whose record holds the result's full text; each
 * summary names the lines of the records of its span; with no source file, the recall file beside
 * the export holds the text at the named line. Run on real corpus files, through the CLI.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { run, compactTranscript, stepFromArgs, parseCompactArgs } from '../../lib/cli/compact';
import { importFile } from '../../lib/formats/import';
import { sourceFromBytes } from '../../lib/read/source';
import { blockText } from '../../lib/compaction/pointers';
import { modelViewTotals, startingContext } from '../../lib/compaction/project';
import type { ToolResultBlock } from '../../lib/model/types';

const CORPUS = path.resolve(__dirname, '../../../shared/corpus');
const read = (f: string) => importFile(sourceFromBytes(path.basename(f), new Uint8Array(fs.readFileSync(f)))).transcript;
const POINTER = /\[full text of (.+?): (\/\S+) lines? (\d+)(?:-(\d+))?(?:, uuid ([\w-]+))?\]/g;

async function compactWithPointers(file: string, args: string[]) {
  const src = path.join(CORPUS, file);
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cs-pointers-')), 'out.jsonl');
  const before = fs.readFileSync(src, 'utf8');
  const quiet = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  const code = await run([src, '--budget', '1000000', ...args, '--pointers', '--keep-failed', '--out', out]);
  quiet.mockRestore();
  expect(code).toBe(0);
  // The user's original file is never written.
  expect(fs.readFileSync(src, 'utf8')).toBe(before);
  return { src, original: read(src), lines: before.split('\n'), sent: read(out).messages.flatMap((m) => m.blocks) };
}

/** The blocks the model is sent when the session resumes (what a source compaction covers left out). */
function modelViewBlocks(t: ReturnType<typeof read>) {
  return startingContext(t, 'model-view').messages.filter((m) => !m.sidechain).flatMap((m) => m.blocks);
}

describe('--pointers', () => {
  it('each stubbed result of a Claude Code export points at the source line (and uuid) whose record holds its full text', async () => {
    const { src, original, lines, sent } = await compactWithPointers('claude-code/claude-code-viewer_5c0375b4.jsonl', ['-s', 'strip-tool-results', '--keep-last', '0']);
    // What the model is sent on resume: the stubbed results, with their pointers.
    const stubs = sent.filter((b): b is ToolResultBlock => b.kind === 'tool_result' && /\[full text of this result: /.test(b.content));
    expect(stubs.length).toBe(2);
    for (const stub of stubs) {
      const [, , file, line, , uuid] = [...stub.content.matchAll(POINTER)][0];
      expect(file).toBe(src);
      const rec = lines[Number(line) - 1];
      expect(uuid).toBeDefined();
      expect(JSON.parse(rec).uuid).toBe(uuid);
      // The full text: the original result of the same call, found in the record at that line.
      const full = original.messages.flatMap((m) => m.blocks).find((b): b is ToolResultBlock => b.kind === 'tool_result' && b.callId === stub.callId)!;
      expect(full.content.length).toBeGreaterThan(200);
      expect(stub.content).not.toContain(full.content);
      const value = JSON.parse(rec) as { message: { content: Array<{ type: string; tool_use_id?: string; content?: unknown }> } };
      const part = value.message.content.find((c) => c.type === 'tool_result' && c.tool_use_id === stub.callId)!;
      const text = typeof part.content === 'string' ? part.content : (part.content as Array<{ text?: string }>).map((x) => x.text ?? '').join('\n');
      expect(text).toBe(full.content);
    }
  });

  it('a summary points at the lines of every record of its span', async () => {
    const { src, original, lines, sent } = await compactWithPointers('claude-code/claude-code-viewer_fe5e1c67.jsonl', ['-s', 'summarize', '--keep-last', '1']);
    const summaries = sent.filter((b) => (b.kind === 'summary' || b.kind === 'text') && /\[full text of turns /.test(b.text));
    expect(summaries.length).toBe(1);
    const [, what, file, from, to] = [...(summaries[0] as { text: string }).text.matchAll(POINTER)][0];
    expect(file).toBe(src);
    const [a, b] = /turns (\d+)-(\d+)/.exec(what)!.slice(1).map(Number);
    const span = original.messages.filter((m) => m.turn >= a - 1 && m.turn <= b - 1 && !m.sidechain);
    const spanLines = span.flatMap((m) => m.recordRefs.map((r) => original.records[r].line));
    expect(Math.min(...spanLines)).toBe(Number(from));
    expect(Math.max(...spanLines)).toBe(Number(to));
    // Each user message of the span is there verbatim, in the named lines.
    const named = lines.slice(Number(from) - 1, Number(to)).join('\n');
    const said = span.filter((m) => m.role === 'user' && !m.meta).flatMap((m) => m.blocks.filter((x) => x.kind === 'text').map((x) => (x as { text: string }).text));
    expect(said.length).toBeGreaterThan(0);
    for (const t of said) expect(named).toContain(JSON.stringify(t).slice(1, -1));
  });

  it('a Codex rollout that compacted itself, at a quarter of its tokens: the file fits, and carries our summary and its pointers, each resolving', async () => {
    // localpush: a `compacted` record replaced its history. The stubs' pointers cost ~40 tokens
    // each (the absolute path); they were not counted, so compact took them for edits the Codex
    // export "did not carry", re-aimed the whole pointer cost below the budget, and emergency
    // dropped the summary that aim made: a file with no summary and no pointer (test-clients' failing case).
    const src = path.join(CORPUS, 'codex-cli/localpush_rollout-2026-02-23_sanitized_compacted.jsonl');
    const original = read(src);
    const budget = Math.floor(modelViewTotals(original).total / 4);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-pointers-codex-'));
    const out = path.join(dir, 'out.jsonl');
    const report = path.join(dir, 'report.json');
    const before = fs.readFileSync(src, 'utf8');
    const said: string[] = [];
    const quiet = vi.spyOn(process.stdout, 'write').mockImplementation((s) => (said.push(String(s)), true));
    const code = await run([src, '--budget', String(budget), '--pointers', '--out', out, '--report-json', report]);
    quiet.mockRestore();
    expect(code).toBe(0);
    expect(fs.readFileSync(src, 'utf8')).toBe(before);
    expect(said.join('')).not.toContain('did not carry every edit');
    const written = fs.readFileSync(out, 'utf8');
    const back = read(out);
    const total = modelViewTotals(back).total;
    expect(total).toBeLessThanOrEqual(budget);
    // The audit's numbers are the file's: the pointers are counted in what the projection holds.
    const audit = JSON.parse(fs.readFileSync(report, 'utf8')) as { summaries: Array<{ span: [number, number]; text: string }>; tokens: { after: number } };
    expect(audit.summaries.length).toBe(1);
    // What the model is sent on resume (after the file's last compaction) holds our summary, with the pointer to its span's lines.
    const view = modelViewBlocks(back);
    const summary = view.find((b) => b.kind === 'summary' || (b.kind === 'text' && b.text.includes(audit.summaries[0].text.slice(0, 200))));
    expect(summary).toBeDefined();
    const summaryText = (summary as { text: string }).text;
    const [sp] = [...summaryText.matchAll(POINTER)];
    expect(sp[1]).toBe(`turns ${audit.summaries[0].span[0] + 1}-${audit.summaries[0].span[1] + 1}`);
    expect(sp[2]).toBe(src);
    const span = original.messages.filter((m) => m.turn >= audit.summaries[0].span[0] && m.turn <= audit.summaries[0].span[1] && !m.sidechain);
    const spanLines = span.flatMap((m) => m.recordRefs.map((r) => original.records[r].line));
    expect([Number(sp[3]), Number(sp[4])]).toEqual([Math.min(...spanLines), Math.max(...spanLines)]);
    // Each stubbed result sent names a line of the source whose record holds that call's exact output.
    const lines = before.split('\n');
    const stubs = view.filter((b): b is ToolResultBlock => b.kind === 'tool_result' && /\[full text of this result: /.test(b.content));
    // How many stubs stay beside the summary depends on what the re-aim settles on, and so on what
    // each pointer costs: the source's absolute path is in every one. Measured: 13 stubs at a
    // 20-character path, 3 at /work/shared/corpus/…, 2 at /check/work/shared/corpus/… (CI's
    // checkout). A longer path costs more per pointer, so fewer stubs fit beside the summary.
    expect(stubs.length).toBeGreaterThanOrEqual(1);
    const full = new Map(original.messages.flatMap((m) => m.blocks).flatMap((b) => (b.kind === 'tool_result' ? [[b.callId, b.content] as const] : [])));
    for (const stub of stubs) {
      const [, , file, line] = [...stub.content.matchAll(POINTER)][0];
      expect(file).toBe(src);
      const rec = JSON.parse(lines[Number(line) - 1]) as { type: string; payload: { call_id?: string; output?: unknown; replacement_history?: Array<{ call_id?: string; output?: unknown }> } };
      const items = rec.type === 'compacted' ? rec.payload.replacement_history ?? [] : [rec.payload];
      const item = items.find((x) => x.call_id === stub.callId);
      expect(item, `line ${line} holds call ${stub.callId}`).toBeDefined();
      expect(typeof item!.output === 'string' ? item!.output : JSON.stringify(item!.output)).toContain(full.get(stub.callId)!);
      expect(stub.content).not.toContain(full.get(stub.callId)!);
    }
    // Every pointer the export holds is in what the model is sent.
    const sentText = view.map(blockText).join('\n');
    for (const p of new Set(written.match(POINTER) ?? [])) expect(sentText).toContain(p);
  });

  it.each(['gemini-cli/vibecodingtracker_gemini_session.jsonl', 'gemini-cli/vibecodingtracker_gemini_session_legacy.json'])('each stubbed result of a Gemini CLI session (%s) points at the line (and id) of the message whose record holds its exact text', async (file) => {
    const { src, original, lines, sent } = await compactWithPointers(file, ['-s', 'strip-tool-results', '--keep-last', '0']);
    const stubs = sent.filter((b): b is ToolResultBlock => b.kind === 'tool_result' && /\[full text of this result: /.test(b.content));
    expect(stubs.length).toBeGreaterThanOrEqual(3);
    const full = new Map(original.messages.flatMap((m) => m.blocks).flatMap((b) => (b.kind === 'tool_result' ? [[b.callId, b.content] as const] : [])));
    // The legacy file is one JSON document: its messages, by id, to check the line against.
    const doc = file.endsWith('.json') ? (JSON.parse(lines.join('\n')) as { messages: Array<{ id: string }> }) : undefined;
    for (const stub of stubs) {
      const [, , at, line, , uuid] = [...stub.content.matchAll(POINTER)][0];
      expect(at).toBe(src);
      expect(uuid).toBeDefined();
      let record: unknown;
      if (doc) {
        // The message's object opens at the named line; its id is the next line.
        expect(lines[Number(line) - 1].trim()).toBe('{');
        expect(lines[Number(line)]).toContain(`"id": "${uuid}"`);
        record = doc.messages.find((m) => m.id === uuid);
      } else {
        record = JSON.parse(lines[Number(line) - 1]);
        expect((record as { id: string }).id).toBe(uuid);
      }
      const text = full.get(stub.callId)!;
      expect(text.length).toBeGreaterThan(50);
      expect(stub.content).not.toContain(text);
      // The record holds the call and its exact output.
      expect(JSON.stringify(record)).toContain(JSON.stringify(stub.callId));
      expect(JSON.stringify(record)).toContain(JSON.stringify(text).slice(1, -1));
    }
  });

  it('with no source file, the pointers name lines of a recall file holding the exact text', () => {
    const src = path.join(CORPUS, 'openai-chat/tau-bench_gpt-4o-airline_historical_trajectories.json');
    const t = read(src);
    const recallPath = '/tmp/x/out.json.recall.jsonl';
    for (const [strategy, least] of [['strip-tool-results', 3], ['summarize', 1]] as const) {
    const step = stepFromArgs(parseCompactArgs(['f', '-s', strategy, '--keep-last', '2']), undefined, 1_000_000);
    const o = compactTranscript(t, step, 1_000_000, { write: true, pointers: { recallPath } });
    expect(o.recall).toBeDefined();
    const recall = o.recall!.trimEnd().split('\n').map((l) => JSON.parse(l) as { message: number; block?: string; text: string });
    const blocks = new Map(t.messages.flatMap((m) => m.blocks).map((b) => [b.id, b]));
    let n = 0;
    for (const pm of o.projection.messages)
      for (const b of pm.blocks) {
        const text = b.kind === 'tool_result' ? b.content : 'text' in b ? (b.text ?? '') : '';
        for (const [, , file, line, last] of text.matchAll(POINTER)) {
          expect(file).toBe(recallPath);
          n++;
          for (let i = Number(line); i <= Number(last ?? line); i++) {
            const r = recall[i - 1];
            if (r.block) expect(r.text).toBe((blocks.get(r.block) as ToolResultBlock).content);
            else expect(r.text).toBe(t.messages[r.message].blocks.map(blockText).filter(Boolean).join('\n'));
          }
        }
      }
    expect(n).toBeGreaterThanOrEqual(least);
    // The export carries the pointers the model is sent.
    expect(o.text).toContain('[full text of');
    }
  });

  it('a directory: the pointers of each file name that file; --stream refuses --pointers', async () => {
    const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cs-pointers-dir-')), 'in');
    fs.mkdirSync(dir);
    const src = path.join(dir, 'a.jsonl');
    fs.copyFileSync(path.join(CORPUS, 'claude-code/claude-code-viewer_5c0375b4.jsonl'), src);
    const outDir = path.join(dir, '..', 'out');
    const quiet = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const code = await run([dir, '--budget', '1000000', '-s', 'strip-tool-results', '--keep-last', '0', '--pointers', '--keep-failed', '--out', outDir]);
    quiet.mockRestore();
    expect(code).toBe(0);
    const text = fs.readFileSync(path.join(outDir, 'a.jsonl'), 'utf8');
    expect(text).toContain(`[full text of this result: ${src} line `);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    expect(await run(['--stream', '--pointers'])).toBe(2);
    expect(String(err.mock.calls[0][0])).toMatch(/--pointers names the file .* stdin has none/);
    err.mockRestore();
  });
});
