/**
 * projectTranscript(log, steps, options) → Projection: the one pure function behind the timeline,
 * the diff, the lost report and every export (DESIGN.md "the one rule"). The log is never
 * touched; untouched messages keep their blocks (the very same objects), so exporters re-emit
 * their source records verbatim.
 *
 * Source markers (compaction that already happened in the source: Claude Code compact_boundary,
 * Codex compacted, …). Decision:
 *  - with zero steps the projection is the log as imported (baseline 'log'): every message,
 *    every fate kept. The inspector draws covered messages as summary bands; exporting it gives
 *    the original file back.
 *  - with one or more steps compaction starts from what the model last saw (baseline
 *    'model-view'): messages a marker covers (`covers: [from, to)`) are left out, with the fate
 *    `summarized` into the marker (stepId `source-marker:<id>`). The marker's own summary stays.
 *  `options.baseline` overrides either choice.
 *
 * Every projection is checked by the pairing validator: an issue the starting context did not
 * already have (an orphan made by a reducer) throws CompactionInvariantError — a bug, never a
 * user error.
 */
import type { Message, ToolSchema, Transcript } from '../model/types';
import { newPairingIssues, type PairingIssue } from '../model/pairing';
import type { SyncSummarizer } from '../summarize/types';
import { blockText } from '../tokens/count';
import { rememberFrozenTotals, transcriptTotals, type Totals } from '../tokens/totals';
import { counterFor, makeBudget } from './budget';
import { modelCalls, promptsOf, sourceIndex, type ModelCall } from './calls';
import { withSignalCache } from './signal';
import { ContextEditor, contextTokens, flattenFates, type FateLayer, contextTotalsOf, emptyState, rememberTotals, fates as fateOf, inWindow, isEditable, pairingIssues, projectedMessageOf, rememberPairingIssues, type CompactionContext, type TurnWindow } from './context';
import { parseAutoOptions, runAuto } from './pipeline';
import { createReducer } from './reducers';
import { pinnedMessages, withPins, type Pin } from './pins';
import type { Fate, ProjectedBlock, ProjectedMessage, Projection, ReducerReport, Step, SummaryKey, TokenTotals } from './types';

export interface ProjectOptions {
  /** Budget for steps that carry none (tokens, counted like `inspect`'s tokens.total). */
  budget?: number;
  /** Stored summary artifacts; '' = the producer failed for that key. */
  summaries?: (key: SummaryKey) => string | undefined;
  /** Native compaction's output items for a stored summary (seed 002), carried on its summary block. */
  summaryItems?: (key: SummaryKey) => readonly unknown[] | undefined;
  /** Stand-in summarizer when nothing is stored (default: the offline one). */
  summarizer?: SyncSummarizer;
  /** The previous version's projection, for cacheStablePrefix (default: the uncompacted model view). */
  previous?: Pick<Projection, 'messages' | 'tools'>;
  /**
   * Whose signal cache (lib/categories/signal.ts: what a result's text gives, by its text) the
   * projection uses; default the log. The replay's contexts are new logs at every look, all made of
   * one session's results: they share that session's.
   */
  signalCacheOf?: object;
  /** Override the starting context (see the file comment). */
  baseline?: 'log' | 'model-view';
  /** Pins every step respects (the inspector's; lib/compaction/pins.ts). */
  pins?: readonly Pin[];
}

export class CompactionInvariantError extends Error {
  readonly code = 'internal:pairing';
  constructor(
    message: string,
    readonly issues: PairingIssue[],
  ) {
    super(message);
    this.name = 'CompactionInvariantError';
  }
}

export function toTokenTotals(t: Totals): TokenTotals {
  return { total: t.total, byKind: { ...t.byKind }, tools: t.byKind.tools };
}

const KEPT: Fate = Object.freeze({ kind: 'kept' });

