import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import { importFile } from '../formats/import';
import { sourceFromBytes } from '../read/source';
import { calibrate, clampFactor, updateFactor } from './calibration';
import { lookupModel, inputBudgetOf, normalizeModelId } from './catalog';

const load = (f: string) => importFile(sourceFromBytes(path.basename(f), new Uint8Array(fs.readFileSync(f)))).transcript;

describe('calibration (sven EMA)', () => {
  it('updates by α 0.2 and clamps to [0.5, 3]', () => {
    expect(updateFactor(1, 2)).toBeCloseTo(1.2);
    expect(updateFactor(1, 100)).toBe(3);
    expect(updateFactor(0.5, 0)).toBe(0.5);
    expect(clampFactor(0.1)).toBe(0.5);
  });

  it('on a Claude Code session: large invisible overhead (no system prompt or tools in the JSONL), corrected beats raw', () => {
    const t = load(corpusFiles('claude-code').find((f) => f.includes('slopometry'))!);
    const c = calibrate(t)!;
    expect(c.calls.length).toBe(t.usage.filter((u) => u.input + u.cacheRead + u.cacheWrite > 0).length);
    expect(c.invisibleOverhead).toBeGreaterThan(5000);
    expect(c.factor).toBeGreaterThanOrEqual(0.5);
    expect(c.factor).toBeLessThanOrEqual(3);
    expect(c.meanRelativeError.corrected).toBeLessThan(c.meanRelativeError.raw);
    expect(c.calls[0].corrected).toBe(c.calls[0].recorded);
  });

  it('on Codex rollouts with token_count events', () => {
    for (const f of corpusFiles('codex-cli')) {
      const t = load(f);
      const c = calibrate(t);
      if (t.usage.length === 0) {
        expect(c).toBeUndefined();
        continue;
      }
      expect(c!.calls.length).toBeGreaterThan(0);
      expect(c!.meanRelativeError.corrected).toBeLessThanOrEqual(c!.meanRelativeError.raw + 1e-9);
    }
  });
});

describe('model catalog', () => {
  it('matches model ids fuzzily across providers and spellings', () => {
    expect(lookupModel('claude-sonnet-4-5-20250929')?.id).toBe('claude-sonnet-4-5');
    expect(lookupModel('anthropic/claude-opus-4.5')?.id).toBe('claude-opus-4-5');
    expect(lookupModel('us.anthropic.claude-3-5-sonnet-20241022-v2:0')?.id).toBe('claude-3-5-sonnet');
    expect(lookupModel('gpt-4o-mini-2024-07-18')?.id).toBe('gpt-4o-mini');
    expect(lookupModel('gpt-4o-2024-08-06')?.id).toBe('gpt-4o');
    expect(lookupModel('openai/gpt-5.1-codex')?.id).toBe('gpt-5.1-codex');
    expect(lookupModel('o4-mini')?.id).toBe('o4-mini');
    expect(lookupModel('models/gemini-2.5-flash-preview-05-20')?.id).toBe('gemini-2.5-flash');
    expect(lookupModel('gemini-3-pro-preview')?.id).toBe('gemini-3-pro');
    expect(lookupModel('meta-llama/Llama-3.3-70B-Instruct')?.id).toBe('llama-3.3-70b');
    expect(lookupModel('deepseek-reasoner')?.id).toBe('deepseek-reasoner');
    expect(lookupModel('openai/gpt-oss-120b')?.id).toBe('gpt-oss-120b');
    expect(lookupModel('totally-unknown-model')).toBeUndefined();
    expect(normalizeModelId('anthropic/claude-haiku-4-5-20251001')).toBe('claude-haiku-4-5');
  });
  it('input budget = window − max output', () => {
    expect(inputBudgetOf(lookupModel('claude-sonnet-4-5')!)).toBe(136_000);
    expect(inputBudgetOf(lookupModel('gpt-4o')!)).toBe(128_000 - 16_384);
  });
  it('resolves the models the corpus names: exact, family fallback (approximate) or unknown', () => {
    const models = new Set<string>();
    for (const fam of ['claude-code', 'codex-cli']) for (const f of corpusFiles(fam)) for (const u of load(f).usage) if (u.model) models.add(u.model);
    expect(models.has('claude-opus-4-5-20251101')).toBe(true);
    expect(lookupModel('claude-opus-4-5-20251101')).toMatchObject({ id: 'claude-opus-4-5' });
    expect(lookupModel('claude-opus-4-5-20251101')!.approximate).toBeUndefined();
    expect(lookupModel('claude-opus-5')).toMatchObject({ id: 'claude-opus-4-5', approximate: true });
    expect(lookupModel('gemini-3.1-pro-preview')).toMatchObject({ id: 'gemini-3-pro', approximate: true });
    expect(lookupModel('gpt-5.3-codex')?.provider).toBe('openai');
    expect(lookupModel('claude-fable-5')).toBeUndefined();
  });
});
