/**
 * emergency (sven): drop every non-system message of the window except the newest `keepN`,
 * prepend a canned notice, no model call — it always succeeds. The cut is moved back so the kept
 * part never starts between a tool call and its result (sven "split safety"); pairs that would
 * still straddle the cut keep both halves. With `untilFits` (auto), it keeps as many of the newest
 * messages as the budget holds instead of a fixed keep_n. The notice lists the distinct error lines
 * of what it drops (at most 10, while that costs less than the drop saves), and the report names
 * every message the user typed that was dropped. Unless `dropUserMessages` (issue #27 item 5; off
 * by default), no message the user typed (lib/categories isTypedByUser) is dropped, and a summary
 * that goes gives back, after the notice, the typed messages it quoted.
 */
import type { ProjectedMessage } from '../types';
import type { Transcript } from '../../model/types';
import { ContextEditor, contextTokens, fateIn, fates, isBool, isEditable, isNum, isStr, opt, projectedMessageOf, type CompactionContext, type Reducer, type ReducerState, type ReduceResult } from '../context';
import type { Budget } from '../budget';
import { removeMessagesSafely } from './util';
import { outputCategoryFor } from '../hints';
import { errorLinesOf, resultCategory } from '../signal';
import { hasTypedText, isTypedByUser } from '../../categories/tools';
import { quotedTypedMessages } from '../calls';

/** The notice when the full one would not fit the target (a few tokens: the floor of an agent run can sit just under it). */
export const SHORT_EMERGENCY_NOTICE = '[Context notice] Earlier history ({what}) was dropped.';
/** The fewest words that still say what was dropped, when only they leave room for the error lines. */
export const TERSE_EMERGENCY_NOTICE = '[Context notice] {what} dropped.';

export const EMERGENCY_NOTICE =
  '[Context notice] Earlier conversation history ({what}) was dropped to fit the context window. It is no longer available: ask the user or re-read files if something from it is needed.';

/** Error lines the notice carries (lib/compaction/signal.ts): what failed must not vanish with the history. */
const NOTICE_ERRORS = { maxLines: 10, lineChars: 200 };
/** The heading under which the offline summarizer lists a span's distinct error lines. */
const SUMMARY_ERRORS_HEADING = /^Error lines in tool output \(every distinct one, with its turns\):$/;

// Emergency under a budget tries many cuts of one context (a binary search, the notice's error
// lines one by one), and each try asks which log messages a dropped summary spans and which the
// context still carries. Both are answered from indexes built once (issue 31: the scans of the
// whole log per try were most of a 3,000-turn preview), in the log's order as the scans were.
const presentCache = new WeakMap<readonly ProjectedMessage[], ReadonlySet<string>>();

/** Log message ids the context still carries. */
function presentSources(messages: readonly ProjectedMessage[]): ReadonlySet<string> {
  let present = presentCache.get(messages);
  if (!present) {
    const set = new Set<string>();
    for (const m of messages) if (m.sourceId) set.add(m.sourceId);
    presentCache.set(messages, (present = set));
  }
  return present;
}

const byTurnCache = new WeakMap<Transcript['messages'], Map<number, number[]>>();

/** Positions (in log.messages, ascending) of the log messages whose turn lies in any of the spans. */
function logMessagesIn(log: Transcript, spans: ReadonlyArray<readonly [number, number]>): number[] {
  let byTurn = byTurnCache.get(log.messages);
  if (!byTurn) {
    byTurn = new Map();
    log.messages.forEach((m, i) => {
      const list = byTurn!.get(m.turn);
      if (list) list.push(i);
      else byTurn!.set(m.turn, [i]);
    });
    byTurnCache.set(log.messages, byTurn);
  }
  const out = new Set<number>();
  for (const [from, to] of spans) {
    // A span wider than the log's turns is read turn by turn only where the log has them.
    if (to - from + 1 > byTurn.size) {
      for (const [turn, list] of byTurn) if (turn >= from && turn <= to) for (const i of list) out.add(i);
    } else for (let t = from; t <= to; t++) for (const i of byTurn.get(t) ?? []) out.add(i);
  }
  return [...out].sort((a, b) => a - b);
}

