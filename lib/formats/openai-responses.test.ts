import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import type { ProjectedMessage, Projection, Step } from '../compaction/types';
import { projectTranscript } from '../compaction/project';
import { validatePairing } from '../model/pairing';
import type { Message, Transcript } from '../model/types';
import { sourceFromBytes } from '../read/source';
import { importBytes } from './import';
import { openaiResponses } from './openai-responses';
import { checkFixture } from './testing/fixture-check';
import { ImportError } from '../errors';
import { exportStripped, parseHostileVariants, identity, projectionOf, stubFirstResult, summaryMessage } from './api-formats.testkit';

const files = corpusFiles('openai-responses');
const byName = (n: string) => files.find((f) => path.basename(f) === n)!;
const bytesOf = (f: string) => new Uint8Array(fs.readFileSync(f));
const load = (f: string, conversation?: number) => importBytes(path.basename(f), bytesOf(f), { conversation }).transcript;
const loadText = (name: string, text: string, conversation?: number) => importBytes(name, new TextEncoder().encode(text), { conversation }).transcript;

describe('openai-responses: corpus', () => {
  for (const f of files) it(path.basename(f), () => void checkFixture(f, expect, { format: 'openai-responses' }));
  // Every conversation of every rollout file goes through the same checks.
  for (const f of files.filter((x) => x.endsWith('.jsonl')))
    it(`${path.basename(f)}: every conversation`, () => {
      const convs = openaiResponses.listConversations!(sourceFromBytes(path.basename(f), bytesOf(f)));
      expect(convs.length).toBe(5);
      for (const c of convs.slice(1)) checkFixture(f, expect, { format: 'openai-responses', conversation: c.index });
    });
});

describe('openai-responses: what the parser reads', () => {
  it('pairs function_call and function_call_output by call_id (not the item id)', () => {
    const f = byName('nemo-gym_finance_agent_v2_rollouts.jsonl');
    const line = JSON.parse(fs.readFileSync(f, 'utf8').split('\n')[0]);
    const calls = line.response.output.filter((i: { type: string }) => i.type === 'function_call');
    expect(calls.some((c: { id: string; call_id: string }) => c.id !== c.call_id)).toBe(true);
    const t = load(f);
    const toolCalls = t.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_call');
    expect(toolCalls.length).toBe(calls.length);
    expect(validatePairing(t.messages)).toEqual([]);
  });

  it('keeps encrypted reasoning verbatim and reads gpt-oss summaries', () => {
    const enc = load(byName('vercel-ai_openai-reasoning-encrypted-content.1.json'));
    const raw = JSON.parse(fs.readFileSync(byName('vercel-ai_openai-reasoning-encrypted-content.1.json'), 'utf8'));
    const r = enc.messages[0].blocks[0];
    expect(r.kind === 'reasoning' && r.opaque).toBe(raw.output[0].encrypted_content);
    const oss = load(byName('nemo-gym_newton_bench_gpt-oss_rollouts.jsonl'));
    const first = oss.messages.flatMap((m) => m.blocks).find((b) => b.kind === 'reasoning');
    expect(first && first.kind === 'reasoning' && first.text.startsWith('We need to discover law')).toBe(true);
  });

  it('reads EasyInputMessages (a message without "type") like typed message items', () => {
    const f = byName('nemo-gym_newton_bench_gpt-oss_rollouts.jsonl');
    const lines = fs.readFileSync(f, 'utf8').split('\n');
    const first = JSON.parse(lines[0]);
    const typed = first.responses_create_params.input.filter((i: { type?: string }) => i.type === 'message').length;
    expect(typed).toBeGreaterThan(0);
    first.responses_create_params.input = first.responses_create_params.input.map(({ type: _t, ...rest }: { type?: string }) => rest);
    const easy = loadText('easy.jsonl', [JSON.stringify(first), ...lines.slice(1)].join('\n'));
    const orig = load(f);
    const view = (t: Transcript) => t.messages.map((m) => `${m.role}:${m.blocks.map((b) => b.kind).join(',')}:${m.blocks.map((b) => (b.kind === 'text' ? b.text : '')).join('')}`);
    expect(view(easy)).toEqual(view(orig));
  });

  it('turns a compaction item into a marker', () => {
    const t = load(byName('vercel-ai_openai-compaction.1.json'));
    expect(t.markers.map((m) => m.source)).toEqual(['openai-compaction']);
    expect(t.markers[0].atMessage).toBe(1);
  });

  it('warns when a request continues a stored response (the earlier items are not in the file)', () => {
    const raw = JSON.parse(fs.readFileSync(byName('vercel-ai_openai-tool-search.1.json'), 'utf8'));
    const plain = loadText('a.json', JSON.stringify(raw, null, 4));
    expect(plain.warnings.some((w) => w.code === 'partial:previous-response')).toBe(false);
    const t = loadText('b.json', JSON.stringify({ ...raw, previous_response_id: 'resp_earlier' }, null, 4));
    expect(t.warnings.find((w) => w.code === 'partial:previous-response')?.message).toContain('resp_earlier');
  });

  it('cached input tokens are split out of input_tokens', () => {
    const t = load(byName('vercel-ai_openai-web-search-tool.1.json'));
    expect(t.usage).toEqual([expect.objectContaining({ input: 19681 - 3712, cacheRead: 3712, output: 3773, reasoning: 3136 })]);
  });

  it('lists the conversations of a rollout file and imports the one asked for', () => {
    const f = byName('nemo-gym_conversational_tool_use_rollouts.jsonl');
    const list = openaiResponses.listConversations!(sourceFromBytes('x.jsonl', bytesOf(f)));
    expect(list.map((c) => c.index)).toEqual([0, 1, 2, 3, 4]);
    const third = load(f, 2);
    expect(third.messages.length).toBe(list[2].messages);
    expect(third.extra?.conversation).toBe(2);
  });
});

