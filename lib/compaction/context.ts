/**
 * The working context threaded through reducers, and the one way reducers change it.
 *
 * A reducer never edits a message or block in place: the ContextEditor records replacements and
 * removals and builds a new context at the end, in which every untouched message and block is
 * still the very same object as before (exporters and React memoization rely on ===). Token
 * savings, events and fates are tracked by the editor so every reducer reports the same way.
 */
import type { Block, Message, ToolSchema, Transcript } from '../model/types';
import { validatePairing, type PairingIssue } from '../model/pairing';
import { countBlock, type TokenCounter } from '../tokens/count';
import { budgetKind, contextTotals, emptyByKind, type BudgetKind, type Totals } from '../tokens/totals';
import type { Budget } from './budget';
import { sourceIndex } from './calls';
import type { Fate, ProjectedBlock, ProjectedMessage, ReducerId, ReducerReport, Step, SummaryArtifact, SummaryRequest } from './types';

export interface TurnWindow {
  /** First source turn the step may edit (inclusive). */
  from: number;
  /** Last source turn the step may edit (inclusive): never inside keep_last. */
  to: number;
  /**
   * Message-granular bounds (log message indices, inclusive) when the window starts or ends
   * inside a turn: a `calls` range, or a protected tail narrowed to the last model calls.
   */
  firstMessage?: number;
  lastMessage?: number;
  /** Log messages inside the bounds that stay untouched (the prompts of a narrowed turn). */
  keep?: ReadonlySet<number>;
  /** Why and how the protected tail was narrowed (for the report). */
  narrowed?: string;
}

/**
 * The fates set on the way to a context: each editor that sets some adds a layer over its parent's
 * (a layer's entry overrides an older one). Copying one map per reducer cost a 100k-turn first run
 * 140 ms and a map of 200k entries in the young generation per copy; a layer holds only its own.
 */
export interface FateLayer {
  readonly parent: FateLayer | null;
  readonly own: ReadonlyMap<string, Fate>;
}

/** Every fate of a layer and its parents, the newest winning (in the order ids were first given one). */
export function flattenFates(layer: FateLayer | null): Record<string, Fate> {
  const layers: FateLayer[] = [];
  for (let l = layer; l; l = l.parent) layers.push(l);
  const out: Record<string, Fate> = {};
  for (let i = layers.length - 1; i >= 0; i--)
    for (const [id, f] of layers[i].own) {
      if (f.kind !== 'kept') out[id] = f;
      else if (id in out) delete out[id];
    }
  return out;
}

/** The fate of one log block in a layer and its parents (absent = kept). */
export function fateIn(layer: FateLayer | null, id: string): Fate | undefined {
  for (let l = layer; l; l = l.parent) {
    const f = l.own.get(id);
    if (f) return f.kind === 'kept' ? undefined : f;
  }
  return undefined;
}

export interface CompactionContext {
  readonly log: Transcript;
  readonly messages: readonly ProjectedMessage[];
  readonly tools: readonly ToolSchema[];
  /** Fates of log blocks that are not kept (absent = kept), one layer per context that set some. */
  readonly fates: FateLayer;
  readonly step: Step;
  /** The turns this step may edit; null when the range is empty (everything is protected). */
  readonly window: TurnWindow | null;
  readonly counter: TokenCounter;
}

/** What reducers carry from one to the next (seed 004: "any state it needs to carry"). */
export interface ReducerState {
  summaries: SummaryArtifact[];
  summaryRequests: SummaryRequest[];
  /** The latest summary's text and the source turn it covers up to (prefix-ward chaining). */
  latestSummary?: { text: string; upToTurn: number };
}

export interface ReduceResult {
  ctx: CompactionContext;
  state: ReducerState;
  report: ReducerReport;
}

export interface Reducer {
  id: ReducerId;
  reduce(ctx: CompactionContext, budget: Budget, state: ReducerState): ReduceResult;
}

export function emptyState(): ReducerState {
  return { summaries: [], summaryRequests: [] };
}

// Contexts are immutable values: the totals of a (messages, tools) pair never change, and the
// pipeline asks for them several times per stage. Cached by the messages array's identity; the
// editor writes a new context's totals from its parent's and its own edits (no pass over it).
const totalsCache = new WeakMap<readonly ProjectedMessage[], { tools: readonly ToolSchema[]; totals: Totals }>();

