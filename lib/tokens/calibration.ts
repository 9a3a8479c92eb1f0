/**
 * Estimate vs recorded (sven layer 1, DESIGN.md "Tokens").
 *
 * For each model call the source records usage for, compare the recorded prompt size
 * (input + cache read + cache write: cached tokens were still sent) with our estimate of what
 * was visible before the call (tool schemas + the messages the model still saw). Then:
 *  - invisible overhead = first call's recorded − its visible estimate: what the source does not
 *    hold (Claude Code JSONL has no system prompt and no tool schemas); shown as its own band;
 *  - calibration factor: sven's EMA over ratio = recorded / (estimate + overhead), α = 0.2,
 *    clamped to [0.5, 3.0], starting at 1.0.
 * The corrected estimate of a call is (estimate + overhead) × the factor known before it.
 */
import type { Marker, Message, ToolSchema, UsageRecord } from '../model/types';

/** What calibration reads of a transcript. */
export interface CalibrationInput {
  messages: readonly Message[];
  markers: readonly Marker[];
  tools: readonly Pick<ToolSchema, 'tokens'>[];
  usage: readonly UsageRecord[];
}

/** Model calls a usage record stands for (an aggregate holds several). */
export function usageCalls(u: UsageRecord): number {
  return u.calls ?? 1;
}

/** A record of one call: its input + cache is a context size (an aggregate's is a sum of several). */
export function isContextSample(u: UsageRecord): boolean {
  return usageCalls(u) <= 1;
}

export const EMA_ALPHA = 0.2;
export const FACTOR_MIN = 0.5;
export const FACTOR_MAX = 3.0;

export interface CallCalibration {
  /** The (last) assistant message the call produced. */
  messageIndex: number;
  turn: number;
  /** Visible estimate of the prompt: tool schemas + messages before the call. */
  estimate: number;
  /** Recorded prompt tokens: input + cache read + cache write. */
  recorded: number;
  /** recorded / (estimate + invisibleOverhead). */
  ratio: number;
  /** (estimate + overhead) × the factor as it stood before this call. */
  corrected: number;
  /** The factor after this call. */
  factor: number;
}

export interface Calibration {
  factor: number;
  invisibleOverhead: number;
  calls: CallCalibration[];
  /** Mean |estimate − recorded| / recorded, raw and corrected. */
  meanRelativeError: { raw: number; corrected: number };
}

export function clampFactor(f: number): number {
  return Math.min(FACTOR_MAX, Math.max(FACTOR_MIN, f));
}

/** sven's update: f ← 0.8 f + 0.2 ratio, clamped. */
export function updateFactor(factor: number, ratio: number): number {
  return clampFactor((1 - EMA_ALPHA) * factor + EMA_ALPHA * ratio);
}

/** Visible tokens before each message index (tool schemas + seen messages), markers applied. */
export function visibleBefore(log: Omit<CalibrationInput, 'usage'>): number[] {
  const covered = new Map<number, number[]>();
  for (const k of log.markers)
    if (k.covers) {
      const list = covered.get(k.atMessage) ?? [];
      for (let i = k.covers[0]; i < k.covers[1]; i++) list.push(i);
      covered.set(k.atMessage, list);
    }
  const tokens = log.messages.map((m) => (m.sidechain ? 0 : m.blocks.reduce((n, b) => n + b.tokens, 0)));
  const out: number[] = [];
  let running = log.tools.reduce((n, t) => n + t.tokens, 0);
  for (let i = 0; i <= log.messages.length; i++) {
    for (const c of covered.get(i) ?? []) running -= tokens[c] ?? 0;
    out.push(running);
    if (i < log.messages.length) running += tokens[i];
  }
  return out;
}

/** Undefined when the transcript records no usage. */
export function calibrate(log: CalibrationInput): Calibration | undefined {
  const usage = log.usage.filter((u) => isContextSample(u) && u.input + u.cacheRead + u.cacheWrite > 0 && u.messageIndex < log.messages.length);
  if (usage.length === 0) return undefined;
  const before = visibleBefore(log);
  // A call's prompt is everything before the run of assistant messages it produced.
  const callStart = (i: number) => {
    let s = i;
    while (s > 0 && log.messages[s - 1].role === 'assistant' && !log.messages[s - 1].sidechain) s--;
    return s;
  };
  const estimates = usage.map((u) => before[callStart(u.messageIndex)]);
  const recorded = usage.map((u) => u.input + u.cacheRead + u.cacheWrite);
  const invisibleOverhead = recorded[0] - estimates[0];
  let factor = 1;
  let rawErr = 0;
  let corrErr = 0;
  const calls: CallCalibration[] = usage.map((u, i) => {
    const base = Math.max(1, estimates[i] + invisibleOverhead);
    const corrected = Math.round(base * factor);
    const ratio = recorded[i] / base;
    factor = updateFactor(factor, ratio);
    rawErr += Math.abs(estimates[i] - recorded[i]) / Math.max(1, recorded[i]);
    corrErr += Math.abs(corrected - recorded[i]) / Math.max(1, recorded[i]);
    return { messageIndex: u.messageIndex, turn: log.messages[u.messageIndex].turn, estimate: estimates[i], recorded: recorded[i], ratio, corrected, factor };
  });
  return { factor, invisibleOverhead, calls, meanRelativeError: { raw: rawErr / calls.length, corrected: corrErr / calls.length } };
}