/** A block's fate in a projection: its entry, or `kept` when it has none (Projection.fates lists only the others). */
export function blockFate(projection: Pick<Projection, 'fates'>, blockId: string): Fate {
  return projection.fates[blockId] ?? KEPT;
}

// How many blocks a log has (a log is immutable): counted once, read by every projection.
const blockCounts = new WeakMap<Transcript, number>();

function blockCountOf(log: Transcript): number {
  let n = blockCounts.get(log);
  if (n === undefined) {
    n = 0;
    for (let i = 0; i < log.messages.length; i++) n += log.messages[i].blocks.length;
    blockCounts.set(log, n);
  }
  return n;
}

/** Messages the source's own markers took out of the model's view, with the marker that did it. */
export function coveredByMarkers(log: Transcript): Map<number, string> {
  const covered = new Map<number, string>();
  for (const k of log.markers) {
    if (!k.covers) continue;
    const [from, to] = k.covers;
    for (let i = Math.max(0, from); i < Math.min(to, log.messages.length); i++) covered.set(i, k.id);
  }
  return covered;
}

// The starting context of a log (immutable) is built once per baseline; every preview starts from it.
const startCache = new WeakMap<Transcript, Map<string, { messages: ProjectedMessage[]; fates: FateLayer }>>();

/** The context compaction starts from (shared: its messages array is frozen, and fate layers are never edited, only covered). */
export function startingContext(log: Transcript, baseline: 'log' | 'model-view'): { messages: ProjectedMessage[]; fates: FateLayer } {
  let perLog = startCache.get(log);
  if (!perLog) startCache.set(log, (perLog = new Map()));
  let hit = perLog.get(baseline);
  if (!hit) {
    const built = buildStartingContext(log, baseline);
    hit = { messages: Object.freeze(built.messages) as ProjectedMessage[], fates: { parent: null, own: built.fates } };
    // Every log message wrapped (no marker covers any): the same blocks, so the log's totals.
    if (hit.messages.length === log.messages.length) rememberTotals(hit.messages, log.tools, transcriptTotals(log));
    perLog.set(baseline, hit);
  }
  return hit;
}

/**
 * What a caller that keeps a log's context itself knows of it (the replay, lib/simulate/calls.ts:
 * a policy's context grows by appending and looks at it every 5 % of the window): the starting
 * context of baseline 'log' (frozen: `projectedMessageOf` of every message, in order), the log's
 * totals and block count, and its pairing issues when it knows them. Remembered as
 * `startingContext`, `transcriptTotals` (log.messages and log.tools frozen), `blockCountOf` and
 * `pairingIssues` would compute them, so a projection of the log does not pass over it for them.
 */
export function rememberLogContext(log: Transcript, messages: readonly ProjectedMessage[], facts: { totals: Totals; blocks: number; pairingIssues?: PairingIssue[] }): void {
  if (!Object.isFrozen(messages) || messages.length !== log.messages.length) return;
  let perLog = startCache.get(log);
  if (!perLog) startCache.set(log, (perLog = new Map()));
  perLog.set('log', { messages: messages as ProjectedMessage[], fates: { parent: null, own: new Map() } });
  rememberTotals(messages, log.tools, { total: facts.totals.total, byKind: { ...facts.totals.byKind } });
  rememberFrozenTotals(log.messages, log.tools, facts.totals);
  blockCounts.set(log, facts.blocks);
  if (facts.pairingIssues) rememberPairingIssues(messages, facts.pairingIssues);
}

/** Work done since the process started (tests guard the replay's cost with it): projections, log messages wrapped into a starting context. */
export const projectWork = { startingMessages: 0, projections: 0, stablePrefixes: 0, fatesFlattened: 0 };

