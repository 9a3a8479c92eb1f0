import 'fake-indexeddb/auto';
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { importBytes } from '../formats/import';
import { validatePairing } from '../model/pairing';
import { transcriptTotals } from '../tokens/totals';
import { modelViewTotals, projectTranscript } from '../compaction/project';
import { modelCalls } from '../compaction/calls';
import { corpusFiles } from '../../tests/corpus';
import { freshDbName } from '../db/test-helpers';
import { engine, useEngineDatabase } from './api';
import type { DraftStep } from './compaction';
import { SAVED_FATES } from './preview';
import { ORIGINAL_VERSION } from './versions';
import { lostByCategory } from '../compaction/lost';
import { compactTranscript } from '../cli/compact';
import { step } from '../compaction/testing/steps';
import { CATEGORIES } from '../categories';

const claudeCode = corpusFiles('claude-code').find((f) => f.includes('vibecodingtracker_claude_code'))!;
const codex = corpusFiles('codex-cli').find((f) => f.includes('codex-session-view'))!;

beforeEach(() => useEngineDatabase(freshDbName()));

async function importCorpus(file: string): Promise<{ id: string; turns: number; tokens: number }> {
  const out = await engine.importFile(new Uint8Array(fs.readFileSync(file)), path.basename(file));
  if (out.kind !== 'imported') throw new Error(JSON.stringify(out));
  return { id: out.meta.id, turns: out.meta.turns, tokens: out.meta.tokens.total };
}

function strip(turns: number, id = 'step-strip', range: [number, number] = [0, turns - 1]): DraftStep {
  return { id, range: { kind: 'turns', from: range[0], to: range[1] }, reducers: [{ id: 'strip-tool-results' }], keepLast: 0 };
}

