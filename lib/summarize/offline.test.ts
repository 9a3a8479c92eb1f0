/**
 * The offline summarizer on real corpus spans: every file a span's tool calls name and every user
 * instruction reach the summary, the output is deterministic, prefix-ward folding keeps the earlier
 * chunk, and it retains more identifiers than the first-line baseline (the ratio is printed).
 *
 * The oracles here are deliberately simpler than facts.ts (a few explicit keys and the patch header
 * grammar), so a regression in the summarizer's own extraction cannot hide behind itself.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lostIdentifiers } from '../compaction/lost';
import { projectTranscript } from '../compaction/project';
import type { ProjectedMessage, Step } from '../compaction/types';
import { importBytes } from '../formats/import';
import { formatById } from '../formats/registry';
import type { Transcript } from '../model/types';
import { sourceFromBytes } from '../read/source';
import { corpusFiles } from '../../tests/corpus';
import { callArguments, filesFromCommand, filesFromPatch, isHarnessText } from './facts';
import { CLAUDE_CODE_SECTIONS, DEFAULT_OFFLINE_LIMITS, STRUCTURED_SECTIONS, summarizeFirstLines, summarizeOffline } from './offline';
import type { SummaryStyle } from './types';
import { withThreadCpu } from '../../tests/cpu';

/** Every corpus family, with the formats its files import as: each must be registered. */
const FAMILIES: { family: string; formats: string[] }[] = [
  { family: 'openai-chat', formats: ['openai-chat'] },
  { family: 'swe-agent', formats: ['swe-agent'] },
  { family: 'mini-swe-agent', formats: ['mini-swe-agent'] },
  { family: 'claude-code', formats: ['claude-code', 'claude-code-web', 'claude-code-sdk'] },
  { family: 'codex-cli', formats: ['codex-cli'] },
  { family: 'openhands', formats: ['openhands'] },
  { family: 'gemini-cli', formats: ['gemini-cli'] },
  { family: 'gemini-api', formats: ['gemini-api'] },
  { family: 'anthropic-messages', formats: ['anthropic-messages'] },
  { family: 'openai-responses', formats: ['openai-responses'] },
  { family: 'inspect-ai', formats: ['inspect-ai'] },
];

/** Every conversation of a file (container files such as tau-bench hold many; the first 4 are enough). */
function load(file: string): Transcript[] {
  const bytes = new Uint8Array(fs.readFileSync(file));
  const first = importBytes(path.basename(file), bytes);
  const format = formatById(first.transcript.format);
  const count = format?.listConversations ? Math.min(4, format.listConversations(sourceFromBytes(path.basename(file), bytes)).length) : 1;
  const out = [first.transcript];
  for (let i = 1; i < count; i++) out.push(importBytes(path.basename(file), bytes, { conversation: i, format: first.transcript.format }).transcript);
  return out;
}

/** Canonical messages are structurally ProjectedMessages (an untouched projection). */
function projected(t: Transcript): ProjectedMessage[] {
  return t.messages.map((m) => ({ sourceId: m.id, role: m.role, turn: m.turn, blocks: m.blocks, ...(m.meta && { meta: true }), ...(m.sidechain && { sidechain: true }) }));
}

/**
 * Three consecutive chunks of the span (prefix-ward chunking). Cut by message, never in front of a
 * tool result (a chunk boundary between a call and its result is what split safety forbids).
 */
function chunks(messages: ProjectedMessage[]): { span: [number, number]; messages: ProjectedMessage[] }[] {
  const cuts = [0];
  for (let k = 1; k < 3; k++) {
    let at = Math.floor((messages.length * k) / 3);
    while (at < messages.length && messages[at].blocks.some((b) => b.kind === 'tool_result')) at++;
    if (at > cuts[cuts.length - 1] && at < messages.length) cuts.push(at);
  }
  cuts.push(messages.length);
  const out: { span: [number, number]; messages: ProjectedMessage[] }[] = [];
  for (let i = 0; i + 1 < cuts.length; i++) {
    const part = messages.slice(cuts[i], cuts[i + 1]);
    if (part.length) out.push({ span: [part[0].turn, part[part.length - 1].turn], messages: part });
  }
  return out;
}

