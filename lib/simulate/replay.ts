/**
 * Where each peer's trigger would fire on a transcript, and what its policy would leave.
 *
 * The context size per model call is the recorded usage where the source has it (input + cache
 * read + cache write, the whole prompt), else the estimate: tool schemas + every message before
 * the call that the model still saw (messages a source marker covers drop out after it).
 */
import type { Transcript } from '../model/types';
import { lookupModel, type ModelInfo } from '../tokens/catalog';
import { isContextSample } from '../tokens/calibration';
import { projectTranscript } from '../compaction/project';
import type { Projection } from '../compaction/types';
import type { CompactionPlan } from '../compaction/config';
import { triggerRatio } from '../compaction/budget';
import { PEER_POLICIES, policyById } from './policies';
import type { ModelLimits } from './types';

export interface ContextPoint {
  /** Index of the assistant message the call produced. */
  messageIndex: number;
  turn: number;
  tokens: number;
  source: 'recorded' | 'estimate';
}

/** The context size before each assistant message (one point per model call). */
export function contextCurve(log: Transcript): ContextPoint[] {
  const turnOf = (i: number) => log.messages[Math.min(i, log.messages.length - 1)]?.turn ?? 0;
  // Recorded sizes only when every record is one call: an aggregate's input is a sum of prompts.
  if (log.usage.length > 0 && log.usage.every(isContextSample)) {
    return log.usage.map((u) => ({ messageIndex: u.messageIndex, turn: turnOf(u.messageIndex), tokens: u.input + u.cacheRead + u.cacheWrite, source: 'recorded' as const }));
  }
  const coveredAt = new Map<number, number[]>(); // message index where a marker takes effect → covered indices
  for (const k of log.markers) if (k.covers) coveredAt.set(k.atMessage, [...(coveredAt.get(k.atMessage) ?? []), ...Array.from({ length: Math.max(0, k.covers[1] - k.covers[0]) }, (_, i) => k.covers![0] + i)]);
  const msgTokens = log.messages.map((m) => (m.sidechain ? 0 : m.blocks.reduce((n, b) => n + b.tokens, 0)));
  const points: ContextPoint[] = [];
  let running = log.tools.reduce((n, t) => n + t.tokens, 0);
  for (let i = 0; i < log.messages.length; i++) {
    for (const c of coveredAt.get(i) ?? []) running -= msgTokens[c] ?? 0;
    const m = log.messages[i];
    // One call per run of assistant messages.
    if (m.role === 'assistant' && !m.sidechain && log.messages[i - 1]?.role !== 'assistant') points.push({ messageIndex: i, turn: m.turn, tokens: running, source: 'estimate' });
    running += msgTokens[i];
  }
  return points;
}

export interface TriggerPoint {
  peer: string;
  label: string;
  /** Token threshold for this model, when the trigger is a token count. */
  thresholdTokens?: number;
  thresholdEvents?: number;
  /** First turn (0-based) whose call crossed it; null when it never fires on this transcript. */
  firesAtTurn: number | null;
  firesAtMessage: number | null;
  action: string;
}

export interface ModelChoice {
  model: ModelLimits & { id?: string; label?: string };
  /** The model was not recognised: a 200k / 32k default was assumed. */
  assumed: boolean;
}

export function resolveModel(log: Transcript, model?: string | ModelInfo): ModelChoice {
  const info = typeof model === 'object' ? model : lookupModel(model ?? log.model);
  if (info) return { model: info, assumed: false };
  const recordedWindow = log.usage.find((u) => u.contextWindow)?.contextWindow;
  if (recordedWindow) return { model: { contextWindow: recordedWindow, maxOutput: Math.min(32_000, Math.floor(recordedWindow / 4)) }, assumed: true };
  return { model: { contextWindow: 200_000, maxOutput: 32_000 }, assumed: true };
}

