/**
 * A large import whose model counts exactly (gpt-4o: o200k) is counted on the tokenizer pool, with
 * the counts one thread gives; the library row says how it was counted. In the browser the pool is
 * Web Workers (e2e/token-pool.spec.ts); here the CLI's worker threads stand in for them.
 */
import 'fake-indexeddb/auto';
import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { freshDbName } from '../db/test-helpers';
import { engine, useEngineDatabase, useTokenPool } from './api';
import { createTokenizerPool } from '../cli/_token-pool';
import { importBytes } from '../formats/import';
import { blockText } from '../tokens/count';
import { POOL_MIN_CHARS } from '../tokens/pool';
import { makeLargeOpenAiRequest } from '../../bench/generate';
import { corpusFiles } from '../../tests/corpus';

function realTexts(): string[] {
  const out: string[] = [];
  for (const f of [...corpusFiles('codex-cli'), ...corpusFiles('claude-code').slice(0, 3)]) {
    const t = importBytes(f, new Uint8Array(fs.readFileSync(f))).transcript;
    for (const m of t.messages) for (const b of m.blocks) if (b.kind === 'text' || b.kind === 'tool_result') out.push(blockText(b));
  }
  return out.filter((t) => t.length > 20);
}

beforeEach(() => useEngineDatabase(freshDbName()));
afterEach(() => useTokenPool('default'));

describe('the tokenizer pool in the engine', () => {
  it('counts a large gpt-4o import on 2 threads, with the counts of one thread', async () => {
    const bytes = new TextEncoder().encode(makeLargeOpenAiRequest(realTexts(), POOL_MIN_CHARS * 1.2));
    const single = importBytes('big.json', bytes).transcript;
    let started = 0;
    useTokenPool(() => (started++, createTokenizerPool(2)));
    const out = await engine.importFile(bytes.slice(), 'big.json');
    if (out.kind !== 'imported') throw new Error(JSON.stringify(out));
    expect(started).toBe(1);
    expect(out.meta.counting).toEqual({ tokenizer: 'o200k', threads: 2 });
    const total = single.messages.reduce((n, m) => n + m.blocks.reduce((k, b) => k + b.tokens, 0), 0);
    expect(out.meta.tokens.total).toBeGreaterThan(POOL_MIN_CHARS / 8);
    expect(out.meta.tokens.total).toBe(total + single.tools.reduce((n, t) => n + t.tokens, 0));
    const timeline = await engine.getTimeline(out.meta.id);
    expect(timeline.turns.at(-1)!.contextTotal).toBe(out.meta.tokens.total);
  }, 120_000);

  it('a small import, or one counted as chars/4, starts no thread', async () => {
    let started = 0;
    useTokenPool(() => (started++, createTokenizerPool(2)));
    const small = await engine.importFile(new Uint8Array(fs.readFileSync(corpusFiles('codex-cli')[0])), 'small.jsonl');
    const claude = await engine.importFile(new Uint8Array(fs.readFileSync(corpusFiles('claude-code')[0])), 'claude.jsonl');
    expect(started).toBe(0);
    expect(small.kind === 'imported' && small.meta.counting).toEqual({ tokenizer: 'o200k', threads: 1 });
    expect(claude.kind === 'imported' && claude.meta.counting).toEqual({ tokenizer: 'chars4', threads: 1 });
  });
});
