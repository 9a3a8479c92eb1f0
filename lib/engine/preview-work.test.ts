/**
 * Issue 31: the work of a preview, counted (never timed). The inspector's warm-up builds what
 * every preview of the log needs and no plan changes; the previews of the drags that follow, on
 * other ranges, build none of it again.
 */
import 'fake-indexeddb/auto';
import v8 from 'node:v8';
import { beforeEach, describe, expect, it } from 'vitest';
import { makeClaudeCodeSession } from '../../bench/generate';
import { defaultPlan, planToDraft } from '../../components/plan/plan';
import { lostIndexStats } from '../compaction/lost';
import { emergencyWork } from '../compaction/reducers/emergency';
import { partnersStats } from '../compaction/reducers/dedup-tools';
import { sentenceStats } from '../summarize/facts';
import { offlineChecks, offlineWork, priorStats } from '../summarize/offline';
import { projectCalls, projectTranscript } from '../compaction/project';
import { freshDbName } from '../db/test-helpers';
import { engine, useEngineDatabase } from './api';
import { projectionStats } from './compaction';
import { LOST_SHOWN } from './preview-kinds';
import { ORIGINAL_VERSION } from './versions';

beforeEach(() => useEngineDatabase(freshDbName()));

describe('the preview path, counted', () => {
  it('the warm-up builds the log’s lost-identifier index once; Auto previews of three ranges and Apply build none', async () => {
    const out = await engine.importFile(new TextEncoder().encode(makeClaudeCodeSession(400)), 'cc-400.jsonl');
    if (out.kind !== 'imported') throw new Error(JSON.stringify(out));
    const id = out.meta.id;
    const builds = lostIndexStats.builds;
    await engine.warmPreview(id);
    expect(lostIndexStats.builds - builds).toBe(1);
    // The Plan panel's default: Auto at half the context, on the selected turns.
    const plan = defaultPlan(out.meta.tokens.total);
    for (const range of [[40, 160], [200, 320], [100, 300]] as Array<[number, number]>) {
      const p = await engine.preview(id, { versionId: ORIGINAL_VERSION, draft: planToDraft(plan, `s-${range[0]}`, range), selection: range });
      if (p.kind !== 'preview') throw new Error(JSON.stringify(p));
      expect(p.preview.tokens.selection!.after).toBeLessThan(p.preview.tokens.selection!.before);
    }
    await engine.applyStep(id, ORIGINAL_VERSION, planToDraft(plan, 's-apply', [40, 160])!);
    expect(lostIndexStats.builds - builds).toBe(1);
  });

  it('Apply projects nothing the preview it applies projected, nor does the preview of the version it makes', async () => {
    const out = await engine.importFile(new TextEncoder().encode(makeClaudeCodeSession(300)), 'cc-300.jsonl');
    if (out.kind !== 'imported') throw new Error(JSON.stringify(out));
    const id = out.meta.id;
    const draft = planToDraft(defaultPlan(out.meta.tokens.total), 's-range', [30, 120])!;
    // The original's own projection (no step), which Apply compares with.
    await engine.preview(id, { versionId: ORIGINAL_VERSION });
    const shown = await engine.preview(id, { versionId: ORIGINAL_VERSION, draft, selection: [30, 120] });
    if (shown.kind !== 'preview') throw new Error(JSON.stringify(shown));
    const projected = projectionStats.projected;
    const version = await engine.applyStep(id, ORIGINAL_VERSION, draft);
    const after = await engine.preview(id, { versionId: version.id });
    if (after.kind !== 'preview') throw new Error(JSON.stringify(after));
    expect(projectionStats.projected).toBe(projected);
    // The version's numbers are the preview's.
    expect(after.preview.tokens.context).toEqual(shown.preview.tokens.context);
    expect(after.preview.fateCounts).toEqual(shown.preview.fateCounts);
    // Another plan is projected.
    await engine.preview(id, { versionId: version.id, draft: { ...draft, id: 's-more', range: { kind: 'turns', from: 150, to: 250 } }, selection: [150, 250] });
    expect(projectionStats.projected).toBe(projected + 1);
  });

  it('the ledger strip of the version an Apply made projects only the original’s model view: the version’s projection is the preview’s (issue 31)', async () => {
    const out = await engine.importFile(new TextEncoder().encode(makeClaudeCodeSession(300)), 'cc-300.jsonl');
    if (out.kind !== 'imported') throw new Error(JSON.stringify(out));
    const id = out.meta.id;
    const draft = planToDraft(defaultPlan(out.meta.tokens.total), 's-ledger', [30, 120])!;
    await engine.preview(id, { versionId: ORIGINAL_VERSION, draft, selection: [30, 120] });
    const version = await engine.applyStep(id, ORIGINAL_VERSION, draft);
    const shown = await engine.preview(id, { versionId: version.id });
    if (shown.kind !== 'preview') throw new Error(JSON.stringify(shown));
    const calls = projectCalls.n;
    const ledger = await engine.compactionLedger(id, version.id);
    // One projection: the original's model view (the step's "before"); the step's "after" is the preview's.
    expect(projectCalls.n - calls).toBe(1);
    const ours = ledger.events.filter((e) => e.by === 'ours');
    expect(ours).toHaveLength(1);
    // The same numbers as projected on its own (what the ledger did before).
    const log = await engine.getTranscript(id);
    const alone = projectTranscript(log, version.steps, { pins: [] });
    expect(ours[0].tokensAfter).toBeLessThan(ours[0].tokensBefore!);
    expect(alone.tokens.after.total).toBe(shown.preview.tokens.context.after);
    // Asked again (the Compactions tab after the strip): nothing projected.
    const again = projectCalls.n;
    expect(await engine.compactionLedger(id, version.id)).toEqual(ledger);
    expect(projectCalls.n - again).toBe(0);
  });

  it('sends the Lost tab what it lists: the first LOST_SHOWN identifiers of each kind and the counts, whatever the log’s length', async () => {
    const sizes: number[] = [];
    const totals: number[] = [];
    for (const turns of [300, 1200]) {
      const out = await engine.importFile(new TextEncoder().encode(makeClaudeCodeSession(turns)), `cc-${turns}.jsonl`);
      if (out.kind !== 'imported') throw new Error(JSON.stringify(out));
      // Every message of the range dropped, the user's with the user's leave (issue 27 item 5): each turn's prompt is a lost instruction.
      const draft = { id: 'drop', range: { kind: 'turns' as const, from: 0, to: turns - 2 }, reducers: [{ id: 'emergency' as const, options: { keepN: 0, dropUserMessages: true } }], keepLast: 1 };
      const p = await engine.preview(out.meta.id, { versionId: ORIGINAL_VERSION, draft, selection: [0, turns - 2] });
      if (p.kind !== 'preview') throw new Error(JSON.stringify(p));
      expect(p.preview.lostCounts.instruction).toBeGreaterThanOrEqual(turns - 2);
      expect(p.preview.lost.instruction).toHaveLength(LOST_SHOWN);
      expect(p.preview.lostTotal).toBe(Object.values(p.preview.lostCounts).reduce((a, b) => a + b, 0));
      for (const list of Object.values(p.preview.lost)) expect(list.length).toBeLessThanOrEqual(LOST_SHOWN);
      sizes.push(v8.serialize(p.preview.lost).length);
      totals.push(p.preview.lostTotal);
    }
    // Four times the turns: over three times the identifiers lost, well under twice the bytes sent.
    expect(totals[1]).toBeGreaterThan(totals[0] * 3);
    expect(sizes[1]).toBeLessThan(sizes[0] * 2);
  });

  it('session 14: the warm-up builds dedup’s partner index; Auto previews of other ranges build neither, weigh each emergency cut once and split each text once', async () => {
    const turns = 400;
    const out = await engine.importFile(new TextEncoder().encode(makeClaudeCodeSession(turns)), `cc-${turns}.jsonl`);
    if (out.kind !== 'imported') throw new Error(JSON.stringify(out));
    const id = out.meta.id;
    const partners = partnersStats.builds;
    await engine.warmPreview(id);
    expect(partnersStats.builds - partners).toBe(1);
    const log = await engine.getTranscript(id);
    // Every text a summary could split into sentences: the log's text blocks.
    let texts = 0;
    for (const m of log.messages) for (const b of m.blocks) if (b.kind === 'text') texts++;
    const plan = defaultPlan(out.meta.tokens.total);
    const afterWarm = partnersStats.builds;
    // Every render made (session 17 skips those that cannot fit): each text is still split once.
    offlineChecks.floor = false;
    try {
    for (const range of [[40, 160], [200, 320]] as Array<[number, number]>) {
      const cuts = emergencyWork.cuts;
      const attempts = emergencyWork.attempts;
      const splits = sentenceStats.splits;
      const renders = offlineWork.renders;
      const calls = offlineWork.calls;
      const parses = priorStats.parses;
      const p = await engine.preview(id, { versionId: ORIGINAL_VERSION, draft: planToDraft(plan, `s14-${range[0]}`, range), selection: range });
      if (p.kind !== 'preview') throw new Error(JSON.stringify(p));
      // The range's Auto summarizes, then emergency finds that dropping the whole range cannot reach the target: it weighs the
      // notice's wordings and error lines one by one (before: each weighing dropped the whole range again).
      expect(p.preview.reducers.find((r) => r.reducer === 'emergency')?.notes.join(' ')).toMatch(/not run: even dropping the whole range/);
      expect(emergencyWork.attempts - attempts).toBeGreaterThan(5);
      expect(emergencyWork.cuts - cuts).toBe(1);
      // The offline summarizer rendered the span several times (chunks, the one pass, the tightening) and split each text at most once.
      expect(offlineWork.renders - renders).toBeGreaterThan(6);
      expect(sentenceStats.splits - splits).toBeLessThanOrEqual(texts);
      // A chunk folds the previous chunk's summary in: parsed once per summarizer call, not once per render.
      expect(priorStats.parses - parses).toBeGreaterThan(0);
      expect(priorStats.parses - parses).toBeLessThanOrEqual(offlineWork.calls - calls);
    }
    } finally {
      offlineChecks.floor = true;
    }
    expect(partnersStats.builds).toBe(afterWarm);
  });
});