/** Oracle: paths a span's tool calls name through the explicit path keys or a patch header. */
function pathsNamed(messages: readonly ProjectedMessage[]): string[] {
  const out = new Set<string>();
  for (const m of messages)
    for (const b of m.blocks) {
      if (b.kind !== 'tool_call') continue;
      const args = callArguments(b);
      if (typeof args === 'string') {
        for (const f of filesFromPatch(args)) out.add(f.path);
        continue;
      }
      if (typeof args !== 'object' || args === null) continue;
      const rec = args as Record<string, unknown>;
      for (const k of ['file_path', 'path', 'filename', 'file_name', 'notebook_path']) {
        const v = rec[k];
        if (typeof v === 'string' && v.trim() && !v.includes('\n') && v.length <= 500) out.add(v.trim());
      }
    }
  return [...out];
}

function userTexts(messages: readonly ProjectedMessage[]): string[] {
  return messages.filter((m) => m.role === 'user' && !m.sidechain).flatMap((m) => m.blocks.flatMap((b) => (b.kind === 'text' && b.text.trim() ? [b.text.trim()] : [])));
}

interface Case {
  file: string;
  messages: ProjectedMessage[];
}

let loadedOnce: { file: string; transcript: Transcript }[] | undefined;
/** Every conversation of every corpus file, imported once per test file. */
function loadAll(): { file: string; transcript: Transcript }[] {
  return (loadedOnce ??= FAMILIES.flatMap(({ family, formats }) =>
    corpusFiles(family).flatMap((file) =>
      load(file).map((transcript) => {
        expect(formats, `${path.basename(file)} imported as ${transcript.format}`).toContain(transcript.format);
        return { file, transcript };
      }),
    ),
  ));
}

