/**
 * The `auto` strategy (RFD 036 auto, seed 004 pipeline, sven budget gate): the free deterministic
 * reducers, cheap to expensive, each stopping as soon as the budget holds — strip-reasoning →
 * dedup-tools → tool-retention / tool-hints → truncate-tool-results → strip-tool-results →
 * strip-attachments → prune-tools — then summarize only the overflow, prefix-ward, and emergency
 * if still over (or if the summary failed).
 *
 * Knobs: the budget (step.budget / ProjectOptions.budget), `threshold` (fire only above
 * threshold × budget; RFD D17 trigger_ratio, sven compaction_threshold), `overheadReserve` (aim
 * that much below; sven), `minTurns` (RFD D17: leave short conversations alone), keep_last (the
 * step's). Idempotent: the target is never above the trigger, so once under it a second run is a
 * no-op.
 *
 * `summarizeThreshold` (RFD 036 `summarize_threshold`: "threshold (fraction of context window)
 * above which auto triggers summarize"): when set, the summarize stage runs only if, after the free
 * reducers, the context still exceeds that fraction of the context window of the model the plan
 * targets (`contextWindow`; else the transcript's model in the catalog; else, unknown model, the
 * budget stands for the window and the report says so). Below it auto stops after the free
 * reducers even if the target is not reached (no summary, no emergency: the context still fits
 * the window comfortably, and a summary is lossy), and the report says why. Unset = unchanged.
 */
import type { Budget } from './budget';
import { makeBudget } from './budget';
import { contextTokens, isBool, isNum, isStr, opt, type CompactionContext, type Reducer, type ReducerState } from './context';
import type { ToolHints } from './hints';
import { createReducer, type ReducerEnv } from './reducers';
import { lookupModel } from '../tokens/catalog';
import { contextFloor } from './calls';
import type { ReducerId, ReducerReport, ReducerSpec } from './types';

export interface AutoOptions {
  threshold?: number;
  overheadReserve?: number;
  minTurns?: number;
  hints?: ToolHints;
  /** tool_result_token_cap (sven, default 4000). */
  toolResultCap?: number;
  /** Age in turns after which results of tools with a retention hint expire (default 5). */
  retentionTurns?: number;
  /** Run summarize when the free reducers are not enough (default true). */
  summarize?: boolean;
  style?: string;
  onFailure?: 'emergency' | 'leave';
  /** Run emergency as the last resort (default true). */
  emergency?: boolean;
  /** Messages emergency keeps (sven compaction_keep_recent, default 6). */
  keepN?: number;
  /** Stages to leave out, e.g. ['prune-tools'] to keep the cache prefix of the tool schemas. */
  skip?: ReducerId[];
  /**
   * Content-only edits: results stubbed or truncated, never a tool schema pruned, a call's
   * arguments stripped or a pair removed (duplicates are stubbed). For exports whose format cannot
   * carry structural edits; whole turns still go to a summary or emergency.
   */
  conservative?: boolean;
  /** RFD 036 summarize_threshold: fraction of the context window above which auto summarizes (see the file comment). */
  summarizeThreshold?: number;
  /** The context window (tokens) `summarizeThreshold` is a fraction of (default: the transcript's model in the catalog). */
  contextWindow?: number;
}

/** The stage list, in order. Exposed for the UI ("what auto will do") and the tests. */
/** Tokens as people read them in notes: 13,962. */
const n = (tokens: number) => tokens.toLocaleString('en-US');