describe('engine.preview', () => {
  it('a strip-tool-results draft on a real Claude Code session: fewer tokens, stubbed fates, per-turn curves', async () => {
    const { id, turns, tokens } = await importCorpus(claudeCode);
    expect(turns).toBeGreaterThan(5);
    const out = await engine.preview(id, { versionId: ORIGINAL_VERSION, draft: strip(turns), selection: [0, turns - 1] });
    if (out.kind !== 'preview') throw new Error(JSON.stringify(out));
    const p = out.preview;
    expect(p.tokens.log).toBe(tokens);
    expect(p.tokens.context.after).toBeLessThan(p.tokens.context.before * 0.5);
    expect(p.tokens.selection!.after).toBeLessThan(p.tokens.selection!.before);
    expect(p.fateCounts.stubbed).toBeGreaterThan(5);
    expect([...p.changed.values()].filter((f) => f === 'stubbed')).toHaveLength(p.fateCounts.stubbed);
    // The timeline's last bar plus the preview's change is the whole projected context; the tokens
    // taken out by fate account for the difference.
    const K = p.kinds.length;
    let lastDelta = 0;
    for (let k = 0; k < K; k++) lastDelta += p.delta[(turns - 1) * K + k];
    const timeline = await engine.getTimeline(id);
    expect(timeline.turns[turns - 1].contextTotal + lastDelta).toBe(p.tokens.context.after);
    expect(-lastDelta).toBe(p.tokens.context.before - p.tokens.context.after);
    const stubbedSaved = p.saved[(turns - 1) * SAVED_FATES.length + SAVED_FATES.indexOf('stubbed')];
    expect(stubbedSaved).toBe(p.tokens.context.before - p.tokens.context.after);
    expect(p.reducers.map((r) => r.reducer)).toEqual(['strip-tool-results']);
    expect(p.reducers[0].saved).toBe(stubbedSaved);
    // The diff shows the stubs: before is the result, after the shorter stub.
    const stubbed = p.diff.flatMap((m) => m.blocks).filter((b) => b.fate === 'stubbed');
    expect(stubbed.length).toBe(p.fateCounts.stubbed);
    for (const b of stubbed) {
      expect(b.after).not.toBeNull();
      expect(b.tokensAfter).toBeLessThan(b.tokensBefore);
    }
  });

  it('a draft limited to a turn range changes blocks of those turns only', async () => {
    const { id, turns } = await importCorpus(claudeCode);
    const full = await engine.preview(id, { versionId: ORIGINAL_VERSION, draft: strip(turns) });
    const part = await engine.preview(id, { versionId: ORIGINAL_VERSION, draft: strip(turns, 'step-part', [2, 4]), selection: [2, 4] });
    if (full.kind !== 'preview' || part.kind !== 'preview') throw new Error('preview failed');
    const t = importBytes(path.basename(claudeCode), new Uint8Array(fs.readFileSync(claudeCode))).transcript;
    const turnOfBlock = new Map(t.messages.flatMap((m) => m.blocks.map((b) => [b.id, m.turn] as const)));
    const changedTurns = [...part.preview.changed.keys()].map((b) => turnOfBlock.get(b)!);
    expect(changedTurns.length).toBeGreaterThan(0);
    expect(changedTurns.every((x) => x >= 2 && x <= 4)).toBe(true);
    expect(part.preview.fateCounts.stubbed).toBeLessThan(full.preview.fateCounts.stubbed);
    expect(part.preview.tokens.context.after).toBeGreaterThan(full.preview.tokens.context.after);
    const sel = part.preview.tokens.selection!;
    expect(sel.before - sel.after).toBe(part.preview.tokens.context.before - part.preview.tokens.context.after);
  });

  it('on a session the source already compacted, the preview shows only what the step does', async () => {
    const compacted = corpusFiles('claude-code').find((f) => f.includes('slopometry'))!;
    const { id, turns } = await importCorpus(compacted);
    const timeline = await engine.getTimeline(id);
    expect(timeline.bands.length).toBeGreaterThan(0);
    const out = await engine.preview(id, { versionId: ORIGINAL_VERSION, draft: strip(turns, 'late', [turns - 3, turns - 1]), selection: [turns - 3, turns - 1] });
    if (out.kind !== 'preview') throw new Error(JSON.stringify(out));
    const p = out.preview;
    // The model's view after the source's compaction is the timeline's last bar; the step starts there.
    expect(p.tokens.context.before).toBe(timeline.turns[turns - 1].contextTotal);
    const K = p.kinds.length;
    let lastDelta = 0;
    for (let k = 0; k < K; k++) lastDelta += p.delta[(turns - 1) * K + k];
    expect(timeline.turns[turns - 1].contextTotal + lastDelta).toBe(p.tokens.context.after);
    // Nothing before the selection changed: the source's own summarizing is not this preview's.
    const firstSel = (turns - 3) * K;
    for (let i = 0; i < firstSel; i++) expect(p.delta[i]).toBe(0);
    expect(p.fateCounts.summarized).toBe(0);
    expect(p.fateCounts.stubbed).toBe(p.changed.size);
    expect(p.diff.every((m) => m.turn >= turns - 3)).toBe(true);
    expect(p.tokens.selection!.before - p.tokens.selection!.after).toBe(p.tokens.context.before - p.tokens.context.after);

    // Comparing with the original compares model views (not every line of the file against a context).
    const v = await engine.applyStep(id, ORIGINAL_VERSION, strip(turns, 'late', [turns - 3, turns - 1]));
    const c = await engine.compareVersions(id, ORIGINAL_VERSION, v.id);
    expect(c.a.total).toBe(timeline.turns[turns - 1].contextTotal);
    expect(c.delta).toBe(p.tokens.context.after - p.tokens.context.before);
  });

  it('carries the lost report by category (the Lost tab): compact’s for the same plan; a summary of turns 1–6 counts its span', async () => {
    // Codex, Auto at 3,000 tokens, keep last 0, the whole rollout: what `compact --budget 3000 --keep-last 0` reports.
    const { id } = await importCorpus(codex);
    const out = await engine.preview(id, { versionId: ORIGINAL_VERSION, draft: { id: 'auto-3000', range: { kind: 'all-but-last', n: 0 }, reducers: [{ id: 'auto' }], keepLast: 0, keepLastCalls: 3, budget: 3000 } });
    if (out.kind !== 'preview') throw new Error(JSON.stringify(out));
    const log = importBytes(path.basename(codex), new Uint8Array(fs.readFileSync(codex))).transcript;
    const cli = compactTranscript(log, step(['auto'], { id: 'cli', keepLast: 0, budget: 3000 }), 3000, { write: false });
    expect(out.preview.tokens.context.after).toBe(cli.projection.tokens.after.total);
    const expected = lostByCategory(log, cli.projection).categories;
    expect(out.preview.lostByCategory).toEqual(expected);
    expect(expected.commands.lost.length).toBeGreaterThan(0);

    // The case whose first attempt read as "nothing in any category": a summary of turns 1–6 of a Claude Code session.
    const cc = await importCorpus(claudeCode);
    const draft: DraftStep = { id: 'sum-1-6', range: { kind: 'turns', from: 0, to: 5 }, reducers: [{ id: 'summarize' }], keepLast: 1, keepLastCalls: 3 };
    const sum = await engine.preview(cc.id, { versionId: ORIGINAL_VERSION, draft, selection: [0, 5] });
    if (sum.kind !== 'preview') throw new Error(JSON.stringify(sum));
    const ccLog = importBytes(path.basename(claudeCode), new Uint8Array(fs.readFileSync(claudeCode))).transcript;
    const byCategory = sum.preview.lostByCategory;
    expect(byCategory).toEqual(lostByCategory(ccLog, projectTranscript(ccLog, [{ ...draft, createdAt: new Date(0).toISOString() }]), { ownOnly: true }).categories);
    // The span's user messages, paths and command are counted (not 0 of 0), all still in the summary;
    // the identifier lists' losses are URLs and ids, which no category holds.
    expect([byCategory.instructions.of, byCategory.paths.of, byCategory.commands.of].every((n) => n > 0)).toBe(true);
    expect(CATEGORIES.every((c) => byCategory[c].lost.length === 0)).toBe(true);
    expect(sum.preview.lost.url.length + sum.preview.lost.id.length).toBe(sum.preview.lostTotal);
    expect(sum.preview.lostTotal).toBeGreaterThan(0);
  });

  it('on a session the source compacted, the Lost tab’s categories leave out what the source’s compaction took out', async () => {
    const compacted = corpusFiles('claude-code').find((f) => f.includes('slopometry'))!;
    const { id, turns } = await importCorpus(compacted);
    const out = await engine.preview(id, { versionId: ORIGINAL_VERSION, draft: strip(turns, 'late', [turns - 3, turns - 1]), selection: [turns - 3, turns - 1] });
    if (out.kind !== 'preview') throw new Error(JSON.stringify(out));
    const log = importBytes(path.basename(compacted), new Uint8Array(fs.readFileSync(compacted))).transcript;
    const projection = projectTranscript(log, [{ ...strip(turns, 'late', [turns - 3, turns - 1]), createdAt: new Date(0).toISOString() }]);
    const own = lostByCategory(log, projection, { ownOnly: true }).categories;
    const all = lostByCategory(log, projection).categories;
    expect(out.preview.lostByCategory).toEqual(own);
    // compact --report-json counts the source's compaction too: slopometry's 29 commands are there, not here.
    expect(all.commands.of).toBeGreaterThan(own.commands.of);
  });

  it('a missing version is an error as data, not a throw', async () => {
    const { id } = await importCorpus(claudeCode);
    const out = await engine.preview(id, { versionId: 'v-nope' });
    expect(out.kind === 'error' && out.error.code).toBe('missing:version');
  });
});

