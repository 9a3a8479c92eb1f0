/**
 * Does a compaction pay for the cache it breaks? (issue #29, the cache-aware Auto.)
 *
 * A compaction takes tokens out of the prompt, so every later call reads fewer cached tokens. But
 * it changes the prompt from its first edited message on: the next call must write everything
 * after the cache-stable prefix again, at the cache-write price, and a summarizing compaction is a
 * model call of its own. Pure: the replay (lib/simulate/calls.ts), Auto's gate in the pipeline
 * (lib/compaction/pipeline.ts, the inspector's Plan panel and `compact`) and the Replay page's
 * break-even marks all call these functions with the model's catalog pricing (`pricingOf`).
 *
 * The bill of the next call, without and with the compaction (r = cache-read price, w = the price
 * of an uncached prompt token: Anthropic's cache write, OpenAI's and Google's input):
 *   without: `before` read (r) — or written (w) when the cache has expired anyway;
 *   with:    the stable prefix read (r), the rest of the compacted prompt written (w).
 * Every later call then reads `before − after` fewer tokens. So over N calls still to come
 *   net = N × removed × r − (rewrite × (w − r) − …) − the compaction call,
 * exactly `savingsUsd − costUsd` below, with prompts under the provider's minimum cacheable size
 * billed as input. `breakEvenCalls` is the smallest N at which the net is ≥ 0: the compaction
 * ledger's own function (lib/ledger/break-even.ts, issue #26), so both say the same number.
 *
 * The number of calls still to come is an estimate (`estimateCallsToCome`): see there.
 */
import type { ModelInfo } from '../tokens/catalog';
import { cacheRules } from '../simulate/billing';
import { breakEvenCalls } from '../ledger/break-even';

/** USD per token and the cache's rules, from the model's catalog entry. */
export interface CachePricing {
  /** A cached prompt token read. */
  read: number;
  /** An uncached prompt token: a cache write where the provider bills one (× the TTL's multiplier), else input. */
  write: number;
  /** Plain input (a prompt below the minimum cacheable size; a summarizer's prompt). */
  input: number;
  output: number;
  /** The cache lives this long after the last hit (ms); 0 = no cache. */
  ttlMs: number;
  /** The smallest prefix the provider caches. */
  minTokens: number;
}

/** The model's pricing for the rule, from its catalog entry (price and `cache`). */
export function pricingOf(model: Pick<ModelInfo, 'id' | 'provider' | 'price' | 'cache'>, ttl?: '5m' | '1h'): CachePricing {
  const rules = cacheRules(model, { ...(ttl && { ttl }) });
  const p = model.price;
  const M = 1_000_000;
  if (rules.provider === 'none') return { read: p.input / M, write: p.input / M, input: p.input / M, output: p.output / M, ttlMs: 0, minTokens: Infinity };
  return { read: p.cachedRead / M, write: (rules.writes ? p.cacheWrite * rules.writePrice : p.input) / M, input: p.input / M, output: p.output / M, ttlMs: rules.ttlMs, minTokens: rules.minTokens };
}

export interface CompactionCase {
  /** Prompt tokens of the next call without the compaction. */
  before: number;
  /** Prompt tokens of the next call with it. */
  after: number;
  /** Leading tokens of the compacted prompt identical to the previous request (what the cache still holds). */
  stablePrefix: number;
  /** USD of the compaction call itself (a summarizer's call); 0 for the free reducers. */
  callUsd: number;
  /** The previous request's cache is still alive at the next call (default true). */
  cacheAlive?: boolean;
}

export interface CompactionVerdict {
  /** Tokens the compaction takes out of every later prompt. */
  removed: number;
  /** Tokens the next call writes again because the compaction changed them. */
  rewrite: number;
  /** USD the next call costs more with the compaction (the rewrite) plus the compaction call. */
  costUsd: number;
  /** USD every later call costs less. */
  perCallUsd: number;
  /** Calls (the next one included) after which the compaction has paid for itself; Infinity when it never does. */
  breakEvenCalls: number;
}

/** The prompt's own cost on a call: cached (read) when the cache holds it and it reaches the minimum, else written. */
function promptUsd(p: CachePricing, tokens: number, cached: number): number {
  if (tokens < p.minTokens) return tokens * p.input;
  const hit = cached >= p.minTokens ? Math.min(cached, tokens) : 0;
  return hit * p.read + (tokens - hit) * p.write;
}

/** What a compaction costs now and saves on each later call, and when it breaks even. */
export function judgeCompaction(c: CompactionCase, p: CachePricing): CompactionVerdict {
  const alive = c.cacheAlive !== false && p.ttlMs > 0;
  const before = Math.max(0, c.before);
  const after = Math.max(0, Math.min(c.after, before));
  const stable = Math.max(0, Math.min(c.stablePrefix, after));
  // The next call: without the compaction it reads (or, expired, writes) `before`; with it, it reads the stable prefix and writes the rest.
  const without = promptUsd(p, before, alive ? before : 0);
  const withIt = promptUsd(p, after, alive ? stable : 0);
  // Each later call: `before` and `after` both cached (their growth is the same either way).
  const perCall = promptUsd(p, before, before) - promptUsd(p, after, after);
  const costUsd = Math.max(0, withIt - without) + Math.max(0, c.callUsd);
  // The ledger's definition (issue #26), so the Replay and the ledger say the same break-even.
  const be = breakEvenCalls({ compactionUsd: Math.max(0, c.callUsd), firstCallUsd: withIt, withoutFirstUsd: without, savedPerCallUsd: perCall, callsAfter: Infinity });
  return { removed: before - after, rewrite: after - stable, costUsd, perCallUsd: perCall, breakEvenCalls: typeof be === 'number' ? be : Infinity };
}

