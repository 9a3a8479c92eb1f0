/**
 * The tokenizer pool (issue 12): exact counts on worker threads equal the in-process counts, and a
 * pooled import builds the same transcript as importFile (every block's tokens, the tools').
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import { importFile } from '../formats/import';
import { sourceFromBytes } from '../read/source';
import { counterById } from '../tokens/count';
import { createTokenizerPool, importPooled } from './_token-pool';

const files = [...corpusFiles('openai-chat'), ...corpusFiles('openai-responses'), ...corpusFiles('codex-cli')].filter((f) => !f.endsWith('.md'));

describe('tokenizer pool', () => {
  it('counts exactly what one thread counts (o200k and cl100k), in order', async () => {
    const texts: string[] = [];
    for (const f of files.slice(0, 4)) texts.push(...fs.readFileSync(f, 'utf8').split('\n').filter(Boolean).slice(0, 300));
    texts.push('', 'x'.repeat(5000), '<|endoftext|> special', 'héllo wörld 🎉');
    const pool = createTokenizerPool(2);
    try {
      for (const id of ['o200k', 'cl100k'] as const) {
        const got = await pool.count(texts, id);
        const want = texts.map((t) => counterById(id).count(t));
        expect([...got]).toEqual(want);
      }
    } finally {
      await pool.close();
    }
  }, 60_000);

  for (const f of files.slice(0, 6))
    it(`${path.basename(f)}: a pooled import is the same transcript`, async () => {
      const bytes = new Uint8Array(fs.readFileSync(f));
      const one = importFile(sourceFromBytes(path.basename(f), bytes)).transcript;
      const pooled = (await importPooled(sourceFromBytes(path.basename(f), bytes), {}, 2, 0)).transcript;
      expect(pooled.messages.map((m) => m.blocks.map((b) => b.tokens))).toEqual(one.messages.map((m) => m.blocks.map((b) => b.tokens)));
      expect(pooled.tools.map((t) => t.tokens)).toEqual(one.tools.map((t) => t.tokens));
      expect(pooled.messages.length).toBe(one.messages.length);
    }, 60_000);
});
