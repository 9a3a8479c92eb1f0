/**
 * What was lost: identifiers that appeared in the compacted part of the log (blocks whose fate is
 * not `kept`) and appear nowhere in the projected context — file paths, URLs, ids and hashes,
 * error lines, and every user instruction. This answers "auto-compact forgot X", the top
 * complaint about every peer (DESIGN.md): either X is listed here (compacted out) or it is still
 * in the context (the model ignored it).
 *
 * Presence is checked against identifiers extracted from the projection with the same rules (plus
 * path suffixes, so `src/a.ts` is found inside `/repo/src/a.ts`), and instructions and error lines
 * by word shingles of the projection's prose — linear in the size of log + projection.
 */
import type { Block, Transcript } from '../model/types';
import { blockText } from '../tokens/count';
import type { Projection } from './types';
import { extractIdentifiers, type Identifier, type LostKind } from '../categories/identifiers';
import { resultLinesText } from '../categories/decode-result';
import { errorLinesOf, resultCategory } from '../categories/signal';
import { defaultOutputCategory } from '../categories/tools';
import { blockPresenceWords, CATEGORIES, extractCategories, isTypedByUser, modelTextOf, modelWordsOf, queriesOf, scanWanted, survivalIndexFor, survivalOf, survivalWanted, type Category, type CategoryItem, type SurvivalIndex, type SurvivalWanted } from '../categories';

export { extractIdentifiers, type Identifier, type LostKind };

export interface LostIdentifier extends Identifier {
  /** Source turn where it first appeared. */
  turn: number;
  /** Source message id where it first appeared. */
  messageId: string;
  /** The step that compacted it out (`source-marker:<id>` when the source's own compaction did). */
  stepId: string;
}

/** A block's text as its identifiers are read: a tool result as it says it (a Codex JSON string's output, decoded). */
function textOfBlock(b: Block): string {
  return b.kind === 'tool_result' ? resultLinesText(b.content ?? '') : blockText(b);
}

/**
 * The identifiers a compaction of this block would lose. Error lines are the categories' (lib/
 * categories: a tool result's error lines as its output category reads them, the same lines the
 * Lost tab's "Error lines" row counts and a stub keeps), not any line holding the word "error": a
 * file's text that mentions errors is no error (one definition of an error line, session 15).
 */
function identifiersOfBlock(b: Block, text: string, toolName: string | undefined): Identifier[] {
  const ids = extractIdentifiers(text).filter((id) => id.kind !== 'error');
  if (b.kind === 'tool_result')
    for (const line of errorLinesOf(b.content ?? '', resultCategory(b, defaultOutputCategory(toolName ?? b.name ?? '')))) ids.push({ kind: 'error', value: line.length > 200 ? line.slice(0, 200) : line });
  return ids;
}

const SHINGLE = 4;

/** Words for shingles: case, quotes, markdown and punctuation around words do not matter. */
function words(s: string): string[] {
  return s
    .toLowerCase()
    .split(/[^\p{L}\p{N}_./@-]+/u)
    .map((w) => w.replace(/^[.\-]+|[.\-]+$/g, ''))
    .filter(Boolean);
}

/** The key a presence lookup asks for: an identifier (`i|kind:value`), a line (`l|line`) or an n-word shingle (`s|n|words`). */
const idKey = (kind: string, value: string) => `i|${kind}:${value}`;
const lineKey = (line: string) => `l|${line}`;
const shingleKey = (n: number, gram: string) => `s|${n}|${gram}`;
/** Paths written relative in the log and absolute in a summary (or vice versa). */
const stripPath = (value: string) => value.replace(/^(?:\.{1,2}\/|\/)+/, '');

/**
 * The shingles a prose check of `text` asks for: every run of min(4, length) words (none for a
 * text without words, which is present by definition).
 */
function proseKeys(text: string): string[] {
  const w = words(text);
  const n = Math.min(SHINGLE, w.length);
  const out: string[] = [];
  for (let i = 0; n > 0 && i + n <= w.length; i++) out.push(shingleKey(n, w.slice(i, i + n).join(' ')));
  return out;
}

