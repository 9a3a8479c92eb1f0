/**
 * The Plan panel's state as data, and the step it stands for (pure; unit-tested). The draft step
 * keeps one id while the user edits it, because summaries are keyed by step id: a summary an LLM
 * wrote for the draft is found again once the draft is applied.
 */
import type { CompactionPlan } from '@/lib/compaction/config';
import type { ToolHint, ToolHints } from '@/lib/compaction/hints';
import type { ReducerId, ReducerSpec } from '@/lib/compaction/types';
import type { DraftStep } from '@/lib/engine/compaction';
import { reducerLabel } from '../ui/reducer-labels';

export type ManualReducerId = Exclude<ReducerId, 'auto'>;

/** Reducers offered by hand, in the order auto would run them, with their knobs. */
export const MANUAL_REDUCERS: ReadonlyArray<{ id: ManualReducerId; help: string; knobs?: ReadonlyArray<{ key: string; label: string; default: number; min?: number }> }> = [
  { id: 'strip-reasoning', help: 'Drop thinking blocks (signed reasoning is removed whole).' },
  { id: 'dedup-tools', help: 'Removes older call/result pairs a later identical call (or a later read covering their lines) makes redundant; shell commands only when read-only.' },
  {
    id: 'tool-retention',
    help: "Old tool results expire to a stub (the call stays): by each tool's lifespan in the hints table, else after N turns, or only the newest N per tool live (count).",
    knobs: [
      { key: 'turns', label: 'age (turns)', default: 5, min: 0 },
      { key: 'keep', label: 'count: keep newest N per tool (0 = by age)', default: 0, min: 0 },
    ],
  },
  { id: 'truncate-tool-results', help: 'Cut long results to a cap, by output category (head-tail, match list, file).', knobs: [{ key: 'cap', label: 'cap (tokens)', default: 4000, min: 50 }] },
  { id: 'tool-hints', help: 'Apply per-tool request/response hints (table below).' },
  { id: 'strip-tool-results', help: 'Replace results with a stub: tool name, ok/error, first line.' },
  { id: 'strip-attachments', help: 'Replace images and documents with a placeholder.' },
  { id: 'prune-tools', help: 'Drop tool schemas no call anywhere in the log uses.' },
  { id: 'sliding-window', help: 'Keep only the newest turns of the range.', knobs: [{ key: 'maxTurns', label: 'keep turns', default: 4, min: 0 }] },
  { id: 'summarize', help: 'Replace the range with a structured summary (offline, or your LLM from Settings).' },
  { id: 'emergency', help: 'Last resort: drop all but the last N messages, with a notice.', knobs: [{ key: 'keepN', label: 'keep messages', default: 6, min: 1 }] },
];

export type PlanMode = 'auto' | 'manual';

export interface PlanState {
  mode: PlanMode;
  /** Target context in tokens for auto (the whole context, as the model receives it). */
  targetBudget: number;
  keepLast: number;
  /**
   * The agent tail (Step.keepLastCalls): when the kept turns alone exceed the target (an agent run
   * is one turn of many calls), only this many last model calls stay untouched, with the prompt.
   */
  keepLastCalls: number;
  /** Step.keepLastTokens / Step.tail, from an imported config (no field of their own). */
  keepLastTokens?: number;
  tail?: 'auto' | 'turns';
  /** Summarize with the provider's own compaction API (seed 002 Native), when Settings' provider has one. */
  native?: boolean;
  /** Step.keepLastMessages: sven's compaction_keep_recent, from an imported sven config. */
  keepLastMessages?: number;
  /** Let auto summarize when the free reducers are not enough. */
  autoSummarize: boolean;
  /**
   * RFD 036 `summarize_threshold`, in percent of the model's context window: auto summarizes only
   * while the context is above it (0 = whenever the free reducers are not enough).
   */
  summarizeAbovePct: number;
  /**
   * Issue #29: Auto keeps its compaction only when the window forces it or it pays for the prompt
   * cache it breaks (lib/compaction/auto-cache.ts); the panel says what it chose, with its numbers.
   */
  cacheAware?: boolean;
  /** Issue #27 item 5: Auto's emergency step may drop messages the user typed (off unless the user ticks it). */
  dropUserMessages?: boolean;
  manual: Partial<Record<ManualReducerId, { enabled: boolean; knobs: Record<string, number> }>>;
  /** The user's per-tool overrides (over the defaults of lib/compaction/hints.ts). */
  hints: ToolHints;
  /** Auto options imported from a config (threshold, reserve, cap…). */
  autoExtra: Record<string, unknown>;
  /** Where the plan came from, when imported. */
  source?: string;
  /** An imported JP config's `fork`: Apply puts the step in a new version forked from the one shown. */
  fork?: boolean;
  /** classify-tangents: the proposed turns (0-based) the user confirmed for removal. */
  tangentTurns?: number[];
}

