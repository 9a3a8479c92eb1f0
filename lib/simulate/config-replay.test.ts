/**
 * The design documents' example configs, imported and replayed on a real Claude Code session:
 * each trigger fires where its document says, and auto's gate (the projection) agrees with the
 * line the timeline draws (one definition, lib/compaction/pipeline.ts autoGate).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import { fileBudgetFor, modelViewOf } from '../compaction/budget';
import { parseJpToml, parseSvenYaml, planToStep, type CompactionPlan } from '../compaction/config';
import { projectTranscript } from '../compaction/project';
import { importFile } from '../formats/import';
import type { Transcript } from '../model/types';
import { sourceFromBytes } from '../read/source';
import { inputBudgetOf, lookupModel } from '../tokens/catalog';
import { configTrigger, contextCurve, triggersFor } from './replay';

const file = corpusFiles('claude-code').find((f) => f.includes('slopometry'))!;
const log = importFile(sourceFromBytes(path.basename(file), new Uint8Array(fs.readFileSync(file)))).transcript;
const opus = lookupModel(log.model)!; // Claude Opus 4.5: 200,000 window, 64,000 max output
const inputBudget = inputBudgetOf(opus);

// Seed 003 "Tuning for CI / long-running workflows" and "Tuning for interactive sessions", verbatim.
const SVEN_CI = `agent:
  compaction_threshold: 0.65       # fire earlier, more margin for schema overhead
  compaction_keep_recent: 15       # keep more recent context for multi-step plans
  compaction_strategy: structured  # structured checkpoint survives many turns
  tool_result_token_cap: 2000      # tighter cap if build logs are large
  compaction_overhead_reserve: 0.12
`;
const SVEN_INTERACTIVE = `agent:
  compaction_threshold: 0.80       # allow longer free-form conversation
  compaction_keep_recent: 5
  compaction_strategy: narrative   # prose summary reads more naturally in TUI
  tool_result_token_cap: 8000      # more context per file read
`;
// Seed 000 (RFD D17) "Configuration", verbatim.
const JP_D17 = `[conversation.compaction.auto]
enabled = false
trigger_ratio = 0.75
profile = "default"
min_turns = 5
`;

/** The session as the model saw it before message `end` (usage and markers recorded by then). */
function prefix(t: Transcript, end: number): Transcript {
  const messages = t.messages.slice(0, end);
  return { ...t, messages, usage: t.usage.filter((u) => u.messageIndex < end), markers: t.markers.filter((m) => m.atMessage < end), turnCount: messages.length ? messages[end - 1].turn + 1 : 0 };
}
/** The prompt of the call that produced message i starts after the run of assistant messages before it. */
function callStart(i: number): number {
  while (i > 0 && log.messages[i - 1].role === 'assistant') i--;
  return i;
}
/** Auto's own gate on the session as it stood before the call at message `i`, with the config's step over the input budget. */
/**
 * The gate alone: the timeline's lines are drawn on the recorded prompts, which hold the results
 * uncapped; sven caps each result as it enters (capOnEntry, tested in config.test.ts), so the
 * session it would hold is smaller. Here the two definitions of the trigger are compared, on the
 * same context.
 */
function gateNote(plan: CompactionPlan, i: number): string {
  plan = { ...plan, auto: { ...plan.auto, capOnEntry: false } };
  const p = prefix(log, callStart(i));
  const step = planToStep(plan, { budget: fileBudgetFor(inputBudget, modelViewOf(p)), keepLast: 0 });
  // The gate's own note (sven's on-entry cap and keep_recent notes may come first).
  return projectTranscript(p, [step]).report.flatMap((r) => r.notes).find((x) => / trigger |emergency directly/.test(x))!;
}
const callBefore = (i: number) => contextCurve(log).filter((c) => c.messageIndex < i).pop()!;