/** Every presence key a block of text holds (PresenceIndex's entries, as keys), those in `wanted` only. */
function presenceKeys(text: string, prose: boolean, ids: readonly Identifier[], wanted: ReadonlySet<string>, shingleSizes: readonly number[], add: (key: string) => void): void {
  for (const id of ids) {
    const key = idKey(id.kind, id.value);
    if (wanted.has(key)) add(key);
    if (id.kind === 'path') {
      // Suffixes: src/a.ts is present in /repo/src/a.ts.
      const segs = id.value.split('/');
      for (let i = 1; i < segs.length; i++) {
        const suffix = idKey('path', segs.slice(i).join('/'));
        if (wanted.has(suffix)) add(suffix);
      }
    }
  }
  if (text.length < 1_000_000)
    for (const l of text.split('\n')) {
      const key = lineKey(l.trim().slice(0, 200));
      if (wanted.has(key)) add(key);
    }
  if (prose && shingleSizes.length) {
    const w = words(text);
    for (const n of shingleSizes)
      for (let i = 0; i + n <= w.length; i++) {
        const key = shingleKey(n, w.slice(i, i + n).join(' '));
        if (wanted.has(key)) add(key);
      }
  }
}

/**
 * What lostIdentifiers needs of a log that does not depend on the projection, computed once per
 * log (issue 31: the scan over every block of the context was most of a preview's time, again for
 * every preview). Per main-chain log block, numbered in log order: the identifiers a compaction of
 * it would lose (instructions included); and, for every key any such identifier can be looked up
 * by, the log blocks whose text holds it. A projection then only marks which log blocks it still
 * carries (the same objects: kept blocks are never copied) and reads the new blocks it made.
 */
interface LogPresence {
  messages: Transcript['messages'];
  /** The main chain's log blocks, by object, to their number. */
  number: Map<object, number>;
  /** Per numbered block: the identifiers a compaction of it would lose, in order. */
  found: Identifier[][];
  /** Every key a candidate of this log can be looked up by. */
  wanted: Set<string>;
  /** The shingle sizes among `wanted`. */
  shingleSizes: number[];
  /** Key → the numbered blocks that hold it (one number, or an ascending list). */
  holders: Map<string, number | number[]>;
  /** Keys (of `wanted`) of blocks that are not the log's (stubs, truncations, summaries, notices), by object. */
  madeKeys: WeakMap<object, string[]>;
  /** How lostIdentifiers judges each identifier, made at its first call (logJudge). */
  judge?: LogJudge;
}

/**
 * What lostIdentifiers asks of the log's identifiers, the same for every projection (issue 31,
 * session 17: the replay's 18 policies each judged the log's identifiers anew, re-making their
 * keys and shingles): each identifier interned by kind and value (`uid`, per numbered block, in
 * `found`'s order), and per uid the ways it can be present — alternatives, each a list of keys
 * that must all be present (an instruction: its shingles; an error line: its line, or its
 * shingles; a path: itself, or itself without a leading ./ or /; else itself), each key with the
 * log blocks that hold it.
 */
interface LogJudge {
  uids: Int32Array[];
  count: number;
  ways: Array<Array<Array<{ key: string; held: number | number[] | undefined }>>>;
}
/** Builds of the per-log judge and the identifiers it interned (a test checks that the replay's policies share one). */
export const lostJudgeStats = { builds: 0, identifiers: 0 };

function logJudge(lp: LogPresence): LogJudge {
  if (lp.judge) return lp.judge;
  lostJudgeStats.builds++;
  const interned = new Map<string, number>();
  const ways: LogJudge['ways'] = [];
  const keyed = (keys: readonly string[]) => keys.map((key) => ({ key, held: lp.holders.get(key) }));
  const uids = lp.found.map((ids) => {
    const out = new Int32Array(ids.length);
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      const name = `${id.kind}\u0000${id.value}`;
      let u = interned.get(name);
      if (u === undefined) {
        interned.set(name, (u = ways.length));
        if (id.kind === 'instruction') ways.push([keyed(proseKeys(id.value))]);
        else if (id.kind === 'error') ways.push([keyed([lineKey(id.value)]), keyed(proseKeys(id.value))]);
        else ways.push(id.kind === 'path' ? [keyed([idKey(id.kind, id.value)]), keyed([idKey('path', stripPath(id.value))])] : [keyed([idKey(id.kind, id.value)])]);
      }
      out[i] = u;
    }
    return out;
  });
  lostJudgeStats.identifiers += ways.length;
  return (lp.judge = { uids, count: ways.length, ways });
}

/** Key → the numbered blocks that hold it: one number, or an ascending list (blocks are added in order). */
type Holders = Map<string, number | number[]>;

