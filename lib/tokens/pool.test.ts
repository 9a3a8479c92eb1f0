import { describe, expect, it } from 'vitest';
import { countOnPool, CHUNK_CHARS, type RunJob } from './pool';
import { counterById } from './count';

const texts = Array.from({ length: 3000 }, (_, i) => `line ${i}: ${'word '.repeat(i % 97)}${i % 13 === 0 ? 'ж字😀' : ''}`);

describe('countOnPool', () => {
  it('gives the counts one thread gives, in order, whatever the chunk size', async () => {
    const c = counterById('o200k');
    const expected = Uint32Array.from(texts, (t) => c.count(t));
    const runJob: RunJob = async (_thread, tokenizer, part) => Uint32Array.from(part, (t) => counterById(tokenizer).count(t));
    for (const chunk of [1, 100, 10_000, CHUNK_CHARS]) expect(await countOnPool(texts, 'o200k', 3, runJob, chunk)).toEqual(expected);
    expect(await countOnPool([], 'o200k', 2, runJob)).toEqual(new Uint32Array(0));
  });

  it('hands each chunk to the next idle thread: a slow thread counts fewer chunks', async () => {
    const jobs = [0, 0];
    const runJob: RunJob = async (thread, _tokenizer, part) => {
      jobs[thread]++;
      await new Promise((r) => setTimeout(r, thread === 0 ? 40 : 2));
      return new Uint32Array(part.length);
    };
    await countOnPool(texts, 'o200k', 2, runJob, 2_000);
    expect(jobs[0] + jobs[1]).toBeGreaterThan(20);
    expect(jobs[1]).toBeGreaterThan(jobs[0] * 4);
  });

  it('refuses an answer of the wrong length', async () => {
    const runJob: RunJob = async (_thread, _tokenizer, part) => new Uint32Array(part.length + 1);
    await expect(countOnPool(texts, 'o200k', 2, runJob)).rejects.toThrow(/answered \d+ counts for \d+ texts/);
  });
});