export function defaultPlan(contextTokens: number): PlanState {
  return {
    mode: 'auto',
    targetBudget: Math.max(1, Math.round(contextTokens * 0.5)),
    keepLast: 1,
    keepLastCalls: 3,
    autoSummarize: true,
    summarizeAbovePct: 0,
    manual: { 'strip-tool-results': { enabled: true, knobs: {} } },
    hints: {},
    autoExtra: {},
  };
}

export function newStepId(): string {
  return `s-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 7)}`;
}

function hintsFor(id: ManualReducerId, hints: ToolHints): Record<string, unknown> {
  const withHints: ManualReducerId[] = ['tool-hints', 'strip-tool-results', 'dedup-tools', 'truncate-tool-results', 'tool-retention'];
  return withHints.includes(id) && Object.keys(hints).length > 0 ? { hints } : {};
}

/** `contextWindow`: the window of the model the user inspects with (summarizeAbovePct is a share of it). */
export function planReducers(plan: PlanState, contextWindow?: number): ReducerSpec[] {
  if (plan.mode === 'auto') {
    const threshold = plan.autoSummarize && plan.summarizeAbovePct > 0 ? Math.min(100, plan.summarizeAbovePct) / 100 : undefined;
    return [
      {
        id: 'auto',
        options: {
          ...plan.autoExtra,
          summarize: plan.autoSummarize,
          ...(plan.cacheAware && { cacheAware: true }),
          ...(plan.dropUserMessages && { dropUserMessages: true }),
          ...(threshold !== undefined && { summarizeThreshold: threshold, ...(contextWindow && { contextWindow }) }),
          ...(Object.keys(plan.hints).length > 0 && { hints: plan.hints }),
        },
      },
    ];
  }
  // Confirmed tangents go first: whole turns out, then the other reducers on what remains.
  const tangents: ReducerSpec[] = plan.tangentTurns?.length ? [{ id: 'classify-tangents', options: { turns: [...plan.tangentTurns].sort((a, b) => a - b) } }] : [];
  return [...tangents, ...MANUAL_REDUCERS.filter((r) => plan.manual[r.id]?.enabled).map((r) => {
    const knobs = plan.manual[r.id]?.knobs ?? {};
    const options: Record<string, unknown> = { ...hintsFor(r.id, plan.hints) };
    for (const k of r.knobs ?? []) options[k.key] = knobs[k.key] ?? k.default;
    // Native (seed 002): the summaries are asked of the provider's own compaction API.
    if (r.id === 'summarize' && plan.native) options.producer = 'native';
    // Retention's count mode: a keep of N > 0 picks it (0 = by age).
    if (r.id === 'tool-retention') {
      if (Number(options.keep) > 0) options.mode = 'count';
      else delete options.keep;
    }
    return { id: r.id, options };
  })];
}

/** The step the plan stands for, over the selection (or every turn but keep-last when none). */
export function planToDraft(plan: PlanState, stepId: string, selection: [number, number] | null, contextWindow?: number, axis: 'turns' | 'calls' = 'turns'): DraftStep | null {
  const reducers = planReducers(plan, contextWindow);
  if (reducers.length === 0) return null;
  return {
    id: stepId,
    range: selection ? { kind: axis === 'calls' ? 'calls' : 'turns', from: selection[0], to: selection[1] } : { kind: 'all-but-last', n: 0 },
    reducers,
    keepLast: Math.max(0, Math.floor(plan.keepLast)),
    keepLastCalls: Math.max(1, Math.floor(plan.keepLastCalls || 1)),
    ...(plan.keepLastTokens !== undefined && { keepLastTokens: plan.keepLastTokens }),
    ...(plan.tail !== undefined && { tail: plan.tail }),
    ...(plan.keepLastMessages !== undefined && plan.keepLastMessages > 0 && { keepLastMessages: Math.floor(plan.keepLastMessages) }),
    ...(plan.mode === 'auto' && { budget: Math.max(1, Math.floor(plan.targetBudget)) }),
    label: plan.mode === 'auto' ? `auto → ${Math.round(plan.targetBudget).toLocaleString('en-US')} tokens` : reducers.map((r) => reducerLabel(r.id)).join(' + '),
  };
}

