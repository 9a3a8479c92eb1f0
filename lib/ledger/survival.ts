/**
 * What a compaction kept, by category (issue 26 §2), on lib/categories (the one extractor).
 * Placeholder types until lib/categories lands.
 */
import type { Transcript } from '../model/types';

export type Category = 'instructions' | 'paths' | 'commands' | 'errors' | 'figures';
export interface SurvivalCount {
  kept: number;
  of: number;
  lost: Array<{ text: string; messageId?: string; turn?: number }>;
}
export type Survival = Record<Category, SurvivalCount>;

/** Survival of the log's messages [from, to) in the text the model is sent afterwards. */
export type SurvivalFn = (log: Transcript, span: [number, number], modelText: string) => Survival;