/** Distinct error lines of the messages about to be dropped: their tool results and the error lists of dropped summaries. */
export function droppedErrorLines(ctx: CompactionContext, indices: readonly number[]): string[] {
  const out = new Set<string>();
  for (const mi of indices) {
    for (const b of ctx.messages[mi].blocks) {
      if (b.kind === 'tool_result') for (const l of errorLinesOf(b.content, resultCategory(b, outputCategoryFor(b.name)))) out.add(l);
      else if (b.kind === 'summary' || (b.kind === 'text' && ctx.messages[mi].synthetic)) {
        let inList = false;
        for (const line of b.text.split('\n')) {
          if (SUMMARY_ERRORS_HEADING.test(line.trim())) inList = true;
          else if (inList && line.startsWith('- ')) out.add(line.replace(/^- turns? [\d, ]+, [^:]+: /, ''));
          else inList = false;
        }
      }
    }
  }
  return [...out];
}

/**
 * Messages the user typed among those dropped (lib/categories isTypedByUser: not harness-injected,
 * not side chains), named `turn N: «first 80 characters…»`: raw user messages, and those a dropped
 * summary quoted (the typed messages of the log in the summary's span) unless `restored` gives
 * them back.
 */
function droppedUserMessages(ctx: CompactionContext, indices: readonly number[], restored: ReadonlySet<string> = new Set()): string[] {
  const out: string[] = [];
  const name = (m: { role: string; meta?: boolean; sidechain?: boolean; synthetic?: 'summary' | 'notice'; turn: number; blocks: readonly { kind: string; text?: string }[] }) => {
    for (const b of m.blocks) {
      if (!isTypedByUser(m, b)) continue;
      const t = (b.text ?? '').trim();
      out.push(`turn ${m.turn + 1}: «${t.replace(/\s+/g, ' ').slice(0, 80)}${t.length > 80 ? '…' : ''}»`);
    }
  };
  for (const mi of indices) {
    const m = ctx.messages[mi];
    if (m.synthetic === 'summary') {
      // A summary's span can hold a typed message the projection still carries (the prompt that
      // opened a protected turn): dropping the summary does not lose it.
      for (const lm of quotedIn(ctx, m)) if (!restored.has(lm.id)) name(lm);
      continue;
    }
    name(m);
  }
  return out;
}

/**
 * Per context: the typed log messages a summary of it quoted (calls.ts quotedTypedMessages: those
 * of its span the context no longer carries), read from the by-turn index and cached — emergency
 * asks for each weighed cut (issue 31).
 */
const quotedCache = new WeakMap<CompactionContext, Map<ProjectedMessage, readonly Transcript['messages'][number][]>>();
function quotedIn(ctx: CompactionContext, m: ProjectedMessage): readonly Transcript['messages'][number][] {
  if (m.synthetic !== 'summary' || !m.span) return [];
  let byMessage = quotedCache.get(ctx);
  if (!byMessage) quotedCache.set(ctx, (byMessage = new Map()));
  let out = byMessage.get(m);
  if (!out) {
    const present = presentSources(ctx.messages);
    const list: Transcript['messages'][number][] = [];
    for (const li of logMessagesIn(ctx.log, [m.span])) {
      const lm = ctx.log.messages[li];
      if (!present.has(lm.id) && lm.blocks.some((b) => isTypedByUser(lm, b))) list.push(lm);
    }
    byMessage.set(m, (out = list));
  }
  return out;
}

/**
 * What emergency gives back when it drops summaries without the user's leave to drop their words
 * (issue #27 item 5): the typed log messages they quoted, as the log has them (only the typed text
 * blocks of a message that also holds other blocks), in log order. The summary's other lines go:
 * the words are what the floor keeps.
 */