/** Token totals of a context by budget kind (lib/tokens/totals.ts contextTotals). Read it, never change it. */
export function contextTotalsOf(ctx: Pick<CompactionContext, 'messages' | 'tools'>): Readonly<Totals> {
  const hit = totalsCache.get(ctx.messages);
  if (hit && hit.tools === ctx.tools) return hit.totals;
  const totals = contextTotals(ctx.messages, ctx.tools);
  totalsCache.set(ctx.messages, { tools: ctx.tools, totals });
  return totals;
}

/** Remember the totals of a context known to equal another's (a starting context that wraps every log message). */
export function rememberTotals(messages: readonly ProjectedMessage[], tools: readonly ToolSchema[], totals: Totals): void {
  totalsCache.set(messages, { tools, totals });
}

export function contextTokens(ctx: Pick<CompactionContext, 'messages' | 'tools'>): number {
  return contextTotalsOf(ctx).total;
}

const wrappers = new WeakMap<Message, ProjectedMessage>();

/** The projection of an untouched log message: its own blocks array (same objects), frozen, cached. */
export function wrapMessage(m: Message): ProjectedMessage {
  let w = wrappers.get(m);
  if (!w) wrappers.set(m, (w = projectedMessageOf(m)));
  return w;
}

/** A new frozen projection of a log message (wrapMessage without its cache, for a caller that keeps what it builds). */
export function projectedMessageOf(m: Message): ProjectedMessage {
  // Assigned, not spread (spread objects get a hidden class each: builder.ts).
  const p = { sourceId: m.id, role: m.role, turn: m.turn, blocks: m.blocks as ProjectedBlock[] } as ProjectedMessage;
  if (m.sidechain) p.sidechain = true;
  if (m.meta) p.meta = true;
  return Object.freeze(p);
}

/** May this step's reducers edit this message? (Inside the window, from the log, not a side chain.) */
export function isEditable(ctx: CompactionContext, m: ProjectedMessage): boolean {
  return inWindow(ctx.log, ctx.window, m);
}

/** Is this message inside window `w` (and from the log, not a side chain, not synthetic)? */
export function inWindow(log: Transcript, w: TurnWindow | null, m: ProjectedMessage): boolean {
  if (w === null || m.sourceId === undefined || m.sidechain || m.synthetic || m.turn < w.from || m.turn > w.to) return false;
  if (w.firstMessage === undefined && w.lastMessage === undefined && w.keep === undefined) return true;
  const i = sourceIndex(log, m.sourceId);
  if (i === undefined) return false;
  return (w.firstMessage === undefined || i >= w.firstMessage) && (w.lastMessage === undefined || i <= w.lastMessage) && !w.keep?.has(i);
}

/** Is the window finer than whole turns? (Reducers that group by turn group by model call then.) */
export function isMessageGranular(w: TurnWindow | null): boolean {
  return w !== null && (w.firstMessage !== undefined || w.lastMessage !== undefined);
}

/** The log block a projected block stands for. */
export function sourceBlockId(b: ProjectedBlock): string {
  return b.sourceBlockId ?? b.id;
}

/** Where each tool call and result sits in the current context. */
export interface PairIndex {
  calls: Map<string, { mi: number; bi: number }>;
  results: Map<string, { mi: number; bi: number }>;
}

// Contexts are immutable: the pair index of a messages array is computed once (several reducers
// of a step ask for it). Callers read it and never change it.
const pairsCache = new WeakMap<readonly ProjectedMessage[], PairIndex>();

/** Pair indexes built by a pass over a context's messages since the process started (tests guard the cost with it). */
export const pairIndexWork = { built: 0 };

/**
 * Checks the pair index can run on itself (tests turn them on): `inherit`: a context that takes
 * its parent's index (ContextEditor.finish) also builds its own and throws unless both are equal.
 */
export const pairIndexChecks = { inherit: false };

export function indexPairs(messages: readonly ProjectedMessage[]): PairIndex {
  const hit = pairsCache.get(messages);
  if (hit) return hit;
  const index = buildPairIndex(messages);
  pairsCache.set(messages, index);
  return index;
}

