/**
 * Provider factory and the connection test the Settings page runs.
 */
import { anthropicProvider } from './anthropic';
import { ProviderError } from './errors';
import { geminiProvider } from './gemini';
import { openAICompatibleProvider } from './openai-compatible';
import type { ProviderConfig, SummaryProvider } from './types';

export * from './types';
export { ProviderError, maskKey, providerErrorMessage, isTransient, type ProviderErrorCode } from './errors';

export function createProvider(config: ProviderConfig): SummaryProvider {
  switch (config.kind) {
    case 'openai':
      return openAICompatibleProvider(config);
    case 'anthropic':
      return anthropicProvider(config);
    case 'gemini':
      return geminiProvider(config);
  }
}

export type ConnectionTest =
  | { ok: true; model: string; latencyMs: number; reply: string }
  | { ok: false; code: ProviderError['code'] | 'unknown'; message: string; retryAfterSeconds?: number };

/** One tiny request: proves the URL, the key and the model, and reports what failed in words. */
export async function testConnection(config: ProviderConfig, signal?: AbortSignal): Promise<ConnectionTest> {
  const started = Date.now();
  try {
    const result = await createProvider({ ...config, stream: false, timeoutMs: config.timeoutMs ?? 30_000 }).complete({
      system: 'You are a connectivity check.',
      prompt: 'Reply with the single word OK.',
      maxTokens: 16,
      signal,
    });
    return { ok: true, model: result.model, latencyMs: Date.now() - started, reply: result.text.trim().slice(0, 40) };
  } catch (e) {
    // An empty reply still proves the URL, the key and the model (a reasoning model may spend a tiny
    // output budget on thinking): the connection works.
    if (e instanceof ProviderError && e.code === 'empty') return { ok: true, model: config.model, latencyMs: Date.now() - started, reply: '' };
    if (e instanceof ProviderError) return { ok: false, code: e.code, message: e.message, retryAfterSeconds: e.retryAfterSeconds };
    // Not ours: say so without echoing anything that might carry the request.
    return { ok: false, code: 'unknown', message: 'The connection test failed unexpectedly.' };
  }
}
