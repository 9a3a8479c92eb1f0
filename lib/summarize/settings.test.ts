import { describe, expect, it } from 'vitest';
import { DEFAULT_PROMPTS } from './prompts';
import {
  DEFAULT_SUMMARY_SETTINGS,
  describeSettings,
  promptTemplateOf,
  providerConfigOf,
  restoreSummarySettings,
  settingsForExport,
  validateSummarySettings,
  type SummarySettings,
} from './settings';

const KEY = 'sk-ant-api03-SETTINGS-SECRET-0123456789';

describe('summary settings', () => {
  it('restores untrusted stored values field by field', () => {
    expect(restoreSummarySettings(undefined)).toEqual(DEFAULT_SUMMARY_SETTINGS);
    expect(restoreSummarySettings('garbage')).toEqual(DEFAULT_SUMMARY_SETTINGS);
    const r = restoreSummarySettings({ provider: 'anthropic', model: 'claude-x', apiKey: KEY, style: 'poem', timeoutSeconds: -3, stream: 'yes', extra: 1 });
    expect(r).toEqual({ ...DEFAULT_SUMMARY_SETTINGS, provider: 'anthropic', model: 'claude-x', apiKey: KEY });
  });

  it('validates what would make a request fail', () => {
    const base: SummarySettings = { ...DEFAULT_SUMMARY_SETTINGS, provider: 'openai' };
    expect(validateSummarySettings(base).map((p) => p.field)).toEqual(['apiKey']);
    expect(validateSummarySettings({ ...base, baseUrl: 'http://localhost:11434/v1' })).toEqual([]);
    expect(validateSummarySettings({ ...base, baseUrl: 'localhost:11434', apiKey: 'k' }).map((p) => p.field)).toEqual(['baseUrl']);
    expect(validateSummarySettings({ ...base, apiKey: 'k', template: 'no placeholder' }).map((p) => p.field)).toEqual(['template']);
    expect(validateSummarySettings(DEFAULT_SUMMARY_SETTINGS)).toEqual([]);
  });

  it('maps to a provider config with defaults, and to the prompt template', () => {
    expect(providerConfigOf(DEFAULT_SUMMARY_SETTINGS)).toBeUndefined();
    const s: SummarySettings = { ...DEFAULT_SUMMARY_SETTINGS, provider: 'gemini', apiKey: ` ${KEY} `, timeoutSeconds: 30 };
    expect(providerConfigOf(s)).toEqual({ kind: 'gemini', model: 'gemini-2.5-flash', apiKey: KEY, timeoutMs: 30_000, stream: false });
    expect(promptTemplateOf(s)).toBe(DEFAULT_PROMPTS.structured);
    expect(promptTemplateOf({ ...s, style: 'narrative', template: 'Short: {{conversation}}' })).toEqual({ ...DEFAULT_PROMPTS.narrative, user: 'Short: {{conversation}}' });
  });

  it('never shows or exports the key', () => {
    const s: SummarySettings = { ...DEFAULT_SUMMARY_SETTINGS, provider: 'anthropic', apiKey: KEY };
    expect(describeSettings(s)).toBe('anthropic:claude-haiku-4-5 at https://api.anthropic.com, key sk-…6789');
    expect(describeSettings(s)).not.toContain(KEY);
    expect(JSON.stringify(settingsForExport(s))).not.toContain(KEY);
    expect(settingsForExport(s)).not.toHaveProperty('apiKey');
  });
});