function addHolder(holders: Holders, key: string, n: number): void {
  const h = holders.get(key);
  if (h === undefined) holders.set(key, n);
  else if (typeof h === 'number') {
    if (h !== n) holders.set(key, [h, n]);
  } else if (h[h.length - 1] !== n) h.push(n);
}

/** Whether a block that holds `key` is among those a projection still carries. */
function heldAlive(holders: Holders, alive: Uint8Array, key: string): boolean {
  const h = holders.get(key);
  if (h === undefined) return false;
  if (typeof h === 'number') return alive[h] === 1;
  for (const n of h) if (alive[n] === 1) return true;
  return false;
}

/**
 * The main chain's log blocks, by object, to their number (in log order, sidechains left out): one
 * map per log, shared by both lost indexes (logPresence, logCategoryPresence) and projectionView.
 */
const numberCache = new WeakMap<Transcript, { messages: Transcript['messages']; number: Map<object, number>; count: number }>();
function blockNumbers(log: Transcript): { number: Map<object, number>; count: number } {
  const hit = numberCache.get(log);
  if (hit && hit.messages === log.messages) return hit;
  const number = new Map<object, number>();
  let k = 0;
  for (const m of log.messages) {
    if (m.sidechain) continue;
    for (const b of m.blocks) number.set(b, k++);
  }
  const out = { messages: log.messages, number, count: k };
  numberCache.set(log, out);
  return out;
}

/**
 * What a projection did to the log's main chain, read once per projection (issue 31, session 16):
 * the fate of each numbered log block (one read of `projection.fates` per block — the preview's
 * summary, its lost identifiers and its lost categories each read every block's fate before),
 * which log blocks it still carries (kept blocks are the log's own objects) and the blocks it made
 * (stubs, truncations, summaries, notices), in order.
 */
export interface ProjectionView {
  /** Fate by log block number; undefined: kept (no record). */
  fate: Array<Projection['fates'][string] | undefined>;
  /** 1 where the projection's main chain still holds the numbered log block. */
  alive: Uint8Array;
  /** Main-chain blocks of the projection that are not the log's. */
  made: readonly object[];
}
const viewCache = new WeakMap<object, { log: Transcript; messages: Transcript['messages']; fates: Projection['fates']; view: ProjectionView }>();
/** Passes of projectionView over a log (a test checks one per projection for a preview). */
export const projectionViewStats = { builds: 0 };

export function projectionView(log: Transcript, projection: Pick<Projection, 'messages' | 'fates'>): ProjectionView {
  const hit = viewCache.get(projection.messages);
  if (hit && hit.log === log && hit.messages === log.messages && hit.fates === projection.fates) return hit.view;
  projectionViewStats.builds++;
  const { number, count } = blockNumbers(log);
  const fate: ProjectionView['fate'] = new Array(count);
  let k = 0;
  for (const m of log.messages) {
    if (m.sidechain) continue;
    for (const b of m.blocks) fate[k++] = projection.fates[b.id];
  }
  const alive = new Uint8Array(count);
  const made: object[] = [];
  for (const m of projection.messages) {
    if (m.sidechain) continue;
    for (const b of m.blocks) {
      const n = number.get(b);
      if (n !== undefined) alive[n] = 1;
      else made.push(b);
    }
  }
  const view = { fate, alive, made };
  viewCache.set(projection.messages, { log, messages: log.messages, fates: projection.fates, view });
  return view;
}

const presenceCache = new WeakMap<Transcript, LogPresence>();
/** Per-log builds so far (tests check that a second preview does not build again). */
export const lostIndexStats = { builds: 0 };

