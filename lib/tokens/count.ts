/**
 * Token counting. Exact BPE counts (gpt-tokenizer) where the model is OpenAI's, chars/4 elsewhere
 * (what every peer uses for non-OpenAI models: seeds 000/002/003). One function decides per model
 * so that `inspect`, the budget and the compaction pipeline all count the same way.
 */
import { bpeCount } from '#bpe';
import type { Block, ToolSchema } from '../model/types';

export type TokenizerId = 'o200k' | 'cl100k' | 'chars4';

// Special-token text such as <|endoftext|> is common in transcripts: count it as plain text.
const ENCODE_OPTIONS = { disallowedSpecial: new Set<string>() };

export interface TokenCounter {
  id: TokenizerId;
  count(text: string): number;
}

const chars4: TokenCounter = { id: 'chars4', count: (t) => Math.ceil(t.length / 4) };
/**
 * Longest run of one character class (letters, punctuation, white space) handed to the BPE in one
 * piece. gpt-tokenizer merges a pre-tokenized piece in time quadratic in its length (a 100k-letter
 * run of a base64 blob: 24 s; 300k: 227 s), so, as other BPE users do, longer runs are cut into
 * pieces of this length. No word of real text comes near it, so normal text is counted exactly
 * (one call, the same text); a cut run may count a token or two more than an uncut one would.
 */