describe('session 16: a preview reads each block’s fate once', () => {
  it('summarizePreview, its lost identifiers and its lost categories read the projection’s fates once per log block (before: three times), with the same answer', async () => {
    const { importBytes } = await import('../formats/import');
    const { summarizePreview } = await import('./preview');
    const { prepareLostByCategory, prepareLostIdentifiers } = await import('../compaction/lost');
    const log = importBytes('cc-400.jsonl', new TextEncoder().encode(makeClaudeCodeSession(400))).transcript;
    prepareLostIdentifiers(log);
    prepareLostByCategory(log);
    const total = log.messages.reduce((s, m) => s + m.blocks.reduce((a, b) => a + b.tokens, 0), 0);
    const range: [number, number] = [40, 160];
    const step = { ...planToDraft(defaultPlan(total), 's16', range)!, createdAt: '2026-01-01T00:00:00.000Z' };
    const projection = projectTranscript(log, [step as never]);
    let reads = 0;
    const counted = { ...projection, fates: new Proxy(projection.fates, { get: (t, k) => (typeof k === 'string' && reads++, Reflect.get(t, k)) }) };
    const p = summarizePreview(log, counted, range);
    const logBlocks = log.messages.reduce((s, m) => s + (m.sidechain ? 0 : m.blocks.length), 0);
    const projectedBlocks = projection.messages.reduce((s, m) => s + m.blocks.length, 0);
    expect(p.fateCounts.summarized + p.fateCounts.stubbed + p.fateCounts.removed + p.fateCounts.truncated + p.fateCounts.deduped).toBeGreaterThan(100);
    // One read per log block (projectionView) and one per projected block (the replacements' lookup).
    expect(reads).toBeLessThanOrEqual(logBlocks + projectedBlocks);
    expect(reads).toBeGreaterThanOrEqual(logBlocks);
    // The same answer as from the projection itself (another object: read afresh).
    const again = summarizePreview(log, { ...projection, messages: [...projection.messages], fates: { ...projection.fates } }, range);
    expect({ ...p, delta: [...p.delta], saved: [...p.saved] }).toEqual({ ...again, delta: [...again.delta], saved: [...again.saved] });
  });
});