describe('openai-responses: export of a projection', () => {
  it('rollouts: summary first, one result stubbed, first user turn dropped; other lines verbatim', () => {
    const f = byName('nemo-gym_conversational_tool_use_rollouts.jsonl');
    const convs = openaiResponses.listConversations!(sourceFromBytes('x.jsonl', bytesOf(f)));
    const pick = convs.map((c) => ({ c, t: load(f, c.index) })).sort((a, b) => b.t.turnCount - a.t.turnCount)[0];
    const t = pick.t;
    expect(t.turnCount).toBeGreaterThanOrEqual(3);
    const kept = t.messages.filter((m) => m.turn !== 1);
    const pms = identity(t, kept);
    const target = stubFirstResult(pms, '[compacted] tool output removed');
    const out = openaiResponses.serialize(t, projectionOf(t, [summaryMessage('Summary: an ASL interpreter was requested.'), ...pms]));
    const back = loadText(path.basename(f), out.text, pick.c.index);
    expect(validatePairing(back.messages)).toEqual([]);
    const blocks = back.messages.flatMap((m) => m.blocks);
    expect(blocks.some((b) => b.kind === 'tool_result' && b.content === '[compacted] tool output removed')).toBe(true);
    expect(back.messages[0].blocks[0].kind === 'text' && back.messages[0].blocks[0].text).toBe('Summary: an ASL interpreter was requested.');
    expect(back.messages.length).toBe(kept.length + 1);
    // other conversations byte for byte; untouched items of this one unchanged
    const inLines = fs.readFileSync(f, 'utf8').split('\n');
    const outLines = out.text.split('\n');
    expect(outLines.length).toBe(inLines.length);
    inLines.forEach((l, i) => i !== pick.c.index && expect(outLines[i] === l, `line ${i}`).toBe(true));
    const before = JSON.parse(inLines[pick.c.index]);
    const after = JSON.parse(outLines[pick.c.index]);
    const allBefore = [...before.responses_create_params.input, ...before.response.output].map((x) => JSON.stringify(x));
    const allAfter = new Set([...after.responses_create_params.input, ...after.response.output].map((x: unknown) => JSON.stringify(x)));
    const untouched = kept.filter((_, i) => i !== target).length;
    expect(allBefore.filter((x) => allAfter.has(x)).length).toBe(untouched);
    expect(after.reward).toEqual(before.reward);
  });

  it('Response object: the output list is rewritten in the document style', () => {
    const f = byName('vercel-ai_openai-mcp-tool.1.json');
    const t = load(f);
    const pms = identity(t);
    stubFirstResult(pms, '[compacted] search results');
    const out = openaiResponses.serialize(t, projectionOf(t, [summaryMessage('Earlier: asked about the NYC election.'), ...pms]));
    const back = loadText('x.json', out.text);
    expect(back.messages.flatMap((m) => m.blocks).some((b) => b.kind === 'tool_result' && b.content === '[compacted] search results')).toBe(true);
    expect(back.messages[0].blocks[0].kind === 'text' && back.messages[0].blocks[0].text).toBe('Earlier: asked about the NYC election.');
    const text = fs.readFileSync(f, 'utf8');
    for (const i of [0, 1, 3, 4]) expect(out.text.includes(t.records[i].text)).toBe(true);
    expect(out.text.slice(0, 200)).toBe(text.slice(0, 200));
  });
});