function logPresence(log: Transcript): LogPresence {
  const hit = presenceCache.get(log);
  if (hit && hit.messages === log.messages) return hit;
  lostIndexStats.builds++;
  const { number } = blockNumbers(log);
  const found: Identifier[][] = [];
  const texts: string[] = [];
  const prose: boolean[] = [];
  const wanted = new Set<string>();
  const sizes = new Set<number>();
  const toolNames = new Map<string, string>();
  for (const m of log.messages) {
    if (m.sidechain) continue;
    for (const b of m.blocks) {
      if (b.kind === 'tool_call') toolNames.set(b.callId, b.name);
      const text = textOfBlock(b);
      const ids: Identifier[] = identifiersOfBlock(b, text, b.kind === 'tool_result' ? toolNames.get(b.callId) : undefined);
      texts.push(text);
      prose.push(b.kind === 'text' || b.kind === 'summary');
      if (isTypedByUser(m, b) && b.kind === 'text') ids.push({ kind: 'instruction', value: b.text.trim() });
      found.push(ids);
      for (const id of ids) {
        if (id.kind === 'instruction' || id.kind === 'error') {
          if (id.kind === 'error') wanted.add(lineKey(id.value));
          for (const key of proseKeys(id.value)) {
            wanted.add(key);
            sizes.add(Number(key.slice(2, key.indexOf('|', 2))));
          }
        } else {
          wanted.add(idKey(id.kind, id.value));
          if (id.kind === 'path') wanted.add(idKey('path', stripPath(id.value)));
        }
      }
    }
  }
  const shingleSizes = [...sizes].sort((a, b) => a - b);
  const holders = new Map<string, number | number[]>();
  for (let k = 0; k < found.length; k++) {
    const ids = found[k];
    // The block's own identifiers (its instruction is no identifier of its text: the prose holds it).
    const own = ids.length && ids[ids.length - 1].kind === 'instruction' ? ids.slice(0, -1) : ids;
    presenceKeys(texts[k], prose[k], own, wanted, shingleSizes, (key) => addHolder(holders, key, k));
  }
  const out: LogPresence = { messages: log.messages, number, found, wanted, shingleSizes, holders, madeKeys: new WeakMap() };
  presenceCache.set(log, out);
  return out;
}

/** Build the log's index now (the preview worker warms it when the inspector opens: the first preview then does not). */
export function prepareLostIdentifiers(log: Transcript): void {
  logPresence(log);
}

/**
 * Lost identifiers of a projection, in order of first appearance. Only blocks the projection
 * changed are searched: kept blocks are in the context by definition. `summaries: false`: what a
 * summary lists does not count as present.
 *
 * Present means what PresenceIndex says of the projection's main-chain text: an identifier by
 * exact value (path suffixes included), an error line by exact line, instructions and error lines
 * by word shingles over the prose. The log's blocks the projection still carries are looked up in
 * the log's index (logPresence); only the blocks the projection made are read here.
 */
export function lostIdentifiers(log: Transcript, projection: Pick<Projection, 'messages' | 'fates'>, options: { summaries?: boolean } = {}): LostIdentifier[] {
  const lp = logPresence(log);
  const withSummaries = options.summaries !== false;
  // What the projection carries: log blocks by number, made blocks by their keys.
  let fateOf: (n: number, b: Block) => Projection['fates'][string] | undefined;
  let alive: Uint8Array;
  let madeBlocks: readonly object[];
  if (withSummaries) {
    // The preview's path: the projection read once for the preview and both lost indexes (projectionView).
    const view = projectionView(log, projection);
    fateOf = (n) => view.fate[n];
    alive = view.alive;
    madeBlocks = view.made;
  } else {
    fateOf = (_, b) => projection.fates[b.id];
    alive = new Uint8Array(lp.found.length);
    const list: object[] = [];
    for (const m of projection.messages) {
      if (m.sidechain || m.synthetic === 'summary') continue;
      for (const b of m.blocks) {
        if (b.kind === 'summary') continue;
        const n = lp.number.get(b);
        if (n !== undefined) alive[n] = 1;
        else list.push(b);
      }
    }
    madeBlocks = list;
  }
  // The made blocks' keys, read at the first lookup (no candidate, no read).
  let made: Set<string> | undefined;
  const madeKeys = (): Set<string> => {
    if (made) return made;
    made = new Set<string>();
    for (const b of madeBlocks) {
      let keys = lp.madeKeys.get(b);
      if (!keys) {
        const text = textOfBlock(b as Block);
        const list: string[] = [];
        presenceKeys(text, (b as Block).kind === 'text' || (b as Block).kind === 'summary', extractIdentifiers(text), lp.wanted, lp.shingleSizes, (key) => list.push(key));
        lp.madeKeys.set(b, (keys = list));
      }
      for (const key of keys) made.add(key);
    }
    return made;
  };
  const present = (p: { key: string; held: number | number[] | undefined }): boolean => {
    if (madeKeys().has(p.key)) return true;
    const h = p.held;
    if (h === undefined) return false;
    if (typeof h === 'number') return alive[h] === 1;
    for (const n of h) if (alive[n] === 1) return true;
    return false;
  };
  // An identifier is present when every key of one of its ways is (an instruction without words: no key, present).
  const { uids, ways, count } = logJudge(lp);
  const has = (u: number): boolean => ways[u].some((keys) => keys.every(present));
  // Each identifier once, at its first appearance, judged there: only a lost one becomes a record.
  // Seen by kind and value (interned once per log: logJudge).
  const seen = new Uint8Array(count);
  const lost: LostIdentifier[] = [];
  let k = 0;
  for (const m of log.messages) {
    if (m.sidechain) continue;
    for (const b of m.blocks) {
      const n = k++;
      const fate = fateOf(n, b);
      if (!fate || fate.kind === 'kept') continue;
      const ids = lp.found[n];
      const us = uids[n];
      for (let i = 0; i < ids.length; i++) {
        const u = us[i];
        if (seen[u] === 1) continue;
        seen[u] = 1;
        if (!has(u)) lost.push({ ...ids[i], turn: m.turn, messageId: m.id, stepId: fate.stepId });
      }
    }
  }
  return lost;
}

