/**
 * Model catalog: context window, maximum output and list prices per million tokens (input,
 * cached read, cache write, output). `inputBudget = window − maxOutput` (sven: the model needs
 * room for a full-length reply).
 *
 * Prices are the providers' published list prices for the base tier (≤ 200k prompt where tiered)
 * as of late 2025; open-weight models have no single price — the figure is a typical hosted
 * price and is marked `hosted: true`. Update the table, not the code.
 */
export interface ModelInfo {
  /** Canonical id. */
  id: string;
  provider: 'anthropic' | 'openai' | 'google' | 'meta' | 'qwen' | 'deepseek' | 'mistral';
  label: string;
  contextWindow: number;
  maxOutput: number;
  /** USD per million tokens. */
  price: { input: number; cachedRead: number; cacheWrite: number; output: number };
  /** Price is a typical third-party hosting price, not the vendor's. */
  hosted?: boolean;
  /** Other ids that mean this model (prefix match after normalization). */
  aliases?: string[];
  /** Set on lookups that fell back to a family's newest entry (an unknown newer version). */
  approximate?: boolean;
  /**
   * The provider's prompt cache for this model: how long it lives, the smallest prefix it caches,
   * and whether writes are billed (lib/simulate/billing.ts bills with it; the cache-aware Auto,
   * lib/compaction/cache-pays.ts, weighs a compaction with it). Absent = no prompt cache.
   */
  cache?: CacheSpec;
}

/** A model's prompt cache, as its provider documents it (billing.ts has the sources). */
export interface CacheSpec {
  /** Lifetime after the last hit or write, in minutes, by TTL option; `default` names the one used. */
  ttlMinutes: { '5m': number; '1h': number; default: '5m' | '1h' };
  /** Multiplier on `price.cacheWrite` per TTL option (Anthropic's 1-hour writes: 2× input instead of 1.25×). */
  writePrice: { '5m': number; '1h': number };
  /** The smallest prefix the provider caches, in tokens. */
  minTokens: number;
  /** Cached lengths are rounded down to this many tokens (OpenAI: 128). */
  increment: number;
  /** The uncached part of a prompt is billed as a cache write (Anthropic), not as input. */
  writes: boolean;
}

// Anthropic: explicit breakpoints, 5 min (1 h option, writes 2× input), minimum 1,024 tokens
// (4,096 for Opus 4.5+ and Haiku 4.5).
const ANTHROPIC_CACHE = (minTokens: number): CacheSpec => ({ ttlMinutes: { '5m': 5, '1h': 60, default: '5m' }, writePrice: { '5m': 1, '1h': 2 / 1.25 }, minTokens, increment: 1, writes: true });
// OpenAI: automatic from 1,024 tokens in 128-token steps, kept 5 to 60 minutes (we default to the hour).
const OPENAI_CACHE: CacheSpec = { ttlMinutes: { '5m': 5, '1h': 60, default: '1h' }, writePrice: { '5m': 1, '1h': 1 }, minTokens: 1024, increment: 128, writes: false };
// Google: implicit caching, minimum 2,048 tokens (2.5) or 4,096 (3.x); TTL undocumented (5 min).
const GOOGLE_CACHE = (minTokens: number): CacheSpec => ({ ttlMinutes: { '5m': 5, '1h': 5, default: '5m' }, writePrice: { '5m': 1, '1h': 1 }, minTokens, increment: 1, writes: false });

const A = (id: string, label: string, win: number, out: number, input: number, output: number, aliases: string[] = [], cacheMin = 1024): ModelInfo => ({
  id,
  provider: 'anthropic',
  label,
  contextWindow: win,
  maxOutput: out,
  // Anthropic: cache reads 0.1×, 5-minute cache writes 1.25× the input price.
  price: { input, cachedRead: round(input * 0.1), cacheWrite: round(input * 1.25), output },
  aliases,
  cache: ANTHROPIC_CACHE(cacheMin),
});
const O = (id: string, label: string, win: number, out: number, input: number, cached: number, output: number, aliases: string[] = []): ModelInfo => ({
  id,
  provider: 'openai',
  label,
  contextWindow: win,
  maxOutput: out,
  // OpenAI: no separate cache-write charge.
  price: { input, cachedRead: cached, cacheWrite: input, output },
  aliases,
  cache: OPENAI_CACHE,
});
const G = (id: string, label: string, win: number, out: number, input: number, cached: number, output: number, aliases: string[] = []): ModelInfo => ({
  id,
  provider: 'google',
  label,
  contextWindow: win,
  maxOutput: out,
  price: { input, cachedRead: cached, cacheWrite: input, output },
  aliases,
  cache: GOOGLE_CACHE(/^gemini-2\.5/.test(id) ? 2048 : 4096),
});
const H = (
  id: string,
  provider: ModelInfo['provider'],
  label: string,
  win: number,
  out: number,
  input: number,
  output: number,
  cached = input,
  aliases: string[] = [],
): ModelInfo => ({ id, provider, label, contextWindow: win, maxOutput: out, price: { input, cachedRead: cached, cacheWrite: input, output }, hosted: true, aliases });

