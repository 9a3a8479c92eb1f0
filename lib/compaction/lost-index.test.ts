/**
 * Issue 31: lostIdentifiers reads the log once (lost.ts logPresence) and, per projection, only what
 * the projection made. These tests hold it to the scan it replaced (kept here as the reference:
 * every main-chain block of the projection indexed again for every call) on the real corpus and on
 * a generated long session, and count that a second projection of the same log builds nothing.
 */
import { describe, expect, it } from 'vitest';
import type { Block, Transcript } from '../model/types';
import { blockText } from '../tokens/count';
import { categoryIndexStats, extractIdentifiers, lostByCategory, lostIdentifiers, lostIndexStats, type Identifier, type LostByCategory, type LostIdentifier } from './lost';
import { projectTranscript } from './project';
import type { Projection, Step } from './types';
import { importedCorpus } from '../../tests/corpus';
import { importBytes } from '../formats/import';
import { makeClaudeCodeSession } from '../../bench/generate';
import { step } from './testing/steps';
import { CATEGORIES, extractCategories, isTypedByUser, modelTextOf, survivalOf } from '../categories';
import { resultLinesText } from '../categories/decode-result';
import { errorLinesOf, resultCategory } from '../categories/signal';
import { defaultOutputCategory } from '../categories/tools';

const said = (b: Block) => (b.kind === 'tool_result' ? resultLinesText(b.content) : blockText(b));

// ── The reference: lost.ts before issue 31 (PresenceIndex built from the whole projection) ──────
const SHINGLE = 4;
function words(s: string): string[] {
  return s
    .toLowerCase()
    .split(/[^\p{L}\p{N}_./@-]+/u)
    .map((w) => w.replace(/^[.\-]+|[.\-]+$/g, ''))
    .filter(Boolean);
}
class PresenceIndex {
  private ids = new Set<string>();
  private lines = new Set<string>();
  private shingles: Array<Set<string>> = [new Set(), new Set(), new Set(), new Set(), new Set()];
  constructor(projection: Pick<Projection, 'messages'>, withSummaries = true) {
    for (const m of projection.messages) {
      if (m.sidechain) continue;
      if (!withSummaries && m.synthetic === 'summary') continue;
      for (const b of m.blocks) {
        if (!withSummaries && b.kind === 'summary') continue;
        const t = said(b as Block);
        for (const id of extractIdentifiers(t)) {
          this.ids.add(`${id.kind}:${id.value}`);
          if (id.kind === 'path') {
            const segs = id.value.split('/');
            for (let i = 1; i < segs.length; i++) this.ids.add(`path:${segs.slice(i).join('/')}`);
          }
        }
        if (t.length < 1_000_000) for (const l of t.split('\n')) this.lines.add(l.trim().slice(0, 200));
        if (b.kind === 'text' || b.kind === 'summary') this.addShingles(t);
      }
    }
  }
  private addShingles(text: string): void {
    const w = words(text);
    for (let n = 1; n <= SHINGLE; n++) for (let i = 0; i + n <= w.length; i++) this.shingles[n].add(w.slice(i, i + n).join(' '));
  }
  private proseHas(text: string): boolean {
    const w = words(text);
    if (w.length === 0) return true;
    const n = Math.min(SHINGLE, w.length);
    for (let i = 0; i + n <= w.length; i++) if (!this.shingles[n].has(w.slice(i, i + n).join(' '))) return false;
    return true;
  }
  has(id: Identifier): boolean {
    if (id.kind === 'instruction') return this.proseHas(id.value);
    if (id.kind === 'error') return this.lines.has(id.value) || this.proseHas(id.value);
    if (this.ids.has(`${id.kind}:${id.value}`)) return true;
    return id.kind === 'path' && this.ids.has(`path:${id.value.replace(/^(?:\.{1,2}\/|\/)+/, '')}`);
  }
}
function referenceLost(log: Transcript, projection: Pick<Projection, 'messages' | 'fates'>, options: { summaries?: boolean } = {}): LostIdentifier[] {
  const seen = new Set<string>();
  const candidates: LostIdentifier[] = [];
  const names = new Map<string, string>();
  for (const m of log.messages) {
    if (m.sidechain) continue;
    for (const b of m.blocks) {
      if (b.kind === 'tool_call') names.set(b.callId, b.name);
      const fate = projection.fates[b.id];
      if (!fate || fate.kind === 'kept') continue;
      // Session 15: a result's text as it says it (Codex JSON decoded); its error lines are the categories' (errorLinesOf by output category).
      const found: Identifier[] = extractIdentifiers(said(b)).filter((id) => id.kind !== 'error');
      if (b.kind === 'tool_result') for (const l of errorLinesOf(b.content, resultCategory(b, defaultOutputCategory(names.get(b.callId) ?? b.name ?? '')))) found.push({ kind: 'error', value: l.slice(0, 200) });
      if (isTypedByUser(m, b) && b.kind === 'text') found.push({ kind: 'instruction', value: b.text.trim() });
      for (const id of found) {
        const key = `${id.kind}:${id.value}`;
        if (seen.has(key)) continue;
        seen.add(key);
        candidates.push({ ...id, turn: m.turn, messageId: m.id, stepId: fate.stepId });
      }
    }
  }
  if (candidates.length === 0) return [];
  const present = new PresenceIndex(projection, options.summaries !== false);
  return candidates.filter((c) => !present.has(c));
}