describe('seed 003 (sven) example configs on a Claude Code session', () => {
  it('CI tuning: trigger = (0.65 − 0.12) × 136,000 = 72,080 tokens, first reached by the recorded prompt of call at message 57; emergency at 0.95 × = 129,200', () => {
    const plan = parseSvenYaml(SVEN_CI);
    expect(plan.warnings).toEqual([]);
    const tr = configTrigger(log, plan);
    expect(tr.thresholdTokens).toBe(72_080);
    expect(tr.fires).toMatchObject({ messageIndex: 57, source: 'recorded' });
    expect(tr.fires!.tokens).toBeGreaterThanOrEqual(72_080);
    expect(callBefore(57).tokens).toBeLessThan(72_080);
    expect(tr.emergencyTokens).toBe(129_200);
    expect(tr.emergency!.tokens).toBeGreaterThanOrEqual(129_200);
    // The projection's gate agrees on both sides of the line.
    expect(gateNote(plan, 57)).toMatch(/> trigger [\d,]+ = 65 % − 12 % reserve of the budget .*: fires$/);
    expect(gateNote(plan, callBefore(57).messageIndex)).toMatch(/≤ trigger .*: nothing to do$/);
    expect(gateNote(plan, tr.emergency!.messageIndex)).toMatch(/≥ 95 % of the budget .*: emergency directly$/);
  });

  it('interactive tuning: the reserve defaults to 0.10, trigger = (0.80 − 0.10) × 136,000 = 95,200 (message 88)', () => {
    const plan = parseSvenYaml(SVEN_INTERACTIVE);
    const tr = configTrigger(log, plan);
    expect(tr.thresholdTokens).toBe(95_200);
    expect(tr.fires!.messageIndex).toBe(88);
    expect(gateNote(plan, 88)).toMatch(/= 80 % − 10 % reserve of the budget .*: fires$/);
    expect(gateNote(plan, callBefore(88).messageIndex)).toMatch(/nothing to do$/);
  });

  it('the sven line the timeline draws is where its replay fires (one definition: 0.75 of the input budget)', () => {
    const line = triggersFor(log, opus).find((t) => t.peer === 'sven')!;
    const plan = parseSvenYaml('agent:\n  model: x\n'); // sven's defaults: 0.85 − 0.10
    const tr = configTrigger(log, plan);
    expect(line.thresholdTokens).toBe(Math.floor(inputBudget * 0.75));
    expect(tr.thresholdTokens).toBe(line.thresholdTokens);
    expect(tr.fires!.messageIndex).toBe(line.firesAtMessage);
    expect(gateNote(plan, line.firesAtMessage!)).toMatch(/= 85 % − 10 % reserve of the budget .*: fires$/);
  });
});

describe('seed 000 (RFD D17) example config on the same session', () => {
  it('as written (enabled = false): never fires, and the import says so', () => {
    const plan = parseJpToml(JP_D17);
    expect(configTrigger(log, plan)).toMatchObject({ thresholdTokens: null, fires: null });
    expect(plan.warnings.join('\n')).toMatch(/auto\.enabled is false: the automatic trigger is off/);
    expect(plan.auto.threshold).toBeUndefined();
  });

  it('enabled: trigger_ratio × the context window (0.75 × 200,000 = 150,000), held back by min_turns 5 on this 14-turn session', () => {
    const plan = parseJpToml(JP_D17.replace('enabled = false', 'enabled = true'));
    expect(plan.auto).toMatchObject({ threshold: 0.75, triggerOfWindow: true, minTurns: 5 });
    const tr = configTrigger(log, plan);
    expect(tr.thresholdTokens).toBe(150_000);
    // The prompts pass 150,000 only in turns 1–5 (Claude Code compacted in turn 6): more than 5 turns never coincides.
    const over = contextCurve(log).filter((c) => c.tokens > 150_000);
    expect(over.length).toBeGreaterThan(0);
    expect(Math.max(...over.map((c) => c.turn + 1))).toBeLessThanOrEqual(5);
    expect(tr.fires).toBeNull();
    // With min_turns = 2 it fires at the first prompt above 150,000, and the projection's gate agrees.
    const early = parseJpToml(JP_D17.replace('enabled = false', 'enabled = true').replace('min_turns = 5', 'min_turns = 2'));
    const at = configTrigger(log, early).fires!;
    expect(at.messageIndex).toBe(over[0].messageIndex);
    expect(gateNote(early, at.messageIndex)).toMatch(/> trigger [\d,]+ = 75 % of the 200,000-token window .*: fires$/);
  });

  it('min_turns defaults to 5 and trigger_ratio to 0.75 when enabled alone', () => {
    expect(parseJpToml('[conversation.compaction.auto]\nenabled = true\n').auto).toMatchObject({ threshold: 0.75, minTurns: 5, triggerOfWindow: true });
  });
});