describe('offline summarizer on real corpus spans', () => {
  it('relies only on registered formats', () => {
    for (const { formats } of FAMILIES) for (const id of formats) expect(formatById(id), `format ${id} must be registered`).toBeDefined();
  });

  const loaded = loadAll();
  const all: Case[] = loaded.map(({ file, transcript }) => ({ file, messages: projected(transcript) }));
  const transcripts = loaded.map((l) => l.transcript);

  it('reads a real corpus (non-empty spans with tool calls)', () => {
    expect(all.length).toBeGreaterThanOrEqual(47);
    const withCalls = all.filter((c) => c.messages.some((m) => m.blocks.some((b) => b.kind === 'tool_call')));
    expect(withCalls.length).toBeGreaterThanOrEqual(4);
  });

  for (const style of ['structured', 'claude-code', 'narrative'] as SummaryStyle[]) {
    it(`${style}: every file named by a tool call and every user instruction appears in the summary`, () => {
      let spans = 0;
      let paths = 0;
      let instructions = 0;
      for (const c of all) {
        for (const chunk of chunks(c.messages)) {
          const summary = summarizeOffline({ messages: chunk.messages, span: chunk.span, style });
          spans++;
          for (const p of pathsNamed(chunk.messages)) {
            paths++;
            expect(summary, `${path.basename(c.file)} ${chunk.span}: path ${p}`).toContain(p);
          }
          for (const text of userTexts(chunk.messages)) {
            instructions++;
            const where = `${path.basename(c.file)} ${chunk.span}: instruction ${JSON.stringify(text.slice(0, 60))}`;
            const head = text.slice(0, 100);
            expect(summary, where).toContain(head);
            if (!isHarnessText(text) && !chunk.messages.some((m) => m.meta && m.blocks.some((b) => b.kind === 'text' && b.text.trim() === text))) {
              // What the user typed is quoted whole, however long (issue 10.3).
              expect(summary, where).toContain(text.trim());
            }
          }
        }
      }
      expect(spans).toBeGreaterThan(10);
      expect(paths).toBeGreaterThan(5);
      expect(instructions).toBeGreaterThan(10);
    });
  }

  it('writes the sections of each style, in order', () => {
    const c = all.find((x) => x.messages.length > 10)!;
    const s = summarizeOffline({ messages: c.messages, span: [0, 1] });
    const heads = [...s.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(heads.filter((h) => (STRUCTURED_SECTIONS as readonly string[]).includes(h))).toEqual([...STRUCTURED_SECTIONS]);
    const cc = summarizeOffline({ messages: c.messages, span: [0, 1], style: 'claude-code' });
    const ccHeads = [...cc.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(ccHeads.filter((h) => (CLAUDE_CODE_SECTIONS as readonly string[]).includes(h))).toEqual([...CLAUDE_CODE_SECTIONS]);
  });

  it('is deterministic: same span (even a deep copy) → same text', () => {
    for (const c of all) {
      const a = summarizeOffline({ messages: c.messages, span: [0, 0] });
      const copy = JSON.parse(JSON.stringify(c.messages)) as ProjectedMessage[];
      expect(summarizeOffline({ messages: copy, span: [0, 0] })).toBe(a);
      expect(summarizeOffline({ messages: c.messages, span: [0, 0], style: 'narrative' })).toBe(summarizeOffline({ messages: copy, span: [0, 0], style: 'narrative' }));
    }
  });

  it('folds the previous chunk in first (prefix-ward): the last summary still names the first chunk’s files', () => {
    let checked = 0;
    for (const c of all) {
      const parts = chunks(c.messages);
      if (parts.length < 2) continue;
      let previous: string | undefined;
      for (const p of parts) previous = summarizeOffline({ messages: p.messages, span: p.span, previousSummary: previous });
      for (const p of pathsNamed(parts[0].messages)) {
        expect(previous).toContain(p);
        checked++;
      }
      const firstInstruction = userTexts(parts[0].messages.filter((m) => !m.meta)).find((t) => !isHarnessText(t));
      if (firstInstruction) expect(previous).toContain(firstInstruction.slice(0, 100));
      // Still exactly the six sections, once each.
      const heads = [...previous!.matchAll(/^## (.+)$/gm)].map((m) => m[1]).filter((h) => (STRUCTURED_SECTIONS as readonly string[]).includes(h));
      expect(heads).toEqual([...STRUCTURED_SECTIONS]);
    }
    expect(checked).toBeGreaterThan(0);
  });

  it('loses fewer identifiers than the first-line baseline, by lib/compaction/lost.ts (ratio printed)', () => {
    // One summarize step over everything but the last turn, the summarizer swapped; lost.ts then
    // lists what the compacted part said that the projected context no longer does.
    const step: Step = { id: 'measure', range: { kind: 'after-last-compaction' }, reducers: [{ id: 'summarize' }], keepLast: 1, createdAt: '2026-01-01T00:00:00Z' };
    const totals = { candidates: 0, offline: 0, baseline: 0 };
    const byKind: Record<string, { candidates: number; offline: number; baseline: number }> = {};
    let measured = 0;
    let offlineTokens = 0;
    let spanTokens = 0;
    // A sanitized file (every block replaced by "[REDACTED_TEXT len=… sha=…]") holds no identifiers
    // but the redaction hashes: measuring retention there measures nothing. Excluded, and said so.
    const redacted = transcripts.filter(isRedacted);
    for (const t of transcripts) {
      if (redacted.includes(t)) continue;
      const offline = projectTranscript(t, [step], { summarizer: summarizeOffline });
      const baseline = projectTranscript(t, [step], { summarizer: summarizeFirstLines });
      const offlineSummary = offline.messages.find((m) => m.synthetic === 'summary');
      const baselineSummary = baseline.messages.find((m) => m.synthetic === 'summary');
      // Compare only where both summaries were applied (a summary must be smaller than its span).
      if (!offlineSummary || !baselineSummary) continue;
      measured++;
      const everything = lostIdentifiers(t, { messages: [], fates: offline.fates });
      const lostOffline = lostIdentifiers(t, offline);
      const lostBaseline = lostIdentifiers(t, { messages: baseline.messages, fates: offline.fates });
      totals.candidates += everything.length;
      totals.offline += everything.length - lostOffline.length;
      totals.baseline += everything.length - lostBaseline.length;
      for (const [list, field] of [[everything, 'candidates'], [lostOffline, 'offline'], [lostBaseline, 'baseline']] as const) {
        for (const id of list) {
          byKind[id.kind] ??= { candidates: 0, offline: 0, baseline: 0 };
          byKind[id.kind][field] += field === 'candidates' ? 1 : -1;
        }
      }
      offlineTokens += offlineSummary.blocks.reduce((n, b) => n + b.tokens, 0);
      spanTokens += offline.tokens.before.total - offline.tokens.after.total + offlineSummary.blocks.reduce((n, b) => n + b.tokens, 0);
    }
    for (const k of Object.values(byKind)) {
      k.offline += k.candidates;
      k.baseline += k.candidates;
    }
    const rate = (n: number) => ((n / Math.max(1, totals.candidates)) * 100).toFixed(1);
    console.log(
      `[summaries] lost.ts identifier retention over ${measured} real transcripts, ${totals.candidates} identifiers: ` +
        `offline ${rate(totals.offline)}% vs first-lines ${rate(totals.baseline)}% (ratio ${(totals.offline / Math.max(1, totals.baseline)).toFixed(2)}×); ` +
        `by kind ${Object.entries(byKind)
          .map(([k, v]) => `${k} ${v.offline}/${v.baseline}/${v.candidates}`)
          .join(', ')} (offline/first-lines/total); summaries are ${((offlineTokens / Math.max(1, spanTokens)) * 100).toFixed(1)}% of the tokens they replace; ` +
        `excluded ${redacted.length} sanitized transcript(s): ${redacted.map((t) => t.fileName).join(', ')}`,
    );
    expect(measured).toBeGreaterThanOrEqual(5);
    expect(totals.offline).toBeGreaterThan(totals.baseline);
    // Instructions are the offline summarizer's promise: all of them survive when short enough.
    expect(byKind.instruction.offline).toBeGreaterThan(byKind.instruction.baseline);
  });
});

/** Most text blocks are redaction placeholders (a sanitized corpus file). */
function isRedacted(t: Transcript): boolean {
  const texts = t.messages.flatMap((m) => m.blocks.flatMap((b) => (b.kind === 'text' ? [b.text] : b.kind === 'tool_result' ? [b.content] : [])));
  const placeholders = texts.filter((x) => /^\[REDACTED_\w+ len=\d+ sha=[0-9a-f]+\]$/.test(x.trim())).length;
  return texts.length > 0 && placeholders / texts.length > 0.5;
}

describe('folding its own previous summary', () => {
  it('merges file lines per path (actions united, 1-based turn range widened)', () => {
    const earlier = summarizeOffline({
      messages: [
        { role: 'user', turn: 2, blocks: [{ kind: 'text', id: 'a', tokens: 1, text: 'Look at src/a.ts please' }] },
        { role: 'assistant', turn: 2, blocks: [{ kind: 'tool_call', id: 'b', tokens: 1, callId: 'c1', name: 'Read', input: { file_path: 'src/a.ts' } }] },
      ],
      span: [2, 2],
    });
    // Read only: in the compact list (no turns there).
    expect(earlier).toContain('- Only read, searched or mentioned (1): `src/a.ts`');
    const folded = summarizeOffline({
      messages: [{ role: 'assistant', turn: 4, blocks: [{ kind: 'tool_call', id: 'd', tokens: 1, callId: 'c2', name: 'Edit', input: { file_path: 'src/a.ts', old_string: 'x', new_string: 'y' } }] }],
      span: [4, 4],
      previousSummary: earlier,
    });
    // Edited now: a changed file's own line, with the earlier actions united.
    expect(folded).toContain('- `src/a.ts` — read, edited (turn 5)');
    expect(folded).toContain('Look at src/a.ts please');
    expect(folded.match(/`src\/a\.ts` —/g)).toHaveLength(1);
  });
});

describe('folding a previous summary the offline summarizer did not write', () => {
  it('keeps it verbatim (headings nested one level down) and still writes exactly the six sections', () => {
    const c = loadAll().find((x) => x.transcript.messages.length > 20)!;
    const messages = projected(c.transcript).slice(0, 20);
    const llm = '## Active Task\nPort the parser to `src/parse.rs`.\n\n## Notes\nKeep `Cargo.toml` untouched; see https://example.com/spec#v2';
    const s = summarizeOffline({ messages, span: [messages[0].turn, messages[messages.length - 1].turn], previousSummary: llm });
    const heads = [...s.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(heads).toEqual([...STRUCTURED_SECTIONS]);
    expect(s).toContain('### Active Task\nPort the parser to `src/parse.rs`.\n\n### Notes\nKeep `Cargo.toml` untouched; see https://example.com/spec#v2');
  });
});

describe('maxChars: a size the summary should stay within', () => {
  it('tightens the caps until it fits, keeping the sections and marking every cut', () => {
    const slop = loadAll().find((x) => x.file.includes('slopometry'))!;
    const messages = projected(slop.transcript);
    const span: [number, number] = [0, slop.transcript.turnCount - 1];
    const full = summarizeOffline({ messages, span });
    expect(full.length).toBeGreaterThan(20_000);
    const floor = summarizeOffline({ messages, span, maxChars: 1 });
    for (const budget of [Math.floor(full.length / 2), Math.floor(full.length / 3)]) {
      const fitted = summarizeOffline({ messages, span, maxChars: budget });
      // Within the size, or (what the user typed is never cut) the smallest rendering there is.
      if (fitted.length > budget) expect(fitted).toBe(floor);
      expect([...fitted.matchAll(/^## (.+)$/gm)].map((m) => m[1])).toEqual([...STRUCTURED_SECTIONS]);
      expect(fitted).toMatch(/\[… [\d,]+ (more|chars cut)/);
    }
    // Unreachable sizes give the smallest rendering, still structured.
    const smallest = summarizeOffline({ messages, span, maxChars: 100 });
    // (Its floor holds every message the user typed, whole: here a third of the full summary.)
    expect(smallest.length).toBeLessThan(full.length / 2);
    expect([...smallest.matchAll(/^## (.+)$/gm)].map((m) => m[1])).toEqual([...STRUCTURED_SECTIONS]);
    expect(summarizeOffline({ messages, span, maxChars: full.length })).toBe(full);
  });
});

describe('hostile transcript text', () => {
  it('stays fast and bounded on pathological strings (no regex blow-up)', () => {
    const hostile = ['a/'.repeat(100_000), 'a.'.repeat(100_000), 'abc'.repeat(100_000), 'http://' + 'a'.repeat(200_000), '`a'.repeat(100_000), ('x/y.z-').repeat(50_000)];
    for (const text of hostile) {
      const block = (kind: string, extra: Record<string, unknown>, id: string) => ({ id, tokens: 1, kind, ...extra }) as unknown as ProjectedMessage['blocks'][number];
      const messages: ProjectedMessage[] = [
        { role: 'user', turn: 0, blocks: [block('text', { text }, '0.0')] },
        { role: 'assistant', turn: 0, blocks: [block('text', { text }, '1.0'), block('tool_call', { callId: 'c', name: 'Bash', input: { command: text } }, '1.1')] },
        { role: 'tool', turn: 0, blocks: [block('tool_result', { callId: 'c', content: text, isError: true }, '2.0')] },
      ];
      const { value: summary, ms } = withThreadCpu(() => summarizeOffline({ messages, span: [0, 0] }));
      expect(ms, `CPU ms summarizing ${text.slice(0, 12)}…`).toBeLessThan(5_000);
      // The instruction is quoted whole (what the user typed is never cut); nothing else echoes the whole string.
      expect(summary.length).toBeLessThan(text.length + 20_000);
      expect(summary.split(text).length - 1).toBe(1);
    }
  });
});

describe('file extraction from tool inputs', () => {
  it('parses Codex apply_patch headers', () => {
    const patch = '*** Begin Patch\n*** Update File: src/a.ts\n@@\n-x\n+y\n*** Add File: docs/new.md\n+hi\n*** Delete File: old.txt\n*** Update File: lib/b.ts\n*** Move to: lib/c.ts\n*** End Patch';
    expect(filesFromPatch(patch)).toEqual([
      { path: 'src/a.ts', action: 'edited' },
      { path: 'docs/new.md', action: 'created' },
      { path: 'old.txt', action: 'deleted' },
      { path: 'lib/b.ts', action: 'edited' },
      { path: 'lib/c.ts', action: 'created' },
    ]);
  });

  it('reads shell command lines: readers, in-place edits, redirections, heredoc bodies skipped', () => {
    expect(filesFromCommand("sed -n '1,80p' lib/x.ts && cat README.md | head -5")).toEqual([
      { path: 'lib/x.ts', action: 'read' },
      { path: 'README.md', action: 'read' },
    ]);
    expect(filesFromCommand("sed -i 's/a/b/' src/y.py")).toEqual([{ path: 'src/y.py', action: 'edited' }]);
    expect(filesFromCommand("cat > out/notes.txt <<'EOF'\nrm -rf not/a/command.txt\nEOF")).toEqual([{ path: 'out/notes.txt', action: 'created' }]);
    expect(filesFromCommand("apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: a/b.rs\n*** End Patch\nEOF")).toEqual([{ path: 'a/b.rs', action: 'edited' }]);
  });
});