function round(n: number): number {
  return Math.round(n * 10000) / 10000;
}

export const MODEL_CATALOG: readonly ModelInfo[] = [
  // Anthropic
  A('claude-opus-4-5', 'Claude Opus 4.5', 200_000, 64_000, 5, 25, ['claude-opus-4.5', 'claude-4-5-opus'], 4096),
  A('claude-opus-4-1', 'Claude Opus 4.1', 200_000, 32_000, 15, 75, ['claude-opus-4.1']),
  A('claude-opus-4', 'Claude Opus 4', 200_000, 32_000, 15, 75, ['claude-4-opus', 'opus']),
  A('claude-sonnet-4-5', 'Claude Sonnet 4.5', 200_000, 64_000, 3, 15, ['claude-sonnet-4.5', 'claude-4-5-sonnet']),
  A('claude-sonnet-4', 'Claude Sonnet 4', 200_000, 64_000, 3, 15, ['claude-4-sonnet', 'sonnet']),
  A('claude-haiku-4-5', 'Claude Haiku 4.5', 200_000, 64_000, 1, 5, ['claude-haiku-4.5', 'claude-4-5-haiku', 'haiku'], 4096),
  A('claude-3-7-sonnet', 'Claude Sonnet 3.7', 200_000, 64_000, 3, 15, ['claude-3.7-sonnet']),
  A('claude-3-5-sonnet', 'Claude Sonnet 3.5', 200_000, 8_192, 3, 15, ['claude-3.5-sonnet']),
  A('claude-3-5-haiku', 'Claude Haiku 3.5', 200_000, 8_192, 0.8, 4, ['claude-3.5-haiku']),
  A('claude-3-opus', 'Claude Opus 3', 200_000, 4_096, 15, 75),
  A('claude-3-sonnet', 'Claude Sonnet 3', 200_000, 4_096, 3, 15),
  A('claude-3-haiku', 'Claude Haiku 3', 200_000, 4_096, 0.25, 1.25),
  // OpenAI
  O('gpt-5.2', 'GPT-5.2', 400_000, 128_000, 1.75, 0.175, 14),
  O('gpt-5.1-codex-mini', 'GPT-5.1 Codex mini', 400_000, 128_000, 0.25, 0.025, 2),
  O('gpt-5.1-codex', 'GPT-5.1 Codex', 400_000, 128_000, 1.25, 0.125, 10, ['gpt-5.1-codex-max']),
  O('gpt-5.1', 'GPT-5.1', 400_000, 128_000, 1.25, 0.125, 10),
  O('gpt-5-codex', 'GPT-5 Codex', 400_000, 128_000, 1.25, 0.125, 10, ['codex-mini']),
  O('gpt-5-mini', 'GPT-5 mini', 400_000, 128_000, 0.25, 0.025, 2),
  O('gpt-5-nano', 'GPT-5 nano', 400_000, 128_000, 0.05, 0.005, 0.4),
  O('gpt-5', 'GPT-5', 400_000, 128_000, 1.25, 0.125, 10),
  O('gpt-4.1-mini', 'GPT-4.1 mini', 1_047_576, 32_768, 0.4, 0.1, 1.6),
  O('gpt-4.1-nano', 'GPT-4.1 nano', 1_047_576, 32_768, 0.1, 0.025, 0.4),
  O('gpt-4.1', 'GPT-4.1', 1_047_576, 32_768, 2, 0.5, 8),
  O('gpt-4o-mini', 'GPT-4o mini', 128_000, 16_384, 0.15, 0.075, 0.6),
  O('gpt-4o', 'GPT-4o', 128_000, 16_384, 2.5, 1.25, 10, ['chatgpt-4o']),
  O('gpt-4-turbo', 'GPT-4 Turbo', 128_000, 4_096, 10, 10, 30),
  O('gpt-4', 'GPT-4', 8_192, 8_192, 30, 30, 60),
  O('gpt-3.5-turbo', 'GPT-3.5 Turbo', 16_385, 4_096, 0.5, 0.5, 1.5),
  O('o4-mini', 'o4-mini', 200_000, 100_000, 1.1, 0.275, 4.4),
  O('o3-mini', 'o3-mini', 200_000, 100_000, 1.1, 0.55, 4.4),
  O('o3-pro', 'o3-pro', 200_000, 100_000, 20, 20, 80),
  O('o3', 'o3', 200_000, 100_000, 2, 0.5, 8),
  O('o1', 'o1', 200_000, 100_000, 15, 7.5, 60),
  { ...O('gpt-oss-120b', 'gpt-oss-120b', 131_072, 131_072, 0.15, 0.15, 0.6), hosted: true },
  { ...O('gpt-oss-20b', 'gpt-oss-20b', 131_072, 131_072, 0.05, 0.05, 0.2), hosted: true },
  // Google (≤ 200k prompt tier)
  G('gemini-3-pro', 'Gemini 3 Pro', 1_048_576, 65_536, 2, 0.2, 12),
  G('gemini-3-flash', 'Gemini 3 Flash', 1_048_576, 65_536, 0.5, 0.05, 3),
  G('gemini-2.5-pro', 'Gemini 2.5 Pro', 1_048_576, 65_536, 1.25, 0.125, 10),
  G('gemini-2.5-flash-lite', 'Gemini 2.5 Flash-Lite', 1_048_576, 65_536, 0.1, 0.01, 0.4),
  G('gemini-2.5-flash', 'Gemini 2.5 Flash', 1_048_576, 65_536, 0.3, 0.03, 2.5),
  G('gemini-2.0-flash', 'Gemini 2.0 Flash', 1_048_576, 8_192, 0.1, 0.025, 0.4),
  G('gemini-1.5-pro', 'Gemini 1.5 Pro', 2_097_152, 8_192, 1.25, 0.3125, 5),
  // Open models (typical hosted prices)
  H('llama-4-maverick', 'meta', 'Llama 4 Maverick', 1_048_576, 16_384, 0.27, 0.85),
  H('llama-4-scout', 'meta', 'Llama 4 Scout', 10_000_000, 16_384, 0.18, 0.59),
  H('llama-3.3-70b', 'meta', 'Llama 3.3 70B', 131_072, 8_192, 0.6, 0.6, 0.6, ['llama3.3', 'llama-3.3']),
  H('llama-3.1-405b', 'meta', 'Llama 3.1 405B', 131_072, 8_192, 3, 3),
  H('llama-3.1-70b', 'meta', 'Llama 3.1 70B', 131_072, 8_192, 0.6, 0.6),
  H('llama-3.1-8b', 'meta', 'Llama 3.1 8B', 131_072, 8_192, 0.05, 0.08, 0.05, ['llama3.1', 'llama-3']),
  H('qwen3-coder', 'qwen', 'Qwen3 Coder 480B', 262_144, 65_536, 0.4, 1.6),
  H('qwen3-235b', 'qwen', 'Qwen3 235B', 131_072, 32_768, 0.2, 0.6),
  H('qwen3-32b', 'qwen', 'Qwen3 32B', 131_072, 16_384, 0.1, 0.3, 0.1, ['qwen3']),
  H('qwen2.5-coder-32b', 'qwen', 'Qwen2.5 Coder 32B', 131_072, 8_192, 0.07, 0.16, 0.07, ['qwen2.5-coder', 'qwen-2.5-coder']),
  H('qwen2.5-72b', 'qwen', 'Qwen2.5 72B', 131_072, 8_192, 0.35, 0.4, 0.35, ['qwen2.5', 'qwen']),
  { ...H('deepseek-v3.2', 'deepseek', 'DeepSeek V3.2', 131_072, 8_192, 0.28, 0.42, 0.028), hosted: false },
  { ...H('deepseek-chat', 'deepseek', 'DeepSeek V3', 65_536, 8_192, 0.27, 1.1, 0.07, ['deepseek-v3']), hosted: false },
  { ...H('deepseek-reasoner', 'deepseek', 'DeepSeek R1', 65_536, 32_768, 0.55, 2.19, 0.14, ['deepseek-r1']), hosted: false },
  { ...H('mistral-large', 'mistral', 'Mistral Large', 131_072, 8_192, 2, 6), hosted: false },
  { ...H('mistral-medium', 'mistral', 'Mistral Medium 3', 131_072, 8_192, 0.4, 2), hosted: false },
  { ...H('mistral-small', 'mistral', 'Mistral Small 3', 131_072, 8_192, 0.1, 0.3), hosted: false },
  { ...H('codestral', 'mistral', 'Codestral', 262_144, 8_192, 0.3, 0.9), hosted: false },
  { ...H('devstral', 'mistral', 'Devstral', 131_072, 8_192, 0.1, 0.3), hosted: false },
];