/** The pair index a context shares with its parent (every call and result at the same place): taken where the parent's is built, checked under pairIndexChecks.inherit. */
function inheritPairIndex(messages: readonly ProjectedMessage[], parent: readonly ProjectedMessage[]): void {
  const index = pairsCache.get(parent);
  if (!index) return;
  if (pairIndexChecks.inherit) {
    const fresh = buildPairIndex(messages);
    const view = (x: PairIndex) => JSON.stringify([[...x.calls], [...x.results]]);
    if (view(fresh) !== view(index)) throw new Error('indexPairs: the inherited pair index differs from one built over the context');
  }
  pairsCache.set(messages, index);
}

function buildPairIndex(messages: readonly ProjectedMessage[]): PairIndex {
  pairIndexWork.built++;
  const calls = new Map<string, { mi: number; bi: number }>();
  const results = new Map<string, { mi: number; bi: number }>();
  for (let mi = 0; mi < messages.length; mi++) {
    const m = messages[mi];
    if (m.sidechain) continue;
    const blocks = m.blocks;
    for (let bi = 0; bi < blocks.length; bi++) {
      const b = blocks[bi];
      if (b.kind === 'tool_call') {
        if (!calls.has(b.callId)) calls.set(b.callId, { mi, bi });
      } else if (b.kind === 'tool_result' && !results.has(b.callId)) results.set(b.callId, { mi, bi });
    }
  }
  return { calls, results };
}

// Pairing issues of a context's main line (side chains are not sent), by messages array. A context
// the editor built without touching a call or a result has its parent's pairing: when the parent
// has no issue, neither has it, and no pass over its messages is needed to know it.
const pairingCache = new WeakMap<readonly ProjectedMessage[], PairingIssue[]>();
const pairingParent = new WeakMap<readonly ProjectedMessage[], readonly ProjectedMessage[]>();

/** Remember the pairing issues of a context known to its caller (what validatePairing would find). */
export function rememberPairingIssues(messages: readonly ProjectedMessage[], issues: PairingIssue[]): void {
  pairingCache.set(messages, issues);
}

/** The pairing issues of a context's main line (lib/model/pairing.ts validatePairing). Read it, never change it. */
export function pairingIssues(messages: readonly ProjectedMessage[]): readonly PairingIssue[] {
  let hit = pairingCache.get(messages);
  if (hit) return hit;
  const parent = pairingParent.get(messages);
  // Only an empty list is inherited: an issue names its message by index, and indices move when messages leave.
  if (parent && pairingIssues(parent).length === 0) hit = [];
  else hit = validatePairing(messages.some((m) => m.sidechain) ? messages.filter((m) => !m.sidechain) : messages);
  pairingCache.set(messages, hit);
  return hit;
}

const isPairBlock = (b: Pick<ProjectedBlock, 'kind'>) => b.kind === 'tool_call' || b.kind === 'tool_result';
const callIdOf = (b: ProjectedBlock) => (b.kind === 'tool_call' || b.kind === 'tool_result' ? b.callId : undefined);

// A derived block (a stub, a truncation) is the same value every time a preview derives it from the
// same block with the same changes: kept, it is not recounted (an exact tokenizer on thousands of
// stubs) and keeps its identity from one preview to the next. One entry per source block: the latest.
const derivedCache = new WeakMap<ProjectedBlock, { changes: Partial<Block>; counter: TokenCounter; next: ProjectedBlock }>();

function sameChanges(a: Partial<Block>, b: Partial<Block>): boolean {
  const ka = Object.keys(a) as Array<keyof Partial<Block>>;
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) if (!Object.is(a[k], b[k])) return false;
  return true;
}

function derive(old: ProjectedBlock, changes: Partial<Block>, counter: TokenCounter): ProjectedBlock {
  const hit = derivedCache.get(old);
  if (hit && hit.counter === counter && sameChanges(hit.changes, changes)) return hit.next;
  const next = Object.assign({}, old, changes) as ProjectedBlock;
  next.sourceBlockId = sourceBlockId(old);
  next.tokens = countBlock(next as Block, counter);
  derivedCache.set(old, { changes, counter, next });
  return next;
}

