/**
 * Token counting. Exact BPE counts (gpt-tokenizer) where the model is OpenAI's, chars/4 elsewhere
 * (what every peer uses for non-OpenAI models: seeds 000/002/003). One function decides per model
 * so that `inspect`, the budget and the compaction pipeline all count the same way.
 */
import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { countTokens as countCl100k } from 'gpt-tokenizer/encoding/cl100k_base';
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

export function countCapped(text: string, count: (t: string) => number): number {
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

const rawO200k = (t: string) => countO200k(t, ENCODE_OPTIONS);
const rawCl100k = (t: string) => countCl100k(t, ENCODE_OPTIONS);
const o200k: TokenCounter = { id: 'o200k', count: (t) => (t.length === 0 ? 0 : countCapped(t, rawO200k)) };
const cl100k: TokenCounter = { id: 'cl100k', count: (t) => (t.length === 0 ? 0 : countCapped(t, rawCl100k)) };

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
  return tool.name + ' ' + (tool.description ?? '') + ' ' + (tool.parameters === undefined ? '' : JSON.stringify(tool.parameters));
}
