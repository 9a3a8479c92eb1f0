import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import type { ProjectedBlock, ProjectedMessage, Projection } from '../compaction/types';
import { validatePairing } from '../model/pairing';
import type { Message, Transcript } from '../model/types';
import { withMockedChunkSize } from '../read/source';
import { claudeCode, COMPACT_SUMMARY_PREAMBLE } from './claude-code';
import { claudeCodeSdk } from './claude-code-sdk';
import { claudeCodeWeb } from './claude-code-web';
import { importBytes } from './import';
import { checkFixture } from './testing/fixture-check';
import { startingContext } from '../compaction/project';

const files = corpusFiles('claude-code');
const byName = (prefix: string) => files.find((f) => path.basename(f).startsWith(prefix))!;
const SLOP = byName('slopometry');
const VIEWER = byName('claude-code-viewer_fe5e1c67');
const COVERAGE = byName('agent-sessions');
const WEB = byName('simonw_sample_session_web_export');
const SDK = byName('claude-code-action_sdk');

const bytesOf = (f: string) => new Uint8Array(fs.readFileSync(f));
const load = (f: string) => importBytes(path.basename(f), bytesOf(f)).transcript;
const loadText = (name: string, text: string) => importBytes(name, new TextEncoder().encode(text)).transcript;
/** What the model sees when Claude Code resumes the file (after its last compact_boundary). */
const modelView = (t: Transcript) => startingContext(t, 'model-view').messages;
const rawLines = (f: string) =>
  fs
    .readFileSync(f, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, any>);

function formatFor(f: string): string {
  if (f === WEB) return 'claude-code-web';
  if (f === SDK) return 'claude-code-sdk';
  return 'claude-code';
}

function identity(messages: readonly Message[]): ProjectedMessage[] {
  return messages.map((m) => ({ sourceId: m.id, role: m.role, turn: m.turn, blocks: [...m.blocks] }));
}
function projectionOf(t: Transcript, messages: ProjectedMessage[], before = 155000): Projection {
  const zero = { total: 0, byKind: {}, tools: 0 };
  return { messages, tools: [...t.tools], fates: {}, report: [], summaries: [], tokens: { before: { ...zero, total: before }, after: zero } };
}
const summaryMessage = (text: string): ProjectedMessage => ({ role: 'user', turn: 0, synthetic: 'summary', span: [0, 3], blocks: [{ kind: 'summary', id: 's.0', tokens: 1, text }] });

describe('claude-code family: corpus', () => {
  for (const f of files) it(path.basename(f), () => void checkFixture(f, expect, { format: formatFor(f) }));
});

describe('claude-code: one API response over several lines', () => {
  it('groups lines by message.id: one assistant message per response (slopometry: 450 lines, 187 ids)', () => {
    const lines = rawLines(SLOP);
    const assistantLines = lines.filter((l) => l.type === 'assistant' && !l.isSidechain);
    const ids = new Set(assistantLines.map((l) => l.message.id));
    expect(assistantLines.length).toBe(450);
    expect(ids.size).toBe(187);
    const t = load(SLOP);
    const assistants = t.messages.filter((m) => m.role === 'assistant' && !m.sidechain);
    expect(assistants.length).toBe(ids.size);
    // Every message's lines carry one and the same message.id, and every assistant line is used once.
    const records = t.records.map((r) => r.value as Record<string, any>);
    for (const m of assistants) expect(new Set(m.recordRefs.map((r) => records[r].message.id)).size).toBe(1);
    expect(assistants.reduce((n, m) => n + m.recordRefs.length, 0)).toBe(450);
    // A response's blocks are in line order: thinking first where there is one.
    const withThinking = assistants.filter((m) => m.blocks.some((b) => b.kind === 'reasoning'));
    expect(withThinking.length).toBe(187);
    expect(withThinking.every((m) => m.blocks[0].kind === 'reasoning')).toBe(true);
  });

  it('counts usage once per response, from its last line (no double counting)', () => {
    const lines = rawLines(SLOP).filter((l) => l.type === 'assistant' && l.message.model !== '<synthetic>');
    const lastOutputById = new Map<string, number>();
    let naive = 0;
    for (const l of lines) {
      lastOutputById.set(l.message.id, l.message.usage.output_tokens);
      naive += l.message.usage.output_tokens;
    }
    const expected = [...lastOutputById.values()].reduce((a, b) => a + b, 0);
    const t = load(SLOP);
    expect(t.usage.length).toBe(lastOutputById.size);
    const output = t.usage.reduce((n, u) => n + u.output, 0);
    expect(output).toBe(expected);
    expect(output).toBeLessThan(naive); // summing per line would over-count
    // Each usage record points at the assistant message of its response.
    for (const u of t.usage) expect(t.messages[u.messageIndex].role).toBe('assistant');
    expect(t.model).toBe(lines[lines.length - 1].message.model);
  });

  it('keeps thinking signatures opaque and verbatim', () => {
    const lines = rawLines(SLOP);
    const sig = lines.find((l) => l.type === 'assistant' && l.message.content[0]?.type === 'thinking')!.message.content[0].signature;
    const t = load(SLOP);
    const r = t.messages.flatMap((m) => m.blocks).find((b) => b.kind === 'reasoning');
    expect(r && r.kind === 'reasoning' && r.opaque).toBe(sig);
  });
});

