import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import type { ProjectedMessage, Projection } from '../compaction/types';
import { validatePairing } from '../model/pairing';
import type { Message, Transcript } from '../model/types';
import { sourceFromText } from '../read/source';
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
    const compacted = outLines.map((l) => JSON.parse(l)).filter((l) => l.type === 'compacted');
    expect(compacted).toHaveLength(2); // ours + the one the session already had
    expect(compacted[0].payload.message).toBe(summary);
    expect(compacted[0].payload.replacement_history).toEqual([{ type: 'message', role: 'user', content: [{ type: 'input_text', text: summary }] }]);
    const ci = outLines.findIndex((l) => JSON.parse(l).type === 'compacted');
    expect(JSON.parse(outLines[ci + 1]).payload.type).toBe('context_compacted');

    const back = loadText(path.basename(f), out.text);
    expect(back.format).toBe('codex-cli');
    expect(validatePairing(back.messages)).toEqual([]);
    expect(back.markers[0].summary).toBe(summary);
    expect(back.messages.some((m) => m.blocks.some((b) => b.kind === 'summary' && b.text === summary))).toBe(true);
    expect(back.messages.some((m) => m.blocks.some((b) => b.kind === 'tool_result' && b.content === '[compacted] exec output'))).toBe(true);
    // every line of a kept, untouched message is in the output byte for byte; the dropped turn's are gone
    const outSet = new Set(outLines);
    const droppedRecords = new Set(t.messages.filter((m) => m.turn === dropTurn).flatMap((m) => m.recordRefs));
    const stubbedRecord = t.messages.find((m) => m.id === pms[target].sourceId)!.recordRefs[0];
    for (const m of kept) for (const r of m.recordRefs) if (r !== stubbedRecord) expect(outSet.has(t.records[r].text), `line ${t.records[r].line}`).toBe(true);
    for (const r of droppedRecords) expect(outSet.has(t.records[r].text)).toBe(false);
    expect(outLines.length).toBe(t.records.length - droppedRecords.size + 2);
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
