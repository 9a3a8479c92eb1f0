/**
 * OpenAI-compatible chat completions (`POST {baseUrl}/chat/completions`): OpenAI itself and the
 * local servers that speak the same wire format (Ollama `/v1`, vLLM, llama.cpp server, LM Studio).
 * A key is optional (local servers need none).
 */
import { z } from 'zod';
import { ProviderError } from './errors';
import { joinUrl, originOf, postJson, postSse } from './http';
import { DEFAULT_BASE_URLS, DEFAULT_MAX_TOKENS, DEFAULT_TIMEOUT_MS, type CompletionRequest, type CompletionResult, type ProviderConfig, type SummaryProvider } from './types';

const ContentPart = z.object({ type: z.string().optional(), text: z.string().optional() }).passthrough();

const ChatReply = z.object({
  model: z.string().optional(),
  choices: z
    .array(
      z.object({
        message: z.object({ content: z.union([z.string(), z.array(ContentPart), z.null()]).optional(), refusal: z.string().nullish() }).passthrough(),
        finish_reason: z.string().nullish(),
      }).passthrough(),
    )
    .min(1),
  usage: z.object({ prompt_tokens: z.number().optional(), completion_tokens: z.number().optional() }).passthrough().nullish(),
}).passthrough();

const ChatChunk = z.object({
  model: z.string().optional(),
  choices: z.array(z.object({ delta: z.object({ content: z.string().nullish() }).passthrough().optional(), finish_reason: z.string().nullish() }).passthrough()).optional(),
  usage: z.object({ prompt_tokens: z.number().optional(), completion_tokens: z.number().optional() }).passthrough().nullish(),
  error: z.unknown().optional(),
}).passthrough();

function textOf(content: string | z.infer<typeof ContentPart>[] | null | undefined): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => p.text ?? '').join('');
  return '';
}

/**
 * The compatible servers all serve the API under /v1; a base URL given as a bare origin
 * (`http://localhost:11434`, the way Ollama and LM Studio print their address) gets it added.
 */
export function withApiPath(base: string): string {
  try {
    const u = new URL(base);
    if (u.pathname === '/' || u.pathname === '') return base.replace(/\/*$/, '') + '/v1';
  } catch {
    // Not a URL: post() reports it as a configuration error.
  }
  return base;
}

export function openAICompatibleProvider(config: ProviderConfig): SummaryProvider {
  const provider = 'openai' as const;
  const base = withApiPath(config.baseUrl?.trim() || DEFAULT_BASE_URLS.openai);
  const url = joinUrl(base, 'chat/completions');
  const origin = originOf(url);
  // OpenAI's newer models reject `max_tokens`; the compatible servers mostly know only `max_tokens`.
  const isOpenAI = origin === 'https://api.openai.com';

  async function complete(request: CompletionRequest): Promise<CompletionResult> {
    if (!config.model.trim()) throw new ProviderError('config', { provider, detail: 'No model is set.' });
    const maxTokens = request.maxTokens ?? config.maxTokens ?? DEFAULT_MAX_TOKENS;
    const body: Record<string, unknown> = {
      model: config.model,
      messages: [
        { role: 'system', content: request.system },
        { role: 'user', content: request.prompt },
      ],
      [isOpenAI ? 'max_completion_tokens' : 'max_tokens']: maxTokens,
    };
    if (config.temperature !== undefined) body.temperature = config.temperature;
    const headers: Record<string, string> = {};
    if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;
    const post = { provider, url, headers, body, timeoutMs: config.timeoutMs ?? DEFAULT_TIMEOUT_MS, signal: request.signal, secret: config.apiKey };

    if (config.stream) {
      body.stream = true;
      // Usage in the stream is an OpenAI extension some compatible servers reject as unknown.
      if (isOpenAI) body.stream_options = { include_usage: true };
      let text = '';
      let model = config.model;
      let finishReason: string | undefined;
      let usage: CompletionResult['usage'];
      for await (const { data } of postSse(post)) {
        const chunk = ChatChunk.safeParse(data);
        if (!chunk.success) throw new ProviderError('malformed', { provider, origin, detail: 'a stream chunk is not a chat.completion.chunk' });
        if (chunk.data.error !== undefined) throw new ProviderError('server', { provider, origin, detail: 'the server reported an error mid-stream' });
        if (chunk.data.model) model = chunk.data.model;
        for (const choice of chunk.data.choices ?? []) {
          const piece = choice.delta?.content ?? '';
          if (piece) {
            text += piece;
            request.onDelta?.(piece);
          }
          if (choice.finish_reason) finishReason = choice.finish_reason;
        }
        if (chunk.data.usage) usage = { input: chunk.data.usage.prompt_tokens, output: chunk.data.usage.completion_tokens };
      }
      if (!text.trim()) throw new ProviderError('empty', { provider, origin, detail: finishReason ? `finish_reason: ${finishReason}` : undefined });
      return { text, model, usage, finishReason };
    }

    const reply = ChatReply.safeParse(await postJson(post));
    if (!reply.success) throw new ProviderError('malformed', { provider, origin, detail: 'expected a chat.completion with choices[0].message' });
    const choice = reply.data.choices[0];
    const text = textOf(choice.message.content);
    if (!text.trim()) {
      const why = choice.message.refusal ? `refusal: ${choice.message.refusal.slice(0, 160)}` : choice.finish_reason ? `finish_reason: ${choice.finish_reason}` : undefined;
      throw new ProviderError('empty', { provider, origin, detail: why });
    }
    return {
      text,
      model: reply.data.model ?? config.model,
      usage: reply.data.usage ? { input: reply.data.usage.prompt_tokens, output: reply.data.usage.completion_tokens } : undefined,
      finishReason: choice.finish_reason ?? undefined,
    };
  }

  return { kind: 'openai', model: config.model, id: `openai:${config.model}`, complete };
}
