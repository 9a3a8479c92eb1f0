import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import type { ProjectedMessage, Projection } from '../compaction/types';
import { validatePairing } from '../model/pairing';
import type { Message, Transcript } from '../model/types';
import { sourceFromText } from '../read/source';
import { geminiCli } from './gemini-cli';
import { importBytes } from './import';
import { checkFixture } from './testing/fixture-check';
import { ImportError } from '../errors';
import { exportStripped, parseHostileVariants, identity, projectionOf, stubFirstResult, summaryMessage } from './api-formats.testkit';

const files = corpusFiles('gemini-cli');
const JSONL = files.find((f) => f.endsWith('vibecodingtracker_gemini_session.jsonl'))!;
const LEGACY = files.find((f) => f.endsWith('vibecodingtracker_gemini_session_legacy.json'))!;
const load = (f: string) => importBytes(path.basename(f), new Uint8Array(fs.readFileSync(f))).transcript;
const loadText = (name: string, text: string) => importBytes(name, new TextEncoder().encode(text)).transcript;
const rawLines = () => fs.readFileSync(JSONL, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));

describe('gemini-cli: corpus', () => {
  for (const f of files) it(path.basename(f), () => void checkFixture(f, expect, { format: 'gemini-cli' }));
});

describe('gemini-cli: what the parser reads', () => {
  it('JSONL: last write wins by id, messages in order of first appearance', () => {
    const lines = rawLines();
    const records = lines.filter((l) => typeof l.id === 'string' && (l.type === 'user' || l.type === 'gemini'));
    const firstOrder: string[] = [];
    const last = new Map<string, { toolCalls?: unknown[] }>();
    for (const r of records) {
      if (!firstOrder.includes(r.id)) firstOrder.push(r.id);
      last.set(r.id, r);
    }
    expect(records.length - firstOrder.length).toBe(5); // 5 ids are re-appended in the sample
    const t = load(JSONL);
    const calls = t.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_call').length;
    expect(calls).toBe([...last.values()].reduce((s, r) => s + (r.toolCalls?.length ?? 0), 0));
    // non-tool messages follow the first-appearance order of their ids
    const recordOf = (m: Message) => lines[m.recordRefs[0]].id as string;
    expect(t.messages.filter((m) => m.role !== 'tool').map(recordOf)).toEqual(firstOrder);
    // every call is answered by the result embedded in the same record
    expect(validatePairing(t.messages)).toEqual([]);
    expect(t.usage.length).toBe([...last.values()].filter((r) => 'tokens' in r).length);
  });

  it('tool results go in a tool message right after their call, pointing at the same record', () => {
    const t = load(LEGACY);
    for (const m of t.messages.filter((x) => x.role === 'tool')) {
      const prev = t.messages[m.index - 1];
      expect(prev.role).toBe('assistant');
      expect(prev.recordRefs).toEqual(m.recordRefs);
    }
  });

  it('$rewindTo removes that message and every later one', () => {
    const lines = fs.readFileSync(JSONL, 'utf8');
    const target = rawLines().find((l) => l.type === 'user' && l.content?.[0]?.text === 'System: Please continue.');
    const t = loadText('rewound.jsonl', lines + JSON.stringify({ $rewindTo: target.id }) + '\n');
    const full = load(JSONL);
    const cut = full.messages.findIndex((m) => m.blocks[0]?.kind === 'text' && m.blocks[0].text === 'System: Please continue.');
    expect(t.messages.length).toBe(cut);
  });

  it('$set.messages is a full checkpoint that replaces everything before it', () => {
    const raw = rawLines();
    const keep = raw.filter((l) => l.type === 'user').slice(0, 2);
    const t = loadText('checkpoint.jsonl', fs.readFileSync(JSONL, 'utf8') + JSON.stringify({ $set: { messages: keep } }) + '\n');
    expect(t.messages.map((m) => m.role)).toEqual(['user', 'user']);
    expect(t.messages[1].blocks[0].kind === 'text' && t.messages[1].blocks[0].text).toBe(keep[1].content[0].text);
  });

  it('without a summary the title is the first text the user typed, not /init\'s prompt or "System: Please continue." (what the sessions list shows too)', () => {
    const t = loadText('untitled.jsonl', fs.readFileSync(JSONL, 'utf8'));
    expect(t.title).toMatch(/^幫我做一個小修改/);
  });

  it('a $set.summary patch names the session', () => {
    const t = loadText('named.jsonl', fs.readFileSync(JSONL, 'utf8') + JSON.stringify({ $set: { summary: 'Write GEMINI.md' } }) + '\n');
    expect(t.title).toBe('Write GEMINI.md');
  });

  it('tokens: prompt input includes cached; output adds thoughts', () => {
    const t = load(LEGACY);
    const raw = JSON.parse(fs.readFileSync(LEGACY, 'utf8')).messages.find((m: { tokens?: unknown }) => m.tokens).tokens;
    expect(t.usage[0]).toEqual(expect.objectContaining({ input: raw.input + raw.tool - raw.cached, cacheRead: raw.cached, output: raw.output + raw.thoughts, reasoning: raw.thoughts }));
  });

  it('rejects a JSON document that is not a session, with the path', () => {
    expect(() => geminiCli.parse(sourceOf('{"messages": []}'))).toThrow(/not a Gemini CLI session/);
  });
});

