/**
 * Issue 10 "A protected tail that fits agents": with default settings, `compact FILE --budget ⌊T/2⌋`
 * fits on every single-session corpus file whose floor allows it (system + every user message +
 * the last model call), and otherwise exits 1 naming the floor. The prompt that opened the
 * running turn is in every output.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { allCorpusFiles } from '../../tests/corpus';
import { importFile } from '../formats/import';
import { formatById } from '../formats/registry';
import { sourceFromBytes } from '../read/source';
import { transcriptTotals } from '../tokens/totals';
import { contextFloor } from '../compaction/calls';
import { modelViewTotals, startingContext } from '../compaction/project';
import type { Transcript } from '../model/types';
import { run } from './compact';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tail-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const load = (f: string) => sourceFromBytes(path.basename(f), new Uint8Array(fs.readFileSync(f)));

/** Every corpus file that holds one conversation (container files with many are left out). */
function singleSessionFiles(): Array<{ file: string; t: Transcript }> {
  const out: Array<{ file: string; t: Transcript }> = [];
  for (const file of allCorpusFiles()) {
    const source = load(file);
    let t: Transcript;
    try {
      t = importFile(source).transcript;
    } catch {
      continue; // files the importers reject are covered by the format tests
    }
    if ((formatById(t.format)?.listConversations?.(source)?.length ?? 0) > 1) continue;
    out.push({ file, t });
  }
  return out;
}

/** The text of the prompt that opened the last turn (the running turn of an agent run). */
function openingPrompt(t: Transcript): string | undefined {
  const last = t.turnCount - 1;
  for (const m of t.messages) {
    if (m.turn !== last || m.role !== 'user' || m.meta || m.sidechain) continue;
    const text = m.blocks.find((b) => b.kind === 'text');
    if (text && text.kind === 'text' && text.text.trim()) return text.text;
  }
  return undefined;
}

const textOf = (t: { messages: ReadonlyArray<{ blocks: Transcript['messages'][number]['blocks'] }> }) => t.messages.flatMap((m) => m.blocks.map((b) => (b.kind === 'text' || b.kind === 'summary' ? b.text : b.kind === 'tool_result' ? b.content : ''))).join('\n');

describe('compact --budget ⌊T/2⌋ with default settings, on every single-session corpus file', () => {
  const files = singleSessionFiles();
  it('finds the corpus', () => expect(files.length).toBeGreaterThan(25));

  for (const { file, t } of files) {
    const name = path.relative(path.dirname(path.dirname(file)), file);
    it(name, async () => {
      const total = transcriptTotals(t).total;
      const budget = Math.floor(total / 2);
      const floor = contextFloor(t, startingContext(t, 'model-view').messages);
      const out = path.join(tmp, path.basename(file));
      let stdout = '';
      let stderr = '';
      const o = vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => ((stdout += String(s)), true));
      const e = vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => ((stderr += String(s)), true));
      let code: number;
      try {
        code = await run([file, '--budget', String(budget), '--out', out]);
      } finally {
        o.mockRestore();
        e.mockRestore();
      }
      if (code === 0) {
        // What the model is sent when the agent resumes the file (Claude Code and Codex exports keep
        // the history before their compaction point) fits the budget …
        const re = importFile(load(out)).transcript;
        expect(modelViewTotals(re).total).toBeLessThanOrEqual(budget);
        // … and holds the prompt that opened the running turn: it is never dropped.
        const prompt = openingPrompt(t);
        if (prompt) expect(textOf({ messages: startingContext(re, 'model-view').messages })).toContain(prompt);
        return;
      }
      expect(code, stderr).toBe(1);
      // It exits naming the floor …
      const m = /the floor is (\d+) tokens \(system (\d+) \+ user messages (\d+) \+ the last model call (\d+)/.exec(stderr);
      expect(m, `${name}: ${stderr}\n${stdout}`).not.toBeNull();
      expect(Number(m![1])).toBe(floor.total);
      // … and misses only where the floor does not allow it, or where the compaction fits and the
      // format's own compaction records (a Claude Code compact boundary and summary preamble) do not.
      if (floor.total <= budget) {
        expect(stderr, `${name}: floor ${floor.total} ≤ budget ${budget} but it did not fit`).toMatch(/the compaction fits \((\d+)\) but the [\w-]+ export adds \d+ tokens of its own records/);
        const fitted = Number(/the compaction fits \((\d+)\)/.exec(stderr)![1]);
        expect(fitted).toBeLessThanOrEqual(budget);
      }
    });
  }
});
