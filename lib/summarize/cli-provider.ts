/**
 * The CLI's way to configure an LLM provider for `compact --strategy summarize`, and the call the
 * compact verb makes to fill the projection's summary requests before its final projection.
 *
 *   --provider openai|anthropic|gemini   (or CONTEXTSCOPE_PROVIDER)
 *   --base-url URL                        (or CONTEXTSCOPE_BASE_URL / OPENAI_BASE_URL / ANTHROPIC_BASE_URL / GEMINI_BASE_URL)
 *   --model NAME                          (or CONTEXTSCOPE_MODEL; a small default per provider; the
 *                                         compact verb calls it --summary-model: its --model is the budget's)
 *   --timeout SECONDS                     (per request, default 120)
 *   --summary-style structured|claude-code|narrative
 *   --prompt-file PATH                    a user prompt template ({{conversation}}, {{previous_summary}}, {{span}}, {{checklist}})
 *
 * The key only ever comes from the environment (CONTEXTSCOPE_API_KEY, else OPENAI_API_KEY /
 * ANTHROPIC_API_KEY / GEMINI_API_KEY / GOOGLE_API_KEY): a key on the command line would land in
 * shell history and process listings. Without --provider nothing leaves the machine.
 */
import fs from 'node:fs';
import { projectTranscript, type ProjectOptions } from '../compaction/project';
import type { Step, SummaryKey } from '../compaction/types';
import type { Transcript } from '../model/types';
import { DEFAULT_PROMPTS, type PromptTemplate } from './prompts';
import { createProvider } from './providers';
import { DEFAULT_BASE_URLS, PROVIDER_LABELS, type ProviderConfig, type ProviderKind, type SummaryProvider } from './providers/types';
import { DEFAULT_MODELS } from './settings';
import { nativeCompactor } from './providers/native';
import { fillSummaries, memoryStore, type FillResult, type SummaryProgress, type SummaryStore } from './run';
import type { SummaryStyle } from './types';

export { DEFAULT_MODELS };

const KEY_ENV: Record<ProviderKind, string[]> = {
  openai: ['OPENAI_API_KEY'],
  anthropic: ['ANTHROPIC_API_KEY'],
  gemini: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
};

const BASE_URL_ENV: Record<ProviderKind, string> = {
  openai: 'OPENAI_BASE_URL',
  anthropic: 'ANTHROPIC_BASE_URL',
  gemini: 'GEMINI_BASE_URL',
};

export class CliProviderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliProviderError';
  }
}

export interface CliProvider {
  /** Absent when no provider was asked for: the offline summarizer is used. */
  provider?: SummaryProvider;
  /** One line for messages: provider, model, origin, whether a key is set (never the key). */
  describe?: string;
  /** The full configuration, key included: for testConnection only, never for printing. */
  config?: ProviderConfig;
  template: PromptTemplate;
  style: SummaryStyle;
  /** The arguments this function did not consume, in order (for the compact verb's own parser). */
  rest: string[];
}

type Env = Record<string, string | undefined>;

export interface CliProviderOptions {
  /**
   * The flag that names the summarizing model (default `--model`). The compact verb already uses
   * `--model` for the budget's model, so it passes `--summary-model`.
   */
  modelFlag?: string;
}

function takeFlags(args: readonly string[], modelFlag: string): { values: Map<string, string>; rest: string[] } {
  const FLAGS = new Set(['--provider', '--base-url', modelFlag, '--timeout', '--summary-style', '--prompt-file']);
  const values = new Map<string, string>();
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const eq = a.indexOf('=');
    const name = eq > 0 ? a.slice(0, eq) : a;
    if (!FLAGS.has(name)) {
      rest.push(a);
      continue;
    }
    const value = eq > 0 ? a.slice(eq + 1) : args[++i];
    if (value === undefined || (eq < 0 && value.startsWith('--'))) throw new CliProviderError(`${name} needs a value.`);
    values.set(name === modelFlag ? '--model' : name, value);
  }
  return { values, rest };
}

function isKind(v: string): v is ProviderKind {
  return v === 'openai' || v === 'anthropic' || v === 'gemini';
}

function isStyle(v: string): v is SummaryStyle {
  return v === 'structured' || v === 'claude-code' || v === 'narrative';
}

