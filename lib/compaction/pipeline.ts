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
import { fileBudgetFor, makeBudget, modelTokensOf, modelViewOf, triggerRatio } from './budget';
import type { Transcript } from '../model/types';
import { contextTokens, ReducerOptionError, isBool, isNum, isStr, opt, type CompactionContext, type Reducer, type ReducerState } from './context';
import { NO_HINTS, type ToolHints } from './hints';
import { createReducer, type ReducerEnv } from './reducers';
import { lookupModel } from '../tokens/catalog';
import { contextFloor } from './calls';
import { weighAutoCompaction } from './auto-cache';
import type { ReducerId, ReducerReport, ReducerSpec } from './types';

export interface AutoOptions {
  /**
   * Fire only when the model's prompt passes this fraction of the budget (of the context window
   * with `triggerOfWindow`). With `overheadReserve` it is sven's compaction_threshold and the
   * trigger is `threshold − reserve`, never below 0.1 (budget.ts `triggerRatio`).
   */
  threshold?: number;
  /** sven compaction_overhead_reserve: subtracted from `threshold` (see above). */
  overheadReserve?: number;
  /** RFD D17: `threshold` (trigger_ratio) is a fraction of the model's context window, not of the budget. */
  triggerOfWindow?: boolean;
  /** sven: at or above this fraction of the budget, emergency runs directly (no other stage, no model call). */
  emergencyAt?: number;
  minTurns?: number;
  hints?: ToolHints;
  /** tool_result_token_cap (sven, default 4000). */
  toolResultCap?: number;
  /** Tools without a retention hint: 'age' (default; results live retentionTurns turns) or 'count' (the newest retentionKeep per tool). */
  retentionMode?: 'age' | 'count';
  /** Age in turns after which results of tools without a retention hint expire (default 5). */
  retentionTurns?: number;
  /** Count mode: results per tool that live (default 5). */
  retentionKeep?: number;
  /** Run summarize when the free reducers are not enough (default true). */
  summarize?: boolean;
  style?: string;
  onFailure?: 'emergency' | 'leave';
  /** Run emergency as the last resort (default true). */
  emergency?: boolean;
  /** Issue #27 item 5: emergency may drop messages the user typed (and summaries quoting them); off by default. */
  dropUserMessages?: boolean;
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
  /**
   * Stages that run in full, in order, when the gate fires, instead of auto's ladder:
   *  - RFD D17 `[conversation.compaction.auto]` with a profile that is not auto itself (a strategy
   *    name, or "default" = the strategy list): the gate (trigger_ratio, min_turns) decides whether
   *    the profile runs;
   *  - sven's normal path: one summary of everything but the newest keep_n messages (svenNormalPath).
   */
  onFire?: ReducerSpec[];
  /** sven: every tool result is capped at `toolResultCap` as it enters, before any gate (seed 003 layer 4). */
  capOnEntry?: boolean;
  /**
   * Seed 004: the free deterministic reducers always run, whatever the gate says: tool-result
   * retention (age `retentionTurns` or count) and the sliding window's cap, when one is given.
   */
  freeAlways?: boolean;
  /** Seed 004 §2: a turn cap on the dialogue (sliding window), a stage before summaries. */
  windowTurns?: number;
  /** Seed 004 §2: a token cap on the dialogue (sliding window), a stage before summaries. */
  windowTokens?: number;
  /** Seed 004: tokens kept free for what a harness injects after compaction: reduce to budget − reserve. */
  injectionReserve?: number;
  /**
   * Seed 004: a safety margin on estimated counts: aim this fraction below the target. 'calibration'
   * = the log's measured calibration error (mean |estimate − recorded| / recorded), at most 25 %.
   */
  safetyMargin?: number | 'calibration';
  /**
   * Issue #29: keep the compaction only if the window forces it or it pays for the cache it breaks
   * (auto-cache.ts); otherwise leave the context as it was and say by how much it would have cost more.
   */
  cacheAware?: boolean;
}

/** The stage list, in order. Exposed for the UI ("what auto will do") and the tests. */
/** Tokens as people read them in notes: 13,962. */
const n = (tokens: number) => tokens.toLocaleString('en-US');

