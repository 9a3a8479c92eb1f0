import { describe, expect, it } from 'vitest';
import { extractCategories, modelTextOf, modelWordsOf, presenceWords, survivalIndex, survivalIndexFor, survivalOf } from './index';
import { importedCorpus } from '../../tests/corpus';

// survivalOf(items, text) indexes only what `items` look up (survivalIndexFor, issue 31). It must
// answer exactly as the index of every word run of the text does, on real sessions: items of the
// whole log checked against the text of every other message, of the last third, and of nothing.
describe('survivalIndexFor', () => {
  it('gives survivalOf the same answers as the full index, on every corpus file', () => {
    let checked = 0;
    let lost = 0;
    for (const { name, log } of importedCorpus()) {
      const items = extractCategories(log.messages, { format: log.format });
      const views = [log.messages.filter((_, i) => i % 2 === 0), log.messages.slice(Math.floor((log.messages.length * 2) / 3)), []];
      for (const view of views) {
        const text = modelTextOf(view);
        const full = survivalOf(items, survivalIndex(text));
        const restricted = survivalOf(items, survivalIndexFor(items, text));
        expect(restricted, name).toEqual(full);
        expect(survivalOf(items, text), name).toEqual(full);
        // The words cached per block are the words of the joined text (asked twice: the cache's answer too).
        expect(modelWordsOf(view), name).toEqual(presenceWords(text));
        expect(survivalOf(items, survivalIndexFor(items, modelWordsOf(view))), name).toEqual(full);
        checked += items.length;
        for (const c of Object.values(full)) lost += c.lost.length;
      }
    }
    // The comparison means something only if items are both kept and lost.
    expect(checked).toBeGreaterThan(1000);
    expect(lost).toBeGreaterThan(100);
    expect(lost).toBeLessThan(checked);
  }, 600_000);
});
