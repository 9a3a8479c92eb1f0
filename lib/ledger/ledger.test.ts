import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import { importBytes } from '../formats/import';
import { lookupModel } from '../tokens/catalog';
import { agentEvents } from './agent';
import { ledgerOf } from '.';
import { renderLedger } from './render';
import { replayPolicyById } from '../simulate/policies/replay';
import { CLI_ENTRY } from '../../tests/cli-entry';

const load = (family: string, prefix: string) => {
  const f = corpusFiles(family).find((x) => path.basename(x).startsWith(prefix))!;
  return { file: f, log: importBytes(path.basename(f), new Uint8Array(fs.readFileSync(f))).transcript };
};

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, [CLI_ENTRY, ...args], { encoding: 'utf8', cwd: process.cwd() });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the compaction ledger: the agent\'s own compactions', () => {
  it('slopometry: Claude Code\'s one auto compaction, 155,317 before, the next call\'s 34,667 after, 16,371 written to the cache', () => {
    const { log } = load('claude-code', 'slopometry');
    const [e, ...rest] = agentEvents(log);
    expect(rest).toEqual([]);
    expect(e).toMatchObject({ by: 'agent', label: 'Claude Code', trigger: 'auto', tokensBefore: 155317, tokensBeforeFrom: 'recorded', tokensAfter: 34667, tokensAfterFrom: 'recorded', cacheWriteAfter: 16371, model: 'claude-opus-4-5-20251101', atMessage: 217, covers: [0, 217], durationMs: null });
    expect(e.summary).toHaveLength(12062);
    const opus = lookupModel('claude-opus-4-5')!;
    expect(e.cacheWriteUsd).toBeCloseTo((16371 * opus.price.cacheWrite) / 1e6, 10);
    // The compaction call: 155,317 tokens mostly read from the cache the last call left, the summary as output.
    expect(e.costFrom).toBe('estimate');
    expect(e.costUsd).toBeGreaterThan((155317 * opus.price.cachedRead) / 1e6);
    expect(e.costUsd).toBeLessThan((155317 * opus.price.input) / 1e6);
    expect(e.callsAfter).toBe(log.usage.filter((u) => u.messageIndex >= 217 && !log.messages[u.messageIndex].sidechain).length);
    expect(e.breakEvenCalls).toBe(5);
    expect(e.triggerLevel!.ofWindow).toBeCloseTo(155317 / 200000, 6);
  });

  it('Anthropic\'s server compaction: the compaction iteration is the compaction call, billed as recorded', () => {
    const { log } = load('anthropic-messages', 'vercel-ai_anthropic-compaction.1');
    const [e] = agentEvents(log);
    const [compaction, next] = log.usage;
    expect(e).toMatchObject({ label: 'Anthropic API', trigger: 'server', tokensBefore: compaction.input + compaction.cacheRead + compaction.cacheWrite, tokensAfter: next.input + next.cacheRead + next.cacheWrite, costFrom: 'recorded' });
    expect(e.costUsd).toBeGreaterThan(0);
  });

  it('Codex without a recorded size: before = the last call\'s prompt and answer plus what came after; after = the next call as recorded', () => {
    const { log } = load('codex-cli', 'localpush');
    const [e] = agentEvents(log);
    const prev = log.usage.filter((u) => u.messageIndex < e.atMessage).at(-1)!;
    const next = log.usage.find((u) => u.messageIndex >= e.atMessage)!;
    expect(e.label).toBe('Codex');
    expect(e.trigger).toBe('unrecorded');
    expect(e.tokensBeforeFrom).toBe('estimate');
    expect(e.tokensBefore).toBeGreaterThanOrEqual(prev.input + prev.cacheRead + prev.output);
    expect(e.tokensAfter).toBe(next.input + next.cacheRead + next.cacheWrite);
    expect(e.cacheWriteAfter).toBe(0); // OpenAI bills no cache write
  });

  it('every corpus file with markers gets one event per marker, in order, and the readable table names each', () => {
    for (const family of ['claude-code', 'codex-cli', 'gemini-api', 'anthropic-messages', 'openai-responses', 'openhands', 'inspect-ai']) {
      for (const f of corpusFiles(family)) {
        let log;
        try {
          log = importBytes(path.basename(f), new Uint8Array(fs.readFileSync(f))).transcript;
        } catch {
          continue; // containers that need a conversation picked
        }
        const events = agentEvents(log);
        expect(events.length, f).toBe(log.markers.length);
        for (let i = 1; i < events.length; i++) expect(events[i].atMessage).toBeGreaterThanOrEqual(events[i - 1].atMessage);
        if (events.length) expect(renderLedger(events).split('\n').filter((l) => l.startsWith('#'))).toHaveLength(events.length);
      }
    }
  });

  it('a replayed policy\'s compactions join the ledger, each with its cache write and break-even', () => {
    const { log } = load('claude-code', 'slopometry');
    const { events } = ledgerOf(log, { policies: [replayPolicyById('claude-code')!] });
    const replayed = events.filter((e) => e.by === 'replay');
    expect(replayed.length).toBeGreaterThan(0);
    for (const e of replayed) {
      expect(e.tokensAfter!).toBeLessThan(e.tokensBefore!);
      expect(e.cacheWriteAfter).toBeGreaterThanOrEqual(0);
      expect(e.breakEvenCalls === 'never' || typeof e.breakEvenCalls === 'number').toBe(true);
    }
  });

  it('CLI: inspect FILE --compactions --json prints {compactions: [...]} with the issue\'s fields', () => {
    const { file } = load('claude-code', 'slopometry');
    const r = cli('inspect', file, '--compactions', '--json');
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(Object.keys(out)).toEqual(['compactions']);
    expect(out.compactions).toHaveLength(1);
    const e = out.compactions[0];
    for (const k of ['by', 'trigger', 'tokensBefore', 'tokensAfter', 'durationMs', 'model', 'cacheWriteAfter', 'costUsd', 'breakEvenCalls', 'survival']) expect(e, k).toHaveProperty(k);
    expect(e).toMatchObject({ by: 'agent', trigger: 'auto', tokensBefore: 155317, tokensAfter: 34667, cacheWriteAfter: 16371 });
    // Its survival: commands near 0 of 20 or more; paths counted (by file name).
    expect(e.survival.commands.of).toBeGreaterThanOrEqual(20);
    expect(e.survival.commands.kept).toBeLessThanOrEqual(1);
    expect(e.survival.paths.of).toBeGreaterThan(0);
    expect(e.survival.paths.kept).toBeGreaterThan(0);
    const table = cli('inspect', file, '--compactions');
    expect(table.stdout).toMatch(/^#1 Claude Code · agent · trigger auto/m);
    expect(table.stdout).toMatch(/^\s+tokens after\s+34,667 \(recorded, next call\)$/m);
    expect(table.stdout).toMatch(/^\s+cache write after\s+16,371 tokens/m);
    expect(table.stdout).toMatch(/^\s+kept\s+instructions \d+\/\d+ · paths \d+\/\d+ · commands 0\/29 · errors \d+\/\d+ · figures \d+\/\d+$/m);
    expect(table.stdout).toMatch(/^\s+lost command: /m);
    const bad = cli('inspect', file, '--compactions', '--policy', 'nope');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/Unknown policy "nope"/);
  });
});
