/**
 * `#bpe` under node (vitest, tsx) loads each gpt-tokenizer encoding on its first exact count
 * (lib/tokens/bpe.ts), not with the engine: the two rank tables cost every test file and script
 * that imports the engine 0.6–0.75 s of CPU. Counts stay gpt-tokenizer's.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { engine } from '../engine/api';
import { importFile } from '../formats/import';
import { sourceFromBytes } from '../read/source';
import { corpusFiles } from '../../tests/corpus';
import { blockText, countCapped, counterById } from './count';

// This worker thread's CommonJS cache: bpe.ts loads an encoding with require (the ES build the test
// compares with below is imported, and never shows here).
const require = createRequire(import.meta.url);
const loaded = () =>
  Object.keys(require.cache)
    .filter((k) => /gpt-tokenizer[\\/]cjs[\\/]bpeRanks[\\/]/.test(k))
    .map((k) => path.basename(k))
    .sort();

const imported = (f: string) => importFile(sourceFromBytes(path.basename(f), new Uint8Array(fs.readFileSync(f)))).transcript;
const texts = (f: string) => imported(f).messages.flatMap((m) => m.blocks.map(blockText)).filter((t) => t.length > 0);

describe('#bpe in node: an encoding loads on its first exact count', () => {
  it('importing the engine and a Claude Code session loads none; a Codex rollout loads o200k, an explicit cl100k count cl100k; every count is gpt-tokenizer\'s', async () => {
    expect(typeof engine.importFile).toBe('function');
    expect(loaded()).toEqual([]);

    const claude = corpusFiles('claude-code').find((f) => f.includes('claude-code-viewer_5c0375b4'))!;
    expect(imported(claude).messages.length).toBeGreaterThan(10);
    expect(loaded()).toEqual([]);

    const codex = corpusFiles('codex-cli').find((f) => f.includes('codex-session-view'))!;
    const codexTexts = texts(codex);
    expect(loaded()).toEqual(['o200k_base.js']);

    const claudeTexts = texts(claude);
    expect(counterById('cl100k').count('hello world')).toBe(2);
    expect(loaded()).toEqual(['cl100k_base.js', 'o200k_base.js']);

    // The ES build vitest imported with the module before: the same counts, text by text.
    const esO200k = (await import('gpt-tokenizer/encoding/o200k_base')).countTokens;
    const esCl100k = (await import('gpt-tokenizer/encoding/cl100k_base')).countTokens;
    const opts = { disallowedSpecial: new Set<string>() };
    const differ = (id: 'o200k' | 'cl100k', es: typeof esO200k, all: string[]) =>
      all.filter((t) => counterById(id).count(t) !== countCapped(t, (s) => es(s, opts))).map((t) => t.slice(0, 60));
    expect(codexTexts.length).toBeGreaterThan(50);
    expect(differ('o200k', esO200k, codexTexts)).toEqual([]);
    expect(differ('cl100k', esCl100k, claudeTexts)).toEqual([]);
    const total = codexTexts.reduce((n, t) => n + counterById('o200k').count(t), 0);
    expect(total).toBeGreaterThan(1000);
  });
});
