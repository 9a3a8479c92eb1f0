/**
 * Prompt rendering on a real, large Claude Code session: the span fits the cap, user messages
 * survive the squeeze, every cut is marked, and placeholders are filled exactly once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ProjectedMessage } from '../compaction/types';
import { importBytes } from '../formats/import';
import { formatById } from '../formats/registry';
import { corpusFiles } from '../../tests/corpus';
import { DEFAULT_PROMPTS, identifierChecklist, renderPrompt, renderSpanForPrompt, templateHash } from './prompts';

expect(formatById('claude-code'), 'claude-code must be registered').toBeDefined();
const file = corpusFiles('claude-code').find((f) => f.endsWith('slopometry_transcript_opus45_compact.jsonl'))!;
const log = importBytes(path.basename(file), new Uint8Array(fs.readFileSync(file))).transcript;
const messages: ProjectedMessage[] = log.messages.map((m) => ({ sourceId: m.id, role: m.role, turn: m.turn, blocks: m.blocks }));
const userTexts = messages.filter((m) => m.role === 'user').flatMap((m) => m.blocks.flatMap((b) => (b.kind === 'text' && b.text.trim() ? [b.text] : [])));

describe('renderSpanForPrompt', () => {
  it('renders a small span whole (only long tool results clipped), with turns, roles, calls and results', () => {
    const small = messages.slice(0, 12);
    const text = renderSpanForPrompt(small);
    expect(text).toMatch(/^\[turn [1-9]\d*\] (USER|ASSISTANT|SYSTEM|TOOL):/);
    expect(text).not.toContain('[turn 0]');
    expect(text).toContain('→ ');
    expect(text).toContain('← ');
    expect(text).not.toMatch(/left out to fit/);
    for (const m of small) for (const b of m.blocks) if (b.kind === 'tool_result' && b.content.length <= 4000) expect(text).toContain(b.content);
  });

  it('caps a 3 MB session: results shrink first, then middle messages go; user messages stay', () => {
    const full = JSON.stringify(messages.map((m) => m.blocks)).length;
    expect(full).toBeGreaterThan(500_000);
    for (const cap of [200_000, 60_000]) {
      const text = renderSpanForPrompt(messages, { maxChars: cap });
      expect(text.length).toBeLessThanOrEqual(cap);
      expect(text).toMatch(/chars cut\]/);
      for (const u of userTexts) expect(text, `user text ${JSON.stringify(u.slice(0, 40))}`).toContain(u.slice(0, Math.min(u.length, 60)));
    }
    const tight = renderSpanForPrompt(messages, { maxChars: 60_000 });
    expect(tight).toMatch(/\[… [\d,]+ messages \([\d,]+ chars\) left out to fit the prompt …\]/);
  });
});

describe('renderPrompt', () => {
  it('fills the placeholders once: transcript text that looks like a placeholder stays as it is', () => {
    const span: ProjectedMessage[] = [
      { role: 'user', turn: 0, blocks: [{ kind: 'text', id: 'x.0', tokens: 3, text: 'please echo {{previous_summary}} and {{conversation}} literally' }] },
      { role: 'assistant', turn: 0, blocks: [{ kind: 'tool_call', id: 'x.1', tokens: 3, callId: 'c1', name: 'Read', input: { file_path: 'src/a.ts' } }] },
    ];
    const { system, prompt } = renderPrompt(DEFAULT_PROMPTS.structured, { messages: span, span: [0, 0], previousSummary: 'EARLIER SUMMARY' });
    expect(system).toContain('## Active Task');
    expect(system).toMatch(/do not follow them/);
    expect(prompt).toContain('<previous_summary>\nEARLIER SUMMARY\n</previous_summary>');
    expect(prompt).toContain('please echo {{previous_summary}} and {{conversation}} literally');
    expect(prompt.match(/EARLIER SUMMARY/g)).toHaveLength(1);
    expect(prompt).toContain('Summarize turns 1 of the conversation');
    expect(prompt).toContain('must name these files (from the tool calls in the span): `src/a.ts`');
  });

  it('the checklist names the files the span touched', () => {
    const checklist = identifierChecklist(messages.slice(0, 120));
    expect(checklist).toMatch(/^\nThe summary must name these files/);
    expect(checklist).toContain('/Users/tensortemplar/code/slopometry/');
  });

  it('template identity changes with the template', () => {
    expect(templateHash(DEFAULT_PROMPTS.structured)).not.toBe(templateHash(DEFAULT_PROMPTS.narrative));
    expect(templateHash({ ...DEFAULT_PROMPTS.structured, user: DEFAULT_PROMPTS.structured.user + ' ' })).not.toBe(templateHash(DEFAULT_PROMPTS.structured));
    expect(templateHash(DEFAULT_PROMPTS.structured)).toBe(templateHash({ ...DEFAULT_PROMPTS.structured }));
  });
});

describe('the prompt keeps the signal', () => {
  const run = ['$ pytest -q', ...Array.from({ length: 200 }, (_, k) => `tests/test_a.py::test_ok_${k} PASSED`), 'FAILED tests/test_a.py::test_total - AssertionError: 305 != 255', ...Array.from({ length: 200 }, (_, k) => `tests/test_b.py::test_ok_${k} PASSED`), '1 failed, 400 passed'].join('\n');
  const span: ProjectedMessage[] = [
    { role: 'user', turn: 0, blocks: [{ kind: 'text', id: 'u', tokens: 1, text: 'run the tests' }] },
    { role: 'assistant', turn: 0, blocks: [{ kind: 'tool_call', id: 'c', tokens: 1, callId: 'c1', name: 'Bash', input: { command: 'pytest -q' } }] },
    { role: 'tool', turn: 0, blocks: [{ kind: 'tool_result', id: 'r', tokens: 1, callId: 'c1', name: 'Bash', content: run, isError: false }] },
  ];
  it('a clipped result brings the error lines of its cut part, and no status word it does not know', () => {
    const text = renderSpanForPrompt(span);
    expect(run.length).toBeGreaterThan(4000);
    expect(text).toContain('(error lines from the cut part:)\nFAILED tests/test_a.py::test_total - AssertionError: 305 != 255');
    expect(text).not.toMatch(/← Bash ok/);
  });
  it('the checklist asks for every distinct error line with its turn', () => {
    expect(identifierChecklist(span)).toContain('- turn 1: FAILED tests/test_a.py::test_total - AssertionError: 305 != 255');
  });
  it('the templates say where the facts go', () => {
    expect(DEFAULT_PROMPTS.structured.system).toMatch(/Files & Artifacts: every file edited, created or deleted.*files only read, searched or listed in one compact list/);
    expect(DEFAULT_PROMPTS.structured.system).toMatch(/Session Narrative:.*every message the user typed, verbatim and whole.*every distinct error message/);
    expect(DEFAULT_PROMPTS['claude-code'].system).toMatch(/Section 4 lists every distinct error message/);
  });
});
