/**
 * The summary settings the user keeps in IndexedDB (the `settings` table, key SUMMARY_SETTINGS_KEY):
 * which provider, its base URL, model and key, the prompt style and an optional edited template.
 * Stored values are untrusted (an older version, a hand edit): `restoreSummarySettings` repairs
 * them field by field to defaults instead of failing (Excalidraw `restore()`).
 *
 * The key lives only here and in the request to the provider: `describeSettings` and
 * `settingsForExport` never include it.
 */
import { z } from 'zod';
import { DEFAULT_PROMPTS, type PromptTemplate } from './templates';
import { maskKey } from './providers/errors';
import { DEFAULT_BASE_URLS, type ProviderConfig, type ProviderKind } from './providers/types';
import type { SummaryStyle } from './types';

export const SUMMARY_SETTINGS_KEY = 'summaries';

export type ProviderChoice = 'offline' | ProviderKind;

export interface SummarySettings {
  provider: ProviderChoice;
  /** Empty = the provider's default URL. */
  baseUrl: string;
  model: string;
  apiKey: string;
  style: SummaryStyle;
  /** The user's edit of the prompt's user part for `style`; empty = the built-in template. */
  template: string;
  timeoutSeconds: number;
  stream: boolean;
  /** What a failed summary does: emergency fallback (sven) or leave the range as it is. */
  onFailure: 'emergency' | 'leave';
}

export const DEFAULT_MODELS: Record<ProviderKind, string> = {
  openai: 'gpt-4o-mini',
  anthropic: 'claude-haiku-4-5',
  gemini: 'gemini-2.5-flash',
};

export const DEFAULT_SUMMARY_SETTINGS: SummarySettings = {
  provider: 'offline',
  baseUrl: '',
  model: '',
  apiKey: '',
  style: 'structured',
  template: '',
  timeoutSeconds: 120,
  stream: false,
  onFailure: 'emergency',
};

/** Presets for the OpenAI-compatible local servers (their usual default ports). */
export const OPENAI_COMPATIBLE_PRESETS: { label: string; baseUrl: string }[] = [
  { label: 'OpenAI', baseUrl: DEFAULT_BASE_URLS.openai },
  { label: 'Ollama', baseUrl: 'http://localhost:11434/v1' },
  { label: 'LM Studio', baseUrl: 'http://localhost:1234/v1' },
  { label: 'llama.cpp server', baseUrl: 'http://localhost:8080/v1' },
  { label: 'vLLM', baseUrl: 'http://localhost:8000/v1' },
];

const field = <T extends z.ZodType>(schema: T, fallback: z.infer<T>) => schema.catch(fallback);

const Stored = z.object({
  provider: field(z.enum(['offline', 'openai', 'anthropic', 'gemini']), DEFAULT_SUMMARY_SETTINGS.provider),
  baseUrl: field(z.string().max(2000), ''),
  model: field(z.string().max(200), ''),
  apiKey: field(z.string().max(1000), ''),
  style: field(z.enum(['structured', 'claude-code', 'narrative']), 'structured'),
  template: field(z.string().max(100_000), ''),
  timeoutSeconds: field(z.number().int().min(5).max(1800), 120),
  stream: field(z.boolean(), false),
  onFailure: field(z.enum(['emergency', 'leave']), 'emergency'),
});

/** Stored value → settings, each bad or missing field replaced by its default. */
export function restoreSummarySettings(value: unknown): SummarySettings {
  const input = typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {};
  const parsed = Stored.safeParse(input);
  return parsed.success ? (parsed.data as SummarySettings) : { ...DEFAULT_SUMMARY_SETTINGS };
}

export type SettingsProblem = { field: keyof SummarySettings; message: string };

/** What is wrong with settings before they can be used (shown next to the fields). */
export function validateSummarySettings(s: SummarySettings): SettingsProblem[] {
  const problems: SettingsProblem[] = [];
  if (s.provider === 'offline') return problems;
  if (s.baseUrl.trim()) {
    let ok = false;
    try {
      ok = /^https?:$/.test(new URL(s.baseUrl.trim()).protocol);
    } catch {
      ok = false;
    }
    if (!ok) problems.push({ field: 'baseUrl', message: 'Enter an http:// or https:// URL, or leave it empty for the default.' });
  }
  if (needsKey(s) && !s.apiKey.trim()) problems.push({ field: 'apiKey', message: 'This provider needs an API key.' });
  if (s.template.trim() && !s.template.includes('{{conversation}}')) problems.push({ field: 'template', message: 'The template must contain {{conversation}}: that is where the span goes.' });
  return problems;
}

/** Hosted APIs need a key; a server of one's own (another base URL) may not. */
export function needsKey(s: SummarySettings): boolean {
  if (s.provider === 'offline') return false;
  return !s.baseUrl.trim() || sameOrigin(s.baseUrl.trim(), DEFAULT_BASE_URLS[s.provider]);
}

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

/** The provider configuration of these settings; undefined = offline. */
export function providerConfigOf(s: SummarySettings): ProviderConfig | undefined {
  if (s.provider === 'offline') return undefined;
  return {
    kind: s.provider,
    model: s.model.trim() || DEFAULT_MODELS[s.provider],
    ...(s.baseUrl.trim() && { baseUrl: s.baseUrl.trim() }),
    ...(s.apiKey.trim() && { apiKey: s.apiKey.trim() }),
    timeoutMs: s.timeoutSeconds * 1000,
    stream: s.stream,
  };
}

/** The prompt these settings summarize with: the style's template, with the user's edit if any. */
export function promptTemplateOf(s: SummarySettings): PromptTemplate {
  const base = DEFAULT_PROMPTS[s.style];
  return s.template.trim() ? { ...base, user: s.template } : base;
}

/** One line for the UI and reports, with the key masked. */
export function describeSettings(s: SummarySettings): string {
  if (s.provider === 'offline') return `offline ${s.style} summarizer (nothing leaves the browser)`;
  const cfg = providerConfigOf(s)!;
  const origin = (() => {
    try {
      return new URL(cfg.baseUrl ?? DEFAULT_BASE_URLS[s.provider]).origin;
    } catch {
      return cfg.baseUrl ?? '';
    }
  })();
  return `${s.provider}:${cfg.model} at ${origin}${s.apiKey ? `, key ${maskKey(s.apiKey)}` : ', no key'}`;
}

/** Settings as they may appear in an export or an audit record: everything but the key. */
export function settingsForExport(s: SummarySettings): Omit<SummarySettings, 'apiKey'> & { apiKey?: never } {
  const { apiKey: _omitted, ...rest } = s;
  return rest;
}