export function autoStages(options: AutoOptions = {}): ReducerSpec[] {
  const hints = options.hints ?? NO_HINTS;
  const stages: ReducerSpec[] = [
    { id: 'strip-reasoning', options: { untilFits: true } },
    { id: 'dedup-tools', options: { untilFits: true, hints, ...(options.conservative && { mode: 'stub' }) } },
    // Every tool's lifespan from the hints table (hints.ts: count for reads/searches/shells, age for
    // edits, never for sub-agents and memory); a tool with none lives retentionTurns turns.
    { id: 'tool-retention', options: { untilFits: true, hints, mode: options.retentionMode ?? 'age', turns: options.retentionTurns ?? 5, ...(options.retentionKeep !== undefined && { keep: options.retentionKeep }) } },
    { id: 'truncate-tool-results', options: { untilFits: true, hints, cap: options.toolResultCap ?? 4000 } },
    { id: 'tool-hints', options: { untilFits: true, hints, ...(options.conservative && { requests: false, pairs: false }) } },
    { id: 'strip-tool-results', options: { untilFits: true, hints } },
    { id: 'strip-attachments', options: { untilFits: true } },
    { id: 'prune-tools', options: {} },
  ];
  // Seed 004 §2: the sliding window's cap on the dialogue, before summaries.
  if (options.windowTurns !== undefined || options.windowTokens !== undefined) stages.push({ id: 'sliding-window', options: { ...(options.windowTurns !== undefined && { maxTurns: options.windowTurns }), ...(options.windowTokens !== undefined && { maxTokens: options.windowTokens }) } });
  if (options.summarize !== false) stages.push({ id: 'summarize', options: { untilFits: true, onFailure: options.onFailure ?? 'emergency', ...(options.style && { style: options.style }), emergencyKeepN: options.keepN ?? 6, dropUserMessages: options.dropUserMessages === true } });
  if (options.emergency !== false) stages.push({ id: 'emergency', options: { untilFits: true, keepN: options.keepN ?? 6, dropUserMessages: options.dropUserMessages === true } });
  const skip = new Set<ReducerId>([...(options.skip ?? []), ...(options.conservative ? (['prune-tools'] as const) : [])]);
  return stages.filter((s) => !skip.has(s.id));
}


export function parseAutoOptions(o: Record<string, unknown> = {}): AutoOptions {
  try {
    return readAutoOptions(o);
  } catch (e) {
    if (e instanceof ReducerOptionError && !e.reducer) throw new ReducerOptionError(e.option, e.expected, e.got, 'auto');
    throw e;
  }
}

