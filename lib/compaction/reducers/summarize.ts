/**
 * summarize (RFD 036, seed 004, sven): replace the oldest span of the window with ONE synthetic
 * summary message at the front — prefix-ward, so the tail stays byte-stable for the provider cache.
 *
 * The span is built in chunks of whole turns, oldest first; each chunk's summary is given the
 * previous one (`previousSummary`), so the last summary covers the whole span on its own. With
 * `untilFits` (the auto pipeline) chunks are added only until the budget holds: only the overflow
 * is summarized. An earlier step's summary at the front is folded in and replaced, so the context
 * holds one summary, not a stack of them.
 *
 * Summaries are off the critical path (seed 004): `project` is synchronous and reads stored
 * artifacts through `env.lookup(key)` (key = step + span + content hash + producer). When none is
 * stored, the offline summarizer stands in and the projection lists a `summaryRequest` so the
 * async layer can produce a real one and re-project. A stored summary that is empty means the
 * producer failed: fall back to emergency (default) or leave the range as it is (`onFailure`). The
 * fallback obeys emergency's rule: the words the user typed stay unless `dropUserMessages`.
 *
 * A summary is never larger than what it replaces. Each summarizer call gets `maxChars`: the
 * tokens the summary would replace (the turns covered so far, this chunk, a folded-in earlier
 * summary) × CHARS_PER_TOKEN × `sizeFraction` (default 0.5), i.e. 2 characters per replaced
 * token. Why half: the offline summary is Markdown full of paths, ids and backticks, which
 * tokenizes denser than prose — measured over the corpus' offline summaries with o200k: 3.2 chars
 * per token overall, 2.4 on the o200k transcripts (chars/4 transcripts: 4 by definition) — so a
 * summary held to 2 chars per replaced token stays below its span in real tokens down to 2 chars
 * per token; and a summary that saves less than half of its span costs detail for little room. The same bound goes to LLM requests (a size hint in the prompt). A summary that
 * still is not smaller than its span in real tokens (the offline one has a floor: its section
 * headings; a stored LLM summary may ignore the hint) is refused: the span stays, the report says
 * so with both sizes, and the auto pipeline goes on to emergency.
 */
import { summarizeOffline } from '../../summarize/offline';
import type { SummaryStyle, SyncSummarizer } from '../../summarize/types';
import type { ProjectedMessage, SummaryKey } from '../types';
import { ContextEditor, contextTokens, fates, isBool, isNum, isStr, oneOf, opt, type Reducer, type ReducerState } from '../context';
import { emergencyDrop } from './emergency';
import { editableTurns, removeMessagesSafely, spanLabel } from './util';

export interface SummarizeEnv {
  /** Stored summaries (Dexie artifacts). undefined = none stored; '' = the producer failed. */
  lookup?: (key: SummaryKey) => string | undefined;
  /** The stand-in when nothing is stored (default: the offline structured summarizer). */
  summarizer?: SyncSummarizer;
  /** Native compaction's output items for a stored summary (seed 002): carried on the summary block. */
  items?: (key: SummaryKey) => readonly unknown[] | undefined;
}

/** FNV-1a over the span's content: the part of the key that changes when the span does. */
export function contentHash(messages: readonly ProjectedMessage[], previousSummary: string | undefined): string {
  let h = 0x811c9dc5;
  const feed = (s: string) => {
    for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
    h = Math.imul(h ^ 0x1f, 0x01000193);
  };
  feed(previousSummary ?? '');
  for (const m of messages) {
    feed(m.role);
    for (const b of m.blocks) {
      feed(b.kind);
      if (b.kind === 'tool_call') feed(b.name + (b.rawInput ?? JSON.stringify(b.input) ?? ''));
      else if (b.kind === 'tool_result') feed(b.content + (b.isError ? '!' : ''));
      else if (b.kind === 'attachment') feed(b.text ?? b.mediaType);
      else feed(b.text);
    }
  }
  return (h >>> 0).toString(36);
}

