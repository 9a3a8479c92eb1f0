/** The seeds' own policies: JP (RFD D17/036), sven (seed 003), seed 002, seed 004. */
import { EMERGENCY_AT, fileBudgetFor, modelViewOf, triggerRatio } from '../../compaction/budget';
import { svenNormalPath } from '../../compaction/pipeline';
import { planStep, type ModelLimits, type PeerPolicy } from '../types';

// Plans carry budgets in the file's tokens: the model's numbers minus the invisible overhead,
// divided by the calibration factor of the log's recorded usage (budget.ts), so a replay fires
// where its line is drawn.

export const jp: PeerPolicy = {
  id: 'jp',
  label: 'JP (RFD D17)',
  triggerTokens: (m) => Math.floor(m.contextWindow * 0.75),
  // RFD D17: "It evaluates after each turn completes", not before every model call.
  checkAt: 'turn',
  action: "profile's strategies from after the last compaction to keep_last (auto)",
  keeps: 'keep_last turns (1)',
  plan: (log, m) => [planStep('jp', [{ id: 'auto', options: { threshold: 0.75, triggerOfWindow: true, contextWindow: m.contextWindow, minTurns: 5 } }], 1, fileBudgetFor(m.contextWindow - m.maxOutput, modelViewOf(log)))],
};

export const sven: PeerPolicy = {
  id: 'sven',
  label: 'sven',
  triggerTokens: (m) => Math.floor((m.contextWindow - m.maxOutput) * triggerRatio(0.85, 0.1)),
  action: 'tool results capped at 4000 tokens; structured summary; ≥ 0.95 → emergency drop',
  keeps: 'last 6 messages',
  // sven's normal path (seed 003): results capped as they enter, one summary of all but the newest 6 messages.
  plan: (log, m) => [{ ...planStep('sven', [{ id: 'auto', options: { toolResultCap: 4000, keepN: 6, threshold: 0.85, overheadReserve: 0.1, emergencyAt: EMERGENCY_AT, capOnEntry: true, onFire: svenNormalPath(undefined, 6) } }], 0, fileBudgetFor(m.contextWindow - m.maxOutput, modelViewOf(log))), keepLastMessages: 6 }],
};

/**
 * Seed 002's two numbers: `auto_compact_threshold` (fire above it) and `compact_target_tokens`
 * (compact down to it; default threshold / 2). The seed leaves the threshold to the user (None =
 * off); the replay and the inspector take 80 % of the input budget (window − max output).
 */
export const SEED002_THRESHOLD = 0.8;
export function seed002Limits(m: ModelLimits): { autoCompactThreshold: number; compactTargetTokens: number } {
  const autoCompactThreshold = Math.floor((m.contextWindow - m.maxOutput) * SEED002_THRESHOLD);
  return { autoCompactThreshold, compactTargetTokens: Math.floor(autoCompactThreshold / 2) };
}

export const seed002: PeerPolicy = {
  id: 'seed-002',
  label: 'Seed 002 (Truncate)',
  triggerTokens: (m) => seed002Limits(m).autoCompactThreshold,
  action: 'Native / Summarize / Truncate (keep N recent + system) above auto_compact_threshold',
  keeps: 'N recent messages + system; to compact_target_tokens = threshold / 2',
  plan: (log, m) => [planStep('seed-002', [{ id: 'sliding-window', options: { untilFits: true } }], 1, fileBudgetFor(seed002Limits(m).compactTargetTokens, modelViewOf(log)))],
};

/** Seed 004's injection reserve in the replay: 5 % of the input budget. */
export function seed004Reserve(m: ModelLimits): number {
  return Math.floor((m.contextWindow - m.maxOutput) * 0.05);
}

export const seed004: PeerPolicy = {
  id: 'seed-004',
  label: 'Seed 004 (projection)',
  triggerTokens: (m) => m.contextWindow - m.maxOutput,
  action: 'free reducers always (tool-result retention), summarize only the overflow, prefix-ward, to budget − injection reserve with a safety margin',
  keeps: 'verbatim tail',
  // The seed gives no numbers for the reserve and the margin: 5 % of the input budget for what a
  // harness injects, and the log's own calibration error as the margin (DESIGN-NOTES).
  plan: (log, m) => [planStep('seed-004', [{ id: 'auto', options: { freeAlways: true, retentionMode: 'age', retentionTurns: 5, injectionReserve: seed004Reserve(m), safetyMargin: 'calibration' } }], 1, fileBudgetFor(m.contextWindow - m.maxOutput, modelViewOf(log)))],
};