function readAutoOptions(o: Record<string, unknown>): AutoOptions {
  return {
    threshold: opt(o, 'threshold', 1, isNum),
    ...(isNum(o.overheadReserve) && { overheadReserve: o.overheadReserve }),
    ...(o.triggerOfWindow === true && { triggerOfWindow: true }),
    ...(isNum(o.emergencyAt) && o.emergencyAt > 0 && { emergencyAt: o.emergencyAt }),
    minTurns: opt(o, 'minTurns', 0, isNum),
    hints: (o.hints ?? NO_HINTS) as ToolHints,
    toolResultCap: opt(o, 'toolResultCap', 4000, isNum),
    retentionTurns: opt(o, 'retentionTurns', 5, isNum),
    ...(o.retentionMode === 'count' || o.retentionMode === 'age' ? { retentionMode: o.retentionMode } : {}),
    ...(isNum(o.retentionKeep) && { retentionKeep: o.retentionKeep }),
    summarize: opt(o, 'summarize', true, isBool),
    style: opt<string | undefined>(o, 'style', undefined, (v): v is string | undefined => isStr(v)),
    onFailure: o.onFailure === 'leave' ? 'leave' : 'emergency',
    emergency: opt(o, 'emergency', true, isBool),
    ...(o.dropUserMessages === true && { dropUserMessages: true }),
    keepN: opt(o, 'keepN', 6, isNum),
    skip: Array.isArray(o.skip) ? (o.skip.filter((x) => typeof x === 'string') as ReducerId[]) : [],
    conservative: opt(o, 'conservative', false, isBool),
    // Not a fraction in (0, 1] = not set (behaviour unchanged), never a silent default that would gate summarize.
    ...(isNum(o.summarizeThreshold) && o.summarizeThreshold > 0 && o.summarizeThreshold <= 1 && { summarizeThreshold: o.summarizeThreshold }),
    ...(isNum(o.contextWindow) && o.contextWindow > 0 && { contextWindow: o.contextWindow }),
    ...(Array.isArray(o.onFire) && { onFire: o.onFire as ReducerSpec[] }),
    ...(o.capOnEntry === true && { capOnEntry: true }),
    ...(o.freeAlways === true && { freeAlways: true }),
    ...(isNum(o.windowTurns) && o.windowTurns >= 0 && { windowTurns: o.windowTurns }),
    ...(isNum(o.windowTokens) && o.windowTokens >= 0 && { windowTokens: o.windowTokens }),
    ...(isNum(o.injectionReserve) && o.injectionReserve > 0 && { injectionReserve: o.injectionReserve }),
    ...((o.safetyMargin === 'calibration' || (isNum(o.safetyMargin) && o.safetyMargin >= 0 && o.safetyMargin < 1)) && { safetyMargin: o.safetyMargin as number | 'calibration' }),
    ...(o.cacheAware === true && { cacheAware: true }),
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

/**
 * The one definition of auto's gate, in the file's tokens (what `inspect` counts), for the
 * pipeline and the peers' lines alike. The trigger fraction applies to the model's prompt: the
 * budget and the context are both taken with the invisible overhead and the calibration factor
 * of the log's recorded usage (budget.ts `modelViewOf`), then brought back to file tokens.
 *  - no threshold: trigger = target = the budget;
 *  - sven (`overheadReserve`): trigger = target = max(threshold − reserve, 0.1) × budget;
 *    emergency directly at `emergencyAt` × budget;
 *  - RFD D17 (`triggerOfWindow`): trigger = trigger_ratio × the context window; target = min(budget, trigger).
 */
export function autoGate(
  log: Transcript,
  budgetTotal: number,
  options: AutoOptions,
): { trigger: number; target: number; emergency?: number; why: string } | { skip: string } {
  const threshold = options.threshold ?? 1;
  const reserve = options.overheadReserve;
  if (threshold >= 1 && reserve === undefined && !options.triggerOfWindow && options.emergencyAt === undefined) return { trigger: budgetTotal, target: budgetTotal, why: '' };
  const view = modelViewOf(log);
  const modelBudget = modelTokensOf(budgetTotal, view);
  const ratio = reserve !== undefined ? triggerRatio(threshold, reserve) : threshold;
  const shown = view.overhead > 0 || view.factor !== 1 ? ` (with ${n(view.overhead)} overhead, ×${view.factor.toFixed(2)} calibration)` : '';
  let trigger: number;
  let why: string;
  if (options.triggerOfWindow) {
    const window = options.contextWindow ?? lookupModel(log.model)?.contextWindow;
    if (window === undefined) return { skip: `trigger_ratio: the context window of ${log.model ?? 'the model'} is unknown: automatic compaction skipped (RFD D17)` };
    trigger = fileBudgetFor(Math.floor(window * threshold), view);
    why = ` = ${percent(threshold)} of the ${n(window)}-token window${shown}`;
  } else {
    trigger = ratio >= 1 ? budgetTotal : fileBudgetFor(Math.floor(modelBudget * ratio), view);
    why = reserve !== undefined ? ` = ${percent(threshold)} − ${percent(reserve)} reserve of the budget${shown}` : ` = ${percent(threshold)} of the budget${shown}`;
  }
  const target = Math.min(budgetTotal, trigger);
  const emergency = options.emergencyAt !== undefined ? fileBudgetFor(Math.ceil(modelBudget * options.emergencyAt), view) : undefined;
  return { trigger, target, why, ...(emergency !== undefined && { emergency }) };
}

export interface AutoResult {
  ctx: CompactionContext;
  state: ReducerState;
  reports: ReducerReport[];
}

export function runAuto(ctx: CompactionContext, budget: Budget, state: ReducerState, options: AutoOptions, env: ReducerEnv = {}): AutoResult {
  const reports: ReducerReport[] = [];
  const run = (spec: ReducerSpec, b: Budget, quiet = false) => {
    const r = createReducer(spec, env).reduce(ctx, b, state);
    ctx = r.ctx;
    state = r.state;
    // The stages that run whatever the gate says are reported when they changed something.
    if (!quiet || r.report.events > 0) reports.push(r.report);
  };
  // sven (seed 003 layer 4): every result is capped as it enters the session, before any gate.
  // Every result, the newest keep_n messages' too (keep_recent protects them from compaction, not from the cap they entered with).
  if (options.capOnEntry) {
    const window = ctx.window;
    ctx = { ...ctx, window: { from: window?.from ?? 0, to: Math.max(window?.to ?? 0, ctx.log.turnCount - 1) } };
    run({ id: 'truncate-tool-results', options: { cap: options.toolResultCap ?? 4000, hints: options.hints ?? NO_HINTS } }, budget, true);
    ctx = { ...ctx, window };
  }
  // Seed 004: "run the free deterministic reducers always": retention and the window's cap, by their own rules.
  if (options.freeAlways) {
    run({ id: 'tool-retention', options: { hints: options.hints ?? NO_HINTS, mode: options.retentionMode ?? 'age', turns: options.retentionTurns ?? 5, ...(options.retentionKeep !== undefined && { keep: options.retentionKeep }) } }, budget, true);
    if (options.windowTurns !== undefined || options.windowTokens !== undefined) run({ id: 'sliding-window', options: { ...(options.windowTurns !== undefined && { maxTurns: options.windowTurns }), ...(options.windowTokens !== undefined && { maxTokens: options.windowTokens }) } }, budget, true);
  }
  const before = contextTokens(ctx);
  const note = (text: string): ReducerReport => ({ stepId: ctx.step.id, reducer: 'auto', events: 0, tokensBefore: before, tokensAfter: before, notes: [text] });
  const done = (text: string): AutoResult => ({ ctx, state, reports: [...reports, note(text)] });
  // A JP profile behind its window trigger needs no budget (it runs in full when the trigger fires).
  if (!Number.isFinite(budget.total) && !(options.onFire && options.triggerOfWindow)) return done('no budget: auto has nothing to aim at');
  const gate = autoGate(ctx.log, budget.total, options);
  if ('skip' in gate) return done(gate.skip);
  const { trigger } = gate;
  if (before <= trigger) return done(`${n(before)} tokens ≤ trigger ${n(trigger)}${gate.why}: nothing to do`);
  if (ctx.log.turnCount <= (options.minTurns ?? 0)) return done(`${ctx.log.turnCount} turn(s) ≤ min_turns ${options.minTurns}: left alone`);
  const aim = makeBudget(Math.max(1, aimOf(ctx.log, gate.target, options, reports, note)), budget.counter, budget.caps);
  let belowSummarizeThreshold = false;
  let stages = autoStages(options);
  let inFull = false;
  if (gate.emergency !== undefined && before >= gate.emergency) {
    // sven: context_fraction ≥ 0.95 → emergency_compact() directly, no model call.
    reports.push(note(`${n(before)} tokens ≥ ${percent(options.emergencyAt!)} of the budget (${n(gate.emergency)}${gate.why}): emergency directly`));
    // sven's emergency_compact(): every non-system message but the newest keep_n, exactly.
    stages = [{ id: 'emergency', options: { untilFits: false, keepN: options.keepN ?? 6, dropUserMessages: true } }];
  } else if (options.onFire) {
    // RFD D17: "compaction is applied using the configured profile" once the trigger fires; sven: its normal path.
    inFull = true;
    stages = options.onFire;
    reports.push(note(`${n(before)} tokens > ${gate.why ? 'trigger' : 'budget'} ${n(trigger)}${gate.why}: fires`));
    reports.push(note(`${options.minTurns ? `${ctx.log.turnCount} turns > min_turns ${options.minTurns}: ` : ''}${options.triggerOfWindow ? 'the profile runs' : 'runs in full'} (${stages.map((s) => s.id).join(', ')})`));
  } else if (gate.why) reports.push(note(`${n(before)} tokens > trigger ${n(trigger)}${gate.why}: fires`));
  const start = { ctx, state };
  const gateNotes = reports.length;
  for (const spec of stages) {
    const now = contextTokens(ctx);
    if (inFull) {
      run(spec, budget);
      continue;
    }
    if (now <= aim.total) break;
    if (spec.id === 'summarize' && options.summarizeThreshold !== undefined) {
      const window = summarizeWindow(options, ctx.log.model, budget.total);
      // The model's prompt (the file's tokens with the invisible overhead and the calibration
      // factor of the recorded usage), as every other gate measures it: not the file's tokens.
      const view = modelViewOf(ctx.log);
      const sent = modelTokensOf(now, view);
      const ratio = sent / window.tokens;
      const measured = view.overhead > 0 || view.factor !== 1 ? `${n(sent)} sent for ${n(now)} in the file, with ${n(view.overhead)} overhead, ×${view.factor.toFixed(2)} calibration` : n(now);
      const where = `context ${percent(ratio, true)} of the window (${measured} of ${n(window.tokens)} tokens, ${window.from})`;
      if (sent <= options.summarizeThreshold * window.tokens) {
        belowSummarizeThreshold = true;
        reports.push({ ...note(`summarize skipped: ${where}, ${ratio < options.summarizeThreshold ? 'below' : 'at'} summarize_threshold ${percent(options.summarizeThreshold)}`), tokensBefore: now, tokensAfter: now });
        break;
      }
      reports.push({ ...note(`summarize runs: ${where}, above summarize_threshold ${percent(options.summarizeThreshold)}`), tokensBefore: now, tokensAfter: now });
    }
    run(spec, aim);
  }
  if (inFull) return { ctx, state, reports };
  if (options.cacheAware && contextTokens(ctx) < before) {
    const check = weighAutoCompaction(start.ctx, start.state, ctx, state);
    if (check && !check.compact) return { ctx: start.ctx, state: start.state, reports: [...reports.slice(0, gateNotes), note(check.note)] };
    if (check) reports.push({ ...note(check.note), tokensBefore: contextTokens(ctx), tokensAfter: contextTokens(ctx) });
  }
  const after = contextTokens(ctx);
  if (after > aim.total) reports.push(overTargetNote(ctx, ctx.step.id, after, aim.total, belowSummarizeThreshold));
  return { ctx, state, reports };
}

/** Over-target notes written (issue 31: the replay's looks read no note; counted by a test). */
export const autoWork = { overTargetNotes: 0 };

/**
 * The "still N tokens > target" row, its note written when first read. Its why (overTargetReason,
 * contextFloor) is two passes over the context, and the replay's looks (every early look of Auto
 * runs its free reducers to a budget of 1 token, so each ends over it) read a projection's
 * messages, fates and sizes, never its reports (issue 31). JSON, spreads and structured clones read
 * `notes` as before: the same text, in the same place among the row's keys.
 */
function overTargetNote(ctx: CompactionContext, stepId: string, after: number, target: number, belowSummarizeThreshold: boolean): ReducerReport {
  let notes: string[] | undefined;
  return {
    stepId,
    reducer: 'auto',
    events: 0,
    tokensBefore: after,
    tokensAfter: after,
    get notes(): string[] {
      if (notes) return notes;
      autoWork.overTargetNotes++;
      let why = belowSummarizeThreshold ? 'auto stopped after the free reducers (below summarize_threshold)' : overTargetReason(ctx, target);
      if (!belowSummarizeThreshold) {
        const f = contextFloor(ctx.log, ctx.messages, ctx.tools);
        why += `; the floor (system ${n(f.system)} + user messages ${n(f.user)} + the last model call ${n(f.lastCall)}) is ${n(f.total)} tokens${f.total > target ? ', above the target' : ''}`;
      }
      return (notes = [`still ${n(after)} tokens > target ${n(target)}: ${why}`]);
    },
  };
}

/**
 * Where auto aims: the gate's target, less seed 004's injection reserve and safety margin (each
 * said in the report when set). Without them, the target itself.
 */
function aimOf(log: Transcript, target: number, options: AutoOptions, reports: ReducerReport[], note: (t: string) => ReducerReport): number {
  let aim = target;
  const parts: string[] = [];
  if (options.injectionReserve) {
    aim -= options.injectionReserve;
    parts.push(`− ${n(options.injectionReserve)} injection reserve`);
  }
  if (options.safetyMargin !== undefined) {
    const view = modelViewOf(log);
    const margin = options.safetyMargin === 'calibration' ? Math.min(0.25, view.error ?? 0) : options.safetyMargin;
    if (margin > 0) {
      aim = Math.floor(aim * (1 - margin));
      parts.push(`− ${percent(margin)} safety margin${options.safetyMargin === 'calibration' ? ' (the calibration error of the recorded usage)' : ''}`);
    }
  }
  if (parts.length) reports.push(note(`aims at ${n(Math.max(1, aim))} = target ${n(target)} ${parts.join(' ')}`));
  return aim;
}

/** The stages of sven's normal path (seed 003): one summary of everything but the newest keep_n messages (the step's keepLastMessages), no chunks; a failed or empty summary falls back to emergency. */
export function svenNormalPath(style: string | undefined, keepN: number): ReducerSpec[] {
  return [{ id: 'summarize', options: { untilFits: false, chunkTokens: Number.MAX_SAFE_INTEGER, onFailure: 'emergency', emergencyKeepN: keepN, ...(style && { style }) } }];
}

/** "turns 10–14" (1-based, as the user reads them). */
function turnSpan(lo: number, hi: number): string {
  return lo === hi ? `turn ${lo + 1}` : `turns ${lo + 1}–${hi + 1}`;
}

/**
 * Why a context is still over the target after every stage, in true parts: the target is for the
 * whole context, and a step may only edit its range minus keep_last. What lies outside the range
 * (turns before or after a selection), in keep_last, or in the system prompt and tool schemas is
 * out of its reach; what is left inside the range is what the reducers could not take out.
 */
export function overTargetReason(ctx: CompactionContext, target: number): string {
  const w = ctx.window;
  const range = ctx.step.range;
  const rangeEnd = range.kind === 'turns' ? Math.min(range.to, ctx.log.turnCount - 1) : ctx.log.turnCount - 1;
  type Part = { label: (lo: number, hi: number) => string; tokens: number; lo: number; hi: number };
  const part = (label: Part['label']): Part => ({ label, tokens: 0, lo: Infinity, hi: -Infinity });
  const fixed = part(() => 'the system prompt and tool schemas');
  const before = part((lo, hi) => `${turnSpan(lo, hi)} before the range`);
  const beyond = part((lo, hi) => `${turnSpan(lo, hi)} after the range (not selected)`);
  const kept = part((lo, hi) => `${turnSpan(lo, hi)} kept by keep_last ${ctx.step.keepLast}`);
  const inRange = part((lo, hi) => `what is left of ${turnSpan(lo, hi)} in the range`);
  for (const t of ctx.tools) fixed.tokens += t.tokens;
  for (const m of ctx.messages) {
    if (m.sidechain) continue;
    let tokens = 0;
    for (const b of m.blocks) tokens += b.tokens;
    const p = m.role === 'system' ? fixed : w && m.turn >= w.from && m.turn <= w.to ? inRange : w && m.turn < w.from ? before : m.turn > rangeEnd ? beyond : kept;
    p.tokens += tokens;
    p.lo = Math.min(p.lo, m.turn);
    p.hi = Math.max(p.hi, m.turn);
  }
  const say = (p: Part) => `${p.label(p.lo, p.hi)} (${n(p.tokens)})`;
  const outOfReach = [beyond, before, kept, fixed].filter((p) => p.tokens > 0).sort((a, b) => b.tokens - a.tokens);
  const unreachable = outOfReach.reduce((s, p) => s + p.tokens, 0);
  if (unreachable > target) {
    const named = outOfReach.map(say).join(', ');
    return `the target is for the whole context, and what this step may not edit alone exceeds it: ${named}${outOfReach.length > 1 ? ` = ${n(unreachable)}` : ''}`;
  }
  return `${say(inRange)} is more than the ${n(Math.max(0, target - unreachable))} the target leaves for it once ${outOfReach.length ? outOfReach.map(say).join(', ') : 'nothing else'} ${outOfReach.length === 1 ? 'is' : 'are'} counted: no reducer took out more`;
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
