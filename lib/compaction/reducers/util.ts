/** Helpers shared by the reducers: walking the editable window, pairs, stubs. */
import type { ToolCallBlock, ToolResultBlock } from '../../model/types';
import { ContextEditor, indexPairs, isEditable, isMessageGranular, type CompactionContext, type PairIndex } from '../context';
import { callOfMessage, sourceIndex } from '../calls';
import type { Budget } from '../budget';
import type { Fate, ProjectedBlock, ProjectedMessage } from '../types';
import { resultCategory, resultStatus, stubSignal } from '../signal';
import { commandOutcome, tallyLineOf } from '../../categories';
import type { OutputCategory } from '../truncate-text';

export interface BlockRef<B = ProjectedBlock> {
  mi: number;
  bi: number;
  block: B;
}

/**
 * Editable blocks of a kind, oldest first. Cached by the messages array (contexts are immutable),
 * the window and the kind: the auto pipeline's reducers that change nothing hand the same array to
 * the next one, which then does not scan 40k messages again for that kind. One scan per kind asked
 * (a scan without allocation is cheap; a reference for each of 60k blocks of every kind, when one
 * reducer wants the 3k reasoning blocks, was not). The list is shared: read it, never change it.
 */
export function editableBlocks<K extends ProjectedBlock['kind']>(ctx: CompactionContext, kind: K): readonly BlockRef<Extract<ProjectedBlock, { kind: K }>>[] {
  const w = ctx.window;
  let hit = editableCache.get(ctx.messages);
  // Keyed by the whole window: a call range (firstMessage/lastMessage, the protected prompts) inside one
  // turn has the turn's from/to, and a list made for calls 1–1 must not serve calls 2–4 (issue 30).
  if (!hit || !sameWindow(hit.window, w)) {
    hit = { window: w, byKind: new Map() };
    editableCache.set(ctx.messages, hit);
  }
  let list = hit.byKind.get(kind);
  if (!list) {
    list = [];
    const messages = ctx.messages;
    for (let mi = 0; mi < messages.length; mi++) {
      const m = messages[mi];
      const blocks = m.blocks;
      let editable: boolean | undefined;
      for (let bi = 0; bi < blocks.length; bi++) {
        const b = blocks[bi];
        if (b.kind !== kind || !(editable ??= isEditable(ctx, m))) continue;
        list.push({ mi, bi, block: b });
      }
    }
    hit.byKind.set(kind, list);
  }
  return list as BlockRef<Extract<ProjectedBlock, { kind: K }>>[];
}

function sameWindow(a: CompactionContext['window'], b: CompactionContext['window']): boolean {
  if (a === b) return true;
  if (!a || !b || a.from !== b.from || a.to !== b.to || a.firstMessage !== b.firstMessage || a.lastMessage !== b.lastMessage) return false;
  if (a.keep === b.keep) return true;
  if (!a.keep || !b.keep || a.keep.size !== b.keep.size) return false;
  for (const i of a.keep) if (!b.keep.has(i)) return false;
  return true;
}

const editableCache = new WeakMap<readonly ProjectedMessage[], { window: CompactionContext['window']; byKind: Map<string, BlockRef[]> }>();

/** With `untilFits`, reducers stop as soon as the budget holds (the auto pipeline's "cheap first, stop early"). */
export function fitsNow(editor: ContextEditor, budget: Budget, untilFits: boolean): boolean {
  return untilFits && editor.total <= budget.total;
}

/** First non-empty line, trimmed and capped, for stubs. */
export function firstLine(text: string, max = 120): string {
  const line = text.split('\n').find((l) => l.trim().length > 0)?.trim() ?? '';
  return line.length > max ? line.slice(0, max - 1) + '…' : line;
}

