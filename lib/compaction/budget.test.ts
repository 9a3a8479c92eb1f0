import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import { defaultBudget, parseCompactArgs, stepFromArgs } from '../cli/compact';
import { buildTimeline } from '../engine/timeline';
import { importFile } from '../formats/import';
import type { Transcript } from '../model/types';
import { sourceFromBytes } from '../read/source';
import { calibrate } from '../tokens/calibration';
import { inputBudgetOf, lookupModel } from '../tokens/catalog';
import { fileBudgetFor, modelTokensOf, modelViewOf } from './budget';
import { projectTranscript } from './project';

const load = (f: string): Transcript => importFile(sourceFromBytes(path.basename(f), new Uint8Array(fs.readFileSync(f)))).transcript;
/** The transcript as it stood before message `end` (the usage and markers recorded by then). */
function prefix(t: Transcript, end: number): Transcript {
  const messages = t.messages.slice(0, end);
  return { ...t, messages, usage: t.usage.filter((u) => u.messageIndex < end), markers: t.markers.filter((m) => m.atMessage < end), turnCount: messages.length ? messages[end - 1].turn + 1 : 0 };
}
const slopometry = () => load(corpusFiles('claude-code').find((f) => f.includes('slopometry'))!);

describe('the budget counts what the model is sent (overhead + calibration)', () => {
  it('compacting a Claude Code session to the input budget: estimate within 5 % of what the model would be sent, measured against the recorded usage', () => {
    // The session as it stood at its largest recorded call (155k tokens sent, over Opus 4.5's
    // 136k input budget: Claude Code compacted right after). That call's prompt is every message
    // before it, and its usage records what the model was sent; the prefix holds only the usage
    // before it, so the call is a held-out measurement.
    const full = slopometry();
    const peak = calibrate(full)!.calls.reduce((a, b) => (b.recorded > a.recorded ? b : a));
    let cut = peak.messageIndex;
    while (cut > 0 && full.messages[cut - 1].role === 'assistant') cut--;
    const t = prefix(full, cut);
    const info = lookupModel(t.model)!;
    const inputBudget = inputBudgetOf(info); // 136,000 for Opus 4.5
    expect(peak.recorded).toBeGreaterThan(inputBudget);
    const view = modelViewOf(t);
    expect(view.overhead).toBeGreaterThan(5000); // Claude Code's system prompt + tool schemas, not in the JSONL
    const before = projectTranscript(t, []).tokens.after.total;
    expect(Math.abs(modelTokensOf(before, view) - peak.recorded) / peak.recorded).toBeLessThan(0.05);

    // "Compact to the input budget": the CLI's default --budget (the Plan panel's button uses the same fileBudgetFor).
    const d = defaultBudget(t, info);
    expect(d.budget).toBe(fileBudgetFor(inputBudget, view));
    const after = projectTranscript(t, [stepFromArgs(parseCompactArgs([]), undefined, d.budget)]).tokens.after.total;
    expect(after).toBeLessThanOrEqual(d.budget);
    const estimate = modelTokensOf(after, view);
    // What the model would be sent: the recorded prompt minus what compaction took out (calibrated).
    const sent = peak.recorded - (before - after) * view.factor;
    expect(Math.abs(estimate - sent) / sent).toBeLessThan(0.05);
    expect(estimate).toBeLessThanOrEqual(inputBudget);
    expect(sent).toBeLessThanOrEqual(inputBudget);

    // Counting visible tokens only (the old default: --budget = the input budget) still overflows.
    const naive = projectTranscript(t, [stepFromArgs(parseCompactArgs([]), undefined, inputBudget)]).tokens.after.total;
    expect(peak.recorded - (before - naive) * view.factor).toBeGreaterThan(inputBudget * 1.05);
  });

  it('the timeline, the Plan panel and the CLI read one model view', () => {
    const t = slopometry();
    const tl = buildTimeline(t);
    const view = modelViewOf(t);
    expect(tl.calibration).toMatchObject({ factor: view.factor, overhead: view.overhead });
    expect(tl.calibration!.error).toBeLessThan(tl.calibration!.rawError);
    expect(defaultBudget(t, lookupModel(t.model)!).line).toMatch(/calibration − \d+ invisible overhead/);
  });

  it('without recorded usage: no overhead, factor 1, the budget is the input budget', () => {
    const t = load(corpusFiles('claude-code').find((f) => f.endsWith('simonw_sample_session.jsonl'))!);
    expect(modelViewOf(t)).toMatchObject({ overhead: 0, factor: 1 });
    const info = lookupModel('claude-sonnet-4-5')!;
    expect(defaultBudget(t, info).budget).toBe(inputBudgetOf(info));
  });
});
