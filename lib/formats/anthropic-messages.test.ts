import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import type { ProjectedMessage, Projection } from '../compaction/types';
import { validatePairing } from '../model/pairing';
import { sourceFromText } from '../read/source';
import type { Message, Transcript } from '../model/types';
import { anthropicMessages } from './anthropic-messages';
import { importBytes } from './import';
import { checkFixture } from './testing/fixture-check';
import { ImportError } from '../errors';
import { exportStripped, parseHostileVariants, identity, projectionOf, summaryMessage } from './api-formats.testkit';

const files = corpusFiles('anthropic-messages');
const byName = (n: string) => files.find((f) => path.basename(f) === n)!;
const load = (f: string, format?: string) => importBytes(path.basename(f), new Uint8Array(fs.readFileSync(f)), format ? { format } : {}).transcript;
const loadText = (name: string, text: string, format?: string) => importBytes(name, new TextEncoder().encode(text), format ? { format } : {}).transcript;

describe('anthropic-messages: corpus', () => {
  for (const f of files) it(path.basename(f), () => void checkFixture(f, expect, { format: 'anthropic-messages' }));
});

/** A real multi-turn Anthropic request, rebuilt from the `message` objects of a real Claude Code session. */
function realRequestFromClaudeCode(): string {
  const lines = fs.readFileSync(path.join(path.dirname(files[0]), '../claude-code/vibecodingtracker_claude_code_v1.0.95.jsonl'), 'utf8').split('\n').filter((l) => l.trim());
  const messages: Array<{ role: string; content: unknown[] }> = [];
  const seen = new Set<string>();
  for (const l of lines) {
    const v = JSON.parse(l);
    if ((v.type !== 'user' && v.type !== 'assistant') || v.isSidechain || !v.message) continue;
    const raw = typeof v.message.content === 'string' ? [{ type: 'text', text: v.message.content }] : v.message.content;
    // Claude Code re-logs a few tool results; a request carries each once.
    const content = raw.filter((b: { type: string; tool_use_id?: string }) => b.type !== 'tool_result' || !seen.has(b.tool_use_id!) && seen.add(b.tool_use_id!));
    const last = messages[messages.length - 1];
    if (last && last.role === v.message.role) last.content.push(...content);
    else messages.push({ role: v.message.role, content: [...content] });
  }
  return JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 1024, system: 'You are Claude Code.', messages }, null, 2) + '\n';
}

