/**
 * Projection → what the inspector draws (plain data that crosses the worker boundary): per turn,
 * how the context changes by kind (added to the timeline's own bars, so the context at turn t
 * stays "what the model saw then", source compactions included) and the tokens each fate took
 * out; per-block fates of the changed blocks only; the report per reducer; the selection's and
 * the whole context's tokens before/after; the lost identifiers grouped by kind; and a diff of the
 * affected messages with texts capped (a 3 MB tool result is not shipped twice).
 *
 * Everything here is the doing of the version's steps: blocks a source marker already took out of
 * the model's view (fate stepId `source-marker:…`) are the timeline's bands, not this preview.
 *
 * Big transcripts: per-turn series are flat Float64Arrays (turns × kinds), transferable; fates are
 * sent for changed blocks only (kept is the default).
 */
import { lostByCategory, lostIdentifiers, projectionView, type LostByCategory, type LostIdentifier, type LostKind } from '../compaction/lost';
import { callAtOrAfter, modelCalls } from '../compaction/calls';

import type { Fate, FateKind, ProjectedBlock, Projection, ReducerId } from '../compaction/types';

/** A block without a fate record: kept (compaction/project blockFate's default). */
const KEPT: Fate = Object.freeze({ kind: 'kept' });
import type { Block, Transcript } from '../model/types';
import { blockText } from '../tokens/count';
import { BUDGET_KINDS, budgetKind, type BudgetKind } from '../tokens/totals';

// Defined beside, in a module without the tokenizer, so components can import them (see there).
import { LOST_KINDS, LOST_SHOWN, SAVED_FATES } from './preview-kinds';
export { LOST_KINDS, LOST_SHOWN, SAVED_FATES, type SavedFate } from './preview-kinds';

/** Characters of a block's text shipped in the diff (the full text stays in the worker). */
export const DIFF_TEXT_CAP = 4000;
/** Affected messages listed in the diff. */
export const DIFF_MESSAGE_CAP = 300;

export interface DiffBlock {
  blockId: string;
  kind: Block['kind'];
  fate: FateKind;
  by?: ReducerId;
  tokensBefore: number;
  tokensAfter: number;
  /** Text as in the log (capped). */
  before: string;
  /** Text in the projection (capped); null when the block is gone. */
  after: string | null;
  /** Tool name for calls and results. */
  tool?: string;
}

export interface DiffMessage {
  /** Log message id, or absent for synthetic messages. */
  messageId?: string;
  index?: number;
  turn: number;
  role: string;
  synthetic?: 'summary' | 'notice';
  span?: [number, number];
  blocks: DiffBlock[];
}

export interface ReducerLine {
  stepId: string;
  reducer: ReducerId;
  events: number;
  saved: number;
  notes: string[];
}

export interface TokenPair {
  before: number;
  after: number;
}

export interface PreviewSummary {
  turns: number;
  kinds: readonly BudgetKind[];
  /**
   * Change of the context at the end of each turn, by kind, cumulative (≤ 0 where tokens were
   * taken out; summaries add): delta[t * kinds.length + k]. The context after compaction at turn t
   * is the timeline's context at t plus this.
   */
  delta: Float64Array;
  /** Tokens taken out, cumulative to the end of each turn, by fate: saved[t * SAVED_FATES.length + f]. */
  saved: Float64Array;
  /**
   * Fate per block id, for changed blocks only. A Map (issue 31, session 16): at 10,000 turns it holds
   * ~12,000 ids, which an object took in dictionary mode — slower to fill, to clone to the page and
   * to clone back than a Map.
   */
  changed: ReadonlyMap<string, FateKind>;
  fateCounts: Record<FateKind, number>;
  reducers: ReducerLine[];
  tokens: {
    /** The log as imported (every message). */
    log: number;
    /** The context compaction started from (the model's view) → after. */
    context: TokenPair;
    /** The selected turns (null when nothing is selected). */
    selection: TokenPair | null;
  };
  cacheStablePrefix: number;
  /** The first LOST_SHOWN lost identifiers of each kind (lostCounts has how many there are). */
  lost: Record<LostKind, Array<Pick<LostIdentifier, 'value' | 'turn' | 'messageId'>>>;
  lostCounts: Record<LostKind, number>;
  lostTotal: number;
  /** The five categories (lib/categories) of the compacted messages and what the model is no longer sent: the counts `compact` and the audit record give. */
  lostByCategory: LostByCategory['categories'];
  diff: DiffMessage[];
  diffTotal: number;
  summaries: Array<{ id: string; span: [number, number]; producer: string; tokens: number }>;
  /** Summaries the offline summarizer stood in for (an LLM can replace them). */
  summaryRequests: number;
}

function cap(text: string): string {
  return text.length > DIFF_TEXT_CAP ? text.slice(0, DIFF_TEXT_CAP) + `\n… (${(text.length - DIFF_TEXT_CAP).toLocaleString('en-US')} more characters)` : text;
}

function toolOf(b: Block | ProjectedBlock): string | undefined {
  if (b.kind === 'tool_call') return b.name;
  if (b.kind === 'tool_result') return b.name;
  return undefined;
}

