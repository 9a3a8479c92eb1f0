'use client';

import { useMemo, useState } from 'react';
import { userMessage } from '@/lib/errors';
import { PROVIDER_LABELS, DEFAULT_BASE_URLS } from '@/lib/summarize/providers/types';
import {
  DEFAULT_MODELS,
  OPENAI_COMPATIBLE_PRESETS,
  describeSettings,
  needsKey,
  providerConfigOf,
  validateSummarySettings,
  type ProviderChoice,
  type SummarySettings,
} from '@/lib/summarize/settings';
import { AppHeader } from '../ui/AppHeader';
import { Button } from '../ui/Button';
import { ApiKeyField } from './ApiKeyField';
import { ConnectionTest } from './ConnectionTest';
import { Field, INPUT } from './field';
import { PromptEditor } from './PromptEditor';
import { useSummarySettings } from './useSummarySettings';

const CHOICES: { id: ProviderChoice; label: string; hint: string }[] = [
  { id: 'offline', label: 'Offline (default)', hint: 'Deterministic structured summaries made in the browser. Nothing leaves this machine.' },
  { id: 'openai', label: PROVIDER_LABELS.openai, hint: 'OpenAI, or a local server speaking its API: Ollama, LM Studio, llama.cpp, vLLM.' },
  { id: 'anthropic', label: PROVIDER_LABELS.anthropic, hint: 'Claude models through the Messages API, called from this page with your key.' },
  { id: 'gemini', label: PROVIDER_LABELS.gemini, hint: 'Gemini models through generateContent.' },
];

export function SettingsPage() {
  const { query } = useSummarySettings();
  return (
    <div className="min-h-screen">
      <AppHeader />
      <main className="mx-auto max-w-2xl space-y-8 px-4 py-8">
        <div>
          <h1 className="text-xl font-semibold">Settings</h1>
          <p className="text-sm text-neutral-500">Summaries for the summarize strategy. Everything here is stored in this browser only.</p>
        </div>
        {query.isPending && <p className="text-sm text-neutral-500">Loading settings…</p>}
        {query.isError && (
          <p role="alert" className="text-sm text-red-700 dark:text-red-400">
            Could not read the settings: {userMessage(query.error)}
          </p>
        )}
        {/* The form mounts once the stored values are known, so a stored key is never put in an input. */}
        {query.data && <SummarySettingsForm stored={query.data} />}
      </main>
    </div>
  );
}