export function autoStages(options: AutoOptions = {}): ReducerSpec[] {
  const hints = options.hints ?? {};
  const stages: ReducerSpec[] = [
    { id: 'strip-reasoning', options: { untilFits: true } },
    { id: 'dedup-tools', options: { untilFits: true, hints, ...(options.conservative && { mode: 'stub' }) } },
    { id: 'tool-retention', options: { untilFits: true, hints, mode: 'age', turns: options.retentionTurns ?? 5, tools: toolsWithRetention(hints) } },
    { id: 'truncate-tool-results', options: { untilFits: true, hints, cap: options.toolResultCap ?? 4000 } },
    { id: 'tool-hints', options: { untilFits: true, hints, ...(options.conservative && { requests: false, pairs: false }) } },
    { id: 'strip-tool-results', options: { untilFits: true, hints } },
    { id: 'strip-attachments', options: { untilFits: true } },
    { id: 'prune-tools', options: {} },
  ];
  if (options.summarize !== false) stages.push({ id: 'summarize', options: { untilFits: true, onFailure: options.onFailure ?? 'emergency', ...(options.style && { style: options.style }), emergencyKeepN: options.keepN ?? 6 } });
  if (options.emergency !== false) stages.push({ id: 'emergency', options: { untilFits: true, keepN: options.keepN ?? 6 } });
  const skip = new Set<ReducerId>([...(options.skip ?? []), ...(options.conservative ? (['prune-tools'] as const) : [])]);
  return stages.filter((s) => !skip.has(s.id));
}

/** Retention in auto applies to tools that declare one (hints) — the user's explicit policy. */
function toolsWithRetention(hints: ToolHints): string[] {
  return Object.entries(hints)
    .filter(([, h]) => h.retention !== undefined)
    .map(([name]) => name);
}

export function parseAutoOptions(o: Record<string, unknown> = {}): AutoOptions {
  return {
    threshold: opt(o, 'threshold', 1, isNum),
    overheadReserve: opt(o, 'overheadReserve', 0, isNum),
    minTurns: opt(o, 'minTurns', 0, isNum),
    hints: (o.hints ?? {}) as ToolHints,
    toolResultCap: opt(o, 'toolResultCap', 4000, isNum),
    retentionTurns: opt(o, 'retentionTurns', 5, isNum),
    summarize: opt(o, 'summarize', true, isBool),
    style: opt<string | undefined>(o, 'style', undefined, (v): v is string | undefined => isStr(v)),
    onFailure: o.onFailure === 'leave' ? 'leave' : 'emergency',
    emergency: opt(o, 'emergency', true, isBool),
    keepN: opt(o, 'keepN', 6, isNum),
    skip: Array.isArray(o.skip) ? (o.skip.filter((x) => typeof x === 'string') as ReducerId[]) : [],
    conservative: opt(o, 'conservative', false, isBool),
    // Not a fraction in (0, 1] = not set (behaviour unchanged), never a silent default that would gate summarize.
    ...(isNum(o.summarizeThreshold) && o.summarizeThreshold > 0 && o.summarizeThreshold <= 1 && { summarizeThreshold: o.summarizeThreshold }),
    ...(isNum(o.contextWindow) && o.contextWindow > 0 && { contextWindow: o.contextWindow }),
  };
}

/** A fraction as the report writes it: "41 %" (floored, so a context below the threshold never reads as equal to it). */
function percent(fraction: number, floor = false): string {
  const p = fraction * 100;
  return `${floor ? Math.floor(p) : Math.round(p * 10) / 10} %`;
}

/** The window summarizeThreshold is a fraction of, and where it came from (for the report). */
export function summarizeWindow(options: AutoOptions, model: string | undefined, budgetTotal: number): { tokens: number; from: string } {
  if (options.contextWindow !== undefined) return { tokens: options.contextWindow, from: 'the plan' };
  const info = lookupModel(model);
  if (info) return { tokens: info.contextWindow, from: info.label };
  return { tokens: budgetTotal, from: 'the budget (model not in the catalog)' };
}

export interface AutoResult {
  ctx: CompactionContext;
  state: ReducerState;
  reports: ReducerReport[];
}

