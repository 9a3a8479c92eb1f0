/**
 * LLM providers for summaries (opt-in: nothing leaves the machine unless the user configures one).
 * Plain `fetch` against three wire formats: OpenAI-compatible chat completions (OpenAI, Ollama,
 * vLLM, llama.cpp, LM Studio, …), Anthropic Messages, Gemini generateContent.
 */

export type ProviderKind = 'openai' | 'anthropic' | 'gemini';

export interface ProviderConfig {
  kind: ProviderKind;
  /** Base URL of the API. Defaults per kind (api.openai.com/v1, api.anthropic.com, generativelanguage.googleapis.com). */
  baseUrl?: string;
  model: string;
  /** Secret. Never logged, never in an error message, never in an artifact or an export. */
  apiKey?: string;
  /** Whole-request timeout (default 120 s). */
  timeoutMs?: number;
  /** Output cap (default 4096). */
  maxTokens?: number;
  temperature?: number;
  /** Stream the reply (SSE). Progress callbacks then get the text as it arrives. */
  stream?: boolean;
}

export interface CompletionRequest {
  system: string;
  prompt: string;
  maxTokens?: number;
  signal?: AbortSignal;
  /** With `stream`, called with each piece of text as it arrives. */
  onDelta?: (text: string) => void;
}

export interface CompletionResult {
  text: string;
  /** The model the server says answered (falls back to the configured one). */
  model: string;
  usage?: { input?: number; output?: number };
  finishReason?: string;
}

export interface SummaryProvider {
  kind: ProviderKind;
  model: string;
  /** `${kind}:${model}`: the producer id written on artifacts (no URL, no key). */
  id: string;
  complete(request: CompletionRequest): Promise<CompletionResult>;
}

export const DEFAULT_BASE_URLS: Record<ProviderKind, string> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
  gemini: 'https://generativelanguage.googleapis.com',
};

export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_MAX_TOKENS = 4096;

export const PROVIDER_LABELS: Record<ProviderKind, string> = {
  openai: 'OpenAI-compatible',
  anthropic: 'Anthropic',
  gemini: 'Google Gemini',
};
