import path from 'node:path';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import { importFile } from '../formats/import';
import { sourceFromBytes } from '../read/source';
import { validatePairing } from '../model/pairing';
import { filler, makeTranscript, type TurnSpec } from '../compaction/testing/make';
import { contextCurve, replayPolicy, replayablePeers, triggersFor } from './replay';

const turns: TurnSpec[] = Array.from({ length: 30 }, (_, i) => ({
  user: `task ${i}`,
  reasoning: 'hmm '.repeat(50),
  tools: [
    { name: 'Read', input: { file_path: `/r/f${i}.ts` }, output: filler(2000, `f${i}`) },
    { name: 'Bash', input: { command: `test ${i}` }, output: filler(1500, `t${i}`) },
  ],
  answer: `ok ${i}`,
}));
const log = makeTranscript(turns, { model: 'claude-sonnet-4-5-20250929' });

describe('triggersFor', () => {
  it('places each peer threshold on the estimated context curve', () => {
    const curve = contextCurve(log);
    expect(curve.every((c, i) => i === 0 || c.tokens >= curve[i - 1].tokens)).toBe(true);
    const t = triggersFor(log);
    const cc = t.find((x) => x.peer === 'claude-code')!;
    expect(cc.thresholdTokens).toBe(200_000 - 20_000 - 13_000);
    const gemini = t.find((x) => x.peer === 'gemini-cli')!;
    expect(gemini.thresholdTokens).toBe(100_000);
    // Gemini fires earlier than Claude Code, which fires earlier than Codex (90 %).
    expect(gemini.firesAtTurn).not.toBeNull();
    expect(gemini.firesAtTurn!).toBeLessThan(cc.firesAtTurn ?? Infinity);
    const firstOver = curve.find((c) => c.tokens >= 100_000)!;
    expect(gemini.firesAtMessage).toBe(firstOver.messageIndex);
    expect(t.find((x) => x.peer === 'openhands')!.thresholdEvents).toBe(120);
  });

  it('uses recorded usage where the source has it (Claude Code, Codex corpus)', () => {
    for (const f of [...corpusFiles('claude-code').filter((x) => x.includes('slopometry')), ...corpusFiles('codex-cli').filter((x) => x.includes('codex-session-view'))]) {
      const t = importFile(sourceFromBytes(path.basename(f), new Uint8Array(fs.readFileSync(f)))).transcript;
      expect(t.usage.length).toBeGreaterThan(0);
      const curve = contextCurve(t);
      expect(curve.every((c) => c.source === 'recorded')).toBe(true);
      const triggers = triggersFor(t);
      expect(triggers.length).toBeGreaterThan(10);
      for (const tr of triggers) if (tr.firesAtMessage !== null && tr.thresholdTokens !== undefined) expect(curve.find((c) => c.messageIndex === tr.firesAtMessage)!.tokens).toBeGreaterThanOrEqual(tr.thresholdTokens);
    }
  });
});

describe('replayPolicy', () => {
  it('replays Claude Code microcompact, Codex, Gemini CLI, OpenCode prune and Anthropic clear_tool_uses as plans', () => {
    const peers = replayablePeers();
    for (const id of ['claude-code-microcompact', 'codex', 'gemini-cli', 'opencode-prune', 'anthropic-clear-tool-uses']) expect(peers).toContain(id);
    const micro = replayPolicy(log, 'claude-code-microcompact');
    const cleared = micro.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_result' && b.content === '[Old tool result content cleared]');
    expect(cleared).toHaveLength(60 - 5);
    const anth = replayPolicy(log, 'anthropic-clear-tool-uses');
    expect(anth.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_result' && !b.content.startsWith('[cleared')).length).toBe(3);
    const gem = replayPolicy(log, 'gemini-cli');
    const s = gem.messages.find((m) => m.synthetic === 'summary')!;
    expect(s.span![1]).toBeGreaterThan(15);
    expect(s.span![1]).toBeLessThan(25);
    const oc = replayPolicy(log, 'opencode-prune');
    expect(oc.tokens.after.byKind.tool_result).toBeGreaterThanOrEqual(40_000);
    expect(oc.tokens.after.byKind.tool_result).toBeLessThan(50_000);
    const codex = replayPolicy(log, 'codex');
    expect(codex.messages.filter((m) => m.synthetic === 'summary')).toHaveLength(1);
    for (const p of [micro, anth, gem, oc, codex]) expect(validatePairing(p.messages)).toEqual([]);
  });
});
