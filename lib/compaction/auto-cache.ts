/**
 * Auto's cache check in the pipeline (issue #29; the inspector's Plan panel and `compact
 * --cache-aware`): the same rule as the replay's Auto (lib/compaction/cache-pays.ts). Auto computes
 * its compaction, then keeps it only if the window forces it (the prompt at or above 90 % of the
 * model's input budget, WINDOW_FORCES_AT) or if it pays for the cache it breaks over the calls
 * estimated to come (as many as the log has made, `callsSoFar`). Sizes are the model's prompt (the file's
 * tokens with the invisible overhead and calibration of the recorded usage, budget.ts
 * `modelViewOf`); the stable prefix is what the compacted context shares with the context before
 * (unchanged blocks keep their object, project.ts); a summary produced on the way is a
 * summarizer call that sends the context (read from the cache) and writes the summary, at the
 * session's model's price. The cache is taken as alive: "if the session went on now".
 */
import type { CompactionContext, ReducerState } from './context';
import { contextTokens } from './context';
import { modelViewOf } from './budget';
import { modelTokensOf } from '../tokens/model-view';
import { inputBudgetOf, lookupModel } from '../tokens/catalog';
import { modelCalls } from './calls';
import { isContextSample } from '../tokens/calibration';
import { clearAtLeast, decideEarly, estimateCallsToCome, pricingOf, WINDOW_FORCES_AT, type EarlyDecision } from './cache-pays';

/** Leading tokens (tool schemas, then main-line messages) the two contexts share, block by block. */
export function sharedPrefixTokens(a: Pick<CompactionContext, 'messages' | 'tools'>, b: Pick<CompactionContext, 'messages' | 'tools'>): number {
  if (a.tools.length !== b.tools.length || a.tools.some((t, i) => t.name !== b.tools[i].name || t.tokens !== b.tools[i].tokens)) return 0;
  let n = a.tools.reduce((s, t) => s + t.tokens, 0);
  const ma = a.messages.filter((m) => !m.sidechain);
  const mb = b.messages.filter((m) => !m.sidechain);
  for (let i = 0; i < Math.min(ma.length, mb.length); i++) {
    const x = ma[i];
    const y = mb[i];
    if (x.role !== y.role || x.sourceId !== y.sourceId) break;
    let k = 0;
    for (; k < Math.min(x.blocks.length, y.blocks.length) && x.blocks[k] === y.blocks[k]; k++) n += x.blocks[k].tokens;
    if (k < x.blocks.length || k < y.blocks.length) break;
  }
  return n;
}

/**
 * The model calls the log has made: its per-call usage records on the main line where it has them
 * (what the replay counts as recorded calls), else its runs of assistant messages.
 */
export function callsSoFar(log: CompactionContext['log']): number {
  if (log.usage.length > 0 && log.usage.every(isContextSample)) return log.usage.filter((u) => u.input + u.cacheRead + u.cacheWrite > 0 && !log.messages[u.messageIndex]?.sidechain).length;
  return modelCalls(log).length;
}

/**
 * The recorded calls of sub-agents (side chains): they send a context of their own, so they are not
 * calls to come for this one and `callsSoFar` leaves them out; the note says so, since `inspect`'s
 * "recorded calls" counts them (claude-code-viewer_fe5e1c67: 9 main-line calls of 170 recorded).
 */
export function sideChainCalls(log: CompactionContext['log']): number {
  return log.usage.filter((u) => u.input + u.cacheRead + u.cacheWrite > 0 && log.messages[u.messageIndex]?.sidechain).length;
}

export type AutoCacheCheck = { compact: true; note: string; decision?: EarlyDecision } | { compact: false; note: string; decision: EarlyDecision };

/**
 * Weigh Auto's compaction (`start` → `end`): undefined when the model is not priced (no rule to
 * apply: Auto compacts as before).
 */
function callsNote(log: CompactionContext['log'], calls: number): string {
  const side = sideChainCalls(log);
  if (side === 0) return `${calls} call${calls === 1 ? '' : 's'} so far`;
  return `${calls} main-line call${calls === 1 ? '' : 's'} so far (not the ${side.toLocaleString('en-US')} recorded call${side === 1 ? '' : 's'} of sub-agents, which send a context of their own)`;
}

export function weighAutoCompaction(start: CompactionContext, startState: ReducerState, end: CompactionContext, endState: ReducerState): AutoCacheCheck | undefined {
  const info = lookupModel(start.log.model);
  if (!info) return undefined;
  const p = pricingOf(info);
  const view = modelViewOf(start.log);
  const before = modelTokensOf(contextTokens(start), view);
  const after = modelTokensOf(contextTokens(end), view);
  const budget = inputBudgetOf(info);
  const fmt = (x: number) => Math.round(x).toLocaleString('en-US');
  if (before >= WINDOW_FORCES_AT * budget)
    return { compact: true, note: `cache check: the prompt (${fmt(before)} tokens) is at or above ${Math.round(WINDOW_FORCES_AT * 100)} % of ${info.label}'s ${fmt(budget)}-token input budget: the window forces the compaction, whatever it costs` };
  const stable = Math.min(after, view.overhead * view.factor + view.factor * sharedPrefixTokens(start, end));
  const fresh = endState.summaries.filter((s) => !startState.summaries.includes(s));
  const summaryTokens = fresh.reduce((n, s) => n + s.tokens, 0) * view.factor;
  const callUsd = fresh.length ? before * p.read + summaryTokens * p.output : 0;
  const calls = callsSoFar(start.log);
  const d = decideEarly({ before, after, stablePrefix: stable, callUsd }, p, estimateCallsToCome(calls), clearAtLeast(p, budget));
  return d.compact ? { compact: true, note: `cache check: ${d.reason}`, decision: d } : { compact: false, note: `cache check: ${d.reason}; ${info.label}, ${callsNote(start.log, calls)}, the window does not force it below ${fmt(WINDOW_FORCES_AT * budget)} tokens`, decision: d };
}