describe('claude-code: markers, flags, pairing', () => {
  it('reads compact_boundary + isCompactSummary as a marker and a summary block (slopometry)', () => {
    const lines = rawLines(SLOP);
    const boundary = lines.find((l) => l.subtype === 'compact_boundary')!;
    const t = load(SLOP);
    expect(t.markers.length).toBe(1);
    const k = t.markers[0];
    expect(k).toMatchObject({ source: 'claude-code-compact', trigger: boundary.compactMetadata.trigger, tokensBefore: boundary.compactMetadata.preTokens });
    const summaryMsg = t.messages[k.atMessage];
    expect(summaryMsg.blocks[0]).toMatchObject({ kind: 'summary', markerId: k.id });
    expect(k.covers).toEqual([0, k.atMessage]);
    expect(k.summary!.startsWith('This session is being continued')).toBe(true);
    expect(t.records[k.recordRef!].value).toMatchObject({ subtype: 'compact_boundary' });
  });

  it('pairs every tool call with its result on the main chain', () => {
    for (const f of [SLOP, VIEWER]) {
      const t = load(f);
      expect(validatePairing(t.messages.filter((m) => !m.sidechain)), path.basename(f)).toEqual([]);
      expect(t.warnings.filter((w) => w.code.startsWith('pairing:'))).toEqual([]);
    }
  });

  it('marks sidechain and meta lines', () => {
    const lines = rawLines(VIEWER);
    const t = load(VIEWER);
    const sideLines = lines.filter((l) => (l.type === 'user' || l.type === 'assistant') && l.isSidechain).length;
    const sideRefs = t.messages.filter((m) => m.sidechain).reduce((n, m) => n + m.recordRefs.length, 0);
    expect(sideRefs).toBe(sideLines);
    const metaLines = lines.filter((l) => l.type === 'user' && l.isMeta).length;
    expect(metaLines).toBeGreaterThan(0);
    expect(t.messages.filter((m) => m.meta).length).toBe(metaLines);
    // Side chains never start turns of the main conversation.
    expect(t.turnCount).toBe(lines.filter((l) => l.type === 'user' && !l.isSidechain && !l.isMeta && typeof l.message.content === 'string').length);
  });

  it('keeps non-message lines as records and reads titles, images, custom titles (schema coverage fixture)', () => {
    const lines = rawLines(COVERAGE);
    const t = load(COVERAGE);
    expect(t.records.length).toBe(lines.length);
    expect(t.title).toBe(lines.find((l) => l.type === 'custom-title')!.customTitle);
    expect(t.messages.flatMap((m) => m.blocks).some((b) => b.kind === 'attachment')).toBe(true);
    expect(t.markers.length).toBe(lines.filter((l) => l.subtype === 'compact_boundary').length);
    const messageRecords = new Set(t.messages.flatMap((m) => m.recordRefs));
    for (const [i, l] of lines.entries()) if (l.type !== 'user' && l.type !== 'assistant') expect(messageRecords.has(i)).toBe(false);
  });

  it('titles from the summary line, else the first real prompt', () => {
    expect(load(SLOP).title).toBe(rawLines(SLOP)[0].summary);
    const text = fs.readFileSync(SLOP, 'utf8').split('\n').filter((l) => !l.includes('"type":"summary"')).join('\n');
    const t = loadText('no-summary.jsonl', text);
    const firstPrompt = rawLines(SLOP).find((l) => l.type === 'user' && typeof l.message.content === 'string' && !l.isMeta && !l.message.content.startsWith('<'))!;
    expect(firstPrompt.message.content.replace(/\s+/g, ' ').trim().startsWith(t.title.replace(/…$/, ''))).toBe(true);
  });
});

