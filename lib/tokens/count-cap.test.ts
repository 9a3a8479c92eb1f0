/**
 * One long run of letters (a base64 blob in a tool result) must not stall token counting:
 * gpt-tokenizer is quadratic in the length of one pre-tokenized piece. Normal text stays exact.
 */
import fs from 'node:fs';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import { importBytes } from '../formats/import';
import { seededRandom } from '../../tests/hostile/make-cases';
import { blockText, counterById, MAX_BPE_PIECE } from './count';
import { withThreadCpu } from '../../tests/cpu';

const raw = (t: string) => countTokens(t, { disallowedSpecial: new Set<string>() });

function letters(n: number, seed: number): string {
  const r = seededRandom(seed);
  let s = '';
  // Lower case only: a change of case starts a new pre-tokenized piece, and one long piece is the case.
  for (let i = 0; i < n; i++) s += String.fromCharCode(97 + Math.floor(r() * 26));
  return s;
}

describe('token counting with a capped piece length', () => {
  const o200k = counterById('o200k');

  it('counts 200k letters in one run in under 3 s of CPU (0.3 s measured) (gpt-tokenizer alone: 1.5 s for 60k, over 100 s for 120k)', () => {
    const blob = `result: ${letters(200_000, 7)} done`;
    // This thread's CPU time: neither the shared machine's load nor the other test worker counts.
    const { value: n, ms } = withThreadCpu(() => o200k.count(blob));
    expect(ms / 1000).toBeLessThan(3);
    expect(n).toBeGreaterThan(200_000 / 8);
  });

  it('a cut run counts within 1 % of the uncut count (a run of 8k letters)', () => {
    const run = letters(8_000, 3);
    const exact = raw(run);
    expect(Math.abs(o200k.count(run) - exact) / exact).toBeLessThan(0.01);
  });

  it(`normal text is counted exactly: every block of real Codex and Claude Code sessions (no run ≥ ${MAX_BPE_PIECE})`, () => {
    let blocks = 0;
    for (const file of [...corpusFiles('codex-cli'), ...corpusFiles('claude-code')].slice(0, 6)) {
      const t = importBytes(file.split('/').pop()!, new Uint8Array(fs.readFileSync(file))).transcript;
      for (const m of t.messages)
        for (const b of m.blocks) {
          const text = blockText(b);
          if (!text || /\p{L}{400,}|[^\s\p{L}\p{N}]{400,}|\s{400,}/u.test(text)) continue;
          expect(o200k.count(text)).toBe(raw(text));
          blocks++;
        }
    }
    expect(blocks).toBeGreaterThan(500);
  });
});

describe('the long-run scan gives the counts of the regex cut', () => {
  it('on every text of the corpus and on generated runs (letters, punctuation, spaces, digits, non-Latin, emoji)', async () => {
    const { countCapped, countCappedByRegex } = await import('./count');
    const texts: string[] = [];
    for (const family of ['claude-code', 'codex-cli', 'openai-chat', 'swe-agent'])
      for (const f of corpusFiles(family)) if (!f.endsWith('.md')) for (const l of fs.readFileSync(f, 'utf8').split('\n')) if (l.length >= MAX_BPE_PIECE) texts.push(l);
    const r = seededRandom(11);
    const pick = (alphabet: string[], n: number) => Array.from({ length: n }, () => alphabet[Math.floor(r() * alphabet.length)]).join('');
    const alphabets = [['a', 'b', 'Z'], ['-', '=', '_', '/'], [' ', '\n', '\t'], ['1', '2'], ['ж', 'ш', 'é'], ['😀', 'a'], ['字', '中'], ['a', ' ', '-', '7', 'ж', '😀'], [' ', '\u00a0', '\u3000', '\u2028', '\ufeff'], ['\u00a0', 'x']];
    for (let k = 0; k < 200; k++) {
      let t = '';
      for (let j = 0; j < 6; j++) t += pick(alphabets[Math.floor(r() * alphabets.length)], Math.floor(r() * 900));
      texts.push(t);
    }
    expect(texts.length).toBeGreaterThan(1000);
    let different = 0;
    for (const t of texts) if (countCapped(t, raw) !== countCappedByRegex(t, raw)) different++;
    expect(different).toBe(0);
    // The linear pre-check answers exactly what the regex it replaced answered.
    const { maybeLongRun } = await import('./count');
    const maybeLong = new RegExp(`\\S{${MAX_BPE_PIECE}}|\\s{${MAX_BPE_PIECE}}`);
    expect(texts.filter((t) => maybeLongRun(t) !== maybeLong.test(t))).toEqual([]);
    expect(texts.filter((t) => maybeLongRun(t)).length).toBeGreaterThan(100);
  }, 120_000);
});