describe('session 17: the summarizer makes no render that cannot fit', () => {
  it('an Auto preview of a range renders each summarizer call at most twice (before: 6 times), with the same answer; every render skipped is longer than its room', async () => {
    const { importBytes } = await import('../formats/import');
    const { summarizePreview } = await import('./preview');
    const log = importBytes('cc-1000.jsonl', new TextEncoder().encode(makeClaudeCodeSession(1000))).transcript;
    const total = log.messages.reduce((s, m) => s + m.blocks.reduce((a, b) => a + b.tokens, 0), 0);
    for (const range of [[100, 400], [500, 800]] as Array<[number, number]>) {
      const step = { ...planToDraft(defaultPlan(total), `s17-${range[0]}`, range)!, createdAt: '2026-01-01T00:00:00.000Z' };
      const calls = offlineWork.calls;
      const renders = offlineWork.renders;
      const p = projectTranscript(log, [step as never]);
      const made = offlineWork.renders - renders;
      // Two chunks and the one pass over the range; the span's summary never fits its room.
      expect(offlineWork.calls - calls).toBeGreaterThanOrEqual(3);
      expect(p.report.find((r) => r.reducer === 'summarize')?.notes.join(' ')).toMatch(/summarized turns/);
      expect(made).toBeLessThanOrEqual(2 * (offlineWork.calls - calls));
      // The same projection and preview with every render made, and with the skipped ones made and checked.
      for (const checks of [{ floor: false, verifyFloor: false }, { floor: true, verifyFloor: true }]) {
        Object.assign(offlineChecks, checks);
        try {
          const q = projectTranscript(log, [step as never]);
          expect(q.messages).toEqual(p.messages);
          expect(q.report).toEqual(p.report);
          const a = summarizePreview(log, p, range);
          const b = summarizePreview(log, q, range);
          expect({ ...b, delta: [...b.delta], saved: [...b.saved] }).toEqual({ ...a, delta: [...a.delta], saved: [...a.saved] });
        } finally {
          Object.assign(offlineChecks, { floor: true, verifyFloor: false });
        }
      }
    }
  });
});
