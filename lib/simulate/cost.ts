/**
 * Cost: what the recorded calls cost (catalog list prices), and what the next call costs with a
 * projection — the cache-stable prefix billed at the cached-read price, the rest as new input
 * (plus the cache write where the provider charges one). This is how prefix-ward compaction pays:
 * a smaller context that keeps its prefix is cheaper than a smaller one that rewrote it.
 */
import type { Transcript } from '../model/types';
import { callCost, lookupModel, type ModelInfo } from '../tokens/catalog';
import { usageCalls } from '../tokens/calibration';
import type { Projection } from '../compaction/types';

export interface RecordedCost {
  model?: string;
  calls: number;
  usd: number;
  /** Calls whose model is not in the catalog (not priced). */
  unpriced: number;
}

export function recordedCost(log: Transcript, model?: ModelInfo): RecordedCost {
  let usd = 0;
  let unpriced = 0;
  for (const u of log.usage) {
    const info = model ?? lookupModel(u.model ?? log.model);
    if (!info) {
      unpriced++;
      continue;
    }
    usd += callCost(info, u);
  }
  return { ...(log.model && { model: log.model }), calls: log.usage.reduce((n, u) => n + usageCalls(u), 0), usd, unpriced };
}

export interface NextCallCost {
  inputTokens: number;
  cachedTokens: number;
  usd: number;
}

/** The input cost of sending this projection next, given what the provider still has cached. */
export function nextCallCost(projection: Pick<Projection, 'tokens' | 'cacheStablePrefix'>, model: ModelInfo): NextCallCost {
  const input = projection.tokens.after.total;
  const cached = Math.min(input, projection.cacheStablePrefix ?? 0);
  const fresh = input - cached;
  const p = model.price;
  return { inputTokens: input, cachedTokens: cached, usd: (cached * p.cachedRead + fresh * p.cacheWrite) / 1_000_000 };
}
