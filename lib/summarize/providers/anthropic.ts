/**
 * Anthropic Messages API (`POST {baseUrl}/v1/messages`). `anthropic-version` is required;
 * `anthropic-dangerous-direct-browser-access: true` is what lets a browser page call the API with
 * the user's own key (Anthropic refuses CORS otherwise) — sent always, it is inert server-side.
 */
import { z } from 'zod';
import { ProviderError } from './errors';
import { joinUrl, originOf, postJson, postSse } from './http';
import { DEFAULT_BASE_URLS, DEFAULT_MAX_TOKENS, DEFAULT_TIMEOUT_MS, type CompletionRequest, type CompletionResult, type ProviderConfig, type SummaryProvider } from './types';

export const ANTHROPIC_VERSION = '2023-06-01';

const MessageReply = z.object({
  type: z.literal('message').optional(),
  model: z.string().optional(),
  content: z.array(z.object({ type: z.string(), text: z.string().optional() }).passthrough()),
  stop_reason: z.string().nullish(),
  usage: z.object({ input_tokens: z.number().optional(), output_tokens: z.number().optional() }).passthrough().optional(),
}).passthrough();

const StreamEvent = z.object({
  type: z.string(),
  message: z.object({ model: z.string().optional(), usage: z.object({ input_tokens: z.number().optional() }).passthrough().optional() }).passthrough().optional(),
  delta: z.object({ type: z.string().optional(), text: z.string().optional(), stop_reason: z.string().nullish() }).passthrough().optional(),
  usage: z.object({ output_tokens: z.number().optional() }).passthrough().optional(),
  error: z.object({ type: z.string().optional(), message: z.string().optional() }).passthrough().optional(),
}).passthrough();

export function anthropicProvider(config: ProviderConfig): SummaryProvider {
  const provider = 'anthropic' as const;
  const base = config.baseUrl?.trim() || DEFAULT_BASE_URLS.anthropic;
  // Accept a base URL given with or without the /v1 suffix.
  const url = /\/v1\/?$/.test(base) ? joinUrl(base, 'messages') : joinUrl(base, 'v1/messages');
  const origin = originOf(url);

  async function complete(request: CompletionRequest): Promise<CompletionResult> {
    if (!config.model.trim()) throw new ProviderError('config', { provider, detail: 'No model is set.' });
    const body: Record<string, unknown> = {
      model: config.model,
      max_tokens: request.maxTokens ?? config.maxTokens ?? DEFAULT_MAX_TOKENS,
      system: request.system,
      messages: [{ role: 'user', content: request.prompt }],
    };
    if (config.temperature !== undefined) body.temperature = config.temperature;
    const headers: Record<string, string> = {
      'anthropic-version': ANTHROPIC_VERSION,
      'anthropic-dangerous-direct-browser-access': 'true',
    };
    if (config.apiKey) headers['x-api-key'] = config.apiKey;
    const post = { provider, url, headers, body, timeoutMs: config.timeoutMs ?? DEFAULT_TIMEOUT_MS, signal: request.signal, secret: config.apiKey };

    if (config.stream) {
      body.stream = true;
      let text = '';
      let model = config.model;
      let stopReason: string | undefined;
      const usage: NonNullable<CompletionResult['usage']> = {};
      for await (const { data } of postSse(post)) {
        const ev = StreamEvent.safeParse(data);
        if (!ev.success) throw new ProviderError('malformed', { provider, origin, detail: 'a stream event has no type' });
        const e = ev.data;
        if (e.type === 'error') {
          const kind = e.error?.type ?? '';
          const detail = e.error?.message?.slice(0, 200);
          if (kind === 'rate_limit_error') throw new ProviderError('rate-limit', { provider, origin, detail });
          if (kind === 'authentication_error' || kind === 'permission_error') throw new ProviderError('auth', { provider, origin, detail });
          throw new ProviderError('server', { provider, origin, detail: detail ?? kind });
        }
        if (e.type === 'message_start') {
          if (e.message?.model) model = e.message.model;
          usage.input = e.message?.usage?.input_tokens;
        } else if (e.type === 'content_block_delta' && e.delta?.type === 'text_delta' && e.delta.text) {
          text += e.delta.text;
          request.onDelta?.(e.delta.text);
        } else if (e.type === 'message_delta') {
          if (e.delta?.stop_reason) stopReason = e.delta.stop_reason;
          if (e.usage?.output_tokens !== undefined) usage.output = e.usage.output_tokens;
        }
      }
      if (!text.trim()) throw new ProviderError('empty', { provider, origin, detail: stopReason ? `stop_reason: ${stopReason}` : undefined });
      return { text, model, usage, finishReason: stopReason };
    }

    const reply = MessageReply.safeParse(await postJson(post));
    if (!reply.success) throw new ProviderError('malformed', { provider, origin, detail: 'expected a message with a content array' });
    const text = reply.data.content.filter((b) => b.type === 'text').map((b) => b.text ?? '').join('');
    if (!text.trim()) throw new ProviderError('empty', { provider, origin, detail: reply.data.stop_reason ? `stop_reason: ${reply.data.stop_reason}` : undefined });
    return {
      text,
      model: reply.data.model ?? config.model,
      usage: reply.data.usage ? { input: reply.data.usage.input_tokens, output: reply.data.usage.output_tokens } : undefined,
      finishReason: reply.data.stop_reason ?? undefined,
    };
  }

  return { kind: 'anthropic', model: config.model, id: `anthropic:${config.model}`, complete };
}