describe('claude-code: resumed sessions', () => {
  it('a line replayed by a resumed session (same uuid, same message) is kept as a record but shown once', () => {
    const f = byName('vibecodingtracker');
    const lines = rawLines(f);
    const seen = new Map<string, string>();
    let replays = 0;
    for (const l of lines) {
      if ((l.type !== 'user' && l.type !== 'assistant') || !l.uuid) continue;
      if (seen.get(l.uuid) === JSON.stringify(l.message)) replays++;
      else if (!seen.has(l.uuid)) seen.set(l.uuid, JSON.stringify(l.message));
    }
    expect(replays).toBe(1);
    const t = load(f);
    expect(t.records.length).toBe(lines.length);
    expect(t.warnings).toContainEqual(expect.objectContaining({ code: 'duplicate:uuid' }));
    expect(validatePairing(t.messages.filter((m) => !m.sidechain))).toEqual([]);
  });
});

describe('claude-code: rewinds', () => {
  const line = (o: Record<string, unknown>) => JSON.stringify({ isSidechain: false, sessionId: 's', type: 'user', ...o });
  const prompt = (uuid: string, parentUuid: string | null, text: string) => line({ uuid, parentUuid, message: { role: 'user', content: text } });
  const reply = (uuid: string, parentUuid: string, id: string, text: string) => line({ uuid, parentUuid, type: 'assistant', message: { id, role: 'assistant', model: 'claude-x', content: [{ type: 'text', text }], usage: { input_tokens: 5, output_tokens: 3 } } });

  it('the branch abandoned by a rewind is marked as a side chain; the active one is the context', () => {
    const text = [prompt('u1', null, 'fix A'), reply('a1', 'u1', 'm1', 'A fixed'), prompt('u2', 'a1', 'now B'), reply('a2', 'u2', 'm2', 'B done'), prompt('u3', 'a1', 'actually C'), reply('a3', 'u3', 'm3', 'C done')].join('\n') + '\n';
    const t = loadText('rewind.jsonl', text);
    expect(t.messages.map((m) => [(m.blocks[0] as { text: string }).text, !!m.sidechain])).toEqual([
      ['fix A', false],
      ['A fixed', false],
      ['now B', true],
      ['B done', true],
      ['actually C', false],
      ['C done', false],
    ]);
    expect(t.turnCount).toBe(2);
    expect(t.warnings).toContainEqual(expect.objectContaining({ code: 'branch:abandoned' }));
    expect(claudeCode.serialize(t).text).toBe(text);
  });

  it('a rewind of the first prompt (two roots) and parallel tool results sharing a parent', () => {
    const text = [
      prompt('u1', null, 'first try'),
      reply('a1', 'u1', 'm1', 'meh'),
      prompt('u2', null, 'second try'),
      line({ uuid: 'a2', parentUuid: 'u2', type: 'assistant', message: { id: 'm2', role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Read', input: {} }, { type: 'tool_use', id: 't2', name: 'Read', input: {} }] } }),
      line({ uuid: 'r1', parentUuid: 'a2', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'x' }] } }),
      line({ uuid: 'r2', parentUuid: 'a2', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't2', content: 'y' }] } }),
      reply('a3', 'r2', 'm3', 'done'),
    ].join('\n');
    const t = loadText('rewind2.jsonl', text);
    expect(t.messages.filter((m) => m.sidechain).map((m) => (m.blocks[0] as { text: string }).text)).toEqual(['first try', 'meh']);
    // r1 is not on the chain ending at the leaf, but results are not prompts: no fork there.
    expect(t.messages.find((m) => m.blocks[0].kind === 'tool_result' && m.blocks[0].callId === 't1')!.sidechain).toBeUndefined();
  });
});

