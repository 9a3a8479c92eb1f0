import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import type { ProjectedMessage, Projection } from '../compaction/types';
import { validatePairing } from '../model/pairing';
import type { Message, Transcript } from '../model/types';
import { geminiApi } from './gemini-api';
import { importBytes } from './import';
import { checkFixture } from './testing/fixture-check';
import { ImportError } from '../errors';
import { exportStripped, parseHostileVariants, identity, projectionOf, stubFirstResult, summaryMessage } from './api-formats.testkit';

const files = corpusFiles('gemini-api');
const byName = (n: string) => files.find((f) => path.basename(f) === n)!;
const load = (f: string) => importBytes(path.basename(f), new Uint8Array(fs.readFileSync(f))).transcript;
const loadText = (name: string, text: string) => importBytes(name, new TextEncoder().encode(text)).transcript;
const GEMINI_CLI_SESSION = path.join(path.dirname(files[0]), '../gemini-cli/vibecodingtracker_gemini_session.jsonl');

describe('gemini-api: corpus', () => {
  for (const f of files) it(path.basename(f), () => void checkFixture(f, expect, { format: 'gemini-api' }));
});

/** A real multi-turn Gemini request: the Gemini CLI session, written as `contents` by fromMessages. */
function realRequest(): { source: Transcript; text: string } {
  const source = load(GEMINI_CLI_SESSION);
  const out = geminiApi.fromMessages!({ messages: identity(source), tools: source.tools, model: source.model, title: source.title, baseName: 'x' });
  return { source, text: out.text };
}