export class ContextEditor {
  /** message index → its blocks after edits (null = block removed). */
  private edited = new Map<number, (ProjectedBlock | null)[]>();
  private inserted = new Map<number, ProjectedMessage[]>();
  /** The fates this editor set (its layer over the context's). */
  private newFates: Map<string, Fate> | undefined;
  private readonly totalsBefore: Readonly<Totals>;
  private readonly tokensBefore: number;
  /** Main-chain tokens saved by budget kind (negative where inserted messages added some). */
  private savedByKind: Record<BudgetKind, number> = emptyByKind();
  events = 0;
  /** Tokens saved so far (net of inserted messages). */
  saved = 0;
  /** Saved tokens of main-chain messages only: what the context total (side chains excluded) drops by. */
  private savedMain = 0;
  /** Has an edit added, removed or re-keyed a tool call or result? (Else the pairing is the parent's.) */
  private pairingTouched = false;
  /**
   * Has an edit removed a block or inserted a message? Else every block keeps its place (message
   * and block index): with the pairing untouched, the pair index is the parent's (indexPairs was
   * rebuilt by every reducer of every look, ~9 % of Auto's replay at 2,000 turns, issue 31).
   */
  private placesMoved = false;

  constructor(
    readonly ctx: CompactionContext,
    readonly reducer: ReducerId,
  ) {
    this.totalsBefore = contextTotalsOf(ctx);
    this.tokensBefore = this.totalsBefore.total;
  }

  /** Current total, counting the edits made so far. */
  get total(): number {
    return this.tokensBefore - this.saved;
  }

  /** contextTokens of the context `finish` will build (the main chain's tokens), known before it is built. */
  get contextTotal(): number {
    return this.changed ? this.tokensBefore - this.savedMain : this.tokensBefore;
  }

  count(text: string): number {
    return this.ctx.counter.count(text);
  }

  /** A block as it currently stands (after this editor's edits). */
  block(mi: number, bi: number): ProjectedBlock | null {
    const e = this.edited.get(mi);
    return e ? e[bi] : this.ctx.messages[mi].blocks[bi];
  }

  isRemoved(mi: number, bi: number): boolean {
    return this.block(mi, bi) === null;
  }

  private blocksOf(mi: number): (ProjectedBlock | null)[] {
    let e = this.edited.get(mi);
    if (!e) {
      e = [...this.ctx.messages[mi].blocks];
      this.edited.set(mi, e);
    }
    return e;
  }

  private fate(b: ProjectedBlock, mi: number, fate: Fate): void {
    if (this.ctx.messages[mi].synthetic) return;
    this.newFates ??= new Map();
    this.newFates.set(sourceBlockId(b), fate);
  }

  /**
   * Replace a block by a derived one (its fields over the old block's; tokens recounted).
   * Refused (returns false) unless it makes the context smaller: a reducer never grows it.
   */
  replaceBlock(mi: number, bi: number, changes: Partial<Block>, fate: Fate): boolean {
    const old = this.block(mi, bi);
    if (!old) return false;
    const next = derive(old, changes, this.ctx.counter);
    if (next.tokens >= old.tokens) return false;
    if ((isPairBlock(old) || isPairBlock(next)) && (next.kind !== old.kind || callIdOf(next) !== callIdOf(old))) this.pairingTouched = true;
    this.blocksOf(mi)[bi] = next;
    this.saved += old.tokens - next.tokens;
    const m = this.ctx.messages[mi];
    if (!m.sidechain) {
      this.savedMain += old.tokens - next.tokens;
      this.savedByKind[budgetKind(m.role, old)] += old.tokens;
      this.savedByKind[budgetKind(m.role, next)] -= next.tokens;
    }
    this.events++;
    this.fate(old, mi, fate);
    return true;
  }

  removeBlock(mi: number, bi: number, fate: Fate): boolean {
    const old = this.block(mi, bi);
    if (!old) return false;
    this.blocksOf(mi)[bi] = null;
    this.placesMoved = true;
    if (isPairBlock(old)) this.pairingTouched = true;
    this.saved += old.tokens;
    const m = this.ctx.messages[mi];
    if (!m.sidechain) {
      this.savedMain += old.tokens;
      this.savedByKind[budgetKind(m.role, old)] += old.tokens;
    }
    this.events++;
    this.fate(old, mi, fate);
    return true;
  }