/** Plans that change a log in different ways: stubs, truncation, summaries, drops, Auto at a quarter and a half. */
function plans(log: Transcript): Step[][] {
  let total = 0;
  for (const m of log.messages) for (const b of m.blocks) total += b.tokens;
  const mid = Math.floor(log.turnCount / 2);
  return [
    [step(['strip-tool-results'], { keepLast: 1 })],
    [step([{ id: 'truncate-tool-results', options: { maxTokens: 40 } }, 'dedup-tools'], { keepLast: 1 })],
    [step(['summarize'], { keepLast: 1 })],
    [step([{ id: 'emergency', options: { keepN: 2 } }], { keepLast: 1 })],
    [step(['auto'], { keepLast: 1, budget: Math.max(1, Math.floor(total / 4)) })],
    [step(['auto'], { keepLast: 1, budget: Math.max(1, Math.floor(total / 2)), range: { kind: 'turns', from: Math.floor(mid / 2), to: mid } })],
  ];
}

describe('lostIdentifiers with the per-log index (issue 31)', () => {
  it('lists exactly what the whole-projection scan listed, on every corpus transcript and plan (summaries counted or not)', () => {
    let compared = 0;
    let lostSeen = 0;
    for (const { name, log } of importedCorpus()) {
      for (const steps of plans(log)) {
        const p = projectTranscript(log, steps);
        for (const summaries of [true, false]) {
          const want = referenceLost(log, p, { summaries });
          expect(lostIdentifiers(log, p, { summaries }), `${name} ${steps[0].reducers.map((r) => r.id).join('+')} summaries:${summaries}`).toEqual(want);
          compared++;
          lostSeen += want.length;
        }
      }
    }
    expect(compared).toBeGreaterThan(200);
    // The comparison is not of empty lists.
    expect(lostSeen).toBeGreaterThan(1000);
  }, 600_000);

  it('reads the log once: previews of other ranges on the same log build no index, and list what the scan lists', () => {
    const log = importBytes('cc-600.jsonl', new TextEncoder().encode(makeClaudeCodeSession(600))).transcript;
    let total = 0;
    for (const m of log.messages) for (const b of m.blocks) total += b.tokens;
    const before = lostIndexStats.builds;
    const ranges: Array<[number, number]> = [[60, 240], [300, 480], [100, 500]];
    let lostBare = 0;
    for (const [from, to] of ranges) {
      const p = projectTranscript(log, [step(['auto'], { keepLast: 1, budget: Math.floor(total / 2), range: { kind: 'turns', from, to } })]);
      expect(lostIdentifiers(log, p)).toEqual(referenceLost(log, p));
      // What the offline summaries list does not count: the range's paths and ids are lost then.
      const bare = lostIdentifiers(log, p, { summaries: false });
      expect(bare).toEqual(referenceLost(log, p, { summaries: false }));
      lostBare += bare.length;
    }
    expect(lostBare).toBeGreaterThan(100);
    expect(lostIndexStats.builds - before).toBe(1);
  });
});