/**
 * Share of the log's identifiers still in the context *as the conversation itself* — a summary
 * that merely lists a path or an id does not count (the benchmark's "identifiers retained": the
 * offline summarizer lists every path verbatim, which would make any summary look lossless).
 * `totalIds`: the log's identifier count (lostIdentifiers with every block removed).
 */
export function retainedShare(log: Transcript, projection: Pick<Projection, 'messages' | 'fates'>, totalIds: number): number {
  if (totalIds === 0) return 1;
  return 1 - lostIdentifiers(log, projection, { summaries: false }).length / totalIds;
}

/** Counts per kind, for reports. */
export function countByKind(lost: readonly LostIdentifier[]): Record<LostKind, number> {
  const out: Record<LostKind, number> = { path: 0, url: 0, id: 0, error: 0, instruction: 0 };
  for (const l of lost) out[l.kind]++;
  return out;
}

/** What a compaction lost, by the five categories of lib/categories (issue 27): the same counts the ledger and the summaries use. */
export interface LostByCategory {
  /** Per category: of the items of the compacted blocks, how many the model is still sent, and the lost ones. */
  categories: Record<Category, { kept: number; of: number; lost: Array<Pick<CategoryItem, 'text' | 'turn' | 'messageId' | 'tool'>> }>;
}

/**
 * The items (lib/categories extractCategories) of every log message a projection changed (a block
 * whose fate is not `kept`), and which of them the text the model is sent (the projection's
 * messages, summaries and notices included) no longer holds (survivalOf). An item of a changed
 * message that a kept message also holds counts as kept. `ownOnly`: leave out what the source's own
 * compaction took out (the Lost tab, like its identifier lists).
 */
export function lostByCategory(log: Transcript, projection: Pick<Projection, 'messages' | 'fates'>, options: { ownOnly?: boolean } = {}): LostByCategory {
  // ownOnly: what the source's own compaction took out (`source-marker:` fates) is not this compaction's loss (the Lost tab).
  const counts = (f: Projection['fates'][string] | undefined) => f !== undefined && f.kind !== 'kept' && !(options.ownOnly && f.stepId.startsWith('source-marker:'));
  // The fates as projectionView read them (once per projection, shared with the lost identifiers).
  const view = projectionView(log, projection);
  const changed: Transcript['messages'] = [];
  let k = 0;
  for (const m of log.messages) {
    if (m.sidechain) continue;
    let hit = false;
    for (let i = 0; i < m.blocks.length; i++) if (counts(view.fate[k + i])) hit = true;
    k += m.blocks.length;
    if (hit) changed.push(m);
  }
  const items = extractCategories(changed, { format: log.format });
  const s = survivalOf(items, categoryIndex(log, projection, items, view));
  const categories = Object.fromEntries(
    CATEGORIES.map((c) => [c, { kept: s[c].kept, of: s[c].of, lost: s[c].lost.map((i) => ({ text: i.text, ...(i.turn !== undefined && { turn: i.turn }), ...(i.messageId && { messageId: i.messageId }), ...(i.tool && { tool: i.tool }) })) }]),
  ) as LostByCategory['categories'];
  return { categories };
}

/**
 * What lostByCategory needs of a log that does not depend on the projection, once per log (issue
 * 31: indexing the words of the whole projected context was a third of a 3,000-turn preview): the
 * runs and file names every item of the log looks up (survivalWanted of the whole main chain's
 * items), and which log blocks hold each. A projection then marks the log blocks it still carries
 * (kept blocks are the log's own objects) and scans only the blocks it made.
 */