/** The characters-per-token estimate `SpanInput.maxChars` is documented with (≈ 4 for English text). */
export const CHARS_PER_TOKEN = 4;
/** Default share of the replaced tokens' estimated characters a summary may use (see the file comment). */
export const DEFAULT_SIZE_FRACTION = 0.5;

/**
 * Characters per token assumed when the bound is the budget's room rather than the span: about the
 * offline summaries' measured density (3.2 chars per o200k token). An aim, not a guarantee: where
 * the summary is denser it overshoots the room, and auto's emergency stage (or the CLI's re-aim)
 * takes over as before.
 */
const ROOM_CHARS_PER_TOKEN = 3;

/** The size bound handed to a summarizer for a span of `replacedTokens` tokens. */
export function summaryMaxChars(replacedTokens: number, sizeFraction = DEFAULT_SIZE_FRACTION): number {
  return Math.max(1, Math.floor(replacedTokens * CHARS_PER_TOKEN * sizeFraction));
}

export function summaryKey(stepId: string, span: [number, number], hash: string, producer: string): SummaryKey {
  return { stepId, span, contentHash: hash, producer, id: `${stepId}|${span[0]}-${span[1]}|${hash}|${producer}` };
}

export function summarize(options: Record<string, unknown> = {}, env: SummarizeEnv = {}): Reducer {
  const untilFits = opt(options, 'untilFits', false, isBool);
  const chunkTokensOpt = opt<number | undefined>(options, 'chunkTokens', undefined, (v): v is number | undefined => isNum(v));
  const chunkTurns = opt<number | undefined>(options, 'chunkTurns', undefined, (v): v is number | undefined => isNum(v));
  /** Summarize the oldest fraction of the window's tokens (Gemini CLI: 0.7). */
  const fraction = opt<number | undefined>(options, 'fraction', undefined, (v): v is number | undefined => isNum(v));
  const style = opt<SummaryStyle>(options, 'style', 'structured', oneOf('structured', 'narrative', 'claude-code'));
  const onFailure = opt(options, 'onFailure', 'emergency' as const, oneOf('emergency', 'leave'));
  const producer = opt(options, 'producer', style, isStr);
  const keepN = opt(options, 'emergencyKeepN', 6, isNum);
  // The emergency fallback keeps the words the user typed unless the user allowed their drop (issue #27 item 5).
  const dropUserMessages = opt(options, 'dropUserMessages', false, isBool);
  const sizeFraction = opt(options, 'sizeFraction', DEFAULT_SIZE_FRACTION, (v): v is number => isNum(v) && v > 0 && v <= 1);
  const summarizer = env.summarizer ?? summarizeOffline;

  return {
    id: 'summarize',
    reduce(ctx, budget, state) {
      const stepId = ctx.step.id;
      if (untilFits && contextTokens(ctx) <= budget.total) return new ContextEditor(ctx, 'summarize').finish(state, ['already within budget']);
      const turns = editableTurns(ctx)
        .map((t) => ({ ...t, indices: t.indices.filter((mi) => ctx.messages[mi].role !== 'system') }))
        .filter((t) => t.indices.length > 0);
      if (turns.length === 0) return new ContextEditor(ctx, 'summarize').finish(state, ['nothing to summarize in range']);

      // An earlier summary at the front of the window is folded in (prefix-ward accumulation).
      const firstIdx = turns[0].indices[0];
      let prior: { mi: number; text: string; tokens: number } | undefined;
      for (let mi = firstIdx - 1; mi >= 0; mi--) {
        const m = ctx.messages[mi];
        if (m.synthetic === 'summary') {
          const b = m.blocks[0];
          prior = { mi, text: b.kind === 'summary' ? b.text : '', tokens: m.blocks.reduce((n, x) => n + x.tokens, 0) };
          break;
        }
        if (m.role !== 'system') break;
      }

      const total = contextTokens(ctx);
      const windowTokens = turns.reduce((n, t) => n + t.tokens, 0);
      const chunkTokens = chunkTokensOpt ?? (Number.isFinite(budget.total) ? Math.max(1000, Math.floor(budget.total * 0.1)) : Infinity);
      const limitTokens = fraction !== undefined ? windowTokens * fraction : Infinity;

      let previous = prior?.text ?? state.latestSummary?.text;
      // The chunks summarized by the stand-in since the last stored summary (or the start), and the
      // summary they follow: at the end they are summarized once more, in one pass (see below).
      let base = { previous, from: 0, chunks: 0 };
      let lastMaxChars = 0;
      let lastStored = false;
      const requests: ReducerState['summaryRequests'] = [];
      let text: string | undefined;
      let producedBy = 'offline';
      let nativeItems: readonly unknown[] | undefined;
      let covered = 0;
      let spanEnd = -1; // index into turns
      let failed: string | undefined;
      let t = 0;
      while (t < turns.length) {
        // Next chunk: whole turns up to chunkTokens / chunkTurns.
        const chunk: typeof turns = [];
        let chunkTok = 0;
        while (t < turns.length) {
          const next = turns[t];
          if (chunk.length > 0 && (chunkTok + next.tokens > chunkTokens || (chunkTurns !== undefined && chunk.length >= chunkTurns))) break;
          if (covered + chunkTok + next.tokens > limitTokens && covered + chunkTok > 0) break;
          chunk.push(next);
          chunkTok += next.tokens;
          t++;
        }
        if (chunk.length === 0) break;
        const messages = chunk.flatMap((c) => c.indices.map((mi) => ctx.messages[mi]));
        const span: [number, number] = [turns[0].turn, chunk[chunk.length - 1].turn];
        const key = summaryKey(stepId, span, contentHash(messages, previous), producer);
        // What this chunk's summary would replace: every turn covered so far plus an earlier summary folded in.
        const replacedTokens = (prior?.tokens ?? 0) + covered + chunkTok;
        // With untilFits the summary should also fit the room the budget leaves, so that a lower
        // aim (the CLI re-aims when a format writes a summary with overhead) gets a terser summary.
        const room = Number.isFinite(budget.total) ? budget.total - (total - replacedTokens) : Infinity;
        const maxChars = Math.min(summaryMaxChars(replacedTokens, sizeFraction), room > 0 ? Math.max(1, Math.floor(room * ROOM_CHARS_PER_TOKEN)) : Infinity);
        const stored = env.lookup?.(key);
        let out: string;
        lastMaxChars = maxChars;
        lastStored = stored !== undefined;
        if (stored !== undefined) {
          out = stored;
          producedBy = producer;
          nativeItems = env.items?.(key);
          base = { previous: stored.trim(), from: t, chunks: 0 };
        } else {
          base.chunks++;
          nativeItems = undefined;
          try {
            out = summarizer({ messages, span, previousSummary: previous, style, maxChars });
          } catch (e) {
            out = '';
            failed = `offline summarizer threw: ${e instanceof Error ? e.message : String(e)}`;
          }
          producedBy = 'offline';
          requests.push({ key, span, messages, ...(previous !== undefined && { previousSummary: previous }), spanTokens: replacedTokens, maxChars, tokenizer: ctx.counter.id });
        }
        if (!out.trim()) {
          failed ??= `summary for turns ${span[0] + 1}–${span[1] + 1} is empty (producer failed)`;
          break;
        }
        text = out.trim();
        previous = text;
        covered += chunkTok;
        spanEnd = t - 1;
        if (covered >= limitTokens) break;
        if (untilFits) {
          const after = total - covered - (prior?.tokens ?? 0) + ctx.counter.count(text);
          if (after <= budget.total) break;
        }
      }

      if (failed || text === undefined) {
        const why = failed ?? 'no summary produced';
        if (onFailure === 'leave') return new ContextEditor(ctx, 'summarize').finish(state, [`${why}: range left as it is`]);
        const fallback = emergencyDrop(ctx, budget, state, keepN, untilFits, undefined, [`${why}: fell back to emergency`], dropUserMessages);
        return { ...fallback, report: { ...fallback.report, reducer: 'summarize' } };
      }

      const spanTurns = turns.slice(0, spanEnd + 1);
      const span: [number, number] = [spanTurns[0].turn, spanTurns[spanTurns.length - 1].turn];
      // Chunk by chunk, each stand-in summary is tightened to its own room and the next one folds
      // it in as text, so what an earlier chunk left out, or ranked low, is gone for the whole span
      // (slopometry: 24 of 29 commands, where one summary of the span at the same size kept 29).
      // The stand-in's text is therefore one summary of every turn it covered since the last stored
      // summary, ranked and tightened once against the final room; the chunks' keys and requests
      // (the async layer's) are unchanged. The chunked text stays only when it fits the budget and
      // the one-pass text, larger in tokens, does not (a one-pass summary whose floor — every user
      // message, path and error line — is over its room comes back whole; auto's small rooms).
      if (!lastStored && base.chunks > 1) {
        const covering = turns.slice(base.from, spanEnd + 1);
        const messages = covering.flatMap((c) => c.indices.map((mi) => ctx.messages[mi]));
        const once = (maxChars: number): string => {
          try {
            return summarizer({ messages, span: [turns[0].turn, span[1]], previousSummary: base.previous, style, maxChars }).trim();
          } catch {
            return '';
          }
        };
        const rest = total - covered - (prior?.tokens ?? 0);
        const fits = (n: number) => !Number.isFinite(budget.total) || rest + n <= budget.total;
        const single = once(lastMaxChars);
        const singleTokens = single ? ctx.counter.count(single) : Infinity;
        if (single) {
          const chunkedTokens = ctx.counter.count(text);
          if (singleTokens <= chunkedTokens || fits(singleTokens) || !fits(chunkedTokens)) text = single;
        }
      }
      const summaryId = `sum:${stepId}:${span[0]}-${span[1]}`;
      const tokens = ctx.counter.count(text);
      const editor = new ContextEditor(ctx, 'summarize');
      removeMessagesSafely(
        editor,
        spanTurns.flatMap((x) => x.indices),
        fates.summarized('summarize', stepId, summaryId),
      );
      if (prior) editor.removeMessage(prior.mi, fates.summarized('summarize', stepId, summaryId));
      if (tokens >= editor.saved) {
        const by = producedBy === 'offline' ? 'the offline summarizer' : producedBy;
        return new ContextEditor(ctx, 'summarize').finish(state, [
          `summary (${tokens} tokens, by ${by}) is not smaller than the span (turns ${span[0] + 1}–${span[1] + 1}, ${editor.saved} tokens): not applied, range kept`,
        ]);
      }
      const message: ProjectedMessage = {
        role: 'user',
        turn: span[0],
        synthetic: 'summary',
        span,
        blocks: [{ kind: 'summary', id: summaryId, text, tokens, ...(nativeItems && { nativeItems }) }],
      };
      editor.insertBefore(prior ? prior.mi : spanTurns[0].indices[0], message);
      const nextState: ReducerState = {
        ...state,
        summaries: [...state.summaries, { id: summaryId, stepId, span, text, producer: producedBy, tokens }],
        summaryRequests: [...state.summaryRequests, ...requests],
        latestSummary: { text, upToTurn: span[1] },
      };
      return editor.finish(nextState, [
        `summarized ${spanLabel(spanTurns)}, ${requests.length || 0} chunk(s) by the offline summarizer) into ${tokens} tokens`,
        ...(prior ? ['folded the previous summary in'] : []),
      ]);
    },
  };
}