  /**
   * Remove a call and its result together, both halves of one pair (the call first). The
   * context's pairing is then its parent's without that pair: a parent without a pairing issue
   * leaves a child without one, known without a pass over it (a new issue needs a half left alone).
   */
  removeCallAndResult(call: { mi: number; bi: number }, result: { mi: number; bi: number }, fate: Fate): boolean {
    const c = this.block(call.mi, call.bi);
    const r = this.block(result.mi, result.bi);
    if (!c || !r || c.kind !== 'tool_call' || r.kind !== 'tool_result' || c.callId !== r.callId) return false;
    const ordered = call.mi < result.mi || (call.mi === result.mi && call.bi < result.bi);
    const touched = this.pairingTouched;
    this.removeBlock(call.mi, call.bi, fate);
    this.removeBlock(result.mi, result.bi, fate);
    if (ordered) this.pairingTouched = touched;
    return true;
  }

  /** Remove every remaining block of a message (the message then leaves the context). */
  removeMessage(mi: number, fate: Fate): void {
    const n = this.ctx.messages[mi].blocks.length;
    for (let bi = 0; bi < n; bi++) this.removeBlock(mi, bi, fate);
  }

  /**
   * Set the fate of log blocks no message of the context holds any more: the span of a summary
   * this editor drops is removed, no longer summarized (issue 30: they were badged "summarized").
   */
  setFates(blockIds: Iterable<string>, fate: Fate): void {
    this.newFates ??= new Map();
    for (const id of blockIds) this.newFates.set(id, fate);
  }

  /** Insert a synthetic message before message `mi` (messages.length = at the end). */
  insertBefore(mi: number, m: ProjectedMessage): void {
    const list = this.inserted.get(mi) ?? [];
    list.push(m);
    this.inserted.set(mi, list);
    for (const b of m.blocks) this.saved -= b.tokens;
    this.placesMoved = true;
    if (m.blocks.some(isPairBlock)) this.pairingTouched = true;
    if (!m.sidechain)
      for (const b of m.blocks) {
        this.savedMain -= b.tokens;
        this.savedByKind[budgetKind(m.role, b)] -= b.tokens;
      }
  }

  get changed(): boolean {
    return this.edited.size > 0 || this.inserted.size > 0;
  }

  /** A message with its edits, or null when none of its blocks is left. */
  private editedMessage(mi: number, e: (ProjectedBlock | null)[]): ProjectedMessage | null {
    const blocks = e.filter((b): b is ProjectedBlock => b !== null);
    if (blocks.length === 0) return null;
    const copy = Object.assign({}, this.ctx.messages[mi]);
    copy.blocks = blocks;
    return copy;
  }

  /**
   * The new messages when nothing was inserted: a copy of the array with the edited messages put
   * in their places (no lookup per message: most of a 40k-message context is untouched), then the
   * emptied ones taken out.
   */
  private patched(): ProjectedMessage[] {
    const out: Array<ProjectedMessage | null> = this.ctx.messages.slice();
    let emptied = false;
    for (const [mi, e] of this.edited) {
      const m = this.editedMessage(mi, e);
      out[mi] = m;
      if (!m) emptied = true;
    }
    if (!emptied) return out as ProjectedMessage[];
    const kept: ProjectedMessage[] = [];
    for (let i = 0; i < out.length; i++) {
      const m = out[i];
      if (m) kept.push(m);
    }
    return kept;
  }

  /** The new messages with inserted ones, in one pass. */
  private rebuilt(): ProjectedMessage[] {
    const messages: ProjectedMessage[] = [];
    const source = this.ctx.messages;
    for (let mi = 0; mi < source.length; mi++) {
      const ins = this.inserted.get(mi);
      if (ins) messages.push(...ins);
      const e = this.edited.get(mi);
      if (!e) {
        messages.push(source[mi]);
        continue;
      }
      const m = this.editedMessage(mi, e);
      if (m) messages.push(m);
    }
    const tail = this.inserted.get(source.length);
    if (tail) messages.push(...tail);
    return messages;
  }

