/**
 * Survival by category (issue 26 §2) on lib/categories: the agent's own compaction on slopometry,
 * and ours on corpus files — where the counts must agree with the text of the export.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import { CATEGORIES, extractCategories, modelTextOf, survivalOf } from '../categories';
import { compactTranscript, stepFromArgs, type CompactArgs } from '../cli/compact';
import { projectTranscript, startingContext } from '../compaction/project';
import { importBytes } from '../formats/import';
import { transcriptTotals } from '../tokens/totals';
import { agentEvents } from './agent';
import { ledgerChecks } from './checks';
import { ledgerOf } from '.';
import type { Step } from '../compaction/types';

const load = (f: string) => importBytes(path.basename(f), new Uint8Array(fs.readFileSync(f))).transcript;
const SLOP = corpusFiles('claude-code').find((x) => path.basename(x).startsWith('slopometry'))!;

describe('survival of the agent\'s own compaction', () => {
  it('slopometry: Claude Code\'s summary names 0 of the 29 shell commands, counts paths by file name, and every lost item points into its span', () => {
    const log = load(SLOP);
    const [e] = agentEvents(log, ledgerChecks());
    const s = e.survival!;
    expect(Object.keys(s)).toEqual([...CATEGORIES]);
    expect(s.commands.of).toBeGreaterThanOrEqual(20);
    expect(s.commands.kept).toBeLessThanOrEqual(1);
    expect(s.figures.of).toBeGreaterThanOrEqual(10);
    expect(s.figures.kept).toBeLessThanOrEqual(1);
    expect(s.instructions.kept).toBe(s.instructions.of); // Claude Code's summary quotes every user message
    // Paths by name: a path whose full form is not in the summary but whose file name is counts as kept.
    const items = extractCategories(log.messages.slice(0, 217), { format: log.format }).filter((i) => i.category === 'paths');
    const nameOf = (p: string) => p.replace(/\/+$/, '').split('/').pop()!;
    const byNameOnly = items.filter((i) => !e.summary!.includes(i.text) && /\.\w+$/.test(nameOf(i.text)) && e.summary!.includes(nameOf(i.text)));
    expect(byNameOnly.length).toBeGreaterThan(0);
    const lostKeys = new Set(s.paths.lost.map((l) => l.key));
    for (const i of byNameOnly) expect(lostKeys.has(i.key), i.text).toBe(false);
    expect(s.paths.kept + s.paths.lost.length).toBe(s.paths.of);
    // Each lost item: where it was (message id and turn inside the span).
    const inSpan = new Set(log.messages.slice(0, 217).map((m) => m.id));
    for (const c of CATEGORIES) for (const l of s[c].lost) expect(inSpan.has(l.messageId!), `${c}: ${l.text}`).toBe(true);
  });

  it('the counts are those of lib/categories over the span and the summary (the same extractor as the Lost tab)', () => {
    const log = load(SLOP);
    const [e] = agentEvents(log, ledgerChecks());
    const direct = survivalOf(extractCategories(log.messages.slice(0, 217), { format: log.format }), e.summary!);
    for (const c of CATEGORIES) expect([e.survival![c].kept, e.survival![c].of], c).toEqual([direct[c].kept, direct[c].of]);
  });
});

describe('survival of our compactions agrees with the export', () => {
  const files = [
    SLOP,
    ...corpusFiles('claude-code').filter((f) => /claude-code-viewer_5c0375b4|vibecodingtracker/.test(f)),
    ...corpusFiles('codex-cli').filter((f) => /vibecodingtracker|codex-session-view/.test(f)),
    ...corpusFiles('swe-agent').filter((f) => /marshmallow/.test(f)),
  ];
  for (const f of files) for (const strategies of [[], ['summarize']] as CompactArgs['strategies'][])
    it(`${path.basename(f)}: the ledger's counts for ${strategies.length ? strategies.join('+') : 'auto'} at a quarter of the tokens = the counts in the exported file, re-imported`, () => {
      const log = load(f);
      const budget = Math.floor(transcriptTotals(log).total / 4);
      const step = stepFromArgs({ strategies } as CompactArgs, undefined, budget);
      const out = compactTranscript(log, step, budget, { write: true });
      const steps: Step[] = out.steps;
      const project = (s: readonly Step[]) => (s.length ? projectTranscript(log, s) : projectTranscript(log, [], { baseline: 'model-view' }));
      const { events } = ledgerOf(log, { steps, project, ...ledgerChecks() });
      const ours = events.filter((e) => e.by === 'ours');
      expect(ours).toHaveLength(1);
      const e = ours[0];
      expect(e.survival).not.toBeNull();
      // The export, re-imported: what the agent resuming it sends the model.
      const re = importBytes(out.fileName!, out.bytes!, { format: log.format }).transcript;
      const exported = modelTextOf(startingContext(re, 'model-view').messages);
      const all = survivalOf(itemsOf(log, e.covers!, out.projection, steps[0].id), exported);
      for (const c of CATEGORIES) expect([all[c].kept, all[c].of], c).toEqual([e.survival![c].kept, e.survival![c].of]);
      // Something was counted, and something lost: the comparison is not between two empty tables.
      expect(CATEGORIES.reduce((n, c) => n + e.survival![c].of, 0)).toBeGreaterThan(0);
    });
});

/** The items of the blocks a step changed (what the ledger counts for our step). */
function itemsOf(log: ReturnType<typeof load>, span: [number, number], p: ReturnType<typeof projectTranscript>, stepId: string) {
  const msgs = log.messages.slice(span[0], span[1]).flatMap((m) => {
    const blocks = m.blocks.filter((b) => p.fates[b.id] && p.fates[b.id].kind !== 'kept' && (p.fates[b.id] as { stepId: string }).stepId === stepId);
    return blocks.length ? [{ ...m, blocks }] : [];
  });
  return extractCategories(msgs, { format: log.format });
}