describe('claude-code: sub-agent files', () => {
  it('a file where every line is a side chain (agent-<id>.jsonl) is read as its own main chain', () => {
    const lines = rawLines(VIEWER).filter((l) => l.isSidechain && (l.type === 'user' || l.type === 'assistant'));
    const text = lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
    const t = loadText('agent-1234.jsonl', text);
    expect(t.messages.length).toBeGreaterThan(0);
    expect(t.messages.some((m) => m.sidechain)).toBe(false);
    expect(t.turnCount).toBeGreaterThan(1);
    expect(t.warnings).toContainEqual(expect.objectContaining({ code: 'subagent:file' }));
    expect(t.title).toBe(lines[0].message.content.replace(/\s+/g, ' ').trim().slice(0, 79) + '…');
    expect(claudeCode.serialize(t).text).toBe(text);
    // Its compacted export stays a sub-agent file: new lines are side-chain lines, the chain closed.
    const pms = identity(t.messages.filter((m) => m.turn >= 1));
    pms.unshift(summaryMessage('first sub-task done'));
    const out = claudeCode.serialize(t, projectionOf(t, pms)).text.split('\n').filter((l) => l).map((l) => JSON.parse(l) as Record<string, any>);
    expect(out.every((v) => v.isSidechain === true)).toBe(true);
    const uuids = new Set(out.map((v) => v.uuid));
    expect(out.filter((v) => typeof v.parentUuid === 'string' && !uuids.has(v.parentUuid))).toEqual([]);
    expect(modelView(loadText('agent-1234.compacted.jsonl', out.map((v) => JSON.stringify(v)).join('\n'))).length).toBe(pms.length);
  });
});

describe('claude-code: the file seam on a real session', () => {
  it('chunked decoding gives the same records as unchunked', () => {
    const whole = load(SLOP);
    const chunked = withMockedChunkSize(4096, () => load(SLOP));
    expect(chunked.records.length).toBe(whole.records.length);
    expect(chunked.records.map((r) => r.text)).toEqual(whole.records.map((r) => r.text));
    expect(chunked.messages.length).toBe(whole.messages.length);
  });

  it('CRLF line ends: same messages, exported with CRLF byte for byte', () => {
    const crlf = fs.readFileSync(VIEWER, 'utf8').replace(/\n/g, '\r\n');
    const t = loadText('crlf.jsonl', crlf);
    expect(t.style.eol).toBe('\r\n');
    expect(t.messages.length).toBe(load(VIEWER).messages.length);
    expect(claudeCode.serialize(t).text).toBe(crlf);
  });

  it('a UTF-8 BOM is stripped and recorded', () => {
    const text = fs.readFileSync(VIEWER, 'utf8');
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(text)]);
    const t = importBytes('bom.jsonl', bytes).transcript;
    expect(t.format).toBe('claude-code');
    expect(t.style.bom).toBe(true);
    expect(t.records[0].text.charCodeAt(0)).toBe('{'.charCodeAt(0));
    expect(claudeCode.serialize(t).text).toBe(text);
  });

  it('gzip-compressed sessions import to the same records', () => {
    const t = importBytes('s.jsonl.gz', gzipSync(bytesOf(SLOP))).transcript;
    const plain = load(SLOP);
    expect(t.records.map((r) => r.text)).toEqual(plain.records.map((r) => r.text));
    expect(t.messages.length).toBe(plain.messages.length);
  });

  it('a truncated last line (session still being written): warning, imports, round-trips byte-identical', () => {
    const text = fs.readFileSync(VIEWER, 'utf8');
    const cut = text.slice(0, text.length - 200); // inside the last line
    const t = loadText('live.jsonl', cut);
    expect(t.warnings.map((w) => w.code)).toContain('truncated:last-line');
    expect(t.records.length).toBe(rawLines(VIEWER).length - 1);
    expect(claudeCode.serialize(t).text).toBe(cut);
  });
});