/** Texts that are already our own stubs (re-stubbing them must be a no-op: idempotence). */
export function isStub(content: string): boolean {
  return /^\[(compacted|result expired|deduplicated|Old tool result content cleared|stripped|cleared to save context)\b/.test(content) || content === '[result expired]';
}

/**
 * RFD 036 strip-tool-results stub, carrying the signal (lib/compaction/signal.ts):
 * `[compacted] <tool>[: ok|error] — <line>` where <line> is the result's one signal line (failing
 * test, assertion, error, exit code) or, when it has none, its first line; with several signal
 * lines, they follow the header one per line (at most STUB_SIGNAL: 6 lines, 600 characters).
 * The status word is there only when known (the format records it, or the output states an exit
 * code): "ok" on a format without an error flag would be a guess.
 */
export function resultStub(r: Pick<ToolResultBlock, 'name' | 'isError' | 'content'>, format?: string, category: OutputCategory = 'generic'): string {
  const status = resultStatus(r, format);
  const head = `[compacted] ${r.name ?? 'tool'}${status ? `: ${status}` : ''}`;
  const picked = stubSignal(r.content, resultCategory(r, category));
  if (picked.length > 1) return [head, ...picked].join('\n');
  const line = picked[0] ?? firstLine(r.content);
  // A run that passed has no signal line: its tally line says how it ended (issue 27: the figures survive).
  const tally = picked.length === 0 && category !== 'file-content' ? tallyLineOf(r.content) : undefined;
  // Neither: a shell's last line says how it ended ("All checks passed!", "Wrote dist/app.js").
  // (Not for a failed run: its first line or its signal says that.)
  const end = picked.length === 0 && !tally && !r.isError ? endLineOf(r.content, category) : undefined;
  const more = tally ?? end;
  return `${head}${line ? ` — ${line}` : ''}${more && more !== line ? `\n${more}` : ''}`;
}

/**
 * How a shell run (a `head-tail` tool: shells, builds, interpreters) ended when its output has no
 * signal line and no tally: its last non-empty line, decoded (a Codex result is JSON), clipped to
 * 200 characters (issue 27: "a stubbed or expired shell result keeps its command and that outcome
 * line"; the command is the call's, which stubs never touch).
 */
function endLineOf(content: string, category: OutputCategory): string | undefined {
  if (category !== 'head-tail' || !content.trim()) return undefined;
  return commandOutcome(content, false).line;
}

/**
 * A stub's signal lines appended to a fixed placeholder (tool-retention's `[result expired]`).
 * `endLine: false` for a peer's own placeholder (a replay of Claude Code's microcompact writes what
 * it writes): no last line of a passing run.
 */
export function withSignal(placeholder: string, content: string, category: OutputCategory = 'generic', endLine = true): string {
  const picked = stubSignal(content, category);
  if (picked.length) return [placeholder, ...picked].join('\n');
  const tally = category !== 'file-content' ? tallyLineOf(content) : undefined;
  const more = tally ?? (endLine ? endLineOf(content, category) : undefined);
  return more ? `${placeholder}\n${more}` : placeholder;
}

// (Literals, not spreads of `at`: a spread object gets a hidden class of its own; dedup asks for
// two of these per duplicate, and at 100k turns they cost 0.8 s.)
export function callOf(ctx: CompactionContext, pairs: PairIndex, callId: string): BlockRef<ToolCallBlock> | undefined {
  const at = pairs.calls.get(callId);
  return at ? { mi: at.mi, bi: at.bi, block: ctx.messages[at.mi].blocks[at.bi] as ToolCallBlock } : undefined;
}

export function resultOf(ctx: CompactionContext, pairs: PairIndex, callId: string): BlockRef<ToolResultBlock> | undefined {
  const at = pairs.results.get(callId);
  return at ? { mi: at.mi, bi: at.bi, block: ctx.messages[at.mi].blocks[at.bi] as ToolResultBlock } : undefined;
}

/**
 * Remove a call and its result together (RFD 036 "the older call pair is removed entirely").
 * Refused unless both halves exist and are editable: a pair is never split.
 */
export function removePair(editor: ContextEditor, pairs: PairIndex, callId: string, fate: Fate): boolean {
  const { ctx } = editor;
  const c = pairs.calls.get(callId);
  const r = pairs.results.get(callId);
  if (!c || !r) return false;
  if (!isEditable(ctx, ctx.messages[c.mi]) || !isEditable(ctx, ctx.messages[r.mi])) return false;
  if (editor.isRemoved(c.mi, c.bi) || editor.isRemoved(r.mi, r.bi)) return false;
  return editor.removeCallAndResult(c, r, fate);
}

/**
 * Remove whole messages (sliding window, emergency, tangents) without orphaning: a call or result
 * whose partner survives is kept — unless the partner is editable too, in which case it goes with it.
 * Returns the number of blocks that had to be kept to preserve pairs.
 */
export function removeMessagesSafely(editor: ContextEditor, indices: readonly number[], fate: Fate): number {
  const { ctx } = editor;
  const pairs = indexPairs(ctx.messages);
  const doomed = new Set<string>(); // "mi.bi"
  const key = (mi: number, bi: number) => `${mi}.${bi}`;
  const idxSet = new Set(indices);
  for (const mi of indices) ctx.messages[mi].blocks.forEach((_, bi) => doomed.add(key(mi, bi)));
  let keptForPairs = 0;
  for (const mi of indices) {
    ctx.messages[mi].blocks.forEach((b, bi) => {
      if (b.kind !== 'tool_call' && b.kind !== 'tool_result') return;
      const partner = b.kind === 'tool_call' ? pairs.results.get(b.callId) : pairs.calls.get(b.callId);
      if (!partner || doomed.has(key(partner.mi, partner.bi))) return;
      const pm = ctx.messages[partner.mi];
      if (isEditable(ctx, pm) && !idxSet.has(partner.mi)) {
        doomed.add(key(partner.mi, partner.bi));
      } else {
        doomed.delete(key(mi, bi));
        keptForPairs++;
      }
    });
  }
  for (const k of doomed) {
    const [mi, bi] = k.split('.').map(Number);
    editor.removeBlock(mi, bi, fate);
  }
  return keptForPairs;
}

/**
 * Editable messages grouped by source turn, oldest first. When the window is finer than whole
 * turns (it starts or ends inside a turn: an agent run), groups are model calls instead (a prompt
 * on its own), so a summary or a sliding window takes the oldest calls of the run, not all of it.
 */
export function editableTurns(ctx: CompactionContext): Array<{ turn: number; indices: number[]; tokens: number; call?: number }> {
  const granular = isMessageGranular(ctx.window);
  const callOf = granular ? callOfMessage(ctx.log) : undefined;
  const groups = new Map<string | number, { turn: number; indices: number[]; tokens: number; first: number; call?: number }>();
  ctx.messages.forEach((m, mi) => {
    if (!isEditable(ctx, m)) return;
    let key: string | number = m.turn;
    if (callOf) {
      const i = sourceIndex(ctx.log, m.sourceId)!;
      key = callOf[i] >= 0 ? `c${callOf[i]}` : `m${i}`;
    }
    let t = groups.get(key);
    if (!t) groups.set(key, (t = { turn: m.turn, indices: [], tokens: 0, first: mi, ...(typeof key === 'string' && key[0] === 'c' && { call: Number(key.slice(1)) }) }));
    t.indices.push(mi);
    for (const b of m.blocks) t.tokens += b.tokens;
  });
  return [...groups.values()].sort((a, b) => a.turn - b.turn || a.first - b.first).map(({ turn, indices, tokens, call }) => ({ turn, indices, tokens, ...(call !== undefined && { call }) }));
}

/**
 * "turns 3–5 (3 turn(s)" or, for a window of model calls, "calls 2–4 of turn 1 (3 call(s)": what a
 * span of editableTurns groups is, in the unit the step was made in (issue 30: a call range read
 * "turns 2–2 (5 turn(s))").
 */
export function spanLabel(groups: ReadonlyArray<{ turn: number; call?: number }>): string {
  const first = groups[0];
  const last = groups[groups.length - 1];
  const turns = first.turn === last.turn ? `turn ${first.turn + 1}` : `turns ${first.turn + 1}–${last.turn + 1}`;
  if (groups.every((g) => g.call !== undefined)) return `calls ${first.call! + 1}–${last.call! + 1} of ${turns} (${groups.length} call(s)`;
  return `turns ${first.turn + 1}–${last.turn + 1} (${groups.length} turn(s)`;
}