describe('versions: apply, undo, fork, rename, delete', () => {
  it('apply on the original forks a stored version; undo removes the step; the original stays untouched', async () => {
    const { id, turns, tokens } = await importCorpus(claudeCode);
    expect((await engine.listVersions(id)).map((v) => v.id)).toEqual([ORIGINAL_VERSION]);
    const v1 = await engine.applyStep(id, ORIGINAL_VERSION, strip(turns));
    expect(v1.id).not.toBe(ORIGINAL_VERSION);
    expect(v1.steps.map((s) => s.id)).toEqual(['step-strip']);
    expect((await engine.listVersions(id)).map((v) => v.id)).toEqual([ORIGINAL_VERSION, v1.id]);

    const applied = await engine.preview(id, { versionId: v1.id });
    const drafted = await engine.preview(id, { versionId: ORIGINAL_VERSION, draft: strip(turns) });
    if (applied.kind !== 'preview' || drafted.kind !== 'preview') throw new Error('preview failed');
    expect(applied.preview.tokens.context.after).toBe(drafted.preview.tokens.context.after);
    expect(applied.versionSteps).toBe(1);

    const original = await engine.preview(id, { versionId: ORIGINAL_VERSION });
    if (original.kind !== 'preview') throw new Error('preview failed');
    expect(original.preview.tokens.context.after).toBe(tokens);

    // A second step, then undo twice.
    const v1b = await engine.applyStep(id, v1.id, { id: 'step-reasoning', range: { kind: 'all-but-last', n: 1 }, reducers: [{ id: 'strip-reasoning' }], keepLast: 1 });
    expect(v1b.id).toBe(v1.id);
    expect(v1b.steps).toHaveLength(2);
    expect((await engine.undoStep(id, v1.id)).steps.map((s) => s.id)).toEqual(['step-strip']);
    // Undoing the last step of the version the Apply forked removes it: the original is shown again,
    // and no empty "Compacted 1" is left behind.
    const back = await engine.undoStep(id, v1.id);
    expect(back.id).toBe(ORIGINAL_VERSION);
    expect((await engine.listVersions(id)).map((v) => v.id)).toEqual([ORIGINAL_VERSION]);
    const shown = await engine.preview(id, { versionId: back.id });
    expect(shown.kind === 'preview' && shown.preview.tokens.context.after).toBe(tokens);

    // A version the user named (or forked) stays, emptied, when its last step is undone.
    const v2 = await engine.applyStep(id, ORIGINAL_VERSION, strip(turns));
    await engine.renameVersion(id, v2.id, 'keep me');
    const empty = await engine.undoStep(id, v2.id);
    expect(empty.id).toBe(v2.id);
    expect(empty.steps).toEqual([]);
    await expect(engine.undoStep(id, v2.id)).rejects.toThrow(/no step to undo/);
  });

  it('a step that changes nothing (a 0 % preview) is refused: no empty version is forked', async () => {
    const { id, turns } = await importCorpus(claudeCode);
    // Strip the results of the last turn only, with keep-last protecting that turn: nothing changes.
    const noop = { ...strip(turns, 'noop', [turns - 1, turns - 1]), keepLast: 1 };
    const p = await engine.preview(id, { versionId: ORIGINAL_VERSION, draft: noop });
    if (p.kind !== 'preview') throw new Error('preview failed');
    expect(p.preview.tokens.context.after).toBe(p.preview.tokens.context.before);
    await expect(engine.applyStep(id, ORIGINAL_VERSION, noop)).rejects.toThrow(/changes nothing/);
    expect((await engine.listVersions(id)).map((v) => v.id)).toEqual([ORIGINAL_VERSION]);
    // …and on a stored version, no step is added.
    const v1 = await engine.applyStep(id, ORIGINAL_VERSION, strip(turns, 'real', [0, turns - 2]));
    await expect(engine.applyStep(id, v1.id, { ...strip(turns, 'again', [0, turns - 2]) })).rejects.toThrow(/changes nothing/);
    expect((await engine.listVersions(id)).find((v) => v.id === v1.id)!.steps).toHaveLength(1);
  });

  it('fork copies the steps (then both evolve apart); rename and delete; the original refuses both', async () => {
    const { id, turns } = await importCorpus(claudeCode);
    const v1 = await engine.applyStep(id, ORIGINAL_VERSION, strip(turns));
    const fork = await engine.forkVersion(id, v1.id, 'Try reasoning too');
    expect(fork.name).toBe('Try reasoning too');
    expect(fork.parentId).toBe(v1.id);
    expect(fork.steps).toEqual(v1.steps);
    await engine.applyStep(id, fork.id, { id: 'x', range: { kind: 'all-but-last', n: 0 }, reducers: [{ id: 'strip-reasoning' }], keepLast: 0 });
    const list = await engine.listVersions(id);
    expect(list.find((v) => v.id === v1.id)!.steps).toHaveLength(1);
    expect(list.find((v) => v.id === fork.id)!.steps).toHaveLength(2);

    expect((await engine.renameVersion(id, fork.id, '  Renamed  ')).name).toBe('Renamed');
    await expect(engine.renameVersion(id, ORIGINAL_VERSION, 'x')).rejects.toThrow(/original cannot be renamed/);
    await expect(engine.removeVersion(id, ORIGINAL_VERSION)).rejects.toThrow(/original cannot be deleted/);
    await engine.removeVersion(id, fork.id);
    expect((await engine.listVersions(id)).map((v) => v.id)).toEqual([ORIGINAL_VERSION, v1.id]);
  });

  it('compareVersions: both curves and the token and cost difference from the catalog', async () => {
    const { id, turns, tokens } = await importCorpus(claudeCode);
    const v1 = await engine.applyStep(id, ORIGINAL_VERSION, strip(turns));
    const c = await engine.compareVersions(id, ORIGINAL_VERSION, v1.id);
    expect(c.a.curve).toHaveLength(turns);
    expect(c.a.total).toBe(tokens);
    expect([...c.a.curve].every((d) => d === 0)).toBe(true);
    expect(c.b.curve[turns - 1]).toBe(c.b.total - tokens);
    for (let t = 1; t < turns; t++) expect(c.b.curve[t]).toBeLessThanOrEqual(c.b.curve[t - 1]);
    expect(c.delta).toBe(c.b.total - c.a.total);
    expect(c.delta).toBeLessThan(0);
    expect(c.cost).toBeDefined();
    expect(c.cost!.delta).toBeLessThan(0);
    expect(c.cost!.a).toBeCloseTo((tokens * 3) / 1_000_000, 6); // Claude Sonnet input price $3/M
  });
});