describe('claude-code: export of a projection', () => {
  /** Summarize the first 3 turns, stub the first kept tool result. */
  function compactSlopometry() {
    const t = load(SLOP);
    const kept = t.messages.filter((m) => m.turn >= 3);
    const pms = identity(kept);
    const stubAt = pms.findIndex((pm) => pm.blocks.some((b) => b.kind === 'tool_result'));
    const stubbed = pms[stubAt].blocks.find((b) => b.kind === 'tool_result')!;
    pms[stubAt] = { ...pms[stubAt], blocks: pms[stubAt].blocks.map((b) => (b === stubbed ? ({ ...b, content: '[Read: ok, 120 lines]', sourceBlockId: b.id } as ProjectedBlock) : b)) };
    pms.unshift(summaryMessage('Summary: the user asked to fix the Halstead bug; tests now pass.'));
    const out = claudeCode.serialize(t, projectionOf(t, pms));
    return { t, out, kept, stubbed, stubAt: kept[stubAt] };
  }

  it('writes a compact_boundary + isCompactSummary pair the way Claude Code does', () => {
    const { out } = compactSlopometry();
    const lines = out.text.split('\n').filter((l) => l).map((l) => JSON.parse(l) as Record<string, any>);
    const bi = lines.findIndex((l) => l.subtype === 'compact_boundary' && l.compactMetadata?.trigger === 'manual');
    expect(bi).toBeGreaterThan(-1);
    const boundary = lines[bi];
    expect(boundary).toMatchObject({ type: 'system', parentUuid: null, compactMetadata: { trigger: 'manual', preTokens: 155000 }, sessionId: rawLines(SLOP)[4].sessionId });
    const summary = lines[bi + 1];
    expect(summary).toMatchObject({ type: 'user', isCompactSummary: true, parentUuid: boundary.uuid, message: { role: 'user', content: COMPACT_SUMMARY_PREAMBLE + 'Summary: the user asked to fix the Halstead bug; tests now pass.' } });
    // The same preamble Claude Code wrote in the real session.
    expect(rawLines(SLOP).find((l) => l.isCompactSummary)!.message.content.startsWith(COMPACT_SUMMARY_PREAMBLE)).toBe(true);
    expect(out.text.endsWith('\n')).toBe(true);
  });

  it('keeps the parentUuid chain consistent and untouched lines verbatim', () => {
    const { t, out } = compactSlopometry();
    const outLines = out.text.split('\n').filter((l) => l);
    const values = outLines.map((l) => JSON.parse(l) as Record<string, any>);
    const uuids = new Set(values.map((v) => v.uuid).filter(Boolean));
    for (const v of values) if (typeof v.parentUuid === 'string') expect(uuids.has(v.parentUuid), `parent of ${v.uuid}`).toBe(true);
    const original = new Set(t.records.map((r) => r.text));
    const rewritten = outLines.filter((l) => !original.has(l));
    // Only the new pair, the stubbed line and lines re-linked to the summary are re-written.
    expect(rewritten.length).toBeLessThan(8);
    // The summarized turns stay in the file as history before the new boundary (Claude Code keeps
    // them too): every source line is there as it was but the stubbed one and the first kept line,
    // now a child of the summary line.
    const written = new Set(outLines);
    expect(t.records.filter((r) => !written.has(r.text)).length).toBe(2);
    expect(outLines.length).toBe(t.records.length + 2);
  });

  it('rewrites a stubbed tool result in place: message content and toolUseResult', () => {
    const { t, out, stubbed } = compactSlopometry();
    const callId = stubbed.kind === 'tool_result' ? stubbed.callId : '';
    const line = out.text.split('\n').find((l) => l.includes(callId) && l.includes('"tool_result"'))!;
    const v = JSON.parse(line);
    const item = v.message.content.find((c: { type: string }) => c.type === 'tool_result');
    expect(item.content).toBe('[Read: ok, 120 lines]');
    expect(v.toolUseResult).toBe('[Read: ok, 120 lines]');
    const before = t.records.find((r) => r.text.includes(callId) && r.text.includes('"tool_result"'))!;
    expect(line.length).toBeLessThan(before.text.length);
    // Every other field of the line is kept.
    const { message: _m, toolUseResult: _t, ...rest } = before.value as Record<string, unknown>;
    expect(v).toMatchObject(rest);
  });

  it('re-imports as Claude Code with valid pairing and the summary as a marker', () => {
    const { out, kept } = compactSlopometry();
    const back = loadText('compacted.jsonl', out.text);
    expect(back.format).toBe('claude-code');
    expect(validatePairing(back.messages.filter((m) => !m.sidechain))).toEqual([]);
    expect(back.markers.some((k) => k.trigger === 'manual' && k.summary === COMPACT_SUMMARY_PREAMBLE + 'Summary: the user asked to fix the Halstead bug; tests now pass.')).toBe(true);
    // Nothing is lost from the file: the summarized turns stay as history, and the model's view
    // still starts at the session's own later compaction.
    expect(back.messages.length).toBe(load(SLOP).messages.length + 1);
    expect(modelView(back).length).toBe(modelView(load(SLOP)).length);
    expect(kept.length).toBeGreaterThan(modelView(back).length);
  });

  it('refuses a projection that breaks a tool call/result pair', () => {
    const t = load(SLOP);
    const pms = identity(t.messages);
    const at = pms.findIndex((pm, i) => i > 0 && pm.blocks.length === 1 && pm.blocks[0].kind === 'tool_result');
    pms.splice(at, 1); // the call stays, its result goes
    expect(() => claudeCode.serialize(t, projectionOf(t, pms))).toThrow(/breaks tool call\/result pairing/);
  });

  it('is deterministic and identical to the source with an identity projection', () => {
    const t = load(VIEWER);
    const same = claudeCode.serialize(t, projectionOf(t, identity(t.messages)));
    expect(same.text).toBe(fs.readFileSync(VIEWER, 'utf8'));
    expect(compactSlopometry().out.text).toBe(compactSlopometry().out.text);
  });
});

