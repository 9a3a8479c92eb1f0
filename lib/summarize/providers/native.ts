/**
 * Native compaction (seed 002, Strategy A): the provider's own compaction API instead of our prompt.
 *
 *  - OpenAI: `POST {base}/responses/compact` with `{model, input}` (the span as Responses items).
 *    The reply's `output` ends with a `{"type":"compaction","encrypted_content":…}` item that only
 *    the model can read; the user messages it keeps come back as plain `message` items.
 *  - Anthropic: `POST {base}/v1/messages` with the `compact-2026-01-12` beta and
 *    `context_management.edits = [{type: "compact_20260112", trigger, pause_after_compaction}]`.
 *    The reply's `compaction` block holds a readable summary. The API compacts only past its
 *    minimum trigger (50,000 input tokens): below it nothing fires, and we say so.
 *  - Gemini and the OpenAI-compatible local servers have no compaction API (seed 002: Native
 *    falls back to Summarize for them).
 *
 * The span is written as a request in the provider's own format by the format modules (the same
 * code as a conversion export), so tool calls keep their results and ids.
 */
import { z } from 'zod';
import { formatById } from '../../formats/registry';
import type { ProjectedMessage, SummaryRequest } from '../../model/projection';
import { ProviderError } from './errors';
import { joinUrl, originOf, postJson } from './http';
import { DEFAULT_BASE_URLS, DEFAULT_MAX_TOKENS, DEFAULT_TIMEOUT_MS, type ProviderConfig, type ProviderKind } from './types';

export type NativeApi = 'openai-responses-compact' | 'anthropic-compact-20260112';

/** Anthropic's smallest `input_tokens` trigger for compact_20260112. */
export const ANTHROPIC_MIN_TRIGGER = 50_000;
export const ANTHROPIC_COMPACT_BETA = 'compact-2026-01-12';

export interface NativeOutcome {
  /** What the projection holds in place of the span: the readable summary, or a note on the opaque item with the user messages it kept. */
  text: string;
  model: string;
  usage?: { input?: number; output?: number };
  api: NativeApi;
  /** The provider's own compaction item, verbatim (OpenAI's encrypted item, Anthropic's block). */
  item: unknown;
  /** OpenAI: the whole compacted output (the user messages kept + the compaction item), the items a Responses request or a Codex rollout carries in place of the span. */
  output?: unknown[];
}

export type NativeAnswer = NativeOutcome | { notFired: string };

/** Why Native cannot run with this provider (undefined: it can). */
export function nativeUnavailable(kind: ProviderKind | undefined): string | undefined {
  if (!kind) return 'Native compaction calls the provider’s own compaction API, and no provider is configured (offline). Configure OpenAI or Anthropic in Settings (CLI: --provider openai|anthropic), or use Summarize.';
  if (kind === 'gemini') return 'Gemini has no compaction API (seed 002: Native falls back to Summarize for it).';
  return undefined;
}

function requestOf(format: 'openai-responses' | 'anthropic-messages', messages: readonly ProjectedMessage[], previousSummary: string | undefined, model: string): Record<string, unknown> {
  const mod = formatById(format);
  if (!mod?.fromMessages) throw new ProviderError('config', { provider: format === 'openai-responses' ? 'openai' : 'anthropic', detail: `the ${format} writer is missing` });
  const earlier: ProjectedMessage[] = previousSummary
    ? [{ role: 'user', turn: messages[0]?.turn ?? 0, synthetic: 'summary', blocks: [{ kind: 'summary', id: 'native:previous', text: previousSummary, tokens: 0 } as ProjectedMessage['blocks'][number]] }]
    : [];
  const out = mod.fromMessages({ messages: [...earlier, ...messages.filter((m) => m.role !== 'system')], tools: [], model, title: 'span', baseName: 'span' });
  return JSON.parse(out.text) as Record<string, unknown>;
}

const CompactReply = z
  .object({
    id: z.string().optional(),
    model: z.string().optional(),
    output: z.array(z.object({ type: z.string() }).passthrough()),
    usage: z.object({ input_tokens: z.number().optional(), output_tokens: z.number().optional() }).passthrough().nullish(),
  })
  .passthrough();

const MessagesReply = z
  .object({
    model: z.string().optional(),
    content: z.array(z.object({ type: z.string() }).passthrough()),
    usage: z.object({ input_tokens: z.number().optional(), output_tokens: z.number().optional() }).passthrough().optional(),
  })
  .passthrough();

function itemText(item: Record<string, unknown>): string {
  const c = item.content;
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map((p) => (p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '')).join('');
  return '';
}

/** `previousItems`: the previous chunk's native output; the next chunk is chained on it (the encrypted item), not on its note. */
type Req = Pick<SummaryRequest, 'messages' | 'span' | 'previousSummary' | 'spanTokens'> & { signal?: AbortSignal; previousItems?: readonly unknown[] };