export function runAuto(ctx: CompactionContext, budget: Budget, state: ReducerState, options: AutoOptions, env: ReducerEnv = {}): AutoResult {
  const reports: ReducerReport[] = [];
  const before = contextTokens(ctx);
  const note = (text: string): ReducerReport => ({ stepId: ctx.step.id, reducer: 'auto', events: 0, tokensBefore: before, tokensAfter: before, notes: [text] });
  if (!Number.isFinite(budget.total)) return { ctx, state, reports: [note('no budget: auto has nothing to aim at')] };
  const threshold = options.threshold ?? 1;
  const trigger = Math.floor(budget.total * threshold);
  const target = Math.min(trigger, Math.floor(budget.total * (1 - (options.overheadReserve ?? 0))));
  if (before <= trigger) return { ctx, state, reports: [note(`${before} tokens ≤ trigger ${trigger}: nothing to do`)] };
  if (ctx.log.turnCount <= (options.minTurns ?? 0)) return { ctx, state, reports: [note(`${ctx.log.turnCount} turn(s) ≤ min_turns ${options.minTurns}: left alone`)] };
  const aim = makeBudget(Math.max(1, target), budget.counter, budget.caps);
  let belowSummarizeThreshold = false;
  for (const spec of autoStages(options)) {
    const now = contextTokens(ctx);
    if (now <= aim.total) break;
    if (spec.id === 'summarize' && options.summarizeThreshold !== undefined) {
      const window = summarizeWindow(options, ctx.log.model, budget.total);
      const ratio = now / window.tokens;
      const where = `context ${percent(ratio, true)} of the window (${n(now)} of ${n(window.tokens)} tokens, ${window.from})`;
      if (now <= options.summarizeThreshold * window.tokens) {
        belowSummarizeThreshold = true;
        reports.push({ ...note(`summarize skipped: ${where}, ${ratio < options.summarizeThreshold ? 'below' : 'at'} summarize_threshold ${percent(options.summarizeThreshold)}`), tokensBefore: now, tokensAfter: now });
        break;
      }
      reports.push({ ...note(`summarize runs: ${where}, above summarize_threshold ${percent(options.summarizeThreshold)}`), tokensBefore: now, tokensAfter: now });
    }
    const r = createReducer(spec, env).reduce(ctx, aim, state);
    ctx = r.ctx;
    state = r.state;
    reports.push(r.report);
  }
  const after = contextTokens(ctx);
  if (after > aim.total) {
    let why = 'auto stopped after the free reducers (below summarize_threshold)';
    if (!belowSummarizeThreshold) {
      const f = contextFloor(ctx.log, ctx.messages, ctx.tools);
      const floor = `the floor (system ${n(f.system)} + user messages ${n(f.user)} + the last model call ${n(f.lastCall)}) is ${n(f.total)} tokens`;
      why =
        ctx.step.tail === 'turns' && ctx.step.keepLast > 0
          ? `the protected turns (keep_last, tail "turns") and system messages alone exceed it; ${floor}`
          : f.total > aim.total
            ? `${floor}, above the target`
            : `what lies outside the range or is protected alone exceeds it; ${floor}`;
    }
    reports.push({ ...note(`still ${n(after)} tokens > target ${n(aim.total)}: ${why}`), tokensBefore: after, tokensAfter: after });
  }
  return { ctx, state, reports };
}

/** `auto` behind the plain reducer interface (one merged report). */
export function autoReducer(options: AutoOptions = {}, env: ReducerEnv = {}): Reducer {
  return {
    id: 'auto',
    reduce(ctx, budget, state) {
      const r = runAuto(ctx, budget, state, options, env);
      const first = r.reports[0];
      const last = r.reports[r.reports.length - 1];
      return {
        ctx: r.ctx,
        state: r.state,
        report: {
          stepId: ctx.step.id,
          reducer: 'auto',
          events: r.reports.reduce((n, x) => n + x.events, 0),
          tokensBefore: first?.tokensBefore ?? contextTokens(ctx),
          tokensAfter: last?.tokensAfter ?? contextTokens(r.ctx),
          notes: r.reports.flatMap((x) => x.notes.map((n) => `${x.reducer}: ${n}`)),
        },
      };
    },
  };
}