describe('anthropic-messages: what the parser reads', () => {
  it('keeps the thinking signature verbatim', () => {
    const f = byName('vercel-ai_anthropic-reasoning-high.1.json');
    const raw = JSON.parse(fs.readFileSync(f, 'utf8'));
    const t = load(f);
    const r = t.messages[0].blocks.find((b) => b.kind === 'reasoning');
    expect(r && r.kind === 'reasoning' && r.opaque).toBe(raw.content[0].signature);
  });

  it('turns a compaction block into a marker and a summary block; usage.iterations into one usage record per call', () => {
    const t = load(byName('vercel-ai_anthropic-compaction.1.json'));
    expect(t.markers).toHaveLength(1);
    expect(t.markers[0].source).toBe('anthropic-compaction');
    expect(t.markers[0].summary).toMatch(/^## Summary of Conversation/);
    expect(t.messages[0].blocks[0].kind).toBe('summary');
    expect(t.usage.map((u) => [u.input, u.output])).toEqual([
      [60385, 592],
      [682, 1320],
    ]);
  });

  it('context_management.applied_edits become a marker and a warning (the cleared content is not in the file)', () => {
    const raw = JSON.parse(fs.readFileSync(byName('vercel-ai_anthropic-compaction.1.json'), 'utf8'));
    raw.context_management = { applied_edits: [{ type: 'clear_tool_uses_20250919', cleared_tool_uses: 3, cleared_input_tokens: 1200 }] };
    const t = loadText('edited.json', JSON.stringify(raw, null, 2));
    const edit = t.markers.find((m) => m.trigger === 'context_management');
    expect(edit?.summary).toContain('clear_tool_uses_20250919 cleared 3 tool uses (1200 tokens)');
    expect(t.warnings.some((w) => w.code === 'context-management')).toBe(true);
  });

  it('reassembles the SSE stream: compaction delta, text deltas, usage from message_start + message_delta', () => {
    const f = byName('vercel-ai_anthropic-compaction.1.chunks.txt');
    const t = load(f);
    const lines = fs.readFileSync(f, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
    const expectedText = lines.filter((e) => e.type === 'content_block_delta' && e.delta.type === 'text_delta').map((e) => e.delta.text).join('');
    const text = t.messages[0].blocks.find((b) => b.kind === 'text');
    expect(text && text.kind === 'text' && text.text).toBe(expectedText);
    expect(t.markers[0].summary).toBe(lines.find((e) => e.delta?.type === 'compaction_delta').delta.content);
    expect(t.usage.map((u) => u.output)).toEqual([522, 2819]);
    expect(t.records).toHaveLength(lines.length);
  });

  it('pairs server tool calls with their results inside the same assistant message', () => {
    const t = load(byName('vercel-ai_anthropic-code-execution-pptx-skill.json'));
    const blocks = t.messages[0].blocks;
    const calls = blocks.filter((b) => b.kind === 'tool_call').length;
    const results = blocks.filter((b) => b.kind === 'tool_result').length;
    expect(calls).toBeGreaterThan(20);
    expect(results).toBe(calls);
    expect(validatePairing(t.messages)).toEqual([]);
  });

  it('splits a user message holding the last turn\'s results and a new prompt, so no turn starts between a call and its result', () => {
    const t = loadText('request.json', realRequestFromClaudeCode());
    const doc = JSON.parse(realRequestFromClaudeCode());
    const mixed = doc.messages.findIndex((m: { role: string; content: Array<{ type: string }> }) => m.role === 'user' && m.content[0]?.type === 'tool_result' && m.content.some((p) => p.type !== 'tool_result'));
    expect(mixed).toBeGreaterThan(0);
    const halves = t.messages.filter((m) => m.recordRefs[0] === mixed);
    expect(halves.map((m) => m.blocks.every((b) => b.kind === 'tool_result'))).toEqual([true, false]);
    expect(halves[1].turn).toBe(halves[0].turn + 1);
    for (let k = 1; k < t.turnCount; k++) expect(validatePairing(t.messages.filter((m) => m.turn !== k)), `dropping turn ${k}`).toEqual([]);
  });

  it('parses a request with top-level system, tool_use ↔ tool_result by id', () => {
    const t = loadText('request.json', realRequestFromClaudeCode());
    expect(t.format).toBe('anthropic-messages');
    expect(t.messages[0].role).toBe('system');
    const calls = t.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_call').length;
    expect(calls).toBeGreaterThan(10);
    expect(validatePairing(t.messages)).toEqual([]);
  });

  it('rejects a document that is not Anthropic with a located ImportError', () => {
    expect(() => anthropicMessages.parse({ ...sourceStub('{"foo": 1}') })).toThrow(/neither an Anthropic request nor a response/);
  });
});

function sourceStub(text: string) {
  return sourceFromText('bad.json', text);
}

describe('anthropic-messages: export of a projection', () => {
  it('request: stubbed result, summary up front, first turn dropped, untouched messages verbatim', () => {
    const text = realRequestFromClaudeCode();
    const t = loadText('request.json', text);
    // Drop the first whole turn whose removal leaves every call answered (an Anthropic user message
    // can carry the previous turn's tool results and a new prompt at once).
    const dropTurn = [...Array(t.turnCount).keys()].find((k) => k > 0 && validatePairing(t.messages.filter((m) => m.turn !== k)).length === 0)!;
    const turn1 = t.messages.filter((m) => m.turn === dropTurn);
    const kept = t.messages.filter((m) => m.turn !== dropTurn && m.role !== 'system');
    const pms = identity(t, kept);
    const target = pms.findIndex((pm) => pm.blocks.some((b) => b.kind === 'tool_result'));
    const bi = pms[target].blocks.findIndex((b) => b.kind === 'tool_result');
    const old = pms[target].blocks[bi];
    pms[target] = { ...pms[target], blocks: pms[target].blocks.map((b, i) => (i === bi && old.kind === 'tool_result' ? { ...old, content: '[compacted] tool output removed', sourceBlockId: old.id } : b)) };
    const out = anthropicMessages.serialize(t, projectionOf(t, [summaryMessage('Summary: the user asked for a refactor.'), ...pms]));
    const back = loadText('out.json', out.text);
    expect(back.format).toBe('anthropic-messages');
    expect(validatePairing(back.messages)).toEqual([]);
    const all = back.messages.flatMap((m) => m.blocks);
    expect(all.some((b) => b.kind === 'tool_result' && b.content === '[compacted] tool output removed')).toBe(true);
    expect(all.some((b) => b.kind === 'text' && b.text === 'Summary: the user asked for a refactor.')).toBe(true);
    expect(back.messages.length).toBe(1 + 1 + kept.length); // system + summary + kept
    expect(turn1.length).toBeGreaterThan(0);
    // untouched records re-emitted byte for byte (in the same document style)
    // (a record split into results + prompt is untouched only when both halves are kept)
    const keptIds = new Set(pms.filter((_, i) => i !== target).map((pm) => pm.sourceId));
    const untouched = [...new Set(kept.flatMap((m) => m.recordRefs))].filter((r) => t.messages.filter((m) => m.recordRefs.includes(r)).every((m) => keptIds.has(m.id)));
    expect(untouched.length).toBeGreaterThan(10);
    for (const r of untouched) expect(out.text.includes(t.records[r].text), `messages[${r}]`).toBe(true);
    expect(dropTurn).toBe(1);
    // the system prompt and other top-level fields survive in the frame
    expect(JSON.parse(out.text).system).toBe('You are Claude Code.');
  });

  it('response: becomes a request with the summary first and the code-execution output stubbed', () => {
    const t = load(byName('vercel-ai_anthropic-code-execution-pptx-skill.json'));
    const m = t.messages[0];
    const bi = m.blocks.findIndex((b) => b.kind === 'tool_result' && b.name === 'bash_code_execution');
    const old = m.blocks[bi];
    const pm: ProjectedMessage = { sourceId: m.id, role: 'assistant', turn: 0, blocks: m.blocks.map((b, i) => (i === bi && old.kind === 'tool_result' ? { ...old, content: '[compacted] bash output', sourceBlockId: old.id } : b)) };
    const out = anthropicMessages.serialize(t, projectionOf(t, [summaryMessage('Summary of earlier work.'), pm]));
    const back = loadText('out.json', out.text);
    expect(validatePairing(back.messages)).toEqual([]);
    expect(back.messages.map((x) => x.role)).toEqual(['user', 'assistant']);
    expect(back.messages[1].blocks.some((b) => b.kind === 'tool_result' && b.content === '[compacted] bash output')).toBe(true);
    // every other part of the response content is carried unchanged
    const raw = JSON.parse(fs.readFileSync(byName('vercel-ai_anthropic-code-execution-pptx-skill.json'), 'utf8'));
    const outDoc = JSON.parse(out.text);
    const changed = outDoc.messages[1].content.filter((p: unknown, i: number) => JSON.stringify(p) !== JSON.stringify(raw.content[i]));
    expect(changed).toHaveLength(1);
  });
});

describe('anthropic-messages: fromMessages', () => {
  it('builds a valid request from a real transcript and re-imports it with pairing intact', () => {
    const t = loadText('request.json', realRequestFromClaudeCode());
    const out = anthropicMessages.fromMessages!({ messages: identity(t), tools: t.tools, model: 'claude-sonnet-4-5', title: t.title, baseName: 'x' });
    const doc = JSON.parse(out.text);
    expect(typeof doc.system).toBe('string');
    expect(doc.messages.every((m: { role: string }) => m.role === 'user' || m.role === 'assistant')).toBe(true);
    for (let i = 1; i < doc.messages.length; i++) expect(doc.messages[i].role).not.toBe(doc.messages[i - 1].role);
    for (const m of doc.messages)
      if (m.role === 'user') {
        const kinds = m.content.map((p: { type: string }) => p.type);
        expect(kinds.slice(0, kinds.filter((k: string) => k === 'tool_result').length).every((k: string) => k === 'tool_result')).toBe(true);
      }
    const back = loadText('x.anthropic.json', out.text);
    expect(validatePairing(back.messages)).toEqual([]);
    expect(back.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_call').length).toBe(t.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_call').length);
  });

  it('does not replay another provider\'s encrypted reasoning as a thinking signature', () => {
    const codex = path.join(path.dirname(files[0]), '../codex-cli/codex-session-view_rollout-2025-11-17_cli0.58.0.jsonl');
    const t = load(codex);
    const encrypted = t.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'reasoning' && b.opaque).length;
    expect(encrypted).toBeGreaterThan(10);
    const out = anthropicMessages.fromMessages!({ messages: identity(t), tools: t.tools, model: t.model, title: t.title, baseName: 'x' });
    expect(out.text.includes('"signature"')).toBe(false);
    expect(out.dropped.filter((d) => d.includes('signed by another provider')).length).toBe(encrypted);
    expect(validatePairing(loadText('x.anthropic.json', out.text).messages)).toEqual([]);
  });

  it('keeps thinking only with its untouched signature, drops an edited one and says so', () => {
    const t = load(byName('vercel-ai_anthropic-reasoning-high.1.json'));
    const m = t.messages[0];
    const user: ProjectedMessage = { role: 'user', turn: 0, blocks: [{ kind: 'text', id: 'u.0', tokens: 1, text: 'Find the roots.' }] };
    const kept = anthropicMessages.fromMessages!({ messages: [user, ...identity(t)], tools: [], title: '', baseName: 'x' });
    expect(JSON.parse(kept.text).messages[1].content[0].signature).toBe((m.blocks[0] as { opaque: string }).opaque);
    const edited: ProjectedMessage = { sourceId: m.id, role: 'assistant', turn: 0, blocks: [{ ...m.blocks[0], text: 'shorter', sourceBlockId: m.blocks[0].id } as never, m.blocks[1]] };
    const out = anthropicMessages.fromMessages!({ messages: [user, edited], tools: [], title: '', baseName: 'x' });
    expect(JSON.parse(out.text).messages[1].content.map((p: { type: string }) => p.type)).toEqual(['text']);
    expect(out.dropped.some((d) => d.includes('signature'))).toBe(true);
  });
});

describe('anthropic-messages: every corpus file, everything stripped', () => {
  for (const f of files)
    it(path.basename(f), () => {
      const o = exportStripped(f, 'anthropic-messages');
      // web search / fetch results have a body the API validates: they are kept whole and said so
      const keptWhole = o.dropped.filter((d) => d.includes('kept whole')).length;
      expect(o.stubbed + keptWhole).toBe(o.results);
      expect(o.reasoningLeft).toBe(0);
      expect(o.newPairingIssues).toBe(0);
    });
});

describe('anthropic-messages: hostile input', () => {
  it('mutated and truncated real files import or fail with an ImportError, never crash', () => {
    const { imported, rejected } = parseHostileVariants(anthropicMessages, files);
    expect(imported).toBeGreaterThan(0);
    expect(rejected).toBeGreaterThan(0);
  });
});