function sourceOf(text: string) {
  return sourceFromText('bad.json', text);
}

describe('gemini-cli: export of a projection', () => {
  it('JSONL: summary first, one result stubbed inside its record, a turn dropped; other records verbatim', () => {
    const t = load(JSONL);
    const dropTurn = 1;
    const kept = t.messages.filter((m) => m.turn !== dropTurn);
    const pms = identity(t, kept);
    const target = stubFirstResult(pms, '[compacted] file content removed');
    const out = geminiCli.serialize(t, projectionOf(t, [summaryMessage('Summary: GEMINI.md was written.'), ...pms]));
    const back = loadText('x.jsonl', out.text);
    expect(back.format).toBe('gemini-cli');
    expect(validatePairing(back.messages)).toEqual([]);
    expect(back.messages[0].blocks[0].kind === 'text' && back.messages[0].blocks[0].text).toBe('Summary: GEMINI.md was written.');
    expect(back.messages.some((m) => m.blocks.some((b) => b.kind === 'tool_result' && b.content === '[compacted] file content removed'))).toBe(true);
    expect(back.messages.length).toBe(kept.length + 1);
    const outLines = new Set(out.text.split('\n'));
    const changed = new Set(t.messages.find((m) => m.id === pms[target].sourceId)!.recordRefs);
    const droppedRecords = new Set(t.messages.filter((m) => m.turn === dropTurn).flatMap((m) => m.recordRefs));
    for (const m of kept) for (const r of m.recordRefs) if (!changed.has(r)) expect(outLines.has(t.records[r].text), `line ${t.records[r].line}`).toBe(true);
    for (const r of droppedRecords) expect(outLines.has(t.records[r].text)).toBe(false);
    expect(out.text.split('\n')[0]).toBe(t.records[0].text); // the session header stays first
  });

  it('legacy JSON: the messages array is rewritten in the document style', () => {
    const t = load(LEGACY);
    const pms = identity(t);
    stubFirstResult(pms, '[compacted] README');
    const out = geminiCli.serialize(t, projectionOf(t, [summaryMessage('Summary so far.'), ...pms]));
    const back = loadText('x.json', out.text);
    expect(back.messages.some((m) => m.blocks.some((b) => b.kind === 'tool_result' && b.content === '[compacted] README'))).toBe(true);
    expect(validatePairing(back.messages)).toEqual([]);
    expect(out.text.includes(t.records[0].text)).toBe(true); // the untouched user message, verbatim
    expect(JSON.parse(out.text).sessionId).toBe(JSON.parse(fs.readFileSync(LEGACY, 'utf8')).sessionId);
  });
});

describe('gemini-cli: every corpus file, everything stripped', () => {
  for (const f of files)
    it(path.basename(f), () => {
      const o = exportStripped(f, 'gemini-cli');
      expect(o.stubbed).toBe(o.results);
      expect(o.results).toBeGreaterThan(0);
      expect(o.reasoningLeft).toBe(0);
      expect(o.newPairingIssues).toBe(0);
    });
  it('an identity projection re-emits every file byte for byte', () => {
    for (const f of files) {
      const t = load(f);
      expect(geminiCli.serialize(t, projectionOf(t, identity(t))).text === fs.readFileSync(f, 'utf8'), path.basename(f)).toBe(true);
    }
  });
});

describe('gemini-cli: hostile input', () => {
  it('mutated and truncated real files import or fail with an ImportError, never crash', () => {
    const { imported, rejected } = parseHostileVariants(geminiCli, files);
    expect(imported).toBeGreaterThan(0);
    expect(rejected).toBeGreaterThan(0);
  });
});