describe('claude-code web export and SDK output', () => {
  it('web export: loglines read like session lines, the compact summary included', () => {
    const raw = JSON.parse(fs.readFileSync(WEB, 'utf8')) as { loglines: Array<Record<string, any>> };
    const t = load(WEB);
    expect(t.format).toBe('claude-code-web');
    expect(t.records.length).toBe(raw.loglines.length);
    expect(t.messages.filter((m) => m.role === 'assistant').length).toBe(raw.loglines.filter((l) => l.type === 'assistant').length);
    expect(t.markers.length).toBe(raw.loglines.filter((l) => l.isCompactSummary).length);
    expect(validatePairing(t.messages)).toEqual([]);
  });

  it('web export: a projection is written back into loglines, pretty like the source', () => {
    const t = load(WEB);
    const pms = identity(t.messages.filter((m) => m.turn >= 2));
    pms.unshift(summaryMessage('earlier: wrote math_utils.py'));
    const out = claudeCodeWeb.serialize(t, projectionOf(t, pms)).text;
    const v = JSON.parse(out) as { loglines: Array<Record<string, any>> };
    expect(v.loglines.some((l) => l.isCompactSummary && l.message.content === COMPACT_SUMMARY_PREAMBLE + 'earlier: wrote math_utils.py')).toBe(true);
    expect(out).toContain('\n    {\n      "parentUuid"');
    expect(loadText('web.json', out).format).toBe('claude-code-web');
  });

  it('SDK json: usage per assistant message, model from the messages, title from the session', () => {
    const raw = JSON.parse(fs.readFileSync(SDK, 'utf8')) as Array<Record<string, any>>;
    const t = load(SDK);
    expect(t.format).toBe('claude-code-sdk');
    const assistants = raw.filter((m) => m.type === 'assistant');
    expect(t.usage.map((u) => u.output)).toEqual(assistants.map((m) => m.message.usage.output_tokens));
    expect(t.usage.map((u) => u.cacheRead)).toEqual(assistants.map((m) => m.message.usage.cache_read_input_tokens));
    expect(t.model).toBe(assistants[0].message.model);
    expect(t.title).toContain(raw[0].session_id);
    expect(t.tools).toEqual([]); // the init line lists names only: no schemas are invented
  });

  it('SDK stream-json (JSONL) is the same format, and a projection writes an SDK compact_boundary', () => {
    const raw = JSON.parse(fs.readFileSync(SDK, 'utf8')) as unknown[];
    const jsonl = raw.map((m) => JSON.stringify(m)).join('\n') + '\n';
    const t = loadText('stream.jsonl', jsonl);
    expect(t.format).toBe('claude-code-sdk');
    expect(claudeCodeSdk.serialize(t).text).toBe(jsonl);
    const pms = identity(t.messages.slice(2));
    pms.unshift(summaryMessage('read the file'));
    const out = claudeCodeSdk.serialize(t, projectionOf(t, pms)).text.split('\n').filter((l) => l).map((l) => JSON.parse(l));
    expect(out[1]).toMatchObject({ type: 'system', subtype: 'compact_boundary', compact_metadata: { trigger: 'manual' } });
    expect(out[2]).toMatchObject({ type: 'user', message: { content: COMPACT_SUMMARY_PREAMBLE + 'read the file' } });
  });
});