/** For each peer: its threshold for the model and where on this transcript it would fire. */
export function triggersFor(log: Transcript, model?: string | ModelInfo): TriggerPoint[] {
  const { model: limits } = resolveModel(log, model);
  const curve = contextCurve(log);
  return PEER_POLICIES.map((p) => {
    const threshold = p.triggerTokens(limits);
    let at: ContextPoint | undefined;
    let atEvent: number | undefined;
    if (threshold !== undefined) at = curve.find((c) => c.tokens >= threshold);
    else if (p.triggerEvents !== undefined && log.messages.length >= p.triggerEvents) atEvent = p.triggerEvents - 1;
    const messageIndex = at?.messageIndex ?? atEvent ?? null;
    return {
      peer: p.id,
      label: p.label,
      ...(threshold !== undefined && { thresholdTokens: threshold }),
      ...(p.triggerEvents !== undefined && { thresholdEvents: p.triggerEvents }),
      firesAtTurn: messageIndex === null ? null : log.messages[messageIndex]?.turn ?? null,
      firesAtMessage: messageIndex,
      action: p.action,
    };
  });
}

/** Run a peer's policy (as a plan over our reducers) on the transcript. */
export function replayPolicy(log: Transcript, peerId: string, model?: string | ModelInfo): Projection {
  const p = policyById(peerId);
  if (!p?.plan) throw new Error(`No replayable plan for peer "${peerId}".`);
  return projectTranscript(log, p.plan(log, resolveModel(log, model).model));
}

export function replayablePeers(): string[] {
  return PEER_POLICIES.filter((p) => p.plan).map((p) => p.id);
}

export interface ConfigTrigger {
  /** The trigger in the model's tokens (what recorded usage counts), or null when the config's trigger is off. */
  thresholdTokens: number | null;
  /** sven's direct emergency path, in the model's tokens. */
  emergencyTokens?: number;
  /** Why it never fires (auto disabled, unknown window), when so. */
  off?: string;
  /** The first model call whose context reaches the trigger (after min_turns), and the first at the emergency line. */
  fires: ContextPoint | null;
  emergency?: ContextPoint | null;
}

/**
 * Where an imported config's automatic trigger fires on a transcript, by the same definition as
 * auto's gate (lib/compaction/pipeline.ts autoGate): sven fires before a call whose prompt reaches
 * max(threshold − reserve, 0.1) × the input budget (emergency directly at 0.95 ×); JP (RFD D17),
 * when `auto.enabled`, once the prompt passes trigger_ratio × the context window with more than
 * min_turns turns. Prompts are the recorded ones where the source has usage (contextCurve).
 */
export function configTrigger(log: Transcript, plan: CompactionPlan, model?: string | ModelInfo): ConfigTrigger {
  const { model: limits } = resolveModel(log, model);
  const auto = plan.auto;
  const curve = contextCurve(log);
  const inputBudget = limits.contextWindow - limits.maxOutput;
  let threshold: number;
  if (plan.source === 'jp-toml') {
    if (auto.enabled !== true) return { thresholdTokens: null, off: 'auto.enabled is not true', fires: null };
    threshold = Math.floor(limits.contextWindow * (auto.threshold ?? 0.75));
  } else threshold = Math.floor(inputBudget * (auto.overheadReserve !== undefined ? triggerRatio(auto.threshold ?? 0.85, auto.overheadReserve) : auto.threshold ?? 1));
  const minTurns = auto.minTurns ?? 0;
  // JP compares strictly (estimated_tokens > threshold); sven fires at context_fraction ≥ trigger.
  const over = (c: ContextPoint, line: number) => (plan.source === 'jp-toml' ? c.tokens > line : c.tokens >= line);
  const fires = curve.find((c) => over(c, threshold) && c.turn + 1 > minTurns) ?? null;
  const emergencyTokens = auto.emergencyAt !== undefined ? Math.ceil(inputBudget * auto.emergencyAt) : undefined;
  return {
    thresholdTokens: threshold,
    fires,
    ...(emergencyTokens !== undefined && { emergencyTokens, emergency: curve.find((c) => c.tokens >= emergencyTokens) ?? null }),
  };
}