function emptyLost(): PreviewSummary['lost'] {
  return { instruction: [], path: [], url: [], id: [], error: [] };
}

/**
 * `axis: 'calls'`: the per-bar series and the selection are by model call (the inspector's call
 * axis) — a message counts at the call that holds it, a prompt at the call after it.
 */
export function summarizePreview(log: Transcript, projection: Projection, selection: [number, number] | null, axis: 'turns' | 'calls' = 'turns'): PreviewSummary {
  const calls = axis === 'calls' ? modelCalls(log) : [];
  const turns = axis === 'calls' ? calls.length : log.turnCount;
  /** Bar of a log message index. */
  const barOf = (i: number): number => (axis !== 'calls' ? log.messages[i].turn : callAtOrAfter(calls, i));
  const byId = axis === 'calls' ? new Map(log.messages.map((m) => [m.id, m.index] as const)) : undefined;
  /** Bar where a synthetic message (at projection position p) starts to count: after the last message it replaced. */
  const syntheticBar = (p: number, m: Projection['messages'][number]): number => {
    if (axis !== 'calls') return m.span ? m.span[1] : m.turn;
    for (let q = p + 1; q < projection.messages.length; q++) {
      const j = byId!.get(projection.messages[q].sourceId ?? '');
      if (j !== undefined) return barOf(Math.max(0, j - 1));
    }
    return turns - 1;
  };
  const K = BUDGET_KINDS.length;
  const F = SAVED_FATES.length;
  const kindIndex = new Map<BudgetKind, number>(BUDGET_KINDS.map((k, i) => [k, i]));
  const fateIndex = new Map<string, number>(SAVED_FATES.map((f, i) => [f, i]));

  const projectedById = new Map<string, ProjectedBlock>();
  // Read only for log blocks whose fate is not kept (below): the kept blocks (most of them) are not listed.
  for (const m of projection.messages)
    for (const b of m.blocks) {
      const key = b.sourceBlockId ?? b.id;
      const fate = projection.fates[key];
      if (fate && fate.kind !== 'kept') projectedById.set(key, b);
    }
  const bySource = (stepId: string) => stepId.startsWith('source-marker:');
  const deltaAdded = new Float64Array(Math.max(1, turns) * K);
  // Synthetic messages (our summaries, notices) add their tokens at the end of the span they replace.
  projection.messages.forEach((m, p) => {
    if (m.sidechain || !m.synthetic) return;
    const t = Math.min(turns - 1, Math.max(0, syntheticBar(p, m)));
    for (const b of m.blocks) deltaAdded[t * K + kindIndex.get(budgetKind(m.role, b))!] += b.tokens;
  });
  // Pruned tool schemas count from the first turn (they are sent with every request).
  const toolsBefore = log.tools.reduce((s, x) => s + x.tokens, 0);
  const toolsAfter = projection.tools.reduce((s, x) => s + x.tokens, 0);
  if (turns > 0) deltaAdded[kindIndex.get('tools')!] += toolsAfter - toolsBefore;

  // What was taken out, by fate, and the diff.
  const savedAdded = new Float64Array(Math.max(1, turns) * F);
  const changed = new Map<string, FateKind>();
  const fateCounts: Record<FateKind, number> = { kept: 0, stubbed: 0, truncated: 0, removed: 0, deduped: 0, summarized: 0 };
  const diff: DiffMessage[] = [];
  let diffTotal = 0;
  let selBefore = 0;
  const inSel = (turn: number) => selection !== null && turn >= selection[0] && turn <= selection[1];
  // Each log block's fate read once per projection, shared with the lost identifiers and categories below.
  const view = projectionView(log, projection);
  let n = 0;
  for (const m of log.messages) {
    if (m.sidechain) continue;
    const bar = barOf(m.index);
    let blocks: DiffBlock[] | null = null;
    let changedHere = false;
    // Past the diff's cap a message is only counted: its texts are not read (nor capped) for nothing.
    const listed = diff.length < DIFF_MESSAGE_CAP;
    for (const b of m.blocks) {
      const fate = view.fate[n++] ?? KEPT;
      if (fate.kind !== 'kept' && bySource(fate.stepId)) continue;
      if (inSel(bar)) selBefore += b.tokens;
      fateCounts[fate.kind]++;
      if (fate.kind === 'kept') continue;
      changed.set(b.id, fate.kind);
      const replacement = projectedById.get(b.id);
      const afterTokens = replacement?.tokens ?? 0;
      const f = fateIndex.get(fate.kind);
      if (f !== undefined) savedAdded[bar * F + f] += Math.max(0, b.tokens - afterTokens);
      deltaAdded[bar * K + kindIndex.get(budgetKind(m.role, b))!] -= b.tokens;
      if (replacement) deltaAdded[bar * K + kindIndex.get(budgetKind(m.role, replacement))!] += replacement.tokens;
      changedHere = true;
      if (!listed) continue;
      blocks ??= [];
      blocks.push({
        blockId: b.id,
        kind: b.kind,
        fate: fate.kind,
        by: fate.by,
        tokensBefore: b.tokens,
        tokensAfter: replacement ? replacement.tokens : 0,
        before: cap(blockText(b)),
        after: replacement ? cap(blockText(replacement as Block)) : null,
        ...(toolOf(b) && { tool: toolOf(b) }),
      });
    }
    if (changedHere) {
      diffTotal++;
      if (blocks) diff.push({ messageId: m.id, index: m.index, turn: m.turn, role: m.role, blocks });
    }
  }
  for (const m of projection.messages) {
    if (!m.synthetic) continue;
    diffTotal++;
    const text = m.blocks.map((b) => blockText(b as Block)).join('\n');
    const tokens = m.blocks.reduce((s, b) => s + b.tokens, 0);
    diff.push({
      turn: m.span ? m.span[0] : m.turn,
      role: m.role,
      synthetic: m.synthetic,
      ...(m.span && { span: m.span }),
      blocks: [{ blockId: m.blocks[0]?.id ?? 'synthetic', kind: m.blocks[0]?.kind ?? 'summary', fate: 'kept', tokensBefore: 0, tokensAfter: tokens, before: '', after: cap(text) }],
    });
  }
  diff.sort((a, b) => a.turn - b.turn || (a.index ?? Infinity) - (b.index ?? Infinity));

  const delta = new Float64Array(Math.max(0, turns) * K);
  for (let t = 0; t < turns; t++) for (let k = 0; k < K; k++) delta[t * K + k] = (t > 0 ? delta[(t - 1) * K + k] : 0) + deltaAdded[t * K + k];
  const saved = new Float64Array(Math.max(0, turns) * F);
  for (let t = 0; t < turns; t++) for (let f = 0; f < F; f++) saved[t * F + f] = (t > 0 ? saved[(t - 1) * F + f] : 0) + savedAdded[t * F + f];

  let selAfter = 0;
  if (selection)
    projection.messages.forEach((m, p) => {
      if (m.sidechain) return;
      const j = axis === 'calls' && !m.synthetic ? byId!.get(m.sourceId ?? '') : undefined;
      const t = m.synthetic ? syntheticBar(p, m) : axis === 'calls' ? (j === undefined ? -1 : barOf(j)) : m.turn;
      if (inSel(t)) for (const b of m.blocks) selAfter += b.tokens;
    });

  const lostList = lostIdentifiers(log, projection).filter((l) => !bySource(l.stepId));
  const lost = emptyLost();
  const lostCounts: Record<LostKind, number> = { instruction: 0, path: 0, url: 0, id: 0, error: 0 };
  for (const l of lostList) if (lostCounts[l.kind]++ < LOST_SHOWN) lost[l.kind].push({ value: l.value, turn: l.turn, messageId: l.messageId });

  const start = projection.tokens.start?.total ?? projection.tokens.before.total;
  return {
    turns,
    kinds: BUDGET_KINDS,
    delta,
    saved,
    changed,
    fateCounts,
    reducers: projection.report.map((r) => ({ stepId: r.stepId, reducer: r.reducer, events: r.events, saved: r.tokensBefore - r.tokensAfter, notes: r.notes })),
    tokens: {
      log: projection.tokens.before.total,
      context: { before: start, after: projection.tokens.after.total },
      selection: selection ? { before: selBefore, after: selAfter } : null,
    },
    cacheStablePrefix: projection.cacheStablePrefix ?? 0,
    lost,
    lostCounts,
    lostTotal: lostList.length,
    lostByCategory: lostByCategory(log, projection, { ownOnly: true }).categories,
    diff,
    diffTotal,
    summaries: projection.summaries.map((s) => ({ id: s.id, span: s.span, producer: s.producer, tokens: s.tokens })),
    summaryRequests: projection.summaryRequests?.length ?? 0,
  };
}

/** Per-tool token breakdown of the log (the Tools tab and the hints table). */
export interface ToolStat {
  name: string;
  calls: number;
  callTokens: number;
  resultTokens: number;
  errors: number;
}

export function toolStats(log: Pick<Transcript, 'messages'>): ToolStat[] {
  const byName = new Map<string, ToolStat>();
  const nameOfCall = new Map<string, string>();
  const stat = (name: string) => {
    let s = byName.get(name);
    if (!s) byName.set(name, (s = { name, calls: 0, callTokens: 0, resultTokens: 0, errors: 0 }));
    return s;
  };
  for (const m of log.messages) {
    if (m.sidechain) continue;
    for (const b of m.blocks) {
      if (b.kind === 'tool_call') {
        nameOfCall.set(b.callId, b.name);
        const s = stat(b.name);
        s.calls++;
        s.callTokens += b.tokens;
      } else if (b.kind === 'tool_result') {
        const s = stat(b.name ?? nameOfCall.get(b.callId) ?? '(unknown tool)');
        s.resultTokens += b.tokens;
        if (b.isError) s.errors++;
      }
    }
  }
  return [...byName.values()].sort((a, b) => b.callTokens + b.resultTokens - (a.callTokens + a.resultTokens));
}