/** Read the provider flags and environment. Throws CliProviderError with a usage message on bad input. */
export function providerFromEnvOrFlags(args: readonly string[], env: Env, options: CliProviderOptions = {}): CliProvider {
  const modelFlag = options.modelFlag ?? '--model';
  const { values, rest } = takeFlags(args, modelFlag);
  const styleArg = values.get('--summary-style') ?? env.CONTEXTSCOPE_SUMMARY_STYLE ?? 'structured';
  if (!isStyle(styleArg)) throw new CliProviderError(`--summary-style must be structured, claude-code or narrative (got "${styleArg}").`);
  const style: SummaryStyle = styleArg;
  let template = DEFAULT_PROMPTS[style];
  const promptFile = values.get('--prompt-file');
  if (promptFile) {
    let user: string;
    try {
      user = fs.readFileSync(promptFile, 'utf8');
    } catch {
      throw new CliProviderError(`Cannot read the prompt file ${promptFile}.`);
    }
    if (!user.includes('{{conversation}}')) throw new CliProviderError(`The prompt file ${promptFile} must contain {{conversation}} (where the span goes).`);
    template = { ...template, user };
  }

  const kindArg = values.get('--provider') ?? env.CONTEXTSCOPE_PROVIDER;
  if (kindArg === undefined || kindArg === '' || kindArg === 'offline') {
    for (const f of ['--base-url', '--model', '--timeout'])
      if (values.has(f)) throw new CliProviderError(`${f === '--model' ? modelFlag : f} needs --provider openai|anthropic|gemini (without one, summaries are made offline).`);
    return { template, style, rest };
  }
  if (!isKind(kindArg)) throw new CliProviderError(`--provider must be openai, anthropic or gemini (got "${kindArg}").`);
  const kind: ProviderKind = kindArg;

  const baseUrl = values.get('--base-url') ?? env.CONTEXTSCOPE_BASE_URL ?? env[BASE_URL_ENV[kind]];
  if (baseUrl !== undefined) {
    let ok = false;
    try {
      ok = /^https?:$/.test(new URL(baseUrl).protocol);
    } catch {
      ok = false;
    }
    if (!ok) throw new CliProviderError(`--base-url must be an http(s) URL (got "${baseUrl}").`);
  }
  const model = values.get('--model') ?? env.CONTEXTSCOPE_MODEL ?? DEFAULT_MODELS[kind];
  const timeoutArg = values.get('--timeout');
  const timeoutSeconds = timeoutArg === undefined ? undefined : Number(timeoutArg);
  if (timeoutSeconds !== undefined && !(Number.isFinite(timeoutSeconds) && timeoutSeconds > 0)) throw new CliProviderError(`--timeout must be a number of seconds (got "${timeoutArg}").`);

  const keyVars = ['CONTEXTSCOPE_API_KEY', ...KEY_ENV[kind]];
  const apiKey = keyVars.map((v) => env[v]).find((v) => v !== undefined && v.trim() !== '')?.trim();
  // Hosted APIs need a key; a local server (a base URL of one's own) may not.
  const hosted = baseUrl === undefined || new URL(baseUrl).origin === new URL(DEFAULT_BASE_URLS[kind]).origin;
  if (!apiKey && hosted) throw new CliProviderError(`${PROVIDER_LABELS[kind]} needs an API key: set ${keyVars.join(' or ')} in the environment.`);

  const config: ProviderConfig = { kind, model, ...(baseUrl && { baseUrl }), ...(apiKey && { apiKey }), ...(timeoutSeconds && { timeoutMs: timeoutSeconds * 1000 }) };
  return {
    provider: createProvider(config),
    config,
    describe: `${kind}:${model} at ${new URL(baseUrl ?? DEFAULT_BASE_URLS[kind]).origin}${apiKey ? ' (key from the environment)' : ' (no key)'}`,
    template,
    style,
    rest,
  };
}

export interface CompactSummariesInput {
  log: Transcript;
  steps: readonly Step[];
  /** The compact verb's own projection options (budget, baseline…); `summaries` is supplied here. */
  projectOptions?: Omit<ProjectOptions, 'summaries'>;
  cli: CliProvider;
  store?: SummaryStore;
  signal?: AbortSignal;
  /** Progress lines (the compact verb writes them to stderr). */
  onLine?: (line: string) => void;
}

function spanText(span: [number, number]): string {
  return span[0] === span[1] ? `turn ${span[0] + 1}` : `turns ${span[0] + 1}–${span[1] + 1}`;
}

/**
 * Fill the summary requests of `projectTranscript(log, steps)` with the CLI's provider and return
 * the final projection (with the LLM summaries, or the emergency fallback / untouched range where
 * one failed). Without a provider this is the plain offline projection.
 */
export async function projectWithProviderSummaries(input: CompactSummariesInput): Promise<FillResult> {
  const project = (lookup?: (key: SummaryKey) => string | undefined) =>
    projectTranscript(input.log, input.steps, { ...input.projectOptions, ...(lookup && { summaries: lookup }) });
  if (!input.cli.provider) {
    const projection = project();
    return { projection, produced: [], reused: 0, failures: [], pending: (projection.summaryRequests ?? []).length, lookup: () => undefined, items: () => undefined, notes: [] };
  }
  const say = input.onLine ?? (() => undefined);
  const onProgress = (p: SummaryProgress) => {
    if (p.phase === 'start') say(`summarizing ${spanText(p.span)} with ${input.cli.provider!.id}…`);
    else if (p.phase === 'waiting') say(`  ${p.reason ?? 'transient failure'}: retrying in ${p.seconds} s`);
    else if (p.phase === 'failed') say(`  ${spanText(p.span)}: ${p.failure.message}`);
  };
  const result = await fillSummaries(project, {
    provider: input.cli.provider,
    native: nativeCompactor(input.cli.config),
    template: input.cli.template,
    style: input.cli.style,
    store: input.store ?? memoryStore(),
    signal: input.signal,
    onProgress,
  });
  if (result.produced.length) say(`${result.produced.length} summar${result.produced.length === 1 ? 'y' : 'ies'} by ${input.cli.provider.id}`);
  for (const n of result.notes) say(n);
  if (result.failures.length) say(`${result.failures.length} summar${result.failures.length === 1 ? 'y' : 'ies'} failed: see the report (fallback applied)`);
  return result;
}