describe('a call-range preview (issue 30)', () => {
  it('counts only edits inside the range, after another range was previewed, and agrees with the version reloaded and the export', async () => {
    // vibecodingtracker_gemini_session: one turn of four model calls. Previewing calls 1–1 first left
    // a list of call 1's reasoning cached for the turn: calls 2–4 then said 14,000, the version 14,096.
    const gemini = corpusFiles('gemini-cli').find((f) => f.endsWith('vibecodingtracker_gemini_session.jsonl'))!;
    const { id, tokens } = await importCorpus(gemini);
    const log = importBytes(path.basename(gemini), new Uint8Array(fs.readFileSync(gemini))).transcript;
    const calls = modelCalls(log);
    const auto = (from: number, to: number): DraftStep => ({ id: 'step-auto', range: { kind: 'calls', from, to }, reducers: [{ id: 'auto', options: { summarize: true } }], keepLast: 1, keepLastCalls: 3, budget: Math.floor(tokens / 2) });
    for (const [a, b] of [[0, 0], [0, 1], [1, 3]] as const) {
      const out = await engine.preview(id, { versionId: ORIGINAL_VERSION, draft: auto(a, b), selection: [a, b], axis: 'calls' });
      if (out.kind !== 'preview') throw new Error(JSON.stringify(out));
      if (a !== 1) continue;
      const inRange = new Set<string>();
      for (let i = calls[1].first; i <= calls[3].last; i++) for (const blk of log.messages[i].blocks) inRange.add(blk.id);
      const outside = [...out.preview.changed.keys()].filter((blockId) => !inRange.has(blockId) && log.messages.some((m) => m.blocks.some((x) => x.id === blockId)));
      expect(outside, 'blocks changed outside calls 2–4').toEqual([]);
      const v = await engine.applyStep(id, ORIGINAL_VERSION, auto(1, 3));
      // A fresh log (a reload) projects the stored version to the same figure; the export agrees.
      const fresh = projectTranscript(importBytes(path.basename(gemini), new Uint8Array(fs.readFileSync(gemini))).transcript, v.steps);
      expect(out.preview.tokens.context.after).toBe(fresh.tokens.after.total);
      const exported = await engine.exportVersion(id, v.id);
      if (exported.kind !== 'file') throw new Error(JSON.stringify(exported));
      expect(exported.file.tokens.projected).toBe(fresh.tokens.after.total);
    }
  });
});