describe('gemini-api: what the parser reads', () => {
  it('keeps thoughtSignature verbatim', () => {
    const f = byName('vercel-ai_google-tool-call-gemini3.json');
    const raw = JSON.parse(fs.readFileSync(f, 'utf8'));
    const t = load(f);
    const r = t.messages[0].blocks.find((b) => b.kind === 'reasoning');
    expect(r && r.kind === 'reasoning' && r.opaque).toBe(raw.candidates[0].content.parts[0].thoughtSignature);
  });

  it('snake_case request: system_instruction; a functionResponse in a model turn pairs by name when there is no id', () => {
    const t = load(byName('inspect_live_gemini_request_contents.json'));
    expect(t.messages[0].role).toBe('system');
    const call = t.messages.flatMap((m) => m.blocks).find((b) => b.kind === 'tool_call');
    const result = t.messages.flatMap((m) => m.blocks).find((b) => b.kind === 'tool_result');
    expect(call && result && call.kind === 'tool_call' && result.kind === 'tool_result' && result.callId === call.callId).toBe(true);
    expect(t.messages[3].role).toBe('assistant'); // the response sits in a model turn in this real capture
    expect(validatePairing(t.messages)).toEqual([]);
  });

  it('pairs by id when ids exist (gemini-cli session written as contents)', () => {
    const { source, text } = realRequest();
    const t = loadText('x.gemini.json', text);
    const ids = (tt: Transcript) => tt.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_result').map((b) => (b.kind === 'tool_result' ? b.callId : ''));
    expect(ids(t)).toEqual(ids(source));
    expect(validatePairing(t.messages)).toEqual([]);
  });

  it('context-compress replay: the <state_snapshot> the model wrote is a marker with a summary block', () => {
    const t = load(byName('gemini-cli_context-compress.responses'));
    expect(t.markers.length).toBe(2);
    for (const m of t.markers) {
      expect(m.source).toBe('gemini-state-snapshot');
      expect(m.summary).toMatch(/^<state_snapshot>[\s\S]*<\/state_snapshot>$/);
      expect(t.messages[m.atMessage].blocks.some((b) => b.kind === 'summary')).toBe(true);
    }
  });

  it('replay: one message and one usage record per model call, from the last chunk carrying usageMetadata', () => {
    const f = byName('gemini-cli_browser-agent.responses');
    const lines = fs.readFileSync(f, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
    const t = load(f);
    expect(t.messages.length).toBe(lines.length);
    expect(t.usage.length).toBe(lines.length);
    const lastMeta = [...lines[0].response].reverse().find((c: { usageMetadata?: unknown }) => c.usageMetadata).usageMetadata;
    expect(t.usage[0].input + t.usage[0].cacheRead).toBe(lastMeta.promptTokenCount);
    expect(t.usage[0].reasoning).toBe(lastMeta.thoughtsTokenCount);
    // streamed text fragments are joined into one text block
    const first = t.messages[0].blocks.find((b) => b.kind === 'text');
    expect(first && first.kind === 'text' && first.text).toBe('I will invoke the browser agent to get the page title of example.com.');
  });
});

describe('gemini-api: export of a projection', () => {
  it('request: summary first, a result stubbed, a turn dropped; untouched contents verbatim', () => {
    const { text } = realRequest();
    const t = loadText('x.gemini.json', text);
    expect(t.turnCount).toBeGreaterThanOrEqual(3);
    // The user turn that opens with the last turn's functionResponses is split, so any turn can go.
    const dropTurn = 1;
    for (let k = 1; k < t.turnCount; k++) expect(validatePairing(t.messages.filter((m) => m.turn !== k)), `dropping turn ${k}`).toEqual([]);
    const kept = t.messages.filter((m) => m.turn !== dropTurn && m.role !== 'system');
    const pms = identity(t, kept);
    const target = stubFirstResult(pms, '[compacted] README removed');
    const out = geminiApi.serialize(t, projectionOf(t, [summaryMessage('Summary: GEMINI.md was written.'), ...pms]));
    const back = loadText('y.json', out.text);
    expect(validatePairing(back.messages)).toEqual([]);
    expect(back.messages.some((m) => m.blocks.some((b) => b.kind === 'tool_result' && b.content === '[compacted] README removed'))).toBe(true);
    expect(back.messages.some((m) => m.role === 'user' && m.blocks.some((b) => b.kind === 'text' && b.text === 'Summary: GEMINI.md was written.'))).toBe(true);
    // records whose messages are all kept and untouched are in the output byte for byte
    const keptIds = new Set(pms.filter((_, i) => i !== target).map((pm) => pm.sourceId));
    const untouched = [...new Set(kept.flatMap((m) => m.recordRefs))].filter((r) => t.messages.filter((m) => m.recordRefs.includes(r)).every((m) => keptIds.has(m.id)));
    expect(untouched.length).toBeGreaterThan(3);
    for (const r of untouched) expect(out.text.includes(t.records[r].text), `contents[${r}]`).toBe(true);
    // the split turn whose prompt was dropped keeps its functionResponses as a Content of their own
    expect(back.messages.length).toBe(kept.length + 1);
    expect(JSON.parse(out.text).systemInstruction).toEqual(JSON.parse(text).systemInstruction);
  });

  it('captured snake_case request: the stubbed functionResponse keeps its name, the signature part is untouched', () => {
    const f = byName('inspect_live_gemini_request_contents.json');
    const t = load(f);
    const pms = identity(t).filter((pm) => pm.role !== 'system');
    stubFirstResult(pms, '[compacted] denied');
    const out = geminiApi.serialize(t, projectionOf(t, [summaryMessage('Earlier: listed files.'), ...pms]));
    const doc = JSON.parse(out.text);
    expect(doc.contents[0]).toEqual({ role: 'user', parts: [{ text: 'Earlier: listed files.' }] });
    expect(doc.contents[3].parts[0].functionResponse).toEqual({ name: 'call_mcp_tool', response: { output: '[compacted] denied' } });
    expect(out.text.includes(t.records[1].text)).toBe(true);
    expect(validatePairing(loadText('y.json', out.text).messages)).toEqual([]);
  });

  it('response: becomes a request replaying the projected turns', () => {
    const t = load(byName('vercel-ai_google-reasoning-gemini3.json'));
    const out = geminiApi.serialize(t, projectionOf(t, [summaryMessage('Asked to count letters.'), ...identity(t)]));
    const doc = JSON.parse(out.text);
    expect(doc.contents.map((c: { role: string }) => c.role)).toEqual(['user', 'model']);
    expect(doc.contents[1]).toEqual(JSON.parse(fs.readFileSync(byName('vercel-ai_google-reasoning-gemini3.json'), 'utf8')).candidates[0].content);
  });
});

describe('gemini-api: fromMessages', () => {
  it('contents + systemInstruction, functionCall/functionResponse with ids and names, signatures on the next part', () => {
    const t = load(byName('gemini-cli_browser-agent.responses'));
    const user: ProjectedMessage = { role: 'user', turn: 0, blocks: [{ kind: 'text', id: 'u', tokens: 1, text: 'Open example.com' }] };
    const sys: ProjectedMessage = { role: 'system', turn: 0, blocks: [{ kind: 'text', id: 's', tokens: 1, text: 'You are a browser agent.' }] };
    const out = geminiApi.fromMessages!({ messages: [sys, user, ...identity(t)], tools: [], title: '', baseName: 'x' });
    const doc = JSON.parse(out.text);
    expect(doc.systemInstruction).toEqual({ parts: [{ text: 'You are a browser agent.' }] });
    const calls = doc.contents.flatMap((c: { parts: Array<{ functionCall?: { id: string } }> }) => c.parts).filter((p: { functionCall?: unknown }) => p.functionCall);
    const responses = doc.contents.flatMap((c: { parts: Array<{ functionResponse?: unknown }> }) => c.parts).filter((p: { functionResponse?: unknown }) => p.functionResponse);
    expect(calls.length).toBe(responses.length); // every call answered (the replay has no results: error responses)
    const raw = JSON.parse(fs.readFileSync(byName('gemini-cli_browser-agent.responses'), 'utf8').split('\n')[0]);
    const sig = raw.response.flatMap((c: { candidates: Array<{ content: { parts: Array<{ thoughtSignature?: string }> } }> }) => c.candidates[0].content.parts).find((p: { thoughtSignature?: string }) => p.thoughtSignature).thoughtSignature;
    expect(calls[0].thoughtSignature).toBe(sig);
    const back = loadText('x.gemini.json', out.text);
    expect(validatePairing(back.messages)).toEqual([]);
  });

  it('from a real Gemini CLI session: re-import keeps every call and result, pairing intact', () => {
    const { source, text } = realRequest();
    const back = loadText('x.gemini.json', text);
    const count = (tt: Transcript, k: string) => tt.messages.flatMap((m) => m.blocks).filter((b) => b.kind === k).length;
    expect(count(back, 'tool_call')).toBe(count(source, 'tool_call'));
    expect(count(back, 'tool_result')).toBe(count(source, 'tool_result'));
    expect(validatePairing(back.messages)).toEqual([]);
  });
});

describe('gemini-api: every corpus file, everything stripped', () => {
  for (const f of files)
    it(path.basename(f), () => {
      const o = exportStripped(f, 'gemini-api');
      expect(o.stubbed).toBe(o.results);
      // removing a signature-only reasoning block takes the thoughtSignature off its part
      expect(o.reasoningLeft).toBe(0);
      expect(o.newPairingIssues).toBe(0);
    });
});

describe('gemini-api: hostile input', () => {
  it('mutated and truncated real files import or fail with an ImportError, never crash', () => {
    const { imported, rejected } = parseHostileVariants(geminiApi, files);
    expect(imported).toBeGreaterThan(0);
    expect(rejected).toBeGreaterThan(0);
  });
});
