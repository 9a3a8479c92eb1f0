/**
 * dedup-tools (RFD 036): a tool call made obsolete by a later one is dropped.
 *  - exact: same tool name and the same arguments (canonical JSON, key order ignored) — the
 *    fallback for every tool without a rule;
 *  - subsumption: a read of a line range of a file (read_file, Read, view, fs_read_file, …) is
 *    subsumed by a later read of the same path whose range contains it.
 * The later call must have an ok, un-stubbed result for the earlier one to be redundant. The
 * older pair is removed whole (mode 'remove', RFD 036) or its result stubbed (mode 'stub').
 * Hints with `dedup = false` (create/modify tools: each call is an action) opt a tool out.
 * An older result with error lines (lib/compaction/signal.ts) the newer one does not print — the
 * same test run before and after a fix — is stubbed with its signal instead of removed.
 */
import type { ToolCallBlock, ToolResultBlock, Transcript } from '../../model/types';
import { ContextEditor, fates, indexPairs, isBool, isEditable, oneOf, opt, type CompactionContext, type Reducer } from '../context';
import { NO_HINTS, canonicalArgs, canonicalArgsOnce, dedupAllowed, dedupOffByUser, hintFor, lineRangeOf, outputCategoryFor, rangeSubsumes, type LineRangeRead, type ToolHints } from '../hints';
import { errorLinesOf, resultCategory } from '../signal';
import { resultLinesText } from '../../categories/decode-result';
import { fitsNow, isStub, removePair, resultOf, resultStub } from './util';

export function dedupTools(options: Record<string, unknown> = {}): Reducer {
  const mode = opt(options, 'mode', 'remove' as const, oneOf('remove', 'stub'));
  const subsumption = opt(options, 'subsumption', true, isBool);
  const untilFits = opt(options, 'untilFits', false, isBool);
  const hints = (options.hints ?? NO_HINTS) as ToolHints;
  // Tests: every call, as before the log's partner index (what the index must not change).
  const fullScan = opt(options, 'fullScan', false, isBool);
  return {
    id: 'dedup-tools',
    reduce(ctx, budget, state) {
      const editor = new ContextEditor(ctx, 'dedup-tools');
      const messages = ctx.messages;
      // The calls, in order, with their key and range: only those with a partner in the log
      // (logPartners), or every call when the context holds one the log does not (a call a reducer rewrote).
      // A replay's context (a new log at every look) asks its session's index first: its calls are
      // the session's, in order, unless a reducer rewrote one (then its own, then every call).
      const source = fullScan || !partnersChecks.fromSession ? undefined : partnersSourceOf.get(ctx.log);
      const calls = (source && callsOf(ctx, hints, subsumption, logPartners(source, hints))) || (!fullScan && callsOf(ctx, hints, subsumption, logPartners(ctx.log, hints))) || callsOf(ctx, hints, subsumption)!;
      if (calls.length === 0) return editor.finish(state, [`${mode === 'remove' ? 'removed' : 'stubbed'} 0 duplicate and 0 subsumed call(s)`]);
      const pairs = indexPairs(messages);
      // Whether a call's result makes it a good "later" call: asked only of calls that can be one.
      const usable = (c: CallInfo): boolean => {
        const at = pairs.results.get(c.block.callId);
        if (!at) return false;
        const r = messages[at.mi].blocks[at.bi] as ToolResultBlock;
        return !r.isError && !isStub(r.content);
      };
      // Newest usable call per exact key; newest usable reads per path (for subsumption).
      const laterByKey = new Map<string, CallInfo>();
      const laterReads = new Map<string, CallInfo[]>();
      const found: Array<{ older: CallInfo; newer: CallInfo; how: 'exact' | 'subsumed' }> = [];
      for (let i = calls.length - 1; i >= 0; i--) {
        const c = calls[i];
        if (c.dedupable && isEditable(ctx, messages[c.mi])) {
          const exact = laterByKey.get(c.key);
          if (exact) found.push({ older: c, newer: exact, how: 'exact' });
          else if (c.range) {
            const cover = (laterReads.get(c.range.path) ?? []).find((l) => l.block.name === c.block.name && rangeSubsumes(c.range!, l.range!));
            if (cover) found.push({ older: c, newer: cover, how: 'subsumed' });
          }
        }
        if ((c.range || !laterByKey.has(c.key)) && usable(c)) {
          if (!laterByKey.has(c.key)) laterByKey.set(c.key, c);
          if (c.range) {
            const list = laterReads.get(c.range.path) ?? [];
            list.push(c);
            laterReads.set(c.range.path, list);
          }
        }
      }
      found.reverse(); // oldest first
      let exact = 0;
      let subsumed = 0;
      for (const f of found) {
        if (fitsNow(editor, budget, untilFits)) break;
        const fate = fates.deduped('dedup-tools', ctx.step.id, f.newer.block.id);
        let done = false;
        // A re-run whose earlier output failed differently (the same command before and after a
        // fix) is not a duplicate of what failed: the earlier result keeps its signal as a stub.
        const olderResult = resultOf(ctx, pairs, f.older.block.callId);
        const newerResult = resultOf(ctx, pairs, f.newer.block.callId);
        const category = resultCategory(olderResult?.block ?? {}, outputCategoryFor(f.older.block.name, hints));
        const failedDifferently =
          olderResult !== undefined && errorLinesOf(olderResult.block.content, category).some((l) => !(newerResult && resultLinesText(newerResult.block.content).includes(l)));
        if (mode === 'remove' && failedDifferently) {
          if (isEditable(ctx, ctx.messages[olderResult.mi]) && !isStub(olderResult.block.content))
            done = editor.replaceBlock(olderResult.mi, olderResult.bi, { content: resultStub(olderResult.block, ctx.log.format, category) }, fate);
        } else if (mode === 'remove') done = removePair(editor, pairs, f.older.block.callId, fate);
        else {
          const r = resultOf(ctx, pairs, f.older.block.callId);
          if (r && isEditable(ctx, ctx.messages[r.mi]) && !isStub(r.block.content))
            done = editor.replaceBlock(r.mi, r.bi, { content: `[deduplicated] ${f.older.block.name}: superseded by a later call (${f.how === 'exact' ? 'same arguments' : 'covering read'})` }, fate);
        }
        if (done) f.how === 'exact' ? exact++ : subsumed++;
      }
      return editor.finish(state, [`${mode === 'remove' ? 'removed' : 'stubbed'} ${exact} duplicate and ${subsumed} subsumed call(s)`]);
    },
  };
}

