/**
 * What the app's engine calls to run summaries with the user's Settings: the provider, prompt and
 * failure policy they chose, artifacts from/to their store. Offline settings make no request.
 */
import type { Projection, ReducerSpec, SummaryKey } from '../compaction/types';
import { createProvider } from './providers';
import { fillSummaries, type FillResult, type SummaryProgress, type SummaryStore } from './run';
import { promptTemplateOf, providerConfigOf, type SummarySettings } from './settings';

/** Options for a `summarize` reducer built in the UI from the Settings (style and failure policy). */
export function summarizeReducerFromSettings(settings: SummarySettings, extra: Record<string, unknown> = {}): ReducerSpec {
  return { id: 'summarize', options: { style: settings.style, onFailure: settings.onFailure, ...extra } };
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
    return { projection, produced: [], reused: 0, failures: [], pending: (projection.summaryRequests ?? []).length, lookup: () => undefined };
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
