/**
 * What a compaction kept, by category (issue 26 §2), on lib/categories — the one extractor the
 * Lost tab and `compact --report-json` count with too. The items are those of the span the
 * compaction covered; kept = still present in what the model is sent afterwards.
 */
import { extractCategories, survivalOf, type Category, type Survival } from '../categories';
import type { Message, Transcript } from '../model/types';

export type { Category, Survival };

/** Survival of the log's messages [from, to) in the text the model is sent afterwards. */
export type SurvivalFn = (log: Transcript, span: [number, number], modelText: string, messages?: readonly Message[]) => Survival;

/** The default: every item of the span's messages (or of the given messages: the parts a step changed). */
export const spanSurvival: SurvivalFn = (log, span, modelText, messages) => survivalOf(extractCategories(messages ?? log.messages.slice(span[0], span[1]), { format: log.format }), modelText);