  /** Build the new context and this reducer's report. */
  finish(state: ReducerState, notes: string[] = []): ReduceResult {
    const { ctx } = this;
    let next = ctx;
    if (this.changed) {
      const messages = this.inserted.size === 0 ? this.patched() : this.rebuilt();
      next = { ...ctx, messages, fates: this.newFates ? { parent: ctx.fates, own: this.newFates } : ctx.fates };
      // The new totals are the old ones minus what the edits saved: no second pass over the context.
      const byKind = { ...this.totalsBefore.byKind };
      for (const k in byKind) byKind[k as BudgetKind] -= this.savedByKind[k as BudgetKind];
      totalsCache.set(messages, { tools: next.tools, totals: { total: this.tokensBefore - this.savedMain, byKind } });
      if (!this.pairingTouched) pairingParent.set(messages, ctx.messages);
      if (!this.pairingTouched && !this.placesMoved && messages.length === ctx.messages.length) inheritPairIndex(messages, ctx.messages);
    }
    const tokensAfter = this.changed ? contextTokens(next) : this.tokensBefore;
    return {
      ctx: next,
      state,
      report: { stepId: ctx.step.id, reducer: this.reducer, events: this.events, tokensBefore: this.tokensBefore, tokensAfter, notes },
    };
  }
}

/** A report for a reducer that changed nothing (e.g. nothing in range). */
export function noChange(ctx: CompactionContext, reducer: ReducerId, state: ReducerState, notes: string[]): ReduceResult {
  return new ContextEditor(ctx, reducer).finish(state, notes);
}

/** Fate constructors, so every reducer writes them the same way. */
export const fates = {
  stubbed: (by: ReducerId, stepId: string): Fate => ({ kind: 'stubbed', by, stepId }),
  removed: (by: ReducerId, stepId: string): Fate => ({ kind: 'removed', by, stepId }),
  truncated: (by: ReducerId, stepId: string, keptHead: number, keptTail: number): Fate => ({ kind: 'truncated', by, stepId, keptHead, keptTail }),
  deduped: (by: ReducerId, stepId: string, keptBlock: string): Fate => ({ kind: 'deduped', by, stepId, keptBlock }),
  summarized: (by: ReducerId, stepId: string, summaryId: string): Fate => ({ kind: 'summarized', by, stepId, summaryId }),
};

/** A reducer option of the wrong type or outside its allowed values: names the option and what it takes. */
export class ReducerOptionError extends Error {
  readonly code = 'invalid:reducer-option';
  constructor(
    readonly option: string,
    readonly expected: string,
    readonly got: unknown,
    readonly reducer?: string,
  ) {
    super(`${reducer ? `${reducer}: ` : ''}option "${option}" must be ${expected} (got ${JSON.stringify(got) ?? String(got)}).`);
    this.name = 'ReducerOptionError';
  }
}

type Check<T> = ((v: unknown) => v is T) & { expected?: string };
const described = <T>(f: (v: unknown) => v is T, expected: string): Check<T> => Object.assign(f, { expected });

/**
 * Read a reducer option with a type check and default (options are untrusted plain data from
 * Dexie/CLI/config). Absent = the default; present but wrong = a ReducerOptionError naming the
 * option and its allowed values, never a silent default.
 */
export function opt<T>(options: Record<string, unknown> | undefined, key: string, fallback: T, check: Check<T>): T {
  const v = options?.[key];
  if (v === undefined) return fallback;
  if (check(v)) return v;
  throw new ReducerOptionError(key, check.expected ?? 'a valid value', v);
}
export const isNum = described((v: unknown): v is number => typeof v === 'number' && Number.isFinite(v), 'a number');
export const isBool = described((v: unknown): v is boolean => typeof v === 'boolean', 'true or false');
export const isStr = described((v: unknown): v is string => typeof v === 'string', 'a string');
export const isStrArray = described((v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string'), 'a list of strings');
export const isNumArray = described((v: unknown): v is number[] => Array.isArray(v) && v.every((x) => typeof x === 'number'), 'a list of numbers');
export function oneOf<T extends string>(...values: T[]): Check<T> {
  return described((v: unknown): v is T => typeof v === 'string' && (values as string[]).includes(v), `one of ${values.map((x) => `"${x}"`).join(', ')}`);
}
