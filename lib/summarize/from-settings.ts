/**
 * What the app's engine calls to run summaries with the user's Settings: the provider, prompt and
 * failure policy they chose, artifacts from/to their store. Offline settings make no request.
 */
import type { Projection, ReducerSpec, Step, SummaryKey } from '../compaction/types';
import { createProvider } from './providers';
import { fillSummaries, type FillResult, type SummaryProgress, type SummaryStore } from './run';
import { promptTemplateOf, providerConfigOf, type SummarySettings } from './settings';

/** Options for a `summarize` reducer built in the UI from the Settings (style and failure policy). */
export function summarizeReducerFromSettings(settings: SummarySettings, extra: Record<string, unknown> = {}): ReducerSpec {
  return { id: 'summarize', options: { style: settings.style, onFailure: settings.onFailure, ...extra } };
}

/**
 * The user's "When a summary fails" choice on every summarize reducer that does not name its own
 * `onFailure` (a step imported from a config file may): the preview, the apply and the export
 * then fall back the way Settings say.
 */
export function withFailurePolicy<S extends Pick<Step, 'reducers'>>(steps: readonly S[], onFailure: SummarySettings['onFailure']): S[] {
  return steps.map((step) =>
    step.reducers.some((r) => r.id === 'summarize' && r.options?.onFailure === undefined)
      ? { ...step, reducers: step.reducers.map((r) => (r.id === 'summarize' && r.options?.onFailure === undefined ? { ...r, options: { ...r.options, onFailure } } : r)) }
      : step,
  );
}

export interface FillFromSettingsInput {
  /** projectTranscript(log, steps, { summaries: lookup }) for the version being previewed. */
  project: (lookup?: (key: SummaryKey) => string | undefined) => Projection;
  settings: SummarySettings;
  store: SummaryStore;
  signal?: AbortSignal;
  onProgress?: (p: SummaryProgress) => void;
}

export async function fillFromSettings(input: FillFromSettingsInput): Promise<FillResult> {
  const config = providerConfigOf(input.settings);
  if (!config) {
    const projection = input.project();
    return { projection, produced: [], reused: 0, failures: [], pending: (projection.summaryRequests ?? []).length, lookup: () => undefined, items: () => undefined, notes: [] };
  }
  return fillSummaries(input.project, {
    provider: createProvider(config),
    template: promptTemplateOf(input.settings),
    style: input.settings.style,
    store: input.store,
    signal: input.signal,
    onProgress: input.onProgress,
  });
}
