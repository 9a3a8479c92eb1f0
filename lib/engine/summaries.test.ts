/**
 * Summaries with the user's LLM through the engine: the preview stands in the offline summarizer
 * and lists what an LLM could write; runSummaries asks a real HTTP server (OpenAI wire format),
 * stores the artifacts in Dexie, and the next preview, the applied version and the export's audit
 * all carry the LLM's text — keyed by the draft's step id, which applying keeps.
 */
import 'fake-indexeddb/auto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { freshDbName } from '../db/test-helpers';
import { DEFAULT_SUMMARY_SETTINGS, SUMMARY_SETTINGS_KEY } from '../summarize/settings';
import type { SummaryProgress } from '../summarize/run';
import { corpusFiles } from '../../tests/corpus';
import { startWireServer, type WireServer } from '../../tests/providers/wire-server';
import { engine, useEngineDatabase } from './api';
import type { DraftStep } from './compaction';
import { ORIGINAL_VERSION } from './versions';

// Codex: its exporter writes a summary as a `compacted` line. (Claude Code's export of a summarized range
// currently re-imports with an orphan tool result: the engine refuses it, see the report.)
const file = corpusFiles('codex-cli').find((f) => f.includes('localpush'))!;
let server: WireServer;

beforeAll(async () => {
  server = await startWireServer('openai', [{ kind: 'respond', answer: ({ prompt }) => `## Active Task\nLLM SUMMARY of ${prompt.length} characters` }]);
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => useEngineDatabase(freshDbName()));

function summaryTexts(diff: Array<{ synthetic?: string; blocks: Array<{ after: string | null }> }>): string[] {
  return diff.filter((m) => m.synthetic === 'summary').map((m) => m.blocks[0].after ?? '');
}

describe('engine.runSummaries', () => {
  it('offline settings make no request; an OpenAI-compatible provider writes the summaries the preview uses, through apply and export', async () => {
    const out = await engine.importFile(new Uint8Array(fs.readFileSync(file)), path.basename(file));
    if (out.kind !== 'imported') throw new Error(JSON.stringify(out));
    const id = out.meta.id;
    const draft: DraftStep = { id: 'step-llm', range: { kind: 'turns', from: 0, to: out.meta.turns - 3 }, reducers: [{ id: 'summarize', options: { chunkTurns: 3 } }], keepLast: 1 };

    const offline = await engine.runSummaries(id, ORIGINAL_VERSION, draft);
    expect(offline).toMatchObject({ offline: true, produced: 0 });
    expect(server.requests).toHaveLength(0);

    const before = await engine.preview(id, { versionId: ORIGINAL_VERSION, draft });
    if (before.kind !== 'preview') throw new Error(JSON.stringify(before));
    expect(before.preview.summaryRequests).toBeGreaterThan(0);
    expect(summaryTexts(before.preview.diff).length).toBeGreaterThan(0);
    expect(summaryTexts(before.preview.diff).some((t) => t.includes('LLM SUMMARY'))).toBe(false);

    await engine.putSetting(SUMMARY_SETTINGS_KEY, { ...DEFAULT_SUMMARY_SETTINGS, provider: 'openai', baseUrl: server.baseUrl, model: 'test-model', apiKey: 'sk-test-key' });
    const progress: SummaryProgress['phase'][] = [];
    const run = await engine.runSummaries(id, ORIGINAL_VERSION, draft, (p) => progress.push(p.phase));
    expect(run.offline).toBe(false);
    expect(run.failures).toEqual([]);
    expect(run.produced).toBe(before.preview.summaryRequests);
    expect(server.requests.length).toBe(run.produced);
    expect(progress.filter((p) => p === 'done')).toHaveLength(run.produced);

    const after = await engine.preview(id, { versionId: ORIGINAL_VERSION, draft });
    if (after.kind !== 'preview') throw new Error(JSON.stringify(after));
    expect(after.preview.summaryRequests).toBe(0);
    expect(summaryTexts(after.preview.diff).every((t) => t.includes('LLM SUMMARY'))).toBe(true);

    // Applying keeps the step id, so the stored summaries are found again: no new request.
    const v = await engine.applyStep(id, ORIGINAL_VERSION, draft);
    const again = await engine.runSummaries(id, v.id, null);
    expect(again.produced).toBe(0);
    const exported = await engine.exportVersion(id, v.id, { withAudit: true });
    if (exported.kind !== 'file') throw new Error(JSON.stringify(exported));
    const audit = JSON.parse(new TextDecoder().decode(exported.file.audit!.bytes));
    // Chunks are summarized prefix-ward, each folding the previous summary in: the context keeps the last.
    expect(audit.summaries.length).toBeGreaterThan(0);
    expect(audit.summaries.every((s: { text: string }) => s.text.includes('LLM SUMMARY'))).toBe(true);
    expect(new TextDecoder().decode(exported.file.bytes)).toContain('LLM SUMMARY');
    // The key never leaves for the audit or the file.
    expect(JSON.stringify(audit)).not.toContain('sk-test-key');
  });

  it.each(['emergency', 'leave'] as const)('a 500 from the server: the next preview falls back as Settings say (%s), the report says why; a later success replaces the failure', async (onFailure) => {
    const failing = await startWireServer('openai', [{ kind: 'status', status: 500, body: { error: { message: 'upstream exploded' } } }]);
    try {
      const out = await engine.importFile(new Uint8Array(fs.readFileSync(file)), path.basename(file));
      if (out.kind !== 'imported') throw new Error(JSON.stringify(out));
      const id = out.meta.id;
      // One chunk: the failure of its single request decides the whole step.
      const draft: DraftStep = { id: 'step-fail', range: { kind: 'turns', from: 0, to: out.meta.turns - 3 }, reducers: [{ id: 'summarize' }], keepLast: 1 };
      const settings = { ...DEFAULT_SUMMARY_SETTINGS, provider: 'openai' as const, model: 'test-model', apiKey: 'sk-test-key', onFailure };
      await engine.putSetting(SUMMARY_SETTINGS_KEY, { ...settings, baseUrl: failing.baseUrl });

      const offline = await engine.preview(id, { versionId: ORIGINAL_VERSION, draft });
      if (offline.kind !== 'preview') throw new Error(JSON.stringify(offline));
      expect(offline.preview.fateCounts.summarized).toBeGreaterThan(0);

      const run = await engine.runSummaries(id, ORIGINAL_VERSION, draft);
      expect(run.produced).toBe(0);
      expect(run.failures).toHaveLength(1);
      expect(run.failures[0].message).toMatch(/500/);
      expect(await engine.summaryFailures(id)).toEqual(run.failures);

      const after = await engine.preview(id, { versionId: ORIGINAL_VERSION, draft });
      if (after.kind !== 'preview') throw new Error(JSON.stringify(after));
      const p = after.preview;
      // No summary stands in any more: the failure is not hidden behind the offline text.
      expect(summaryTexts(p.diff)).toEqual([]);
      expect(p.fateCounts.summarized).toBe(0);
      const notes = p.reducers.filter((r) => r.stepId === 'step-fail').flatMap((r) => r.notes);
      expect(notes.some((n) => n.includes(run.failures[0].message))).toBe(true);
      if (onFailure === 'emergency') {
        expect(p.fateCounts.removed).toBeGreaterThan(0);
        expect([...p.changed.values()].every((f) => f === 'removed')).toBe(true);
        expect(notes.some((n) => n.includes('fell back to emergency'))).toBe(true);
        expect(p.tokens.context.after).toBeLessThan(p.tokens.context.before);
      } else {
        expect([...p.changed.keys()]).toEqual([]);
        expect(notes.some((n) => n.includes('range left as it is'))).toBe(true);
        expect(p.tokens.context.after).toBe(p.tokens.context.before);
      }

      // The server recovers: the next run asks again, its summary replaces the failure.
      await engine.putSetting(SUMMARY_SETTINGS_KEY, { ...settings, baseUrl: server.baseUrl });
      const retry = await engine.runSummaries(id, ORIGINAL_VERSION, draft);
      expect(retry.failures).toEqual([]);
      expect(retry.produced).toBe(1);
      expect(await engine.summaryFailures(id)).toEqual([]);
      const healed = await engine.preview(id, { versionId: ORIGINAL_VERSION, draft });
      if (healed.kind !== 'preview') throw new Error(JSON.stringify(healed));
      expect(summaryTexts(healed.preview.diff)).toHaveLength(1);
      expect(summaryTexts(healed.preview.diff)[0]).toContain('LLM SUMMARY');
      expect(healed.preview.fateCounts.removed).toBe(0);
      expect(healed.preview.reducers.flatMap((r) => r.notes).some((n) => n.includes('failed'))).toBe(false);
    } finally {
      await failing.close();
    }
  });
  it('a pinned tool result: the LLM is not sent it, and the preview finds every summary the run wrote (the run honours the pins, issue 26)', async () => {
    const out = await engine.importFile(new Uint8Array(fs.readFileSync(file)), path.basename(file));
    if (out.kind !== 'imported') throw new Error(JSON.stringify(out));
    const id = out.meta.id;
    const draft: DraftStep = { id: 'step-pinned', range: { kind: 'turns', from: 0, to: out.meta.turns - 3 }, reducers: [{ id: 'summarize', options: { chunkTurns: 3 } }], keepLast: 1 };
    const plain = await engine.preview(id, { versionId: ORIGINAL_VERSION, draft });
    if (plain.kind !== 'preview') throw new Error(JSON.stringify(plain));
    // A long result the plain plan summarizes.
    const log = await engine.getTranscript(id);
    const pinned = log.messages.flatMap((m) => m.blocks).find((b) => b.kind === 'tool_result' && plain.preview.changed.get(b.id) === 'summarized');
    if (!pinned || pinned.kind !== 'tool_result') throw new Error('no summarized result');
    expect(await engine.setPins(id, [{ kind: 'block', blockId: pinned.id }])).toEqual({ ok: true });
    await engine.putSetting(SUMMARY_SETTINGS_KEY, { ...DEFAULT_SUMMARY_SETTINGS, provider: 'openai', baseUrl: server.baseUrl, model: 'test-model', apiKey: 'sk-test-key' });
    const seen = server.requests.length;
    const run = await engine.runSummaries(id, ORIGINAL_VERSION, draft);
    expect(run.failures).toEqual([]);
    expect(run.produced).toBeGreaterThan(0);
    // What the LLM was sent never holds the pinned result's call id (its pair stays whole in the context).
    expect(server.requests.slice(seen).some((r) => JSON.stringify(r.body).includes(pinned.callId))).toBe(false);
    const after = await engine.preview(id, { versionId: ORIGINAL_VERSION, draft });
    if (after.kind !== 'preview') throw new Error(JSON.stringify(after));
    expect(after.preview.changed.get(pinned.id)).toBeUndefined();
    expect(after.preview.summaryRequests).toBe(0);
    expect(summaryTexts(after.preview.diff).length).toBeGreaterThan(0);
    expect(summaryTexts(after.preview.diff).every((t) => t.includes('LLM SUMMARY'))).toBe(true);
  });
});