/**
 * Normalize a model id as sources write it: provider prefixes (`anthropic/`, `openai/`,
 * `models/`, `us.anthropic.`, `bedrock/`), vendor suffixes (`-20250929`, `@20240620`, `-latest`,
 * `-preview-06-05`, `:free`, `-instruct`, `-v1:0`).
 */
export function normalizeModelId(model: string): string {
  let m = model.trim().toLowerCase();
  m = m.replace(/^(?:[a-z0-9_.-]+\/)+/, ''); // provider/ and org/ prefixes (models/, openrouter/anthropic/…)
  m = m.replace(/^(?:us|eu|apac|global)\.anthropic\./, '').replace(/^anthropic\./, '');
  m = m.replace(/:.*$/, '').replace(/@.*$/, '');
  m = m.replace(/-v\d+$/, '');
  m = m.replace(/-(?:\d{8}|\d{4}-\d{2}-\d{2})$/, '');
  m = m.replace(/-(?:latest|preview(?:-[\d-]+)?|exp(?:-[\d-]+)?|instruct|chat-latest)$/, '');
  // Claude 4.x written with dots or in the older "claude-3-5-sonnet" order are aliases already.
  return m;
}

const ENTRIES: Array<{ key: string; info: ModelInfo }> = MODEL_CATALOG.flatMap((info) => [info.id, ...(info.aliases ?? [])].map((key) => ({ key, info }))).sort(
  (a, b) => b.key.length - a.key.length,
);