/** The net USD of a compaction over `calls` calls (the next one included): positive = it pays. */
export function netUsd(c: CompactionCase, p: CachePricing, calls: number): number {
  const alive = c.cacheAlive !== false && p.ttlMs > 0;
  const before = Math.max(0, c.before);
  const after = Math.max(0, Math.min(c.after, before));
  const stable = Math.max(0, Math.min(c.stablePrefix, after));
  if (calls <= 0) return -Math.max(0, c.callUsd);
  const first = promptUsd(p, before, alive ? before : 0) - promptUsd(p, after, alive ? stable : 0);
  const perCall = promptUsd(p, before, before) - promptUsd(p, after, after);
  return first + (calls - 1) * perCall - Math.max(0, c.callUsd);
}

/**
 * How many calls a session that has made `callsSoFar` is still to make, when nothing else is
 * known: as many again. A session seen at a random point of its life is as likely to be in its
 * first half as in its second (Gott's "Copernican" estimate; Lindy): the median of the calls still
 * to come is the calls made so far. It grows with the session, so Auto hesitates at the start,
 * when a compaction has the fewest calls to pay back over, and compacts readily in a long session.
 * The replay uses only the calls before the decision (never the session's real length).
 */
export function estimateCallsToCome(callsSoFar: number): number {
  return Math.max(1, Math.floor(callsSoFar));
}

/**
 * The least an early (not window-forced) compaction must take out: like Anthropic's
 * `clear_at_least`, so Auto compacts seldom and much rather than often and little. The larger of
 * the model's minimum cacheable size and 5 % of its input budget. (On slopometry a tenth cost
 * $9.73 in 8 compactions, a twentieth $8.89 in 16, 3 % $8.84 in 25: each early compaction rewrites
 * little past the stable prefix, so the minimum mostly bounds how often Auto compacts.)
 */
export function clearAtLeast(p: Pick<CachePricing, 'minTokens'>, inputBudget: number): number {
  return Math.ceil(Math.max(Number.isFinite(p.minTokens) ? p.minTokens : 0, 0.05 * Math.max(0, inputBudget)));
}

/**
 * Where the window forces a compaction whatever it costs: the prompt at 90 % of the model's input
 * budget (window − max output). The replay's Auto fires there (lib/simulate/policies/replay.ts),
 * and the pipeline's cache check (auto-cache.ts) never declines above it.
 */
export const WINDOW_FORCES_AT = 0.9;

export interface EarlyDecision {
  compact: boolean;
  /** Why, in one line with its numbers (the Plan panel and `compact`'s report show it). */
  reason: string;
  verdict: CompactionVerdict;
  callsToCome: number;
  /** Net USD over the calls to come (negative: what compacting would have cost more). */
  netUsd: number;
}

const usd = (x: number) => `$${Math.abs(x) < 0.01 && x !== 0 ? Math.abs(x).toFixed(4) : Math.abs(x).toFixed(2)}`;
const tok = (n: number) => Math.round(n).toLocaleString('en-US');

/**
 * The cache-aware trigger: compact early only if it clears at least `minCleared` tokens and its
 * expected savings over the calls still to come pay for the rewrite and the compaction call.
 */
export function decideEarly(c: CompactionCase, p: CachePricing, callsToCome: number, minCleared: number): EarlyDecision {
  const verdict = judgeCompaction(c, p);
  const net = netUsd(c, p, callsToCome);
  const numbers = `takes out ${tok(verdict.removed)} tokens, rewrites ${tok(verdict.rewrite)} past the ${tok(Math.min(c.stablePrefix, c.after))}-token cache-stable prefix${c.callUsd > 0 ? ` plus a ${usd(c.callUsd)} summarizer call` : ''}; saves ${usd(verdict.perCallUsd)} a call, breaks even after ${Number.isFinite(verdict.breakEvenCalls) ? `${verdict.breakEvenCalls} call${verdict.breakEvenCalls === 1 ? '' : 's'}` : 'no number of calls'}, ~${callsToCome} to come`;
  const over = net < 0 ? `cost ${usd(-net)} more than it saves` : `save ${usd(net)}`;
  if (verdict.removed < minCleared) return { compact: false, reason: `not compacted: it would clear ${tok(verdict.removed)} tokens, under the ${tok(minCleared)} a compaction must clear (over ~${callsToCome} calls it would ${over})`, verdict, callsToCome, netUsd: net };
  if (net < 0) return { compact: false, reason: `not compacted: it would cost ${usd(-net)} more than it saves over ~${callsToCome} calls (${numbers})`, verdict, callsToCome, netUsd: net };
  return { compact: true, reason: `compacted: expected to save ${usd(net)} over ~${callsToCome} calls (${numbers})`, verdict, callsToCome, netUsd: net };
}