function buildStartingContext(log: Transcript, baseline: 'log' | 'model-view'): { messages: ProjectedMessage[]; fates: Map<string, Fate> } {
  projectWork.startingMessages += log.messages.length;
  const fates = new Map<string, Fate>();
  // The starting context is kept per log and baseline (startCache): its messages need no cache of their own.
  // Grown by push in an indexed loop (builder.ts, totals.ts: map's result is HOLEY or PACKED with V8's whims).
  const messages: ProjectedMessage[] = [];
  if (baseline === 'log') {
    for (let i = 0; i < log.messages.length; i++) messages.push(projectedMessageOf(log.messages[i]));
    return { messages, fates };
  }
  const covered = coveredByMarkers(log);
  for (let i = 0; i < log.messages.length; i++) {
    const m = log.messages[i];
    const marker = covered.get(m.index);
    if (marker === undefined) {
      messages.push(projectedMessageOf(m));
      continue;
    }
    for (const b of m.blocks) fates.set(b.id, { kind: 'summarized', by: 'summarize', stepId: `source-marker:${marker}`, summaryId: marker });
  }
  return { messages, fates };
}

/**
 * Tokens of what the model sees when the agent resumes this log: every message but those the
 * source's own compactions took out of view (Claude Code's compact_boundary, Codex's `compacted`
 * replacement_history …). `compact --budget N` holds this number to N; the file may keep more
 * (history before a compaction, as the agents themselves keep it).
 */
export function modelViewTotals(log: Transcript): Totals {
  const t = contextTotalsOf({ messages: startingContext(log, 'model-view').messages, tools: log.tools });
  return { total: t.total, byKind: { ...t.byKind } };
}

/** The first turn after the latest compaction: a source marker's summary or an earlier step's summary. */
function afterLastCompaction(log: Transcript, messages: readonly ProjectedMessage[]): number {
  let from = 0;
  for (const k of log.markers) {
    const at: Message | undefined = log.messages[Math.min(k.atMessage, log.messages.length - 1)];
    if (at) from = Math.max(from, at.turn);
  }
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (m.synthetic === 'summary' && m.span) from = Math.max(from, m.span[1] + 1);
  }
  return from;
}

const n = (tokens: number) => tokens.toLocaleString('en-US');

/** Tokens of the context the window leaves untouched: what no reducer of the step can reduce. */
function outsideTokens(log: Transcript, messages: readonly ProjectedMessage[], tools: readonly ToolSchema[], w: TurnWindow | null): number {
  let editable = 0;
  // Indexed loops in the passes a new log makes once over all of its messages (totals.ts).
  if (w)
    for (let i = 0; i < messages.length; i++) {
      const m = messages[i];
      if (!inWindow(log, w, m)) continue;
      for (let j = 0; j < m.blocks.length; j++) editable += m.blocks[j].tokens;
    }
  return contextTokens({ messages, tools }) - editable;
}

/**
 * The window a step edits: its range, minus the protected tail.
 *
 * The tail is `keepLast` whole turns — unless (tail 'auto', the default) what the step may not
 * touch then alone exceeds the budget: an agent run is one prompt opening one turn of hundreds of
 * calls, and protecting that turn protects everything. The tail then narrows to the last
 * `keepLastCalls` model calls (default 3) within `keepLastTokens` (default a quarter of the
 * budget; the last call always), plus the prompts of the protected turns; if that still leaves
 * too much outside the window, to the last call alone. A `calls` range is always protected at
 * call granularity. The window's message bounds never cut a call from its result (calls.ts).
 */
export function resolveWindow(log: Transcript, messages: readonly ProjectedMessage[], step: Step, budget = Infinity, tools: readonly ToolSchema[] = log.tools): TurnWindow | null {
  const w = resolveTurnWindow(log, messages, step, budget, tools);
  return step.keepLastMessages ? keepRecentMessages(log, w, step.keepLastMessages) : w;
}

/**
 * sven's `compaction_keep_recent` on the normal path: the newest `n` main-line non-system messages
 * stay out of the window. The kept part never starts on a message holding tool results (sven walks
 * the split back past the whole tool-interaction group), so no call loses its result.
 */