/** What dedup reads of a call, fixed by the call itself and the hints: its exact key, its line range, whether its tool may be deduplicated. */
interface CallFacts {
  key: string;
  range?: LineRangeRead;
  allowed: boolean;
}

// A call block never changes: its facts are worked out once per hints table (every preview of a
// log asks again for the same thousands of calls).
const factsCache = new WeakMap<ToolHints, WeakMap<ToolCallBlock, CallFacts>>();

function callFactsFor(hints: ToolHints): WeakMap<ToolCallBlock, CallFacts> {
  let facts = factsCache.get(hints);
  if (!facts) factsCache.set(hints, (facts = new WeakMap()));
  return facts;
}

function callFacts(b: ToolCallBlock, hints: ToolHints): CallFacts {
  const hint = hintFor(b.name, hints);
  // The user's `dedup = false` takes the tool out of subsumption too (a later range read is a duplicate of a kind).
  const range = hint.subsumes === 'line-range' && !dedupOffByUser(b.name, hints) ? lineRangeOf(b.name, b.input, hint.lines) : undefined;
  // An editor's view command is a read even though the tool's edits are never deduplicated.
  // A shell call only when its command is known to be read-only (never `git push`, `npm install`).
  return { key: b.name + '\u0000' + canonicalArgs(b.input), ...(range && { range }), allowed: dedupAllowed(hint, b.input) };
}

interface CallInfo {
  mi: number;
  bi: number;
  block: ToolCallBlock;
  key: string;
  range?: LineRangeRead;
  dedupable: boolean;
}

function info(mi: number, bi: number, block: ToolCallBlock, f: CallFacts, subsumption: boolean): CallInfo {
  const range = subsumption ? f.range : undefined;
  return { mi, bi, block, key: f.key, range, dedupable: f.allowed || range !== undefined };
}

/**
 * The log's main-line calls in order, and the facts of those that have a partner: another call
 * with the same key (tool and canonical arguments), or another line-range read of the same tool
 * and path. A call without one can be neither the older nor the newer call of a pair in any
 * context made from this log, as long as the context's calls are the log's own (a reducer that
 * rewrites a call's arguments makes a new block: then every call is read).
 */
interface LogPartners {
  calls: readonly ToolCallBlock[];
  /** Facts by call ordinal; undefined for a call without a partner. */
  facts: ReadonlyArray<CallFacts | undefined>;
}

const partnersCache = new WeakMap<Transcript, WeakMap<ToolHints, LogPartners>>();
const ordinals = new WeakMap<LogPartners, Map<ToolCallBlock, number>>();

/** Each call of the index → its first ordinal in it (made at the first gap a context's walk meets). */
function ordinalsOf(partners: LogPartners): Map<ToolCallBlock, number> {
  let at = ordinals.get(partners);
  if (at) return at;
  at = new Map();
  for (let k = partners.calls.length - 1; k >= 0; k--) at.set(partners.calls[k], k);
  ordinals.set(partners, at);
  return at;
}
/** Tests: `fromSession` off makes a replay's context build its own partner index, as before session 19 (the replay must be the same either way). */
export const partnersChecks = { fromSession: true };
/** A context log (the replay's) → the session log its messages come from (partnersFrom). */
const partnersSourceOf = new WeakMap<Transcript, Transcript>();

