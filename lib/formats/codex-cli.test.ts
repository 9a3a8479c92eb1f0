import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import type { ProjectedMessage, Projection } from '../compaction/types';
import { validatePairing } from '../model/pairing';
import type { Message, Transcript } from '../model/types';
import { sourceFromText } from '../read/source';
import { projectTranscript, startingContext } from '../compaction/project';
import { modelCalls } from '../compaction/calls';
import { codexCli } from './codex-cli';
import { importBytes } from './import';
import { checkFixture } from './testing/fixture-check';
import { ImportError } from '../errors';
import { exportStripped, parseHostileVariants, identity, projectionOf, summaryMessage } from './api-formats.testkit';

const files = corpusFiles('codex-cli');
const byName = (n: string) => files.find((f) => path.basename(f) === n)!;
const load = (f: string) => importBytes(path.basename(f), new Uint8Array(fs.readFileSync(f))).transcript;
const loadText = (name: string, text: string) => importBytes(name, new TextEncoder().encode(text)).transcript;
const rawLines = (f: string) => fs.readFileSync(f, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
const LOCALPUSH = 'localpush_rollout-2026-02-23_sanitized_compacted.jsonl';

describe('codex-cli: corpus', () => {
  for (const f of files) it(path.basename(f), () => void checkFixture(f, expect, { format: 'codex-cli' }));
});

describe('codex-cli: what the parser reads', () => {
  it('localpush: 316 function_call pairs (FORMATS.md), all answered, plus 49 custom tool calls', () => {
    const t = load(byName(LOCALPUSH));
    const lines = rawLines(byName(LOCALPUSH));
    const fnIds = new Set(lines.filter((l) => l.type === 'response_item' && l.payload.type === 'function_call').map((l) => l.payload.call_id));
    const customIds = new Set(lines.filter((l) => l.type === 'response_item' && l.payload.type === 'custom_tool_call').map((l) => l.payload.call_id));
    expect(fnIds.size).toBe(316);
    expect(customIds.size).toBe(49);
    const blocks = t.messages.flatMap((m) => m.blocks);
    const pairedFn = blocks.filter((b) => b.kind === 'tool_result' && fnIds.has(b.callId)).length;
    expect(pairedFn).toBe(316);
    expect(blocks.filter((b) => b.kind === 'tool_result' && customIds.has(b.callId)).length).toBe(49);
    expect(validatePairing(t.messages)).toEqual([]);
  });

  it('builds messages from response_item only: event_msg text is not counted twice', () => {
    const f = byName('vibecodingtracker_codex_0.39.0.jsonl');
    const lines = rawLines(f);
    const t = load(f);
    const assistantItems = lines.filter((l) => l.type === 'response_item' && l.payload.type === 'message' && l.payload.role === 'assistant').length;
    const agentMessages = lines.filter((l) => l.type === 'event_msg' && l.payload.type === 'agent_message').length;
    expect(agentMessages).toBe(assistantItems);
    const assistantTextMessages = t.messages.filter((m) => m.role === 'assistant' && m.blocks.some((b) => b.kind === 'text')).length;
    expect(assistantTextMessages).toBe(assistantItems);
  });

  it('a shell output with a non-zero exit_code is an error result', () => {
    const f = byName('codex-session-view_rollout-2025-11-17_cli0.58.0.jsonl');
    const failing = rawLines(f)
      .filter((l) => l.type === 'response_item' && l.payload.type === 'function_call_output')
      .filter((l) => l.payload.output.startsWith('{') && JSON.parse(l.payload.output).metadata.exit_code !== 0)
      .map((l) => l.payload.call_id);
    expect(failing.length).toBe(3);
    const errors = load(f).messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_result' && b.isError).map((b) => (b.kind === 'tool_result' ? b.callId : ''));
    expect(errors).toEqual(failing);
  });

  it('token_count: repeated totals deduped, so per-call outputs sum to the final cumulative total', () => {
    for (const name of [LOCALPUSH, 'codex-session-view_rollout-2025-11-17_cli0.58.0.jsonl', 'vibecodingtracker_codex_0.39.0.jsonl']) {
      const lines = rawLines(byName(name));
      const counts = lines.filter((l) => l.type === 'event_msg' && l.payload.type === 'token_count' && l.payload.info);
      const final = counts[counts.length - 1].payload.info.total_token_usage;
      const t = load(byName(name));
      expect(t.usage.reduce((s, u) => s + u.output, 0), name).toBe(final.output_tokens);
      expect(t.usage.reduce((s, u) => s + u.input + u.cacheRead, 0), name).toBe(final.input_tokens);
      if (name === LOCALPUSH) {
        expect(counts.length).toBe(572);
        expect(t.usage.length).toBe(286);
        expect(t.usage.every((u) => u.contextWindow === 258400)).toBe(true);
      }
    }
  });

  it('localpush: the compacted line is a marker covering everything before it; replacement_history follows it', () => {
    const t = load(byName(LOCALPUSH));
    const lines = rawLines(byName(LOCALPUSH));
    const at = lines.findIndex((l) => l.type === 'compacted');
    expect(t.markers).toHaveLength(1);
    const m = t.markers[0];
    expect(m.source).toBe('codex-compacted');
    expect(m.recordRef).toBe(at);
    expect(m.covers).toEqual([0, m.atMessage]);
    const replaced = t.messages.filter((x) => x.recordRefs[0] === at);
    expect(replaced.length).toBe(lines[at].payload.replacement_history.length);
    expect(replaced[0].index).toBe(m.atMessage);
    expect(replaced[replaced.length - 1].blocks[0].kind).toBe('summary'); // the encrypted compaction item
  });

  it('developer messages and <environment_context> user messages are meta; ghost_snapshot makes no message', () => {
    const f = byName('codex-session-view_rollout-2025-11-17_cli0.58.0.jsonl');
    const t = load(f);
    const env = t.messages.find((m) => m.blocks[0]?.kind === 'text' && m.blocks[0].text.startsWith('<environment_context>'));
    expect(env?.meta).toBe(true);
    const lines = rawLines(f);
    const ghost = lines.findIndex((l) => l.type === 'response_item' && l.payload.type === 'ghost_snapshot');
    expect(ghost).toBeGreaterThan(0);
    expect(t.messages.some((m) => m.recordRefs.includes(ghost))).toBe(false);
    const lp = load(byName(LOCALPUSH));
    expect(lp.messages.filter((m) => m.role === 'system' && m.recordRefs.length && rawLines(byName(LOCALPUSH))[m.recordRefs[0]].payload?.role === 'developer').every((m) => m.meta)).toBe(true);
    expect(t.model).toBe('gpt-5.1-codex');
  });

  it('rejects a JSONL file whose first line is not a rollout line, saying where', () => {
    expect(() => codexCli.parse({ ...sourceOf('{"foo":1}\n{"bar":2}\n') })).toThrow(/not a Codex rollout line/);
  });
});

function sourceOf(text: string) {
  return sourceFromText('bad.jsonl', text);
}

/** Codex's replay of a rollout (codex-rs rollout reconstruction): response_items append, a compacted line with replacement_history replaces the history. */
function codexReplay(lines: Array<Record<string, any>>): Array<Record<string, any>> {
  let history: Array<Record<string, any>> = [];
  for (const l of lines) {
    if (l.type === 'response_item') history.push(l.payload);
    else if (l.type === 'compacted' && Array.isArray(l.payload?.replacement_history)) history = [...l.payload.replacement_history];
  }
  return history;
}

describe('codex-cli: export of a projection', () => {
  it('localpush: a compacted line + context_compacted, first turn dropped, one output stubbed, other lines verbatim', () => {
    const f = byName(LOCALPUSH);
    const t = load(f);
    const dropTurn = 1;
    const kept = t.messages.filter((m) => m.turn !== dropTurn);
    const pms = identity(t, kept);
    const target = pms.findIndex((pm) => pm.turn > 2 && pm.role === 'tool' && pm.blocks.some((b) => b.kind === 'tool_result'));
    const old = pms[target].blocks[0];
    expect(old.kind).toBe('tool_result');
    pms[target] = { ...pms[target], blocks: [{ ...old, content: '[compacted] exec output', sourceBlockId: old.id } as never] };
    const summary = 'Summary: the user set up the local push service.';
    const out = codexCli.serialize(t, projectionOf(t, [summaryMessage(summary), ...pms]));
    const outLines = out.text.split('\n').filter((l) => l.trim());
    const values = outLines.map((l) => JSON.parse(l));
    // ONE new compacted line, after the session's own: Codex replays the rollout and the last
    // compacted line's replacement_history becomes the whole history, so ours must come last.
    const compactedAt = values.map((v, i) => (v.type === 'compacted' ? i : -1)).filter((i) => i >= 0);
    const sourceCompacted = t.records.filter((r) => (r.value as { type?: string }).type === 'compacted');
    expect(compactedAt).toHaveLength(sourceCompacted.length + 1);
    const ours = values[compactedAt[compactedAt.length - 1]];
    expect(ours.payload.message).toBe(summary);
    expect(ours.payload.replacement_history[0]).toEqual({ type: 'message', role: 'user', content: [{ type: 'input_text', text: summary }] });
    expect(values[compactedAt[compactedAt.length - 1] + 1].payload.type).toBe('context_compacted');
    // The session's own compacted line is still there, byte for byte, before ours.
    for (const r of sourceCompacted) expect(outLines.indexOf(r.text)).toBeLessThan(compactedAt[compactedAt.length - 1]);

    // What Codex sends on resume: the summary, the stubbed output, none of the dropped turn.
    const replay = codexReplay(values);
    const texts = JSON.stringify(replay);
    expect(texts).toContain(summary);
    expect(texts).toContain('[compacted] exec output');
    const droppedCalls = t.messages.filter((m) => m.turn === dropTurn).flatMap((m) => m.blocks.flatMap((b) => (b.kind === 'tool_call' ? [b.callId] : [])));
    for (const id of droppedCalls) expect(replay.some((it) => it.call_id === id)).toBe(false);

    const back = loadText(path.basename(f), out.text);
    expect(back.format).toBe('codex-cli');
    expect(validatePairing(startingContext(back, 'model-view').messages)).toEqual([]);
    expect(back.markers[back.markers.length - 1].summary).toBe(summary);
    // Nothing of the session is gone from the file: before our line every record is as it was.
    const outSet = new Set(outLines);
    const stubbedRecord = t.messages.find((m) => m.id === pms[target].sourceId)!.recordRefs[0];
    for (const [r, rec] of t.records.entries()) if (r !== stubbedRecord) expect(outSet.has(rec.text), `line ${rec.line}`).toBe(true);
  });

  it('without a summary: records of removed messages go, everything else stays', () => {
    const t = load(byName('vibecodingtracker_codex_0.39.0.jsonl'));
    const pms = identity(t).filter((pm) => !(pm.role === 'assistant' && pm.blocks.every((b) => b.kind === 'reasoning')));
    const out = codexCli.serialize(t, projectionOf(t, pms));
    const back = loadText('x.jsonl', out.text);
    expect(back.messages.length).toBe(pms.length);
    expect(back.markers).toHaveLength(0);
    expect(validatePairing(back.messages)).toEqual([]);
  });
});

describe('codex-cli: export of a call range summarized mid-run (issue 30)', () => {
  for (const name of ['vibecodingtracker_codex_0.39.0.jsonl', 'codex-session-view_rollout-2025-11-17_cli0.58.0.jsonl'])
    it(`${name}: re-imports without pairing warnings the original did not have`, () => {
      // The new compacted line's replacement_history carries the calls before the range again (as
      // Codex's own does): they were read as duplicate calls/results (3 on codex-vibe, 9–11 on session-view).
      const t = load(byName(name));
      const calls = modelCalls(t);
      const a = Math.floor(calls.length / 4);
      const b = Math.floor(calls.length / 2);
      const p = projectTranscript(t, [{ id: 's1', range: { kind: 'calls', from: a, to: b }, reducers: [{ id: 'summarize' }], keepLast: 0, createdAt: '' }]);
      expect(p.messages.some((m) => m.synthetic === 'summary')).toBe(true);
      const out = codexCli.serialize!(t, p);
      const back = loadText(out.fileName, out.text);
      const codes = (x: Transcript) => x.warnings.map((w) => w.code).filter((c) => c.startsWith('pairing:'));
      expect(codes(back)).toEqual(codes(t));
      // What the model sees on resume is the projection, paired.
      const view = startingContext(back, 'model-view').messages;
      expect(validatePairing(view)).toEqual([]);
    });
  it('a call id repeated within one span between compactions is still a duplicate', () => {
    const t = load(byName('vibecodingtracker_codex_0.39.0.jsonl'));
    const lines = fs.readFileSync(byName('vibecodingtracker_codex_0.39.0.jsonl'), 'utf8').split('\n').filter((l) => l.trim());
    const call = lines.find((l) => l.includes('"function_call"') && !l.includes('function_call_output'))!;
    const result = lines.find((l) => l.includes('"function_call_output"') && l.includes(JSON.parse(call).payload.call_id))!;
    const back = loadText('dup.jsonl', [...lines, call, result].join('\n') + '\n');
    expect(t.warnings.filter((w) => w.code === 'pairing:duplicate-call')).toEqual([]);
    expect(back.warnings.map((w) => w.code)).toContain('pairing:duplicate-call');
  });
});

describe('codex-cli: every corpus file, everything stripped', () => {
  for (const f of files)
    it(path.basename(f), () => {
      const o = exportStripped(f, 'codex-cli');
      expect(o.stubbed).toBe(o.results);
      expect(o.results).toBeGreaterThan(0);
      expect(o.reasoningLeft).toBe(0);
      expect(o.newPairingIssues).toBe(0);
    });
  it('an identity projection re-emits every file byte for byte', () => {
    for (const f of files) {
      const t = load(f);
      expect(codexCli.serialize(t, projectionOf(t, identity(t))).text === fs.readFileSync(f, 'utf8'), path.basename(f)).toBe(true);
    }
  });
});

describe('codex-cli: hostile input', () => {
  it('mutated and truncated real files import or fail with an ImportError, never crash', () => {
    const { imported, rejected } = parseHostileVariants(codexCli, files);
    expect(imported).toBeGreaterThan(0);
    expect(rejected).toBeGreaterThan(0);
  });
});