export function keepRecentMessages(log: Transcript, w: TurnWindow | null, n: number): TurnWindow | null {
  if (!w || n <= 0) return w;
  let start = log.messages.length;
  for (let i = log.messages.length - 1, count = 0; i >= 0 && count < n; i--) {
    const m = log.messages[i];
    if (m.role === 'system' || m.sidechain) continue;
    count++;
    start = i;
  }
  while (start > 0 && start < log.messages.length && log.messages[start].blocks.some((b) => b.kind === 'tool_result')) start--;
  if (start - 1 >= (w.lastMessage ?? log.messages.length)) return w;
  const last = start - 1;
  if (last >= 0 && w.lastMessage === undefined && log.messages[last].turn > w.to) return w;
  if (last < 0 || (w.firstMessage !== undefined && last < w.firstMessage)) return null;
  const toTurn = Math.min(w.to, log.messages[last].turn);
  if (toTurn < w.from) return null;
  const said = `compaction_keep_recent ${n}: the newest ${log.messages.length - start} message(s) untouched`;
  return { ...w, to: toTurn, lastMessage: last, narrowed: w.narrowed ? `${w.narrowed}; ${said}` : said };
}

function resolveTurnWindow(log: Transcript, messages: readonly ProjectedMessage[], step: Step, budget: number, tools: readonly ToolSchema[]): TurnWindow | null {
  const keepLast = Math.max(0, step.keepLast);
  const lastTurn = log.turnCount - 1;
  const lastEditable = lastTurn - keepLast;
  const r = step.range;
  let from: number;
  let to: number;
  let firstMessage: number | undefined;
  let lastMessage: number | undefined;
  switch (r.kind) {
    case 'turns':
      from = r.from;
      to = r.to;
      break;
    case 'all-but-last':
      from = 0;
      to = log.turnCount - 1 - Math.max(0, r.n);
      break;
    case 'after-last-compaction':
      from = afterLastCompaction(log, messages);
      to = log.turnCount - 1;
      break;
    case 'calls': {
      const calls = modelCalls(log);
      const a = Math.max(0, r.from);
      const b = Math.min(calls.length - 1, r.to);
      if (a > b) return null;
      firstMessage = calls[a].first;
      lastMessage = calls[b].last;
      from = calls[a].turn;
      to = log.messages[lastMessage].turn;
      break;
    }
  }
  from = Math.max(0, from);
  to = Math.min(to, lastTurn);
  const bounds = { ...(firstMessage !== undefined && { firstMessage }), ...(lastMessage !== undefined && { lastMessage }) };
  const byTurns: TurnWindow | null = from <= Math.min(to, lastEditable) ? { from, to: Math.min(to, lastEditable), ...bounds } : null;
  if (step.tail === 'turns' || keepLast === 0 || to <= lastEditable) return byTurns;
  if (r.kind !== 'calls' && !(Number.isFinite(budget) && outsideTokens(log, messages, tools, byTurns) > budget)) return byTurns;

  // Narrow the tail to the last model calls of the protected turns.
  const calls = modelCalls(log).filter((c) => c.turn > lastEditable);
  if (calls.length === 0) return byTurns;
  const tokensAt = new Float64Array(log.messages.length);
  for (const m of messages) {
    const i = sourceIndex(log, m.sourceId);
    if (i !== undefined && !m.sidechain) for (const b of m.blocks) tokensAt[i] += b.tokens;
  }
  const callTokens = (c: ModelCall) => {
    let t = 0;
    for (let i = c.first; i <= c.last; i++) t += tokensAt[i];
    return t;
  };
  const keepCalls = Math.max(1, Math.floor(step.keepLastCalls ?? 3));
  const cap = step.keepLastTokens ?? (Number.isFinite(budget) ? Math.floor(budget / 4) : Infinity);
  const keep = new Set(promptsOf(log, lastEditable + 1, lastTurn));
  const tailOf = (maxCalls: number): { window: TurnWindow | null; count: number; tokens: number } => {
    let count = 0;
    let tokens = 0;
    let start = log.messages.length;
    for (let k = calls.length - 1; k >= 0 && count < maxCalls; k--) {
      const t = callTokens(calls[k]);
      if (count > 0 && tokens + t > cap) break;
      count++;
      tokens += t;
      start = calls[k].first;
    }
    const last = Math.min(lastMessage ?? Infinity, start - 1);
    const toTurn = last >= 0 ? Math.min(to, log.messages[last].turn) : -1;
    const window = from <= toTurn && last >= (firstMessage ?? 0) ? { from, to: toTurn, ...(firstMessage !== undefined && { firstMessage }), lastMessage: last, keep } : null;
    return { window, count, tokens };
  };
  let tail = tailOf(keepCalls);
  if (tail.count > 1 && Number.isFinite(budget) && outsideTokens(log, messages, tools, tail.window) > budget) tail = tailOf(1);
  if (!tail.window) return null;
  const why = r.kind === 'calls' ? 'a range of model calls' : `keep_last ${keepLast} turn(s) and what else the step may not touch exceed the budget of ${n(budget)}`;
  return { ...tail.window, narrowed: `${why}: protected the last ${tail.count} model call(s) (${n(tail.tokens)} tokens) and the prompt(s) of the protected turn(s) instead` };
}