/**
 * `context`'s messages are made of `source`'s (the replay's context at a look: the session's
 * messages, some compacted): dedup reads the session's partner index, built once, instead of one
 * per context. The index marks the calls whose key or read path occurs twice in the session; a
 * context holds a subsequence of those calls (the very blocks, in order; checked by callsOf, which
 * falls back otherwise), so every call with a partner in the context is marked, and a marked call
 * without one there finds no later call of its key or path: what dedup does is the same (the
 * duplicates it finds are pairs of the context's calls).
 */
export function partnersFrom(context: Transcript, source: Transcript): void {
  if (context !== source) partnersSourceOf.set(context, source);
}
/** logPartners' builds, counted (issue 31: the preview worker's warm-up builds the log's; its previews build none). */
export const partnersStats = { builds: 0 };

/**
 * The log's partner index for the default hints (the Plan panel's, NO_HINTS), built now: the
 * preview worker's warm-up (issue 31), so the first preview's dedup stage does not build it.
 */
export function prepareDedupPartners(log: Transcript): void {
  logPartners(log, NO_HINTS);
}

function logPartners(log: Transcript, hints: ToolHints): LogPartners {
  let byHints = partnersCache.get(log);
  if (!byHints) partnersCache.set(log, (byHints = new WeakMap()));
  let hit = byHints.get(hints);
  if (hit) return hit;
  partnersStats.builds++;
  const calls: ToolCallBlock[] = [];
  // Indexed loops: a pass a new log makes once, before V8 has optimized it (totals.ts).
  for (let i = 0; i < log.messages.length; i++) {
    const m = log.messages[i];
    if (m.sidechain) continue;
    for (let j = 0; j < m.blocks.length; j++) {
      const b = m.blocks[j];
      if (b.kind === 'tool_call') calls.push(b);
    }
  }
  // Every call's arguments (canonical) and read path, counted per tool: a map per tool name, so the
  // keys counted are the argument texts themselves (no joined string to build and hash per call).
  const n = calls.length;
  const argsOf: string[] = new Array(n);
  const rangeOf: Array<LineRangeRead | undefined> = new Array(n);
  const byTool = new Map<string, { args: Map<string, number>; paths: Map<string, number> }>();
  for (let k = 0; k < n; k++) {
    const b = calls[k];
    const hint = hintFor(b.name, hints);
    let c = byTool.get(b.name);
    if (!c) byTool.set(b.name, (c = { args: new Map(), paths: new Map() }));
    const args = canonicalArgsOnce(b.input);
    argsOf[k] = args;
    c.args.set(args, (c.args.get(args) ?? 0) + 1);
    // The user's `dedup = false` takes the tool out of subsumption too (a later range read is a duplicate of a kind).
    const range = hint.subsumes === 'line-range' && !dedupOffByUser(b.name, hints) ? lineRangeOf(b.name, b.input, hint.lines) : undefined;
    rangeOf[k] = range;
    if (range) c.paths.set(range.path, (c.paths.get(range.path) ?? 0) + 1);
  }
  // The facts (key, range, whether the tool may be deduplicated) of the calls with a partner only.
  const facts: Array<CallFacts | undefined> = new Array(n);
  for (let k = 0; k < n; k++) {
    const b = calls[k];
    const c = byTool.get(b.name)!;
    const range = rangeOf[k];
    if (c.args.get(argsOf[k])! < 2 && !(range && c.paths.get(range.path)! > 1)) continue;
    facts[k] = { key: b.name + '\u0000' + argsOf[k], ...(range && { range }), allowed: dedupAllowed(hintFor(b.name, hints), b.input) };
  }
  byHints.set(hints, (hit = { calls, facts }));
  return hit;
}

/**
 * The context's main-line calls, in order, with their facts. With the log's partners: only the
 * calls that have one, found by walking the context's calls and the log's side by side (a context
 * keeps the log's order), or undefined when a call of the context is not one of the log's
 * (rewritten, or out of order): then every call must be read, without them.
 */
function callsOf(ctx: CompactionContext, hints: ToolHints, subsumption: boolean, partners?: LogPartners): CallInfo[] | undefined {
  const out: CallInfo[] = [];
  const facts = callFactsFor(hints);
  const messages = ctx.messages;
  let k = 0;
  for (let mi = 0; mi < messages.length; mi++) {
    const m = messages[mi];
    if (m.sidechain) continue;
    const blocks = m.blocks;
    for (let bi = 0; bi < blocks.length; bi++) {
      const b = blocks[bi];
      if (b.kind !== 'tool_call') continue;
      if (partners) {
        // A gap (calls the context does not hold: a replay's summarized prefix) is jumped, not walked.
        if (k < partners.calls.length && partners.calls[k] !== b) {
          const j = ordinalsOf(partners).get(b);
          if (j === undefined) return undefined;
          if (j > k) k = j;
        }
        while (k < partners.calls.length && partners.calls[k] !== b) k++;
        if (k === partners.calls.length) return undefined;
        const f = partners.facts[k++];
        if (f) out.push(info(mi, bi, b, f, subsumption));
        continue;
      }
      let f = facts.get(b);
      if (!f) facts.set(b, (f = callFacts(b, hints)));
      out.push(info(mi, bi, b, f, subsumption));
    }
  }
  return out;
}