describe('engine.exportVersion', () => {
  it('with pointers, each stub names a line of the recall file returned beside the export, and that line holds the full result (issue 27 item 4)', async () => {
    const { id, turns } = await importCorpus(claudeCode);
    const v1 = await engine.applyStep(id, ORIGINAL_VERSION, strip(turns));
    const out = await engine.exportVersion(id, v1.id, { pointers: true });
    if (out.kind !== 'file') throw new Error(JSON.stringify(out));
    const { file } = out;
    expect(file.recall!.fileName).toMatch(/\.recall\.jsonl$/);
    const recall = new TextDecoder().decode(file.recall!.bytes).trimEnd().split('\n').map((l) => JSON.parse(l) as { block: string; text: string });
    const log = await engine.getTranscript(id);
    const full = new Map(log.messages.flatMap((m) => m.blocks).map((b) => [b.id, b]));
    const back = importBytes(file.fileName, file.bytes).transcript;
    const stubs = back.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_result' && b.content.includes('[full text of this result: '));
    expect(stubs.length).toBeGreaterThan(0);
    for (const b of stubs) {
      if (b.kind !== 'tool_result') continue;
      const m = new RegExp(`\\[full text of this result: ${file.recall!.fileName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} line (\\d+)\\]`).exec(b.content)!;
      const line = recall[Number(m[1]) - 1];
      const orig = full.get(line.block)!;
      expect(orig.kind === 'tool_result' && orig.callId).toBe(b.callId);
      expect(line.text).toBe(orig.kind === 'tool_result' ? orig.content : '');
    }
    // Without the option: no pointer, no recall file.
    const plain = await engine.exportVersion(id, v1.id);
    if (plain.kind !== 'file') throw new Error(JSON.stringify(plain));
    expect(plain.file.recall).toBeUndefined();
    expect(new TextDecoder().decode(plain.file.bytes)).not.toContain('[full text of');
  });

  it('a compacted version exports in its own format, re-imports with the projected token total, and carries an audit record', async () => {
    const { id, turns } = await importCorpus(claudeCode);
    const v1 = await engine.applyStep(id, ORIGINAL_VERSION, strip(turns));
    const out = await engine.exportVersion(id, v1.id, { withAudit: true });
    if (out.kind !== 'file') throw new Error(JSON.stringify(out));
    const { file } = out;
    expect(file.format).toBe('claude-code');
    expect(file.fileName).toMatch(/\.compacted\.jsonl$/);
    const back = importBytes(file.fileName, file.bytes).transcript;
    expect(back.format).toBe('claude-code');
    expect(transcriptTotals(back).total).toBe(file.tokens.reimported);
    expect(file.tokens.reimported).toBe(file.tokens.projected);
    expect(file.tokens.projected).toBeLessThan(file.tokens.original);
    expect(validatePairing(back.messages.filter((m) => !m.sidechain)).filter((i) => i.kind !== 'missing-result')).toEqual([]);

    // The page downloads Blobs made here, in the worker (issue 31: a Blob made on the page copied
    // the bytes in one long task): the same bytes, with the file's type.
    expect(file.blob!.type).toBe(file.mimeType);
    expect(new Uint8Array(await file.blob!.arrayBuffer())).toEqual(file.bytes);
    expect(file.audit!.blob!.type).toBe('application/json');
    expect(new Uint8Array(await file.audit!.blob!.arrayBuffer())).toEqual(file.audit!.bytes);

    const audit = JSON.parse(new TextDecoder().decode(file.audit!.bytes));
    expect(file.audit!.fileName).toMatch(/\.audit\.json$/);
    expect(audit.$schema).toBe('contextscope-compaction-audit');
    expect(audit.steps.map((s: { id: string }) => s.id)).toEqual(['step-strip']);
    expect(audit.tokens.after).toBe(file.tokens.projected);
    expect(audit.output.tokens).toBe(file.tokens.reimported);
    expect(audit.fates.stubbed).toBeGreaterThan(0);
    expect(Object.values(audit.changedBlocks)).toContain('stubbed:strip-tool-results');
  });

  it('the done figures compare like with like: the export and the original as the model sees them (issue 30)', async () => {
    // slopometry auto-compacted: the model sees 69,856 of the file's 165,164 tokens. A small step read
    // "59,402 tokens re-imported (was 165,164)": −64 % for a −15 % step.
    const slopometry = corpusFiles('claude-code').find((f) => f.includes('slopometry'))!;
    const { id, turns } = await importCorpus(slopometry);
    const log = importBytes(path.basename(slopometry), new Uint8Array(fs.readFileSync(slopometry))).transcript;
    const v1 = await engine.applyStep(id, ORIGINAL_VERSION, strip(turns, 'step-strip', [turns - 6, turns - 1]));
    const out = await engine.exportVersion(id, v1.id);
    if (out.kind !== 'file') throw new Error(JSON.stringify(out));
    const { tokens } = out.file;
    expect(tokens.original).toBe(modelViewTotals(log).total);
    expect(tokens.original).toBeLessThan(transcriptTotals(log).total / 2);
    expect(tokens.reimported).toBeLessThan(tokens.original);
    expect(tokens.reimported).toBeGreaterThan(tokens.original * 0.5);
  });

  it('a conversion lists what the target cannot carry, with tokens, before the download and in the audit', async () => {
    const slopometry = corpusFiles('claude-code').find((f) => f.includes('slopometry'))!;
    const { id, turns } = await importCorpus(slopometry);
    const log = importBytes(path.basename(slopometry), new Uint8Array(fs.readFileSync(slopometry))).transcript;
    const reasoning = log.messages.filter((m) => !m.sidechain).flatMap((m) => m.blocks).filter((b) => b.kind === 'reasoning');
    expect(reasoning.length).toBeGreaterThan(100);
    const reasoningTokens = reasoning.reduce((n, b) => n + b.tokens, 0);

    // Before anything is written: OpenAI Chat cannot carry Claude's signed reasoning.
    const check = await engine.conversionLosses(id, ORIGINAL_VERSION, 'openai-chat');
    if (check.kind !== 'losses') throw new Error(JSON.stringify(check));
    const lost = check.losses.find((l) => l.what.startsWith('reasoning'));
    expect(lost).toMatchObject({ blocks: reasoning.length, tokens: reasoningTokens, becomes: 'dropped' });
    expect(check.losses.find((l) => l.what.startsWith('compaction summary'))?.becomes).toBe('text');
    expect(check.tokens.after).toBeLessThan(check.tokens.before);
    // Anthropic Messages carries the reasoning: only the source's compaction marker is not carried.
    const anthropic = await engine.conversionLosses(id, ORIGINAL_VERSION, 'anthropic-messages');
    expect(anthropic.kind === 'losses' && anthropic.losses.map((l) => l.what)).toEqual(['compaction summary(ies) of the source, without their marker']);
    // The source's own format loses nothing.
    const own = await engine.conversionLosses(id, ORIGINAL_VERSION, 'claude-code');
    expect(own.kind === 'losses' && own.losses).toEqual([]);

    // The audit record of a compacted conversion names the same losses.
    const v1 = await engine.applyStep(id, ORIGINAL_VERSION, strip(turns, 'strip', [0, turns - 2]));
    const out = await engine.exportVersion(id, v1.id, { format: 'openai-chat', withAudit: true });
    if (out.kind !== 'file') throw new Error(JSON.stringify(out));
    const audit = JSON.parse(new TextDecoder().decode(out.file.audit!.bytes));
    const auditReasoning = audit.output.notCarried.find((l: { what: string }) => l.what.startsWith('reasoning'));
    expect(auditReasoning.becomes).toBe('dropped');
    expect(auditReasoning.tokens).toBeGreaterThan(1000);
    expect(out.file.losses).toEqual(audit.output.notCarried);
  });

  it('Codex images converted to OpenAI Chat are listed as written as text, with their tokens', async () => {
    const coverage = corpusFiles('codex-cli').find((f) => f.includes('schema_coverage'))!;
    const { id } = await importCorpus(coverage);
    const check = await engine.conversionLosses(id, ORIGINAL_VERSION, 'openai-chat');
    if (check.kind !== 'losses') throw new Error(JSON.stringify(check));
    const images = check.losses.find((l) => l.what.startsWith('attachment'));
    expect(images?.becomes).toBe('text');
    expect(images!.tokens).toBeGreaterThan(1000);
  });

  it('the original exports byte-identical; a conversion to another format re-imports; an unknown format is a clear error', async () => {
    const { id, turns } = await importCorpus(codex);
    const original = await engine.exportVersion(id, ORIGINAL_VERSION, {});
    if (original.kind !== 'file') throw new Error(JSON.stringify(original));
    expect(Buffer.from(original.file.bytes).equals(fs.readFileSync(codex))).toBe(true);
    expect(original.file.audit).toBeUndefined();

    const v1 = await engine.applyStep(id, ORIGINAL_VERSION, strip(turns));
    const targets = await engine.exportTargets(id);
    expect(targets[0]).toMatchObject({ id: 'codex-cli', source: true });
    expect(targets.map((t) => t.id)).toContain('openai-chat');
    const converted = await engine.exportVersion(id, v1.id, { format: 'openai-chat' });
    if (converted.kind !== 'file') throw new Error(JSON.stringify(converted));
    const back = importBytes(converted.file.fileName, converted.file.bytes, { format: 'openai-chat' }).transcript;
    expect(back.messages.length).toBeGreaterThan(10);
    expect(converted.file.tokens.reimported).toBe(transcriptTotals(back).total);

    const bad = await engine.exportVersion(id, v1.id, { format: 'no-such-format' });
    expect(bad.kind === 'error' && bad.error.message).toMatch(/Unknown format "no-such-format"/);
  });
});

describe('engine.exportVersion of one conversation of a container file', () => {
  it('tau-bench: the whole container is written, the compacted conversation reads back with the projected total', async () => {
    const tau = corpusFiles('openai-chat').find((f) => f.includes('tau-bench'))!;
    const out = await engine.importFile(new Uint8Array(fs.readFileSync(tau)), path.basename(tau), { conversation: 3 });
    if (out.kind !== 'imported') throw new Error(JSON.stringify(out));
    const { id, turns } = out.meta;
    const v = await engine.applyStep(id, ORIGINAL_VERSION, { id: 'tau-strip', range: { kind: 'all-but-last', n: 0 }, reducers: [{ id: 'strip-tool-results' }], keepLast: 1 });
    const exported = await engine.exportVersion(id, v.id, {});
    if (exported.kind !== 'file') throw new Error(JSON.stringify(exported));
    expect(turns).toBeGreaterThan(2);
    expect(exported.file.tokens.projected).toBeLessThan(exported.file.tokens.original);
    const back = importBytes(exported.file.fileName, exported.file.bytes, { conversation: 3 }).transcript;
    expect(transcriptTotals(back).total).toBe(exported.file.tokens.reimported);
    expect(exported.file.tokens.reimported).toBe(exported.file.tokens.projected);
    // The other conversations are untouched.
    const other = importBytes(exported.file.fileName, exported.file.bytes, { conversation: 4 }).transcript;
    expect(transcriptTotals(other).total).toBe(transcriptTotals(importBytes(path.basename(tau), new Uint8Array(fs.readFileSync(tau)), { conversation: 4 }).transcript).total);
  });
});

describe('engine helpers', () => {
  it('tool stats, peer triggers and config import on a real session', async () => {
    const { id } = await importCorpus(claudeCode);
    const stats = await engine.toolStats(id);
    expect(stats.length).toBeGreaterThan(1);
    expect(stats[0].calls).toBeGreaterThan(0);
    expect(stats[0].resultTokens + stats[0].callTokens).toBeGreaterThanOrEqual(stats[stats.length - 1].resultTokens + stats[stats.length - 1].callTokens);
    const triggers = await engine.peerTriggers(id, 'claude-sonnet-4-5');
    expect(triggers.some((t) => t.peer.includes('claude-code') && t.thresholdTokens! > 100_000)).toBe(true);

    const plan = await engine.parseConfig('agent.yaml', 'agent:\n  compaction_threshold: 0.8\n  compaction_keep_recent: 4\n');
    expect(plan.kind === 'plan' && plan.plan.source).toBe('sven-yaml');
    const bad = await engine.parseConfig('jp.toml', '[conversation.compaction]\nkeep_last = "many"\n');
    expect(bad.kind).toBe('error');
    if (bad.kind === 'error') {
      expect(bad.error.where?.path).toBe('conversation.compaction.keep_last');
      expect(bad.error.where?.file).toBe('jp.toml');
    }
  });
});