/**
 * Throw when `after` has pairing issues that `before` did not have. The issues of a context
 * (immutable) are computed once (context.ts pairingIssues): every reducer of a step is checked
 * against the step's start, and a context the editor built without touching a call or a result
 * is known to have its parent's.
 */
export function assertPairingPreserved(before: readonly ProjectedMessage[], after: readonly ProjectedMessage[], where: string): void {
  const fresh = newPairingIssues(pairingIssues(before), pairingIssues(after));
  if (fresh.length > 0) {
    const f = fresh[0];
    throw new CompactionInvariantError(`${where} broke tool pairing: ${fresh.length} new issue(s), first ${f.kind} for call ${f.callId} at projected message ${f.message}.`, fresh);
  }
}

/**
 * Pairs the input broke beyond repair — a call never answered (but not the last message: a call
 * in flight), a result answering no call, a second result for one call — are left out where the
 * step may edit: an API rejects a request holding them, and a compacted export never writes a
 * broken pair it was free to drop. Outside the window (keep_last, other turns) they stay as the
 * input has them. The fate is `removed` by the step's first reducer, with a note naming the ids.
 */
function dropBrokenPairs(ctx: CompactionContext, state: ReturnType<typeof emptyState>): { ctx: CompactionContext; report: ReducerReport } | null {
  // No issue in the context (known without a pass when no reducer touched a pair): nothing to repair.
  if (ctx.window === null || pairingIssues(ctx.messages).length === 0) return null;
  const open = new Map<string, { mi: number; bi: number }>();
  const answered = new Set<string>();
  const broken: Array<{ mi: number; bi: number; callId: string; kind: 'call' | 'result' }> = [];
  let lastMain = -1;
  ctx.messages.forEach((m, mi) => {
    if (m.sidechain) return;
    lastMain = mi;
    m.blocks.forEach((b, bi) => {
      if (b.kind === 'tool_call') {
        if (open.has(b.callId) || answered.has(b.callId)) broken.push({ mi, bi, callId: b.callId, kind: 'call' });
        else open.set(b.callId, { mi, bi });
      } else if (b.kind === 'tool_result') {
        if (open.has(b.callId)) {
          open.delete(b.callId);
          answered.add(b.callId);
        } else broken.push({ mi, bi, callId: b.callId, kind: 'result' });
      }
    });
  });
  for (const [callId, at] of open) if (at.mi !== lastMain) broken.push({ ...at, callId, kind: 'call' });
  const editable = broken.filter((x) => isEditable(ctx, ctx.messages[x.mi]));
  if (editable.length === 0) return null;
  const by = ctx.step.reducers[0]?.id ?? 'auto';
  const editor = new ContextEditor(ctx, by);
  for (const x of editable) editor.removeBlock(x.mi, x.bi, fateOf.removed(by, ctx.step.id));
  const ids = (kind: 'call' | 'result') => [...new Set(editable.filter((x) => x.kind === kind).map((x) => x.callId))];
  const calls = ids('call');
  const results = ids('result');
  const list = (xs: string[]) => xs.slice(0, 8).join(', ') + (xs.length > 8 ? ` and ${xs.length - 8} more` : '');
  const note = `pairing repair: the input's broken pairs in range were left out${calls.length ? ` — call(s) without a result: ${list(calls)}` : ''}${results.length ? ` — result(s) without a call: ${list(results)}` : ''} (an API rejects them)`;
  const r = editor.finish(state, [note]);
  return { ctx: r.ctx, report: r.report };
}

