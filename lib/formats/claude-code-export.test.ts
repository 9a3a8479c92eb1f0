/**
 * Export of real compaction projections to Claude Code JSONL and back (the inspector's path:
 * "Auto to 50 % → export in the source format → re-import"). Every projection here comes from
 * projectTranscript with the real reducers, on real sessions and the demo sample.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import { projectTranscript, startingContext } from '../compaction/project';
import type { Projection, Step } from '../compaction/types';
import { validatePairing } from '../model/pairing';
import type { Transcript } from '../model/types';
import { contextTotals } from '../tokens/totals';
import { claudeCode, summaryContent } from './claude-code';
import { importBytes } from './import';
import { isUnchanged, syntheticText } from './serialize-util';

const byName = (prefix: string) => corpusFiles('claude-code').find((f) => path.basename(f).startsWith(prefix))!;
const FILES = [byName('slopometry'), byName('claude-code-viewer_5c0375b4'), byName('vibecodingtracker'), path.resolve('public/sample/contextscope-demo.jsonl')];
const load = (f: string) => importBytes(path.basename(f), new Uint8Array(fs.readFileSync(f))).transcript;
type Line = Record<string, any>;

function stepOf(reducers: Step['reducers'], range: Step['range'], keepLast: number, budget?: number): Step {
  return { id: 'x1', range, reducers, keepLast, ...(budget !== undefined && { budget }), createdAt: '2026-01-01T00:00:00Z' };
}

const issueKey = (i: { kind: string; callId: string }) => `${i.kind}:${i.callId}`;

/** Export `p`, re-import, and check everything the inspector's export check and a resume rely on. */
function checkExport(t: Transcript, p: Projection): { summaries: number } {
  const out = claudeCode.serialize(t, p).text;
  const outLines = out.split('\n').filter((l) => l);
  const values = outLines.map((l) => JSON.parse(l) as Line);

  // 1. Re-import: no pairing issue the source did not already have (the inspector's refusal).
  const back = importBytes('compacted.jsonl', new TextEncoder().encode(out)).transcript;
  expect(back.format).toBe('claude-code');
  const known = new Set(validatePairing(t.messages.filter((m) => !m.sidechain)).map(issueKey));
  expect(validatePairing(back.messages.filter((m) => !m.sidechain)).filter((i) => !known.has(issueKey(i)))).toEqual([]);

  // 2. parentUuid chain: every non-null parent is a uuid written earlier in the file.
  const seen = new Set<string>();
  for (const v of values) {
    if (typeof v.parentUuid === 'string') expect(seen.has(v.parentUuid), `parent of ${v.uuid} (${v.type})`).toBe(true);
    if (typeof v.uuid === 'string') seen.add(v.uuid);
  }

  // 3. No line of a message the projection dropped survives in the model's view (after the last
  //    compact_boundary, where Claude Code's loader starts), not even a resumed session's replay
  //    of it. Before that boundary the file keeps the session's history, as Claude Code does: every
  //    source line before it is there, byte for byte.
  const projectedIds = new Set(p.messages.map((m) => m.sourceId));
  const droppedUuids = new Set<string>();
  for (const m of t.messages) if (!projectedIds.has(m.id)) for (const r of m.recordRefs) {
    const u = (t.records[r].value as Line).uuid;
    if (typeof u === 'string') droppedUuids.add(u);
  }
  const lastBoundary = values.map((v) => v.type === 'system' && v.subtype === 'compact_boundary' && v.isSidechain !== true).lastIndexOf(true);
  expect(values.slice(lastBoundary + 1).filter((v) => (v.type === 'user' || v.type === 'assistant') && droppedUuids.has(v.uuid)).map((v) => v.uuid)).toEqual([]);
  const history = new Set(outLines.slice(0, Math.max(0, lastBoundary)));
  // Where the history ends in the source: the source's own boundary, or the first source line
  // written after ours.
  // (By uuid: a line written after the boundary may be re-parented, so its text changed. A summary
  // of a middle span goes before the kept prefix that precedes the span, which must follow the
  // boundary; the span's own lines cannot be both before the boundary and in source order, so
  // the history ends at the prefix.)
  const sourceIndex = new Map(t.records.map((r, i) => [(r.value as Line)?.uuid, i]));
  const after = values.slice(lastBoundary + 1).map((v) => (typeof v.uuid === 'string' ? sourceIndex.get(v.uuid) : undefined)).find((i) => i !== undefined);
  const ownBoundary = t.records.findIndex((r) => (r.value as Line)?.uuid === values[lastBoundary]?.uuid);
  const historyEnd = lastBoundary < 0 ? 0 : ownBoundary >= 0 ? ownBoundary : (after ?? t.records.length);
  const messageOfRecord = new Map<number, string>();
  for (const m of t.messages) for (const r of m.recordRefs) messageOfRecord.set(r, m.id);
  t.records.slice(0, historyEnd).forEach((r, i) => {
    const kept = projectedIds.has(messageOfRecord.get(i));
    if (!kept) expect(history.has(r.text), `history line ${r.line}`).toBe(true);
  });

  // 4. Each summary is a compact_boundary + isCompactSummary pair holding its text; the boundary's
  //    logicalParentUuid is the last summarized line.
  const synthetic = p.messages.filter((m) => m.synthetic === 'summary');
  for (const s of synthetic) {
    const at = values.findIndex((v) => v.isCompactSummary === true && v.message?.content === summaryContent(syntheticText(s)));
    expect(at, 'summary line').toBeGreaterThan(0);
    const boundary = values[at - 1];
    expect(boundary).toMatchObject({ type: 'system', subtype: 'compact_boundary', parentUuid: null });
    expect(values[at].parentUuid).toBe(boundary.uuid);
    const [from, to] = s.span!;
    let lastSummarized: string | undefined;
    let lastAt = -1;
    for (const m of t.messages) {
      if (m.sidechain || projectedIds.has(m.id) || m.turn < from || m.turn > to) continue;
      for (const r of m.recordRefs) {
        const u = (t.records[r].value as Line).uuid;
        if (r > lastAt && typeof u === 'string') [lastAt, lastSummarized] = [r, u];
      }
    }
    if (lastSummarized !== undefined) expect(boundary.logicalParentUuid).toBe(lastSummarized);
  }

  // 5. Messages after the last summary that the projection did not change keep their lines
  //    verbatim; only a line whose parent was dropped is re-linked (parentUuid, nothing else).
  const lastSynthetic = p.messages.map((m) => !!m.synthetic).lastIndexOf(true);
  const outSet = new Set(outLines);
  const outByUuid = new Map(values.filter((v) => typeof v.uuid === 'string').map((v) => [v.uuid as string, v]));
  let relinked = 0;
  for (const pm of p.messages.slice(lastSynthetic + 1)) {
    const m = t.messages.find((x) => x.id === pm.sourceId)!;
    if (!isUnchanged(pm, m)) continue;
    for (const r of m.recordRefs) {
      if (outSet.has(t.records[r].text)) continue;
      const src = t.records[r].value as Line;
      const written = outByUuid.get(src.uuid);
      expect(written, `line ${t.records[r].line}`).toBeDefined();
      const { parentUuid: _a, ...restOut } = written!;
      const { parentUuid: _b, ...restSrc } = src;
      expect(restOut).toEqual(restSrc);
      relinked++;
    }
  }
  // Each summary breaks at most two links; each user message emergency gave back from a dropped
  // summary (issue #27 item 5) follows dropped lines, so it is re-linked too.
  const givenBack = p.report.flatMap((r) => r.notes).reduce((n, x) => n + Number(/gave back the (\d+) message\(s\) the user typed/.exec(x)?.[1] ?? 0), 0);
  expect(relinked).toBeLessThanOrEqual(Math.max(1, synthetic.length) * 2 + givenBack);
  return { summaries: synthetic.length };
}