interface LogCategoryPresence {
  messages: Transcript['messages'];
  /** The main chain's log blocks, by object, to their number. */
  number: Map<object, number>;
  blocks: number;
  wanted: SurvivalWanted;
  /** `n|run` or `#name` → the numbered blocks that hold it (one number, or an ascending list). */
  holders: Map<string, number | number[]>;
  /** Keys of blocks that are not the log's (stubs, summaries, notices), by object. */
  madeKeys: WeakMap<object, string[]>;
}

const categoryCache = new WeakMap<Transcript, LogCategoryPresence>();
/** Per-log builds so far (a test checks that a second preview does not build again). */
export const categoryIndexStats = { builds: 0, /** Words of blocks read per projection (the blocks it made, once each). */ scanned: 0, /** Words of the log read by the builds. */ logWords: 0 };

const runKey = (n: number, run: string) => `${n}|${run}`;
const nameKey = (name: string) => `#${name}`;

function blockKeys(words: readonly string[], wanted: SurvivalWanted, add: (key: string) => void): void {
  scanWanted(words, wanted, (n, run) => add(runKey(n, run)), (name) => add(nameKey(name)));
}

function logCategoryPresence(log: Transcript): LogCategoryPresence {
  const hit = categoryCache.get(log);
  if (hit && hit.messages === log.messages) return hit;
  categoryIndexStats.builds++;
  const main = log.messages.filter((m) => !m.sidechain);
  const wanted = survivalWanted(extractCategories(main, { format: log.format }));
  const { number } = blockNumbers(log);
  const holders = new Map<string, number | number[]>();
  let k = 0;
  for (const m of main)
    for (const b of m.blocks) {
      const n = k++;
      const words = blockPresenceWords(b);
      categoryIndexStats.logWords += words.length;
      blockKeys(words, wanted, (key) => addHolder(holders, key, n));
    }
  const out: LogCategoryPresence = { messages: log.messages, number, blocks: k, wanted, holders, madeKeys: new WeakMap() };
  categoryCache.set(log, out);
  return out;
}

/** Build the log's category index now (the preview worker's warm-up). */
export function prepareLostByCategory(log: Transcript): void {
  logCategoryPresence(log);
}

/**
 * A SurvivalIndex of the projection's main-chain text for `items`: for items whose runs and names
 * the log's index wants (all of them, but for an item whose text depends on which messages were
 * extracted together), looked up by block; for any other, survivalIndexFor over the whole text.
 * A run is looked up within a block: one that only spans two blocks' texts is not found (an item's
 * text comes from one block, and a summary or stub holds it within itself).
 */
function categoryIndex(log: Transcript, projection: Pick<Projection, 'messages'>, items: readonly CategoryItem[], view: ProjectionView): SurvivalIndex {
  const cp = logCategoryPresence(log);
  const known = (item: CategoryItem) => {
    const q = queriesOf(item);
    if (q.name !== undefined && !cp.wanted.names.has(q.name)) return false;
    return q.runs.every((r) => cp.wanted.runs[r.split(' ').length].has(r));
  };
  const unknown = items.filter((i) => !known(i));
  // The log blocks the projection carries and the blocks it made: projectionView's, read once per projection.
  const alive = view.alive;
  const made = new Set<string>();
  for (const b of view.made) {
    let keys = cp.madeKeys.get(b);
    if (!keys) {
      const list: string[] = [];
      const words = blockPresenceWords(b as Parameters<typeof blockPresenceWords>[0]);
      categoryIndexStats.scanned += words.length;
      blockKeys(words, cp.wanted, (key) => list.push(key));
      cp.madeKeys.set(b, (keys = list));
    }
    for (const key of keys) made.add(key);
  }
  const present = (key: string): boolean => {
    return made.has(key) || heldAlive(cp.holders, alive, key);
  };
  const rest = unknown.length ? survivalIndexFor(unknown, modelWordsOf(projection.messages)) : undefined;
  const lookup = (own: (key: string) => boolean, other: ((key: string) => boolean) | undefined) => ({ has: (key: string) => own(key) || (other !== undefined && other(key)) });
  return {
    runs: [0, 1, 2, 3, 4].map((n) => lookup((run) => present(runKey(n, run)), rest && ((run) => rest.runs[n].has(run)))),
    names: lookup((name) => present(nameKey(name)), rest && ((name) => rest.names.has(name))),
  };
}