// ── lostByCategory's reference: lost.ts before (survivalOf over the projection's whole model text) ──
function referenceByCategory(log: Transcript, projection: Pick<Projection, 'messages' | 'fates'>, ownOnly = false): LostByCategory['categories'] {
  const counts = (f: Projection['fates'][string] | undefined) => f !== undefined && f.kind !== 'kept' && !(ownOnly && f.stepId.startsWith('source-marker:'));
  const changed = log.messages.filter((m) => !m.sidechain && m.blocks.some((b) => counts(projection.fates[b.id])));
  const items = extractCategories(changed, { format: log.format });
  const s = survivalOf(items, modelTextOf(projection.messages));
  return Object.fromEntries(
    CATEGORIES.map((c) => [c, { kept: s[c].kept, of: s[c].of, lost: s[c].lost.map((i) => ({ text: i.text, ...(i.turn !== undefined && { turn: i.turn }), ...(i.messageId && { messageId: i.messageId }), ...(i.tool && { tool: i.tool }) })) }]),
  ) as LostByCategory['categories'];
}

describe('lostByCategory with the per-log index (issue 31)', () => {
  it('counts and lists exactly what survivalOf over the whole model text did, on every corpus transcript and plan', () => {
    let compared = 0;
    let items = 0;
    let lost = 0;
    for (const { name, log } of importedCorpus()) {
      for (const steps of plans(log)) {
        const p = projectTranscript(log, steps);
        for (const ownOnly of [false, true]) {
          const want = referenceByCategory(log, p, ownOnly);
          expect(lostByCategory(log, p, { ownOnly }).categories, `${name} ${steps[0].reducers.map((r) => r.id).join('+')} ownOnly:${ownOnly}`).toEqual(want);
          compared++;
          for (const c of CATEGORIES) {
            items += want[c].of;
            lost += want[c].lost.length;
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(200);
    // Not a comparison of empty tallies.
    console.log(`[lost-index] lostByCategory: ${compared} comparisons, ${items} items, ${lost} lost`);
    expect(items).toBeGreaterThan(2000);
    expect(lost).toBeGreaterThan(100);
  }, 600_000);

  it('reads the log once: previews of other ranges build no index, and count what the whole-text scan counts', () => {
    const log = importBytes('cc-600.jsonl', new TextEncoder().encode(makeClaudeCodeSession(600))).transcript;
    let total = 0;
    for (const m of log.messages) for (const b of m.blocks) total += b.tokens;
    const before = categoryIndexStats.builds;
    const words0 = categoryIndexStats.logWords;
    let scanned = 0;
    for (const [from, to] of [[60, 240], [300, 480], [100, 500]] as Array<[number, number]>) {
      const p = projectTranscript(log, [step(['auto'], { keepLast: 1, budget: Math.floor(total / 2), range: { kind: 'turns', from, to } })]);
      const s0 = categoryIndexStats.scanned;
      expect(lostByCategory(log, p, { ownOnly: true }).categories).toEqual(referenceByCategory(log, p, true));
      scanned = Math.max(scanned, categoryIndexStats.scanned - s0);
    }
    expect(categoryIndexStats.builds - before).toBe(1);
    // A preview reads the blocks it made (summaries, stubs, notices), not the log's: the whole-text scan read every word every time.
    const logWords = categoryIndexStats.logWords - words0;
    expect(scanned).toBeGreaterThan(0);
    expect(scanned).toBeLessThan(logWords / 10);
  });
});