function restoredMessages(ctx: CompactionContext, drop: readonly number[]): ProjectedMessage[] {
  const out: ProjectedMessage[] = [];
  const seen = new Set<string>();
  for (const mi of drop) {
    for (const lm of quotedIn(ctx, ctx.messages[mi])) {
      if (seen.has(lm.id)) continue;
      seen.add(lm.id);
      const p = projectedMessageOf(lm);
      out.push(lm.blocks.every((b) => isTypedByUser(lm, b)) ? p : Object.freeze({ ...p, blocks: p.blocks.filter((b) => isTypedByUser(lm, b)) }));
    }
  }
  return out.sort((a, b) => a.turn - b.turn);
}

/** Per context: the log messages a set of summary spans holds as summarized (the context no longer carries them), each with its summarized block ids. */
const summarizedCache = new WeakMap<CompactionContext, Map<string, ReadonlyArray<{ id: string; blocks: readonly string[] }>>>();
function summarizedIn(ctx: CompactionContext, spans: ReadonlyArray<readonly [number, number]>): ReadonlyArray<{ id: string; blocks: readonly string[] }> {
  let bySpans = summarizedCache.get(ctx);
  if (!bySpans) summarizedCache.set(ctx, (bySpans = new Map()));
  const key = spans.map(([a, b]) => `${a}-${b}`).join(',');
  let hit = bySpans.get(key);
  if (!hit) {
    const present = presentSources(ctx.messages);
    const list: { id: string; blocks: string[] }[] = [];
    for (const li of logMessagesIn(ctx.log, spans)) {
      const lm = ctx.log.messages[li];
      if (lm.sidechain || present.has(lm.id)) continue;
      const blocks: string[] = [];
      for (const b of lm.blocks) if (fateIn(ctx.fates, b.id)?.kind === 'summarized') blocks.push(b.id);
      if (blocks.length) list.push({ id: lm.id, blocks });
    }
    bySpans.set(key, (hit = list));
  }
  return hit;
}

/**
 * The turns and the log messages a drop takes out of the context: raw messages, and the span of
 * each dropped summary, whose log blocks (summarized until now) are to be given the drop's fate.
 */
function droppedSpan(ctx: CompactionContext, drop: readonly number[], restored: ReadonlySet<string> = new Set()): { first: number; last: number; messages: number; removed: readonly string[] } {
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  let messages = 0;
  const summaries: [number, number][] = [];
  for (const mi of drop) {
    const m = ctx.messages[mi];
    first = Math.min(first, m.span?.[0] ?? m.turn);
    last = Math.max(last, m.span?.[1] ?? m.turn);
    if (m.synthetic === 'summary' && m.span) summaries.push(m.span);
    else if (!m.synthetic) messages++;
  }
  if (!summaries.length) return { first, last, messages, removed: [] };
  // The typed messages a dropped summary gives back are kept, not removed nor counted.
  const removed: string[] = [];
  for (const e of summarizedIn(ctx, summaries)) {
    if (restored.has(e.id)) continue;
    messages++;
    for (const id of e.blocks) removed.push(id);
  }
  return { first, last, messages, removed };
}

function noticeMessage(ctx: CompactionContext, what: string, turn: number, template: string, errors: readonly string[] = [], of = errors.length): ProjectedMessage {
  const shown = errors.slice(-NOTICE_ERRORS.maxLines).map((l) => (l.length > NOTICE_ERRORS.lineChars ? l.slice(0, NOTICE_ERRORS.lineChars - 1) + '…' : l));
  const heading = template === TERSE_EMERGENCY_NOTICE ? 'Errors' : `Errors seen in it${of > shown.length ? ` (${shown.length} of ${of})` : ''}`;
  const text = template.replace('{what}', what) + (shown.length ? `\n${heading}:\n${shown.join('\n')}` : '');
  return {
    role: 'user',
    turn,
    synthetic: 'notice',
    blocks: [{ kind: 'text', id: `notice:${ctx.step.id}:${turn}`, text, tokens: ctx.counter.count(text) }],
  };
}