export const MAX_BPE_PIECE = 400;
const LONG_RUN = new RegExp(`\\p{L}{${MAX_BPE_PIECE},}|[^\\s\\p{L}\\p{N}]{${MAX_BPE_PIECE},}|\\s{${MAX_BPE_PIECE},}`, 'gu');
/** White space as a regex's \s sees it (ECMAScript WhiteSpace and LineTerminator). */
function isSpace(c: number): boolean {
  if (c < 128) return ASCII_CLASS[c] === 0;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/**
 * A long letter or punctuation run has no white space in it: without MAX_BPE_PIECE non-space (or
 * space) code units in a row there is none. One pass over the code units; the regex it replaces
 * (/\S{400}|\s{400}/) restarted at every position of a long non-space stretch, quadratic in the
 * stretch, and made counting real Claude Code text 1.67× slower than gpt-tokenizer alone.
 */
export function maybeLongRun(text: string): boolean {
  let run = 0;
  let space = false;
  for (let i = 0; i < text.length; i++) {
    const s = isSpace(text.charCodeAt(i));
    if (s === space && run > 0) {
      if (++run >= MAX_BPE_PIECE) return true;
    } else {
      space = s;
      run = 1;
    }
  }
  return false;
}

/** Character class of a code unit for the long-run scan: 0 white space, 1 letter, 2 digit, 3 other (punctuation, symbols). */
const ASCII_CLASS = new Uint8Array(128).map((_, c) => {
  const ch = String.fromCharCode(c);
  return /\s/.test(ch) ? 0 : /[A-Za-z]/.test(ch) ? 1 : /[0-9]/.test(ch) ? 2 : 3;
});
const wideClass = new Map<number, number>();
function classOf(text: string, i: number): { cls: number; width: number } {
  const c = text.charCodeAt(i);
  if (c < 128) return { cls: ASCII_CLASS[c], width: 1 };
  const cp = text.codePointAt(i)!;
  const width = cp > 0xffff ? 2 : 1;
  let cls = wideClass.get(cp);
  if (cls === undefined) {
    const ch = String.fromCodePoint(cp);
    cls = /\s/u.test(ch) ? 0 : /\p{L}/u.test(ch) ? 1 : /\p{N}/u.test(ch) ? 2 : 3;
    wideClass.set(cp, cls);
  }
  return { cls, width };
}

/**
 * The runs LONG_RUN matches (letters, white space, or other non-digit characters, MAX_BPE_PIECE or
 * longer), found by one pass over the code units: the Unicode-class regex doubled the cost of
 * counting real text (JSON and logs hold many long non-space stretches that are not one run).
 */
function longRuns(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let start = 0;
  let cls = -1;
  let units = 0; // code points in the current run (the regex counts characters)
  for (let i = 0; i < text.length; ) {
    const { cls: c, width } = classOf(text, i);
    if (c !== cls || c === 2) {
      if (cls !== 2 && cls >= 0 && units >= MAX_BPE_PIECE) out.push([start, i]);
      cls = c;
      start = i;
      units = 0;
    }
    units++;
    i += width;
  }
  if (cls !== 2 && cls >= 0 && units >= MAX_BPE_PIECE) out.push([start, text.length]);
  return out;
}

export function countCapped(text: string, count: (t: string) => number): number {
  if (text.length < MAX_BPE_PIECE || !maybeLongRun(text)) return count(text);
  const runs = longRuns(text);
  if (runs.length === 0) return count(text);
  let total = 0;
  let from = 0;
  for (const [a, b] of runs) {
    if (a > from) total += count(text.slice(from, a));
    // Pieces of MAX_BPE_PIECE code units, as the regex-based cut made them.
    for (let i = a; i < b; i += MAX_BPE_PIECE) total += count(text.slice(i, Math.min(b, i + MAX_BPE_PIECE)));
    from = b;
  }
  if (from < text.length) total += count(text.slice(from));
  return total;
}

/** The regex form of the long-run cut (the reference the scan above is tested against). */
export function countCappedByRegex(text: string, count: (t: string) => number): number {
  if (text.length < MAX_BPE_PIECE) return count(text);
  LONG_RUN.lastIndex = 0;
  let m = LONG_RUN.exec(text);
  if (!m) return count(text);
  let total = 0;
  let from = 0;
  for (; m; m = LONG_RUN.exec(text)) {
    if (m.index > from) total += count(text.slice(from, m.index));
    const run = m[0];
    for (let i = 0; i < run.length; i += MAX_BPE_PIECE) total += count(run.slice(i, i + MAX_BPE_PIECE));
    from = m.index + run.length;
  }
  if (from < text.length) total += count(text.slice(from));
  return total;
}

const rawO200k = (t: string) => bpeCount.o200k(t, ENCODE_OPTIONS);
const rawCl100k = (t: string) => bpeCount.cl100k(t, ENCODE_OPTIONS);

/**
 * Exact counts computed elsewhere (the CLI's tokenizer pool: one worker thread per core) for the
 * texts of one import, or a collector that records those texts without counting them (the first,
 * cheap pass of a pooled import). Only while `withExactCounts` runs; never in the browser.
 */
export type ExactId = 'o200k' | 'cl100k';
export type ExactCountsHook = { counts: Partial<Record<ExactId, Map<string, number>>> } | { collect: Record<ExactId, string[]> };
type Hook = ExactCountsHook;
let hook: Hook | undefined;

export function withExactCounts<T>(h: Hook, fn: () => T): T {
  const prev = hook;
  hook = h;
  try {
    return fn();
  } finally {
    hook = prev;
  }
}

function exact(id: ExactId, raw: (t: string) => number, t: string): number {
  if (t.length === 0) return 0;
  if (hook) {
    if ('collect' in hook) {
      hook.collect[id].push(t);
      return 0;
    }
    const n = hook.counts[id]?.get(t);
    if (n !== undefined) return n;
  }
  return countCapped(t, raw);
}
const o200k: TokenCounter = { id: 'o200k', count: (t) => exact('o200k', rawO200k, t) };
const cl100k: TokenCounter = { id: 'cl100k', count: (t) => exact('cl100k', rawCl100k, t) };

export function counterById(id: TokenizerId): TokenCounter {
  return id === 'o200k' ? o200k : id === 'cl100k' ? cl100k : chars4;
}

/** Which tokenizer fits a model name. Unknown or non-OpenAI models get chars/4. */
export function tokenizerForModel(model: string | undefined): TokenizerId {
  if (!model) return 'chars4';
  const m = model.toLowerCase().replace(/^openai\//, '');
  if (/^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o1|o3|o4|gpt-oss|chatgpt-4o|codex)/.test(m)) return 'o200k';
  if (/^(gpt-4|gpt-3\.5|text-embedding-3|text-embedding-ada)/.test(m)) return 'cl100k';
  return 'chars4';
}

/** The text of a block as the model would be sent it, for counting. */
export function blockText(block: Block): string {
  switch (block.kind) {
    case 'text':
    case 'summary':
      return block.text;
    case 'reasoning':
      return block.text;
    case 'tool_call':
      return block.name + ' ' + (block.rawInput ?? (typeof block.input === 'string' ? block.input : JSON.stringify(block.input) ?? ''));
    case 'tool_result':
      return block.content;
    case 'attachment':
      return block.text ?? '';
    case 'opaque':
      return block.text;
  }
}

/** An image of unknown size: a flat estimate (Anthropic ≈ 1,600 tokens for a typical screenshot). */
export const IMAGE_TOKENS = 1600;

/**
 * An image's tokens from its pixel size, the way the provider bills it. OpenAI (the exact
 * tokenizers): fit in 2048×2048, shortest side down to 768, then 85 + 170 per 512-px tile (high
 * detail). Everyone else, Anthropic's rule: long edge down to 1568, then w×h / 750, at most ~1,600.
 */
export function imageTokens(width: number, height: number, tokenizer: TokenizerId): number {
  if (tokenizer === 'o200k' || tokenizer === 'cl100k') {
    let w = width;
    let h = height;
    const fit = Math.min(1, 2048 / Math.max(w, h));
    w *= fit;
    h *= fit;
    const shortest = Math.min(1, 768 / Math.min(w, h));
    w *= shortest;
    h *= shortest;
    return 85 + 170 * Math.ceil(w / 512) * Math.ceil(h / 512);
  }
  const scale = Math.min(1, 1568 / Math.max(width, height));
  return Math.min(IMAGE_TOKENS, Math.max(1, Math.ceil((width * scale * height * scale) / 750)));
}

export function countBlock(block: Block, counter: TokenCounter): number {
  if (block.kind === 'attachment' && block.text === undefined) {
    if (!block.mediaType.startsWith('image/')) return Math.ceil((block.bytes ?? 0) / 4);
    return block.width && block.height ? imageTokens(block.width, block.height, counter.id) : IMAGE_TOKENS;
  }
  return counter.count(blockText(block));
}

export function toolSchemaText(tool: Pick<ToolSchema, 'name' | 'description' | 'parameters'>): string {
  return tool.name + ' ' + (tool.description ?? '') + ' ' + parametersJson(tool.parameters);
}

// A pooled import asks for a schema's text twice (to collect it, then to read its count), on
// copies of the schema that share its parameters object: their JSON is remembered per object.
const parameterTexts = new WeakMap<object, string>();

function parametersJson(parameters: unknown): string {
  if (parameters === undefined) return '';
  if (parameters === null || typeof parameters !== 'object') return JSON.stringify(parameters);
  let text = parameterTexts.get(parameters);
  if (text === undefined) parameterTexts.set(parameters, (text = JSON.stringify(parameters)));
  return text;
}