function sameBlock(a: ProjectedBlock, b: ProjectedBlock): boolean {
  if (a === b) return true;
  return a.kind === b.kind && a.tokens === b.tokens && blockText(a) === blockText(b);
}

function sameMessage(a: ProjectedMessage, b: ProjectedMessage): boolean {
  if (a === b) return true;
  if (a.role !== b.role || a.sourceId !== b.sourceId || a.synthetic !== b.synthetic || a.blocks.length !== b.blocks.length) return false;
  return a.blocks.every((x, i) => sameBlock(x, b.blocks[i]));
}

/**
 * Leading tokens identical in both contexts, in request order: tool schemas first (a pruned tool
 * list changes the very front), then messages. Side chains are not sent and are skipped.
 */
export function cacheStablePrefix(a: Pick<Projection, 'messages' | 'tools'>, b: Pick<Projection, 'messages' | 'tools'>): number {
  projectWork.stablePrefixes++;
  if (a.tools.length !== b.tools.length || a.tools.some((t, i) => t.name !== b.tools[i].name || t.tokens !== b.tools[i].tokens)) return 0;
  let n = a.tools.reduce((s, t) => s + t.tokens, 0);
  // The two main lines side by side (no filtered copies: the prefix usually ends early).
  const ma = a.messages;
  const mb = b.messages;
  for (let i = 0, j = 0; ; i++, j++) {
    while (i < ma.length && ma[i].sidechain) i++;
    while (j < mb.length && mb[j].sidechain) j++;
    if (i >= ma.length || j >= mb.length) break;
    const x = ma[i];
    const y = mb[j];
    if (sameMessage(x, y)) {
      for (const blk of x.blocks) n += blk.tokens;
      continue;
    }
    // Same message, different content part-way: blocks before the first difference still match.
    if (x.role === y.role && x.sourceId === y.sourceId) {
      for (let k = 0; k < Math.min(x.blocks.length, y.blocks.length) && sameBlock(x.blocks[k], y.blocks[k]); k++) n += x.blocks[k].tokens;
    }
    break;
  }
  return n;
}

/** projectTranscript calls so far (tests count the projections a path makes; issue 31). */
export const projectCalls = { n: 0 };

export function projectTranscript(log: Transcript, steps: readonly Step[], options: ProjectOptions = {}): Projection {
  projectWork.projections++;
  projectCalls.n++;
  // What the log's results give (signal lines, stubs) is remembered with the log (signal.ts).
  return withSignalCache(options.signalCacheOf ?? log, () => project(log, steps, options));
}