/**
 * Fuzzy lookup: exact id, then the longest catalog id that is a prefix of the normalized id
 * (`claude-sonnet-4-5-20250929` → claude-sonnet-4-5, `gpt-4o-2024-08-06` → gpt-4o), then the
 * longest catalog id contained in it (`openrouter:meta-llama-3.3-70b-instruct`). Undefined when
 * nothing fits: the caller asks the user.
 */
export function lookupModel(model: string | undefined): ModelInfo | undefined {
  if (!model) return undefined;
  const n = normalizeModelId(model);
  const flat = n.replace(/[._]/g, '-');
  const variants = [n, flat, n.replace(/^meta-/, '')];
  for (const v of variants) for (const e of ENTRIES) if (v === e.key || v === e.key.replace(/[._]/g, '-')) return e.info;
  for (const v of variants)
    for (const e of ENTRIES) {
      const k = e.key.replace(/[._]/g, '-');
      if (v.startsWith(e.key) || v.replace(/[._]/g, '-').startsWith(k)) return e.info;
    }
  for (const v of variants) for (const e of ENTRIES) if (e.key.length >= 5 && v.replace(/[._]/g, '-').includes(e.key.replace(/[._]/g, '-'))) return e.info;
  // A newer version of a known family (claude-opus-5, gemini-3.1-pro): the family's newest entry,
  // marked approximate so the UI can say "assumed".
  for (const [re, id] of FAMILIES) if (re.test(n)) return { ...MODEL_CATALOG.find((m) => m.id === id)!, approximate: true };
  return undefined;
}

const FAMILIES: Array<[RegExp, string]> = [
  [/^claude-.*opus/, 'claude-opus-4-5'],
  [/^claude-.*sonnet/, 'claude-sonnet-4-5'],
  [/^claude-.*haiku/, 'claude-haiku-4-5'],
  [/^gemini-.*pro/, 'gemini-3-pro'],
  [/^gemini-.*flash/, 'gemini-3-flash'],
];

/** The usable input ceiling: window − max output (sven `input_budget()`). */
export function inputBudgetOf(info: Pick<ModelInfo, 'contextWindow' | 'maxOutput'>): number {
  return info.contextWindow - info.maxOutput;
}

/** Cost in USD of one call's usage. */
export function callCost(info: ModelInfo, u: { input: number; cacheRead: number; cacheWrite: number; output: number }): number {
  const p = info.price;
  return (u.input * p.input + u.cacheRead * p.cachedRead + u.cacheWrite * p.cacheWrite + u.output * p.output) / 1_000_000;
}