export async function openAICompact(config: ProviderConfig, request: Req): Promise<NativeAnswer> {
  const provider = 'openai' as const;
  const base = config.baseUrl?.trim() || DEFAULT_BASE_URLS.openai;
  const url = joinUrl(/\/v1\/?$/.test(base) ? base : joinUrl(base, 'v1'), 'responses/compact');
  const origin = originOf(url);
  const chained = request.previousItems && request.previousItems.length > 0;
  const doc = requestOf('openai-responses', request.messages, chained ? undefined : request.previousSummary, config.model);
  const headers: Record<string, string> = {};
  if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;
  // Reasoning only as an untouched encrypted item (the API rejects reasoning it cannot verify).
  const input = [...(chained ? (request.previousItems as Array<Record<string, unknown>>) : []), ...((doc.input as Array<Record<string, unknown>>) ?? []).filter((i) => i.type !== 'reasoning' || typeof i.encrypted_content === 'string')];
  const body = { model: config.model, input };
  const raw = await postJson({ provider, url, headers, body, timeoutMs: config.timeoutMs ?? DEFAULT_TIMEOUT_MS, signal: request.signal, secret: config.apiKey });
  const reply = CompactReply.safeParse(raw);
  if (!reply.success) throw new ProviderError('malformed', { provider, origin, detail: 'the reply is not a compacted response (no output list)' });
  const item = reply.data.output.find((o) => o.type === 'compaction');
  if (!item || typeof item.encrypted_content !== 'string') throw new ProviderError('malformed', { provider, origin, detail: 'the compacted response holds no compaction item' });
  const kept = reply.data.output.filter((o) => o.type === 'message' && o.role === 'user').map((o) => itemText(o)).filter((t) => t.trim());
  const [a, b] = request.span;
  const text = [
    `[Native compaction by OpenAI (${reply.data.model ?? config.model}): turns ${a + 1}–${b + 1} are replaced by an encrypted compaction item (${(item.encrypted_content as string).length.toLocaleString('en-US')} characters, id ${String(item.id ?? 'none')}) that only the model can read. The user messages it keeps verbatim follow.]`,
    ...kept,
  ].join('\n\n');
  return { text, model: reply.data.model ?? config.model, usage: { input: reply.data.usage?.input_tokens, output: reply.data.usage?.output_tokens }, api: 'openai-responses-compact', item, output: reply.data.output };
}

export async function anthropicCompact(config: ProviderConfig, request: Req): Promise<NativeAnswer> {
  const provider = 'anthropic' as const;
  if (request.spanTokens !== undefined && request.spanTokens < ANTHROPIC_MIN_TRIGGER)
    return { notFired: `Anthropic compacts only past its minimum trigger of ${ANTHROPIC_MIN_TRIGGER.toLocaleString('en-US')} input tokens; turns ${request.span[0] + 1}–${request.span[1] + 1} hold about ${request.spanTokens.toLocaleString('en-US')}` };
  const base = config.baseUrl?.trim() || DEFAULT_BASE_URLS.anthropic;
  const url = /\/v1\/?$/.test(base) ? joinUrl(base, 'messages') : joinUrl(base, 'v1/messages');
  const origin = originOf(url);
  const doc = requestOf('anthropic-messages', request.messages, request.previousSummary, config.model);
  const messages = (doc.messages as unknown[]) ?? [];
  const body = {
    model: config.model,
    max_tokens: config.maxTokens ?? DEFAULT_MAX_TOKENS,
    messages,
    context_management: { edits: [{ type: 'compact_20260112', trigger: { type: 'input_tokens', value: ANTHROPIC_MIN_TRIGGER }, pause_after_compaction: true }] },
  };
  const headers: Record<string, string> = { 'anthropic-version': '2023-06-01', 'anthropic-beta': ANTHROPIC_COMPACT_BETA, 'anthropic-dangerous-direct-browser-access': 'true' };
  if (config.apiKey) headers['x-api-key'] = config.apiKey;
  const raw = await postJson({ provider, url, headers, body, timeoutMs: config.timeoutMs ?? DEFAULT_TIMEOUT_MS, signal: request.signal, secret: config.apiKey });
  const reply = MessagesReply.safeParse(raw);
  if (!reply.success) throw new ProviderError('malformed', { provider, origin, detail: 'the reply is not a Messages response (no content list)' });
  const block = reply.data.content.find((c) => c.type === 'compaction');
  if (!block) return { notFired: 'the API answered without a compaction block (its trigger did not fire)' };
  const text = typeof block.content === 'string' ? block.content : '';
  if (!text.trim()) throw new ProviderError('empty', { provider, origin, detail: 'the compaction block is empty' });
  return { text, model: reply.data.model ?? config.model, usage: { input: reply.data.usage?.input_tokens, output: reply.data.usage?.output_tokens }, api: 'anthropic-compact-20260112', item: block };
}

/** The provider's native compaction, or why there is none. */
export function nativeCompactor(config: ProviderConfig | undefined): { compact(request: Req): Promise<NativeAnswer>; api: NativeApi } | { unavailable: string } {
  const why = nativeUnavailable(config?.kind);
  if (why || !config) return { unavailable: why ?? 'no provider' };
  if (config.kind === 'openai') return { api: 'openai-responses-compact', compact: (r) => openAICompact(config, r) };
  return { api: 'anthropic-compact-20260112', compact: (r) => anthropicCompact(config, r) };
}
