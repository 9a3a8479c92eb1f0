/**
 * Gemini API (`POST {baseUrl}/v1beta/models/{model}:generateContent`, streamed with
 * `:streamGenerateContent?alt=sse`). The key goes in the `x-goog-api-key` header, not the URL, so it
 * never shows up in a URL that an error, a log or a proxy could record.
 */
import { z } from 'zod';
import { ProviderError } from './errors';
import { joinUrl, originOf, postJson, postSse } from './http';
import { DEFAULT_BASE_URLS, DEFAULT_MAX_TOKENS, DEFAULT_TIMEOUT_MS, type CompletionRequest, type CompletionResult, type ProviderConfig, type SummaryProvider } from './types';

const GenerateReply = z.object({
  candidates: z
    .array(
      z.object({
        content: z.object({ parts: z.array(z.object({ text: z.string().optional(), thought: z.boolean().optional() }).passthrough()).optional() }).passthrough().optional(),
        finishReason: z.string().optional(),
      }).passthrough(),
    )
    .optional(),
  promptFeedback: z.object({ blockReason: z.string().optional() }).passthrough().optional(),
  usageMetadata: z.object({ promptTokenCount: z.number().optional(), candidatesTokenCount: z.number().optional() }).passthrough().optional(),
  modelVersion: z.string().optional(),
}).passthrough();

type Reply = z.infer<typeof GenerateReply>;

/** The answer's text; thought parts (thinking models) are not the answer. */
function replyText(reply: Reply): string {
  const parts = reply.candidates?.[0]?.content?.parts ?? [];
  return parts.filter((p) => !p.thought).map((p) => p.text ?? '').join('');
}

export function geminiProvider(config: ProviderConfig): SummaryProvider {
  const provider = 'gemini' as const;
  const base = config.baseUrl?.trim() || DEFAULT_BASE_URLS.gemini;
  const modelPath = `models/${encodeURIComponent(config.model.replace(/^models\//, ''))}`;
  const root = /\/v1(beta|alpha)?\/?$/.test(base) ? base : joinUrl(base, 'v1beta');

  async function complete(request: CompletionRequest): Promise<CompletionResult> {
    if (!config.model.trim()) throw new ProviderError('config', { provider, detail: 'No model is set.' });
    const url = joinUrl(root, config.stream ? `${modelPath}:streamGenerateContent?alt=sse` : `${modelPath}:generateContent`);
    const origin = originOf(url);
    const generationConfig: Record<string, unknown> = { maxOutputTokens: request.maxTokens ?? config.maxTokens ?? DEFAULT_MAX_TOKENS };
    if (config.temperature !== undefined) generationConfig.temperature = config.temperature;
    const body = {
      systemInstruction: { parts: [{ text: request.system }] },
      contents: [{ role: 'user', parts: [{ text: request.prompt }] }],
      generationConfig,
    };
    const headers: Record<string, string> = {};
    if (config.apiKey) headers['x-goog-api-key'] = config.apiKey;
    const post = { provider, url, headers, body, timeoutMs: config.timeoutMs ?? DEFAULT_TIMEOUT_MS, signal: request.signal, secret: config.apiKey };

    const replies: Reply[] = [];
    if (config.stream) {
      for await (const { data } of postSse(post)) {
        const r = GenerateReply.safeParse(data);
        if (!r.success) throw new ProviderError('malformed', { provider, origin, detail: 'a stream chunk is not a GenerateContentResponse' });
        replies.push(r.data);
        const piece = replyText(r.data);
        if (piece) request.onDelta?.(piece);
      }
    } else {
      const r = GenerateReply.safeParse(await postJson(post));
      if (!r.success || (!r.data.candidates && !r.data.promptFeedback)) throw new ProviderError('malformed', { provider, origin, detail: 'expected a GenerateContentResponse with candidates' });
      replies.push(r.data);
    }
    const text = replies.map(replyText).join('');
    const last = replies[replies.length - 1];
    const finishReason = [...replies].reverse().find((r) => r.candidates?.[0]?.finishReason)?.candidates?.[0]?.finishReason;
    if (!text.trim()) {
      const blocked = replies.find((r) => r.promptFeedback?.blockReason)?.promptFeedback?.blockReason;
      throw new ProviderError('empty', { provider, origin, detail: blocked ? `blocked: ${blocked}` : finishReason ? `finishReason: ${finishReason}` : undefined });
    }
    const usage = [...replies].reverse().find((r) => r.usageMetadata)?.usageMetadata;
    return {
      text,
      model: last?.modelVersion ?? config.model,
      usage: usage ? { input: usage.promptTokenCount, output: usage.candidatesTokenCount } : undefined,
      finishReason,
    };
  }

  return { kind: 'gemini', model: config.model, id: `gemini:${config.model}`, complete };
}
