import 'fake-indexeddb/auto';
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import { freshDbName } from '../db/test-helpers';
import { engine, useEngineDatabase } from './api';
import type { DraftStep } from './compaction';
import { ORIGINAL_VERSION } from './versions';
import { projectTranscript } from '../compaction/project';

const slop = corpusFiles('claude-code').find((f) => path.basename(f).startsWith('slopometry'))!;
const small = corpusFiles('claude-code').find((f) => f.includes('vibecodingtracker_claude_code'))!;

beforeEach(() => useEngineDatabase(freshDbName()));

async function importCorpus(file: string): Promise<{ id: string; turns: number }> {
  const out = await engine.importFile(new Uint8Array(fs.readFileSync(file)), path.basename(file));
  if (out.kind !== 'imported') throw new Error(JSON.stringify(out));
  return { id: out.meta.id, turns: out.meta.turns };
}

describe('engine: the compaction ledger, pins and the library census', () => {
  it('the ledger of a stored session: the agent\'s own compaction, then each applied step of the version', async () => {
    const { id } = await importCorpus(slop);
    const original = await engine.compactionLedger(id, ORIGINAL_VERSION);
    expect(original.events).toHaveLength(1);
    expect(original.events[0]).toMatchObject({ by: 'agent', trigger: 'auto', tokensBefore: 155317, tokensAfter: 34667, cacheWriteAfter: 16371 });
    expect(original.events[0].survival!.commands.of).toBeGreaterThanOrEqual(20);
    const { id: sid, turns } = await importCorpus(small);
    const step: DraftStep = { id: 'strip', range: { kind: 'turns', from: 0, to: turns - 1 }, reducers: [{ id: 'strip-tool-results' }], keepLast: 0 };
    const v = await engine.applyStep(sid, ORIGINAL_VERSION, step);
    const l = await engine.compactionLedger(sid, v.id);
    const ours = l.events.filter((e) => e.by === 'ours');
    expect(ours).toHaveLength(1);
    expect(ours[0].tokensAfter!).toBeLessThan(ours[0].tokensBefore!);
    expect(ours[0].policy).toBe('strip-tool-results');
    expect(ours[0].survival).not.toBeNull();
  });

  it('pins are stored per transcript, refuse a bad pattern, and hold in every preview: a pinned result is not stubbed', async () => {
    const { id, turns } = await importCorpus(small);
    expect(await engine.setPins(id, [{ kind: 'pattern', pattern: '/(/' }])).toMatchObject({ ok: false, error: expect.stringMatching(/regular expression/) });
    const step: DraftStep = { id: 'strip', range: { kind: 'turns', from: 0, to: turns - 1 }, reducers: [{ id: 'strip-tool-results' }], keepLast: 0 };
    const log = await engine.getTranscript(id);
    // A result the step stubs without a pin.
    const plain = projectTranscript(log, [{ ...step, createdAt: '' }]);
    const result = log.messages.flatMap((m) => m.blocks).find((b) => b.kind === 'tool_result' && plain.fates[b.id]?.kind === 'stubbed')!;
    const before = await engine.preview(id, { versionId: ORIGINAL_VERSION, draft: step });
    if (before.kind !== 'preview') throw new Error('no preview');
    expect(await engine.setPins(id, [{ kind: 'block', blockId: result.id, label: 'a result' }])).toEqual({ ok: true });
    expect(await engine.getPins(id)).toEqual([{ kind: 'block', blockId: result.id, label: 'a result' }]);
    const after = await engine.preview(id, { versionId: ORIGINAL_VERSION, draft: step });
    if (after.kind !== 'preview') throw new Error('no preview');
    // The pinned result keeps its tokens: the preview saves less by exactly its stub's saving or more.
    expect(after.preview.tokens.context.after).toBeGreaterThan(before.preview.tokens.context.after);
    const v = await engine.applyStep(id, ORIGINAL_VERSION, step);
    const l = await engine.compactionLedger(id, v.id);
    expect(l.pins).toHaveLength(1);
    expect(l.events.filter((e) => e.by === 'ours').every((e) => e.pinsLost.length === 0)).toBe(true);
  });

  it('the library census: per agent, over the stored transcripts', async () => {
    await importCorpus(slop);
    await importCorpus(small);
    const c = await engine.libraryCensus();
    const claude = c.rows.find((r) => r.agent === 'Claude Code')!;
    expect(claude).toMatchObject({ sessions: 2, sessionsCompacted: 1, compactions: 1, cacheWriteTokens: 16371 });
    expect(claude.medianRatio).toBeCloseTo(34667 / 155317, 6);
  });
});