describe('claude-code: export of a real pipeline projection', () => {
  it('strip-tool-results + summarize on slopometry: smaller, re-imports, pairing valid, parent chain closed', async () => {
    const { projectTranscript } = await import('../compaction/project');
    const { step } = await import('../compaction/testing/steps');
    const t = load(SLOP);
    const p = projectTranscript(t, [step(['strip-tool-results', 'strip-reasoning'], { keepLast: 2 }), step(['summarize'], { keepLast: 3 })]);
    expect(p.messages.some((m) => m.synthetic === 'summary')).toBe(true);
    const out = claudeCode.serialize(t, p);
    const back = loadText('compacted.jsonl', out.text);
    expect(back.format).toBe('claude-code');
    // What the model sees on resume is the projection; the history before it stays in the file.
    expect(modelView(back).length).toBe(p.messages.length);
    // (the summary line carries Claude Code's preamble on top of the projected text)
    expect(Math.abs(modelView(back).reduce((n, m) => n + m.blocks.reduce((k, b) => k + b.tokens, 0), 0) - p.tokens.after.total)).toBeLessThan(p.tokens.after.total * 0.01);
    expect(validatePairing(back.messages.filter((m) => !m.sidechain))).toEqual([]);
    const values = out.text.split('\n').filter((l) => l).map((l) => JSON.parse(l) as Record<string, any>);
    const uuids = new Set(values.map((v) => v.uuid));
    expect(values.filter((v) => typeof v.parentUuid === 'string' && !uuids.has(v.parentUuid))).toEqual([]);
    expect(values.filter((v) => v.subtype === 'compact_boundary').map((v) => v.compactMetadata.trigger)).toEqual(['auto', 'manual']);
    // Kept tail turns are byte-identical lines of the source.
    const original = new Set(t.records.map((r) => r.text));
    const lastTurn = t.turnCount - 1;
    for (const m of t.messages.filter((x) => x.turn === lastTurn)) for (const r of m.recordRefs) expect(original.has(t.records[r].text) && out.text.includes(t.records[r].text)).toBe(true);
  });
});

describe('claude-code: usage', () => {
  it('a record whose usage holds no count ("usage": {} on a stopped task) is not a call: the last recorded context is not 0', () => {
    const f = byName('vibecodingtracker');
    const empty = rawLines(f).filter((l) => l.type === 'assistant' && l.message?.usage && Object.keys(l.message.usage).length === 0);
    expect(empty.length).toBeGreaterThan(0);
    const t = load(f);
    expect(t.usage.length).toBeGreaterThan(0);
    for (const u of t.usage) expect(u.input + u.cacheRead + u.cacheWrite, `usage of message ${u.messageIndex}`).toBeGreaterThan(0);
  });
});