/** Emergency's work, counted (issue 31: tests count the cuts built, never time). */
export const emergencyWork = { attempts: 0, cuts: 0 };

/** A cut emergency weighs: the context's tokens after it (contextTokens of the finished context), and the context itself, built on demand. */
interface Attempt {
  tokens: number;
  finish: () => ReduceResult;
}

/** Drop the window but its newest `keepN` messages. Exported for summarize's failure fallback. */
export function emergencyDrop(ctx: CompactionContext, budget: Budget, state: ReducerState, keepN: number, untilFits: boolean, template = EMERGENCY_NOTICE, extraNotes: string[] = [], dropUserMessages = false): ReduceResult {
  // Dropped oldest first: the raw messages of the range, then — only when even that is not
  // enough — earlier summaries and notices ("latest summary + verbatim tail" survives longest).
  const raw: number[] = [];
  const synthetic: number[] = [];
  const windowEnd = ctx.window?.to ?? -1;
  let userKept = 0;
  ctx.messages.forEach((m, mi) => {
    if (m.role === 'system') return;
    // Issue #27 item 5: without the user's say-so (`dropUserMessages`), a message the user typed
    // (lib/categories isTypedByUser, the floor's test) is never a candidate, and a summary that
    // quotes some gives them back when it goes (restoredMessages): emergency drops tool content,
    // the agent's own words and the rest of a summary, and stops at the floor.
    if (!dropUserMessages && isEditable(ctx, m) && hasTypedText(m)) {
      userKept++;
      return;
    }
    if (isEditable(ctx, m)) raw.push(mi);
    else if (m.synthetic !== undefined && m.turn <= windowEnd) synthetic.push(mi);
  });
  const candidates = [...raw, ...synthetic];
  /**
   * One cut, weighed: the context's tokens after it, and `finish` to build it. Emergency weighs
   * many cuts (a binary search, the notice's error lines one by one) and builds one: the new
   * messages array, the fates of a dropped summary's span and the report's notes are made by
   * `finish` only (issue 31: building every weighed cut was most of a 10,000-turn preview).
   * `errors`: every dropped error line, none, or only those of a chosen set (what fits the target).
   */
  /**
   * What a cut drops, built once per cut (issue 31): the notice's wordings and error lines are
   * weighed on the same cut (up to 2 × NOTICE_ERRORS.maxLines + 4 times when even the whole range
   * does not fit), and only the notice differs between them. Weighing does not edit the cut's
   * editor; the attempt that is finished inserts its notice into it.
   */
  interface Cut {
    drop: number[];
    editor: ContextEditor;
    restore: ProjectedMessage[];
    /** The source ids of the given-back messages. */
    restored: ReadonlySet<string>;
    restoredTokens: number;
    /** Main-chain tokens of the given-back messages (what they add to the context total). */
    restoredMain: number;
    first: number;
    last: number;
    covered: number;
    removed: readonly string[];
    lines?: string[];
    finished?: boolean;
  }
  const cuts = new Map<number, Cut>();
  const cutOf = (cut: number): Cut => {
    let c = cuts.get(cut);
    if (c && !c.finished) return c;
    emergencyWork.cuts++;
    const drop = candidates.slice(0, cut).sort((a, b) => a - b);
    const editor = new ContextEditor(ctx, 'emergency');
    removeMessagesSafely(editor, drop, fates.removed('emergency', ctx.step.id));
    const restore = dropUserMessages ? [] : restoredMessages(ctx, drop);
    const restored = new Set(restore.map((m) => m.sourceId!));
    const restoredTokens = restore.reduce((n, m) => n + m.blocks.reduce((s, b) => s + b.tokens, 0), 0);
    const restoredMain = restore.reduce((n, m) => n + (m.sidechain ? 0 : m.blocks.reduce((s, b) => s + b.tokens, 0)), 0);
    // A dropped summary takes its span with it: those log messages are removed now, not summarized,
    // and the notice counts them (it said "turns 60–60, 1 messages" for a summary of 152 turns).
    // The typed messages it gives back are kept, not counted.
    const { first, last, messages: covered, removed } = droppedSpan(ctx, drop, restored);
    c = { drop, editor, restore, restored, restoredTokens, restoredMain, first, last, covered, removed };
    cuts.set(cut, c);
    return c;
  };
  const attempt = (keep: number, notice = template, errors: 'all' | 'none' | ReadonlySet<string> = 'all'): Attempt | undefined => {
    let cut = Math.max(0, candidates.length - keep);
    // Split safety: never start the kept part on a message made only of tool results.
    while (cut > 0 && cut < candidates.length && ctx.messages[candidates[cut]].blocks.some((b) => b.kind === 'tool_result')) cut--;
    if (cut === 0) return undefined;
    emergencyWork.attempts++;
    const c = cutOf(cut);
    const { drop, restore, restored, restoredTokens, first, last, covered, removed } = c;
    const what = `turns ${first + 1}–${last + 1}, ${covered} messages`;
    const lines = errors === 'none' ? [] : (c.lines ??= droppedErrorLines(ctx, drop));
    let shown = errors === 'all' ? lines.slice(-NOTICE_ERRORS.maxLines) : errors === 'none' ? [] : lines.filter((l) => errors.has(l));
    let message = noticeMessage(ctx, what, first, notice, shown, lines.length);
    // The error lines only while they cost less than the drop saves (net of the words given back).
    const saved = c.editor.saved - restoredTokens;
    if (message.blocks[0].tokens >= saved) {
      shown = [];
      message = noticeMessage(ctx, what, first, notice);
    }
    if (message.blocks[0].tokens >= saved) return undefined;
    return {
      // The cut's total with the notice and the given-back messages inserted (ContextEditor.insertBefore's arithmetic).
      tokens: c.editor.contextTotal + message.blocks.reduce((n, b) => n + b.tokens, 0) + c.restoredMain,
      finish: () => {
        // A cut is finished once; another attempt on it after that builds it again.
        const editor = c.finished ? cutOf(cut).editor : c.editor;
        c.finished = true;
        editor.insertBefore(drop[0], message);
        for (const r of restore) editor.insertBefore(drop[0], r);
        if (removed.length) editor.setFates(removed, fates.removed('emergency', ctx.step.id));
        if (restore.length) editor.setFates(restore.flatMap((r) => r.blocks.map((b) => b.id)), { kind: 'kept' });
        const typed = droppedUserMessages(ctx, drop, restored);
        const named = typed.length ? [`user messages not kept (${typed.length}): ${typed.slice(0, 20).join('; ')}${typed.length > 20 ? `; … ${typed.length - 20} more` : ''}`] : [];
        const inNotice = new Set(shown);
        const lostErrors = lines.filter((l) => !inNotice.has(l));
        if (lostErrors.length)
          named.push(`error lines not kept in the notice (${lostErrors.length} of ${lines.length}): ${lostErrors.slice(0, 10).map((l) => `«${l.slice(0, 80)}${l.length > 80 ? '…' : ''}»`).join('; ')}${lostErrors.length > 10 ? `; … ${lostErrors.length - 10} more` : ''}`);
        const gaveBack = restore.length ? [`gave back the ${restore.length} message(s) the user typed that the dropped summary quoted (turns ${restore[0].turn + 1}–${restore[restore.length - 1].turn + 1})`] : [];
        return editor.finish(state, [...extraNotes, `dropped ${drop.length} message(s), kept the newest ${candidates.length - cut} of the range`, ...gaveBack, ...named]);
      },
    };
  };
  // sven's keep_n is one number for both paths (Step.keepLastMessages): the newest messages the step
  // already protects count towards it, so emergency keeps keep_n in all, not keep_n more.
  if (ctx.step.keepLastMessages) {
    const lastRaw = raw.length ? raw[raw.length - 1] : -1;
    let after = 0;
    for (let i = lastRaw + 1; i < ctx.messages.length; i++) if (ctx.messages[i].role !== 'system' && !ctx.messages[i].sidechain && !ctx.messages[i].synthetic) after++;
    keepN = Math.max(0, keepN - after);
  }
  if (!untilFits) return attempt(keepN)?.finish() ?? new ContextEditor(ctx, 'emergency').finish(state, [...extraNotes, 'nothing to drop in range']);
  // Under a budget keep as many of the newest messages as fit (at least keep_n when they fit):
  // the kept total grows with the count, so binary search (O(n log n)).
  const fits = (r: Attempt | undefined) => r !== undefined && r.tokens <= budget.total;
  let best = attempt(0);
  let notice = template;
  let errors: 'all' | 'none' | ReadonlySet<string> = 'all';
  // The full notice can be what stands between the floor and the target: say it in fewer words
  // then. What failed is worth more than the notice's wording, so the error lines go last: every
  // one in a short notice, then in a terse one, then as many as fit (newest first), then none.
  if (!fits(best) && template === EMERGENCY_NOTICE) {
    const dropAll = candidates.slice().sort((a, b) => a - b);
    const all = droppedErrorLines(ctx, dropAll).slice(-NOTICE_ERRORS.maxLines);
    const choose = (n: string): ReadonlySet<string> => {
      const chosen = new Set<string>();
      for (let i = all.length - 1; i >= 0; i--) {
        chosen.add(all[i]);
        if (!fits(attempt(0, n, chosen))) chosen.delete(all[i]);
      }
      return chosen;
    };
    const tries: Array<[string, () => 'all' | 'none' | ReadonlySet<string>]> = [
      [SHORT_EMERGENCY_NOTICE, () => 'all'],
      [TERSE_EMERGENCY_NOTICE, () => 'all'],
      [SHORT_EMERGENCY_NOTICE, () => choose(SHORT_EMERGENCY_NOTICE)],
      [TERSE_EMERGENCY_NOTICE, () => choose(TERSE_EMERGENCY_NOTICE)],
      [SHORT_EMERGENCY_NOTICE, () => 'none'],
    ];
    for (const [n, pick] of tries) {
      const e = pick();
      if (typeof e !== 'string' && e.size === 0) continue;
      const r = attempt(0, n, e);
      if (!fits(r)) continue;
      best = r;
      notice = n;
      errors = e;
      break;
    }
  }
  // Dropping the whole range would not reach the budget either (what lies outside the range, or is
  // protected, alone exceeds it): destroying the range — the user's instructions with it — would
  // buy nothing the target asked for. Nothing is dropped, and the report says why.
  if (!fits(best)) {
    const floor = best ? best.tokens : contextTokens(ctx);
    const kept = userKept ? ` (it keeps the ${userKept} message(s) with the user's words: tick "Emergency may drop user messages" to allow it)` : '';
    return new ContextEditor(ctx, 'emergency').finish(state, [...extraNotes, `not run: even dropping the whole range leaves ${floor.toLocaleString('en-US')} tokens > target ${budget.total.toLocaleString('en-US')}${kept}`]);
  }
  let lo = 0;
  let hi = candidates.length - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    const r = attempt(mid, notice, errors);
    if (fits(r)) {
      lo = mid;
      best = r;
    } else hi = mid - 1;
  }
  return best!.finish();
}

export function emergency(options: Record<string, unknown> = {}): Reducer {
  const keepN = opt(options, 'keepN', 6, isNum);
  const untilFits = opt(options, 'untilFits', false, isBool);
  const notice = opt(options, 'notice', EMERGENCY_NOTICE, isStr);
  // Off by default: a user message goes only when the user ticks it (issue #27 item 5).
  const dropUserMessages = opt(options, 'dropUserMessages', false, isBool);
  return {
    id: 'emergency',
    reduce(ctx, budget, state) {
      if (untilFits && contextTokens(ctx) <= budget.total) return new ContextEditor(ctx, 'emergency').finish(state, ['already within budget']);
      return emergencyDrop(ctx, budget, state, keepN, untilFits, notice, [], dropUserMessages);
    },
  };
}