function project(log: Transcript, steps: readonly Step[], options: ProjectOptions): Projection {
  const counter = counterFor(log);
  const baseline = options.baseline ?? (steps.length > 0 ? 'model-view' : 'log');
  const start = startingContext(log, baseline);
  const env = { lookup: options.summaries, items: options.summaryItems, summarizer: options.summarizer };
  let ctx: CompactionContext = {
    log,
    messages: start.messages,
    tools: log.tools,
    fates: start.fates,
    step: { id: '', range: { kind: 'turns', from: 0, to: -1 }, reducers: [], keepLast: 0, createdAt: '' },
    window: null,
    counter,
  };
  let state = emptyState();
  const reports: ReducerReport[] = [];
  for (const step of steps) {
    const total = step.budget ?? options.budget ?? Infinity;
    const budget = makeBudget(total, counter);
    // Pins (the projection's and the step's own) are out of every window: nothing edits them.
    const pins = step.pins?.length ? [...(options.pins ?? []), ...step.pins] : (options.pins ?? []);
    const window = withPins(resolveWindow(log, ctx.messages, step, total, ctx.tools), pinnedMessages(log, pins));
    ctx = { ...ctx, step, window };
    // A narrowed tail is said first in the step's first report row that changed something (no row of its own: every row is a reducer's).
    const firstReport = reports.length;
    for (const spec of step.reducers) {
      const before = ctx.messages;
      if (spec.id === 'auto') {
        const r = runAuto(ctx, budget, state, parseAutoOptions(spec.options), env);
        ctx = r.ctx;
        state = r.state;
        reports.push(...r.reports);
      } else {
        const r = createReducer(spec, env).reduce(ctx, budget, state);
        ctx = r.ctx;
        state = r.state;
        reports.push(r.report);
      }
      if (ctx.messages !== before) assertPairingPreserved(start.messages, ctx.messages, `step ${step.id} / ${spec.id}`);
    }
    const repaired = dropBrokenPairs(ctx, state);
    if (repaired) {
      ctx = repaired.ctx;
      reports.push(repaired.report);
      assertPairingPreserved(start.messages, ctx.messages, `step ${step.id} / pairing repair`);
    }
    if (window?.narrowed && reports.length > firstReport) {
      // On the first row that changed something (rows that changed nothing are folded away in the Report tab).
      let at = firstReport;
      while (at < reports.length && reports[at].events === 0) at++;
      // Nothing changed: said after the row's own notes (the gate's "nothing to do" stays first).
      if (at === reports.length) reports[firstReport] = { ...reports[firstReport], notes: [...reports[firstReport].notes, window.narrowed] };
      else reports[at] = { ...reports[at], notes: [window.narrowed, ...reports[at].notes] };
    }
  }

  // Only the fates that are not `kept` (a block without one is kept): writing all 60k blocks of a
  // 10k-turn log into one object cost 30–40 ms of a first run, most of it making their ids keys.
  // Flattened when first read: the replay's looks that keep nothing (most of them) never read them (issue 31).
  const layer = ctx.fates;
  let fatesOut: Record<string, Fate> | undefined;

  const messages = ctx.messages as ProjectedMessage[];
  const tools = ctx.tools as Projection['tools'];
  const startTotals = contextTotalsOf({ messages: start.messages, tools: log.tools });
  const reference = options.previous ?? { messages: start.messages, tools: log.tools };
  let stable: number | undefined;
  return {
    messages,
    tools,
    get fates() {
      if (fatesOut) return fatesOut;
      projectWork.fatesFlattened++;
      return (fatesOut = flattenFates(layer));
    },
    blocks: blockCountOf(log),
    report: reports,
    summaries: state.summaries,
    tokens: { before: toTokenTotals(transcriptTotals(log)), after: toTokenTotals(contextTotalsOf({ messages, tools })), start: toTokenTotals(startTotals) },
    baseline,
    // Computed when first read (a pass over the prefix the two share): the replay's looks never read it.
    get cacheStablePrefix() {
      return (stable ??= cacheStablePrefix(reference, { messages, tools }));
    },
    summaryRequests: state.summaryRequests,
  };
}
