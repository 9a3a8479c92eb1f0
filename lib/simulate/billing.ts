/**
 * Prompt caching as each provider bills it, for the call-by-call replay (lib/simulate/calls.ts).
 *
 * A request's cached part is the longest common prefix with the previous request, provided the
 * provider still holds it: the gap since the previous call is within the cache's time to live,
 * and the prefix reaches the provider's minimum. What the providers document (checked 2026-11):
 *  - Anthropic: explicit breakpoints; agents (Claude Code) put one on the last message, so the
 *    whole prompt is written and the next call reads it. TTL 5 min, refreshed on every hit (1 h
 *    option at 2× the input price for writes, `writePrice`); writes 1.25× input, reads 0.1×; minimum 1,024
 *    tokens (4,096 for Opus 4.5+ and Haiku 4.5).
 *  - OpenAI: automatic for prompts ≥ 1,024 tokens, cached in 128-token increments; no write
 *    charge; "typically cleared within 5 to 10 minutes of inactivity and always removed within
 *    one hour": we model the upper bound (1 h; `--cache-ttl 5m` for the lower), and the session's
 *    recorded hit share (the replay's `cacheFit`) scales the hits to what the provider served.
 *    Measured on the localpush Codex rollout: prefixes came back after gaps of 6–27 minutes, not
 *    after 59 or 77 minutes — a 5-minute model missed 0.6M cached tokens there (+8.6 % on the bill).
 *  - Google (Gemini 2.5+): implicit caching, minimum 2,048 tokens for 2.5 and 4,096 for 3.x
 *    models; no write charge; the TTL is not documented (we use 5 min) and hits are best-effort.
 * Where a provider's cache is best-effort (OpenAI routing, Gemini implicit), a recorded session
 * hits less often than this model says: the replay's error against the recorded bill is reported
 * per session, not hidden.
 */
import { lookupModel, type ModelInfo } from '../tokens/catalog';

export type CacheProvider = 'anthropic' | 'openai' | 'google' | 'none';

export interface CacheRules {
  provider: CacheProvider;
  /** Cache lifetime after the last hit or write, in ms. */
  ttlMs: number;
  /** The smallest prefix the provider caches. */
  minTokens: number;
  /** Cached lengths are rounded down to this many tokens (OpenAI: 128). */
  increment: number;
  /** The provider bills a write for the uncached part of the prompt (Anthropic). */
  writes: boolean;
  /** Multiplier on the catalog's cache-write price (Anthropic's 1-hour writes cost 2× input, not 1.25×). */
  writePrice: number;
}

const MINUTE = 60_000;

/**
 * The cache rules of a model: from its catalog entry's `cache` (lib/tokens/catalog.ts); a model
 * object without one (a caller's own) gets its provider's documented defaults.
 */
export function cacheRules(model: Pick<ModelInfo, 'id' | 'provider' | 'cache'> | undefined, options: { ttl?: '5m' | '1h' } = {}): CacheRules {
  const provider = model?.provider;
  const spec = model?.cache ?? (provider === 'anthropic' || provider === 'openai' || provider === 'google' ? lookupModel(provider === 'anthropic' ? 'claude-sonnet-4-5' : provider === 'openai' ? 'gpt-5' : 'gemini-3-pro')?.cache : undefined);
  if (!spec || (provider !== 'anthropic' && provider !== 'openai' && provider !== 'google')) return { provider: 'none', ttlMs: 0, minTokens: Infinity, increment: 1, writes: false, writePrice: 1 };
  const ttl = options.ttl ?? spec.ttlMinutes.default;
  return { provider, ttlMs: spec.ttlMinutes[ttl] * MINUTE, minTokens: spec.minTokens, increment: spec.increment, writes: spec.writes, writePrice: spec.writePrice[ttl] };
}

export interface CallBill {
  /** Uncached input tokens. */
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
  usd: number;
}

/**
 * Split one prompt into cache read, cache write and uncached input.
 * `prefix` is the tokens this prompt shares with the previous one (from its start); `alive`
 * says the previous request's cache is still held (gap ≤ TTL). `tail` is the part after the
 * last breakpoint that Anthropic bills as plain input (a few tokens in agents' requests).
 */
export function billCall(rules: CacheRules, price: ModelInfo['price'] | undefined, prompt: number, prefix: number, alive: boolean, output: number, tail = 0): CallBill {
  let cacheRead = 0;
  if (alive && prefix >= rules.minTokens) cacheRead = Math.floor(Math.min(prefix, prompt) / rules.increment) * rules.increment;
  let cacheWrite = 0;
  let input = prompt - cacheRead;
  if (rules.writes && prompt >= rules.minTokens) {
    const t = Math.min(Math.max(0, tail), input);
    cacheWrite = input - t;
    input = t;
  }
  const usd = price ? (input * price.input + cacheRead * price.cachedRead + cacheWrite * price.cacheWrite * rules.writePrice + output * price.output) / 1_000_000 : 0;
  return { input, cacheRead, cacheWrite, output, usd };
}