/** Auto's cache check, from the preview's reducer notes (lib/compaction/auto-cache.ts): what it chose and why, or null when it did not weigh. */
export function cacheDecision(notes: readonly string[]): { compacted: boolean; text: string } | null {
  for (const n of notes) {
    const at = n.indexOf('cache check: ');
    if (at < 0) continue;
    const text = n.slice(at + 'cache check: '.length);
    return { compacted: !text.startsWith('not compacted'), text };
  }
  return null;
}

/** An imported JP TOML / sven YAML config, as plan state (the user can still edit it). */
export function planFromConfig(current: PlanState, config: CompactionPlan): PlanState {
  const auto = config.strategies.some((s) => s.id === 'auto');
  const manual: PlanState['manual'] = {};
  for (const s of config.strategies) if (s.id !== 'auto') manual[s.id as ManualReducerId] = { enabled: true, knobs: {} };
  const { enabled: _enabled, profile: _profile, hints: _hints, summarizeThreshold, ...autoExtra } = config.auto as typeof config.auto & { summarizeThreshold?: number };
  return {
    ...current,
    mode: auto ? 'auto' : 'manual',
    keepLast: config.keepLast ?? current.keepLast,
    keepLastCalls: config.keepLastCalls ?? current.keepLastCalls,
    ...((config.keepLastTokens ?? current.keepLastTokens) !== undefined && { keepLastTokens: config.keepLastTokens ?? current.keepLastTokens }),
    ...((config.tail ?? current.tail) !== undefined && { tail: config.tail ?? current.tail }),
    keepLastMessages: config.keepLastMessages,
    summarizeAbovePct: typeof summarizeThreshold === 'number' ? Math.round(summarizeThreshold * 100) : current.summarizeAbovePct,
    manual: auto ? current.manual : manual,
    hints: { ...current.hints, ...config.hints },
    autoExtra: autoExtra as Record<string, unknown>,
    source: config.source === 'jp-toml' ? 'JP TOML' : 'sven YAML',
    ...(config.fork !== undefined ? { fork: config.fork } : { fork: undefined }),
  };
}

export function setHint(plan: PlanState, tool: string, patch: Partial<ToolHint>): PlanState {
  return { ...plan, hints: { ...plan.hints, [tool]: { ...plan.hints[tool], ...patch } } };
}

/** An MCP tool's name without the transport prefix: `mcp__context7__get-library-docs` → `context7 · get-library-docs`. */
export function shortToolName(name: string): string {
  const m = /^mcp__([^_]+(?:_[^_]+)*?)__(.+)$/.exec(name);
  return m ? `${m[1]} · ${m[2]}` : name;
}

/**
 * What the Auto target refers to, in words: it is always a size for the whole context (what the
 * model is sent), never for the selection alone. With a selection, say what compacting only those
 * turns can reach at best (everything outside it stays), so "50 %" never reads as "half the selection".
 */
export function targetReference(target: number, context: number, selection: { label: string; tokens: number } | null): { text: string; unreachable: boolean } {
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  const pct = context > 0 ? Math.round((target / context) * 1000) / 10 : 0;
  const base = `Target ${fmt(target)} tokens for the whole context = ${pct} % of its ${fmt(context)}`;
  if (!selection) return { text: `${base}.`, unreachable: false };
  const floor = Math.max(0, context - selection.tokens);
  if (target < floor) return { text: `${base}. ${selection.label} hold ${fmt(selection.tokens)}: even emptied, the context stays at ${fmt(floor)} (the turns outside the selection are not touched).`, unreachable: true };
  return { text: `${base}: ${selection.label} (${fmt(selection.tokens)}) must lose ${fmt(context - target)}.`, unreachable: false };
}