describe('openai-responses: fromMessages', () => {
  it('keeps OpenAI encrypted reasoning, drops an Anthropic thinking signature', () => {
    const enc = load(byName('vercel-ai_openai-reasoning-encrypted-content.1.json'));
    const user: ProjectedMessage = { role: 'user', turn: 0, blocks: [{ kind: 'text', id: 'u', tokens: 1, text: 'Compute.' }] };
    const own = JSON.parse(openaiResponses.fromMessages!({ messages: [user, ...identity(enc)], tools: [], model: enc.model, title: '', baseName: 'x' }).text);
    expect(own.input[1].encrypted_content).toBe((enc.messages[0].blocks[0] as { opaque: string }).opaque);
    const claude = load(path.join(path.dirname(files[0]), '../anthropic-messages/vercel-ai_anthropic-reasoning-high.1.json'));
    const out = openaiResponses.fromMessages!({ messages: [user, ...identity(claude)], tools: [], model: claude.model, title: '', baseName: 'x' });
    expect(JSON.parse(out.text).input.some((i: { type: string }) => i.type === 'reasoning')).toBe(false);
    expect(out.dropped.some((d) => d.includes('another provider'))).toBe(true);
  });

  it('builds an input list from a real rollout, re-imports it with pairing intact', () => {
    const t = load(byName('nemo-gym_finance_agent_v2_rollouts.jsonl'));
    const out = openaiResponses.fromMessages!({ messages: identity(t), tools: t.tools, model: 'gpt-5', title: t.title, baseName: 'x' });
    const doc = JSON.parse(out.text);
    expect(typeof doc.instructions).toBe('string');
    // reasoning items come right before the function_call they led to
    const firstReasoning = doc.input.findIndex((i: { type: string }) => i.type === 'reasoning');
    expect(doc.input[firstReasoning + 1].type).toBe('function_call');
    const back = loadText('x.responses.json', out.text);
    expect(back.format).toBe('openai-responses');
    expect(validatePairing(back.messages)).toEqual([]);
    const calls = (tt: Transcript) => tt.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_call').map((b) => (b.kind === 'tool_call' ? b.callId : ''));
    expect(calls(back)).toEqual(calls(t));
  });
});

describe('openai-responses: every corpus file, everything stripped', () => {
  for (const f of files)
    it(path.basename(f), () => {
      const o = exportStripped(f, 'openai-responses');
      expect(o.stubbed).toBe(o.results);
      expect(o.reasoningLeft).toBe(0);
      expect(o.newPairingIssues).toBe(0);
    });
  it('an identity projection re-emits every file byte for byte', () => {
    for (const f of files) {
      const t = load(f);
      expect(openaiResponses.serialize(t, projectionOf(t, identity(t))).text, path.basename(f)).toBe(fs.readFileSync(f, 'utf8'));
    }
  });
});

describe('openai-responses: hostile input', () => {
  it('mutated and truncated real files import or fail with an ImportError, never crash', () => {
    const { imported, rejected } = parseHostileVariants(openaiResponses, files);
    expect(imported).toBeGreaterThan(0);
    expect(rejected).toBeGreaterThan(0);
  });
});

describe('openai-responses: prune-tools reaches the export', () => {
  const pruneStep: Step = { id: 'prune', range: { kind: 'all-but-last', n: 0 }, reducers: [{ id: 'prune-tools' }], keepLast: 0, createdAt: '2026-01-01T00:00:00Z' };
  it('the exported request holds only the tool schemas the projection kept, in the source shape', () => {
    let pruned = 0;
    for (const f of files) {
      const convs = openaiResponses.listConversations!(sourceFromBytes(path.basename(f), bytesOf(f)));
      for (const c of convs.slice(0, 2)) {
        const t = load(f, c.index);
        const p = projectTranscript(t, [pruneStep]);
        if (p.tools.length === t.tools.length) continue;
        pruned++;
        const out = openaiResponses.serialize(t, p);
        const re = loadText(out.fileName, out.text, c.index);
        expect(re.tools.map((x) => x.name), path.basename(f)).toEqual(p.tools.map((x) => x.name));
        // Kept entries are the source's own objects (same shape, same schema), not a re-encoding.
        expect(re.tools.map((x) => x.parameters)).toEqual(p.tools.map((x) => x.parameters));
      }
    }
    expect(pruned).toBeGreaterThan(0);
  });
});

describe('issue 28: a native compaction summary carries its encrypted item into a Responses request', () => {
  it('the summary becomes the kept user message and the compaction item, verbatim; a plain summary stays a user message', async () => {
    const { formatById } = await import('./registry');
    const mod = formatById('openai-responses')!;
    const item = { type: 'compaction', id: 'cmp_9', encrypted_content: 'gAAAA-opaque' };
    const kept = { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'fix the login bug' }] };
    const summary = (nativeItems?: unknown[]) => ({ role: 'user' as const, turn: 0, synthetic: 'summary' as const, blocks: [{ kind: 'summary' as const, id: 's1', text: '[Native compaction by OpenAI …]', tokens: 10, ...(nativeItems && { nativeItems }) }] });
    const next = { role: 'user' as const, turn: 1, blocks: [{ kind: 'text' as const, id: 't1', text: 'and now the tests', tokens: 4 }] };
    const out = JSON.parse(mod.fromMessages!({ messages: [summary([kept, item]), next], tools: [], model: 'gpt-5.2', title: 't', baseName: 't' }).text) as { input: unknown[] };
    expect(out.input.slice(0, 2)).toEqual([kept, item]);
    const plain = JSON.parse(mod.fromMessages!({ messages: [summary(), next], tools: [], model: 'gpt-5.2', title: 't', baseName: 't' }).text) as { input: Array<Record<string, unknown>> };
    expect(plain.input[0]).toMatchObject({ type: 'message', role: 'user' });
    expect(JSON.stringify(plain.input)).not.toContain('encrypted_content');
  });
});