function SummarySettingsForm({ stored }: { stored: SummarySettings }) {
  const { save } = useSummarySettings();
  const [draft, setDraft] = useState<SummarySettings>(stored);
  const [saved, setSaved] = useState(false);
  // Remounts the key field after save / discard, so a key just typed is shown masked again.
  const [keyGeneration, setKeyGeneration] = useState(0);
  const set = <K extends keyof SummarySettings>(k: K, v: SummarySettings[K]) => {
    setDraft((d) => ({ ...d, [k]: v }));
    setSaved(false);
  };
  const problems = useMemo(() => validateSummarySettings(draft), [draft]);
  const problemOf = (f: keyof SummarySettings) => problems.find((p) => p.field === f)?.message;
  const dirty = JSON.stringify(draft) !== JSON.stringify(stored);
  const config = providerConfigOf(draft);
  const provider = draft.provider;
  const keyRequired = needsKey(draft);

  const onSave = async () => {
    if (problems.length) return;
    try {
      await save.mutateAsync(draft);
    } catch {
      return; // shown below from save.error
    }
    setSaved(true);
    setKeyGeneration((g) => g + 1);
  };

  return (
    <form
      className="space-y-8"
      onSubmit={(e) => {
        e.preventDefault();
        void onSave();
      }}
      data-testid="summary-settings"
    >
      <section className="space-y-3">
        <h2 className="text-sm font-semibold uppercase tracking-wide text-neutral-500">Summary provider</h2>
        <fieldset className="space-y-1.5">
          <legend className="sr-only">Provider</legend>
          {CHOICES.map((c) => (
            <label key={c.id} className="flex items-start gap-2 text-sm">
              <input type="radio" name="summary-provider" value={c.id} checked={provider === c.id} onChange={() => set('provider', c.id)} className="mt-1" />
              <span>
                {c.label}
                <span className="block text-xs text-neutral-500">{c.hint}</span>
              </span>
            </label>
          ))}
        </fieldset>

        {provider !== 'offline' && (
          <div className="space-y-4 rounded-lg border border-neutral-200 p-4 dark:border-neutral-800">
            <p className="text-xs text-neutral-600 dark:text-neutral-400" data-testid="what-is-sent">
              When you summarize, the turns being summarized (as text, long tool output shortened) and the prompt below are sent from this page to this
              provider. Nothing else leaves the browser, and the key is never written into summaries, exports or reports.
            </p>
            <Field
              id="summary-base-url"
              label="Base URL"
              problem={problemOf('baseUrl')}
              hint={
                provider === 'openai' ? (
                  <span className="flex flex-wrap gap-x-2">
                    Presets:
                    {OPENAI_COMPATIBLE_PRESETS.map((p) => (
                      <button key={p.label} type="button" className="text-blue-700 underline dark:text-blue-400" onClick={() => set('baseUrl', p.baseUrl)}>
                        {p.label}
                      </button>
                    ))}
                  </span>
                ) : (
                  `Empty = ${DEFAULT_BASE_URLS[provider]}`
                )
              }
            >
              <input id="summary-base-url" className={INPUT} value={draft.baseUrl} placeholder={DEFAULT_BASE_URLS[provider]} onChange={(e) => set('baseUrl', e.target.value)} spellCheck={false} aria-invalid={problemOf('baseUrl') ? true : undefined} />
            </Field>
            <Field id="summary-model" label="Model" hint={`Empty = ${DEFAULT_MODELS[provider]}. A fast, cheap model is enough for summaries.`}>
              <input id="summary-model" className={INPUT} value={draft.model} placeholder={DEFAULT_MODELS[provider]} onChange={(e) => set('model', e.target.value)} spellCheck={false} />
            </Field>
            <ApiKeyField key={keyGeneration} value={draft.apiKey} onChange={(k) => set('apiKey', k)} problem={problemOf('apiKey')} required={keyRequired} />
            <div className="grid grid-cols-2 gap-4">
              <Field id="summary-timeout" label="Timeout (seconds)">
                <input id="summary-timeout" type="number" min={5} max={1800} className={INPUT} value={draft.timeoutSeconds} onChange={(e) => set('timeoutSeconds', Math.max(5, Math.min(1800, Math.round(Number(e.target.value) || 120))))} />
              </Field>
              <label className="flex items-center gap-2 self-end pb-2 text-sm">
                <input type="checkbox" checked={draft.stream} onChange={(e) => set('stream', e.target.checked)} />
                Stream the reply (shows progress)
              </label>
            </div>
            <ConnectionTest config={config} disabled={problems.some((p) => p.field === 'baseUrl')} />
            <fieldset className="space-y-1 text-sm">
              <legend className="font-medium">When a summary fails or comes back empty</legend>
              <label className="flex items-center gap-2">
                <input type="radio" name="summary-on-failure" checked={draft.onFailure === 'emergency'} onChange={() => set('onFailure', 'emergency')} />
                Fall back to emergency compaction (drop the oldest turns with a notice)
              </label>
              <label className="flex items-center gap-2">
                <input type="radio" name="summary-on-failure" checked={draft.onFailure === 'leave'} onChange={() => set('onFailure', 'leave')} />
                Leave the range as it is
              </label>
            </fieldset>
          </div>
        )}
      </section>

      <section className="space-y-3">
        <h2 className="text-sm font-semibold uppercase tracking-wide text-neutral-500">Prompt</h2>
        <PromptEditor style={draft.style} template={draft.template} onStyle={(s) => set('style', s)} onTemplate={(t) => set('template', t)} problem={problemOf('template')} />
      </section>

      <div className="flex items-center gap-3 border-t border-neutral-200 pt-4 dark:border-neutral-800">
        <Button type="submit" variant="primary" disabled={!dirty || problems.length > 0 || save.isPending} data-testid="save-settings">
          {save.isPending ? 'Saving…' : 'Save'}
        </Button>
        <Button
          onClick={() => {
            setDraft(stored);
            setKeyGeneration((g) => g + 1);
          }}
          disabled={!dirty}
        >
          Discard changes
        </Button>
        <span className="text-xs text-neutral-500" data-testid="settings-summary">
          {saved && !dirty ? 'Saved. ' : ''}
          {describeSettings(draft)}
        </span>
        {save.isError && (
          <span role="alert" className="text-xs text-red-700 dark:text-red-400">
            Could not save: {userMessage(save.error)}
          </span>
        )}
      </div>
    </form>
  );
}
