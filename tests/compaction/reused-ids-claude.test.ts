/**
 * Issue 30: reused tool-call ids in Claude Code sessions. A fuzz of 8,000 cases found four shapes
 * that broke pairing, all with a tool_use id used by two calls. The Claude Code importer kept one
 * id for both, so the compaction's pair index could not tell which call a result answered:
 * removing one pair took the other's result. The importer now gives each occurrence its own id,
 * as the OpenAI Chat importer does (lib/model/pairing.ts CallOccurrences); the lines written keep
 * the source ids. Each shape is written here exactly as the issue describes it, through the
 * library and (dedup-tools, classify-tangents) the CLI.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { projectTranscript } from '../../lib/compaction/project';
import type { Step } from '../../lib/compaction/types';
import { importBytes } from '../../lib/formats/import';
import { formatById } from '../../lib/formats/registry';
import { isFatalForExport, newPairingIssues, validatePairing } from '../../lib/model/pairing';
import type { Transcript } from '../../lib/model/types';
import { transcriptTotals } from '../../lib/tokens/totals';
import { run as compact } from '../../lib/cli/compact';
import { claudeSession, dedupShape, emergencyShape, exportShape, tangentShape } from './reused-shapes';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'reused-cc-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const load = (text: string): Transcript => importBytes('s.jsonl', new TextEncoder().encode(text)).transcript;
const mainOf = <M extends { sidechain?: boolean }>(ms: readonly M[]) => ms.filter((m) => !m.sidechain);

/** Project, write as Claude Code, read back: the fatal pairing issues the file written adds to the input's. */
function exportedIssues(log: Transcript, steps: Step[]) {
  const known = validatePairing(mainOf(log.messages));
  const p = projectTranscript(log, steps); // throws CompactionInvariantError when a reducer adds an issue
  expect(newPairingIssues(known, validatePairing(mainOf(p.messages)))).toEqual([]);
  const out = formatById('claude-code')!.serialize(log, p);
  const back = load(out.text);
  const main = mainOf(back.messages);
  const fatal = validatePairing(main).filter((i) => isFatalForExport(i, main.length));
  return { p, back, added: newPairingIssues(known, fatal, { bySourceId: true }) };
}

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => ((out += String(s)), true));
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => ((err += String(s)), true));
  try {
    return { code: await compact(args), out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

describe('reused tool-call ids in a Claude Code session (issue 30)', () => {
  it('the importer gives each call occurrence its own id and each result the call it answers; the file keeps the source ids', () => {
    const t = load(dedupShape());
    const calls = t.messages[1].blocks.filter((b) => b.kind === 'tool_call');
    expect(calls.map((c) => c.callId)).toEqual(['call_1', 'call_1#2']);
    const result = t.messages[2].blocks[0];
    expect(result.kind === 'tool_result' && result.callId).toBe('call_1'); // the first unanswered occurrence
    expect(validatePairing(t.messages)).toEqual([{ kind: 'missing-result', callId: 'call_1#2', message: 1 }]);
    // Written back unchanged (no step): the source ids, byte for byte.
    const out = formatById('claude-code')!.serialize(t, projectTranscript(t, []));
    expect(out.text).toBe(dedupShape());
  });

  it('dedup-tools: two identical Read calls sharing call_1 in one message, one result (library and `compact --strategy dedup-tools --keep-last 0`)', async () => {
    const log = load(dedupShape());
    for (const mode of ['remove', 'stub'] as const) {
      const { added } = exportedIssues(log, [{ id: 's', range: { kind: 'after-last-compaction' }, reducers: [{ id: 'dedup-tools', options: { mode } }], keepLast: 0, createdAt: '' }]);
      expect(added).toEqual([]);
    }
    const file = path.join(tmp, 'dedup.jsonl');
    fs.writeFileSync(file, dedupShape());
    const r = await cli([file, '--strategy', 'dedup-tools', '--keep-last', '0', '--budget', '100000', '--out', path.join(tmp, 'dedup-out.jsonl')]);
    expect(r.err).not.toContain('broke tool pairing'); // before: "step cli / dedup-tools broke tool pairing: 1 new issue(s), first missing-result for call call_1"
    expect(r.code).toBe(0);
    const back = load(fs.readFileSync(path.join(tmp, 'dedup-out.jsonl'), 'utf8'));
    expect(validatePairing(mainOf(back.messages)).filter((i) => i.kind !== 'missing-result' || i.message < back.messages.length - 1)).toEqual([]);
  });

  it('classify-tangents: turn 5 has call_1 with no result, turn 6 reuses call_1 with a result (`--tangents 5 --keep-last 0`)', async () => {
    const log = load(tangentShape());
    // Turn 5 (1-based) holds the unanswered call; turn 6 the re-issued call and its result.
    const turnOf = (id: string) => log.messages.find((m) => m.blocks.some((b) => b.kind === 'tool_call' && b.callId === id))!.turn + 1;
    expect([turnOf('call_1'), turnOf('call_1#2')]).toEqual([5, 6]);
    const { p, added } = exportedIssues(log, [{ id: 's', range: { kind: 'after-last-compaction' }, reducers: [{ id: 'classify-tangents', options: { turns: [4] } }], keepLast: 0, createdAt: '' }]);
    expect(added).toEqual([]);
    expect(p.report.flatMap((r) => r.notes)).toContain('removed 1 tangent turn(s)');
    // Turn 6's pair survives whole; the tangent (turn 5) went.
    const kept = p.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_call' || b.kind === 'tool_result');
    expect(kept.map((b) => `${b.kind} ${b.callId}`)).toEqual(['tool_call call_1#2', 'tool_result call_1#2']);
    const file = path.join(tmp, 'tangent.jsonl');
    fs.writeFileSync(file, tangentShape());
    const r = await cli([file, '--strategy', 'classify-tangents', '--tangents', '5', '--keep-last', '0', '--budget', '100000', '--out', path.join(tmp, 'tangent-out.jsonl')]);
    expect(r.err).not.toContain('broke tool pairing'); // before: "classify-tangents broke tool pairing: … missing-result for call call_1"
    expect(r.code).toBe(0);
    expect(r.out).toContain('removed 1 tangent turn(s)');
  });

  it('emergency (library): the same shape over turns 1–2, keeping 1–3 messages at 1 % of the tokens', () => {
    const log = load(emergencyShape());
    const budget = Math.max(1, Math.floor(transcriptTotals(log).total * 0.01));
    // Before: keep_n 2 or 3 with the range turns 1–2, or the whole log with keep_last 1, threw
    // "emergency broke tool pairing: … missing-result for call call_1" (the kept call_1 of turn 2
    // lost its result with turn 1's call_1).
    for (const keepN of [1, 2, 3])
      for (const keepLast of [0, 1])
        for (const range of [{ kind: 'turns', from: 0, to: 1 }, { kind: 'after-last-compaction' }] as const) {
          const { added } = exportedIssues(log, [{ id: 's', range, reducers: [{ id: 'emergency', options: { keepN } }], keepLast, budget, createdAt: '' }]);
          expect(added, `keep_n ${keepN}, keep_last ${keepLast}, ${range.kind}`).toEqual([]);
        }
  });

  it('export: call_1 answered by a result carrying another id, then call_1 reused beside call_3 in one message: every reducer\'s export keeps call_3 answered', () => {
    const log = load(exportShape());
    for (const reducer of ['auto', 'emergency', 'dedup-tools', 'sliding-window', 'strip-tool-results', 'summarize', 'truncate-tool-results', 'prune-tools'] as const) {
      for (const keepLast of [0, 1]) {
        const steps: Step[] = [{ id: 's', range: { kind: 'after-last-compaction' }, reducers: [{ id: reducer }], keepLast, budget: 60, createdAt: '' }];
        const { back, added } = exportedIssues(log, steps);
        expect(added, `${reducer}, keep_last ${keepLast}`).toEqual([]);
        // call_3 is answered whenever it is still there.
        const blocks = mainOf(back.messages).flatMap((m) => m.blocks);
        if (blocks.some((b) => b.kind === 'tool_call' && b.callId === 'call_3')) expect(blocks.some((b) => b.kind === 'tool_result' && b.callId === 'call_3'), reducer).toBe(true);
      }
    }
  });

  it('the shapes are Claude Code sessions the importer reads without other complaint', () => {
    for (const text of [dedupShape(), tangentShape(), emergencyShape(), exportShape()]) expect(load(text).format).toBe('claude-code');
    expect(claudeSession([[{ role: 'user', content: 'hi' }]]).split('\n').length).toBe(2);
  });
});