describe('claude-code export of real compaction projections', () => {
  for (const f of FILES) {
    describe(path.basename(f), () => {
      const t = load(f);
      const third = Math.floor(t.turnCount / 3);
      const twoThirds = Math.max(third, Math.floor((t.turnCount * 2) / 3));
      const middle: Step['range'] = { kind: 'turns', from: third, to: twoThirds };
      const contextTokens = contextTotals(startingContext(t, 'model-view').messages, t.tools).total;

      it('summarize over a middle turn range (keep-last 2)', () => {
        const p = projectTranscript(t, [stepOf([{ id: 'summarize' }], middle, 2)]);
        const { summaries } = checkExport(t, p);
        if (t.turnCount >= 6) expect(summaries).toBe(1);
      });

      it('auto to 50 % of the context, the inspector plan (all turns, keep-last 1)', () => {
        const p = projectTranscript(t, [stepOf([{ id: 'auto', options: { summarize: true } }], { kind: 'all-but-last', n: 0 }, 1, Math.floor(contextTokens / 2))]);
        checkExport(t, p);
      });

      it('auto to 10 % (summarize, then emergency if needed)', () => {
        const p = projectTranscript(t, [stepOf([{ id: 'auto', options: { summarize: true } }], { kind: 'all-but-last', n: 0 }, 1, Math.floor(contextTokens / 10))]);
        checkExport(t, p);
      });

      for (const id of ['sliding-window', 'dedup-tools', 'emergency'] as const) {
        it(`${id}: removed whole turns`, () => {
          const p = projectTranscript(t, [stepOf([{ id, ...(id === 'emergency' && { options: { keepN: 4, dropUserMessages: true } }) }], { kind: 'after-last-compaction' }, 2)]);
          checkExport(t, p);
        });
      }
    });
  }

  it('a resumed session replays a tool-result line: summarizing its turn drops the replay too (vibecodingtracker)', () => {
    const t = load(byName('vibecodingtracker'));
    // The replay: a user line whose uuid an earlier line already holds; it carries no message of its own.
    const uuids = t.records.map((r) => (r.value as Line).uuid);
    const replay = uuids.findIndex((u, i) => typeof u === 'string' && uuids.indexOf(u) < i);
    expect(replay).toBeGreaterThan(0);
    const original = t.messages.find((m) => m.recordRefs.includes(uuids.indexOf(uuids[replay])))!;
    expect(original.blocks[0].kind).toBe('tool_result');
    const p = projectTranscript(t, [stepOf([{ id: 'summarize' }], { kind: 'turns', from: 0, to: original.turn }, 0)]);
    expect(p.messages.some((m) => m.sourceId === original.id)).toBe(false);
    expect(checkExport(t, p).summaries).toBe(1);
    // The same turn range under emergency: the replayed result goes with its call.
    checkExport(t, projectTranscript(t, [stepOf([{ id: 'emergency', options: { keepN: 4, dropUserMessages: true } }], { kind: 'turns', from: 0, to: original.turn + 2 }, 0)]));
  });

  it('a summary of a middle span keeps the messages before it in the context after re-import', () => {
    const t = load(path.resolve('public/sample/contextscope-demo.jsonl'));
    // The demo holds a compaction of its own: the context starts after it.
    const first = Math.min(...startingContext(t, 'model-view').messages.filter((m) => !m.synthetic).map((m) => m.turn));
    const p = projectTranscript(t, [stepOf([{ id: 'summarize' }], { kind: 'turns', from: first + 3, to: first + 8 }, 2)]);
    const kept = p.messages.filter((m) => !m.sidechain);
    const summaryAt = kept.findIndex((m) => m.synthetic === 'summary');
    expect(summaryAt).toBeGreaterThan(0); // messages kept before the span
    const back = importBytes('c.jsonl', new TextEncoder().encode(claudeCode.serialize(t, p).text)).transcript;
    // What the model sees after the re-import (messages after the last compact boundary): every
    // projected message is there, the kept prefix included — but the source's own earlier summary,
    // which a new compaction replaces in Claude Code as it does there.
    const view = startingContext(back, 'model-view').messages.filter((m) => !m.sidechain);
    const sourceSummaries = kept.filter((m) => !m.synthetic && m.blocks.some((b) => b.kind === 'summary')).length;
    expect(sourceSummaries).toBe(1);
    expect(view.length).toBe(kept.length - sourceSummaries);
    expect(view.filter((m) => m.blocks.some((b) => b.kind === 'summary')).length).toBe(1);
    const prefixText = kept.slice(sourceSummaries, summaryAt).map((m) => JSON.stringify(m.blocks.map((b) => b.tokens)));
    expect(prefixText.length).toBeGreaterThan(0);
    expect(view.slice(1, 1 + prefixText.length).map((m) => JSON.stringify(m.blocks.map((b) => b.tokens)))).toEqual(prefixText);
  });
});
