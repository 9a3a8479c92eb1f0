/**
 * The budget threaded through reducers (seed 004 "resolved: budget shape"): a single total is the
 * hard ceiling (v0); per-tier caps ride along in the same value object so adding them later does
 * not change `reduce(ctx, budget, state)`.
 */
import type { ToolSchema, Transcript } from '../model/types';
import { lookupModel, inputBudgetOf, type ModelInfo } from '../tokens/catalog';
import { counterById, tokenizerForModel, type TokenCounter } from '../tokens/count';
import type { BudgetKind } from '../tokens/totals';
import { calibrate } from '../tokens/calibration';
import { NO_VIEW, type ModelView } from '../tokens/model-view';

export interface Budget {
  /** Total input budget in tokens, counted like `inspect`'s tokens.total. Infinity = no ceiling. */
  readonly total: number;
  /** The one counting function (the transcript's tokenizer). */
  readonly count: (text: string) => number;
  readonly counter: TokenCounter;
  /** Optional per-tier caps, e.g. { tool_result: 60_000 } (seed 004 v0.1; reducers may read them). */
  readonly caps?: Readonly<Partial<Record<BudgetKind, number>>>;
}

export function makeBudget(total: number, counter: TokenCounter, caps?: Partial<Record<BudgetKind, number>>): Budget {
  if (!(total > 0)) throw new RangeError(`A budget must be a positive number of tokens (got ${total}).`);
  return Object.freeze({ total, counter, count: (t: string) => counter.count(t), ...(caps && { caps: Object.freeze({ ...caps }) }) });
}

/** The counter a transcript's blocks were counted with at import (builder: tokenizer from the model). */
export function counterFor(log: Pick<Transcript, 'model'>): TokenCounter {
  return counterById(tokenizerForModel(log.model));
}

/** Tool schemas are sent with every request: their tokens are overhead the messages cannot use. */
export function schemaOverhead(tools: readonly Pick<ToolSchema, 'tokens'>[]): number {
  return tools.reduce((n, t) => n + t.tokens, 0);
}

export interface ModelBudget {
  model?: ModelInfo;
  /** window − max output, or undefined when the model is unknown. */
  inputBudget?: number;
}

export function modelBudget(model: string | undefined): ModelBudget {
  const info = lookupModel(model);
  return info ? { model: info, inputBudget: inputBudgetOf(info) } : {};
}

/**
 * sven's effective trigger: fire at `threshold − reserve` of the input budget, never below 10 %.
 * Returns the token count at which compaction should start.
 */
export function triggerTokens(inputBudget: number, threshold = 0.85, overheadReserve = 0.1): number {
  return Math.floor(inputBudget * triggerRatio(threshold, overheadReserve));
}

/** sven's trigger fraction: compaction_threshold − compaction_overhead_reserve, never below 0.1. */
export function triggerRatio(threshold = 0.85, overheadReserve = 0.1): number {
  return Math.max(threshold - overheadReserve, 0.1);
}

/** sven: at or above this fraction of the input budget, emergency compaction runs directly. */
export const EMERGENCY_AT = 0.95;

export { fileBudgetFor, modelTokensOf, NO_VIEW, type ModelView } from '../tokens/model-view';

const views = new WeakMap<object, ModelView>();

/** The model view of a transcript, computed once per log object. */
export function modelViewOf(log: Transcript): ModelView {
  const cached = views.get(log);
  if (cached) return cached;
  const c = calibrate(log);
  const view: ModelView = c ? { overhead: Math.max(0, Math.round(c.invisibleOverhead)), factor: c.factor, error: c.meanRelativeError.corrected, calls: c.calls.length } : NO_VIEW;
  views.set(log, view);
  return view;
}

