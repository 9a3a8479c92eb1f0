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
import { CATEGORIES, extractCategories, modelTextOf, survivalOf, type Category, type CategoryItem } from '../categories';

export { extractIdentifiers, type Identifier, type LostKind };

export interface LostIdentifier extends Identifier {
  /** Source turn where it first appeared. */
  turn: number;
  /** Source message id where it first appeared. */
  messageId: string;
  /** The step that compacted it out (`source-marker:<id>` when the source's own compaction did). */
  stepId: string;
}

function textOfBlock(b: Block): string {
  return blockText(b);
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

/**
 * Everything the projected context still says, indexed for lookups. Identifiers by exact value
 * (path suffixes included); error lines by exact line; instructions and error lines also by word
 * shingles (all runs of min(4, length) words) over the prose — user and assistant text, summaries,
 * notices — so a summary that quotes an instruction keeps it, without a substring search per
 * candidate (which is quadratic on long sessions).
 */
class PresenceIndex {
  private ids = new Set<string>();
  private lines = new Set<string>();
  private shingles: Array<Set<string>> = [new Set(), new Set(), new Set(), new Set(), new Set()];

  constructor(projection: Pick<Projection, 'messages'>, withSummaries = true) {
    for (const m of projection.messages) {
      if (m.sidechain) continue;
      if (!withSummaries && m.synthetic === 'summary') continue;
      for (const b of m.blocks) {
        if (!withSummaries && b.kind === 'summary') continue;
        const t = textOfBlock(b as Block);
        for (const id of extractIdentifiers(t)) {
          this.ids.add(`${id.kind}:${id.value}`);
          if (id.kind === 'path') {
            // Suffixes: src/a.ts is present in /repo/src/a.ts.
            const segs = id.value.split('/');
            for (let i = 1; i < segs.length; i++) this.ids.add(`path:${segs.slice(i).join('/')}`);
          }
        }
        if (t.length < 1_000_000) for (const l of t.split('\n')) this.lines.add(l.trim().slice(0, 200));
        if (b.kind === 'text' || b.kind === 'summary') this.addShingles(t);
      }
    }
  }

  private addShingles(text: string): void {
    const w = words(text);
    for (let n = 1; n <= SHINGLE; n++) {
      const set = this.shingles[n];
      for (let i = 0; i + n <= w.length; i++) set.add(w.slice(i, i + n).join(' '));
    }
  }

  private proseHas(text: string): boolean {
    const w = words(text);
    if (w.length === 0) return true;
    const n = Math.min(SHINGLE, w.length);
    const set = this.shingles[n];
    for (let i = 0; i + n <= w.length; i++) if (!set.has(w.slice(i, i + n).join(' '))) return false;
    return true;
  }

  has(id: Identifier): boolean {
    if (id.kind === 'instruction') return this.proseHas(id.value);
    if (id.kind === 'error') return this.lines.has(id.value) || this.proseHas(id.value);
    if (this.ids.has(`${id.kind}:${id.value}`)) return true;
    // Paths written relative in the log and absolute in a summary (or vice versa).
    return id.kind === 'path' && this.ids.has(`path:${id.value.replace(/^(?:\.{1,2}\/|\/)+/, '')}`);
  }
}

/**
 * Lost identifiers of a projection, in order of first appearance. Only blocks the projection
 * changed are searched: kept blocks are in the context by definition. `summaries: false`: what a
 * summary lists does not count as present.
 */
export function lostIdentifiers(log: Transcript, projection: Pick<Projection, 'messages' | 'fates'>, options: { summaries?: boolean } = {}): LostIdentifier[] {
  const seen = new Set<string>();
  const candidates: LostIdentifier[] = [];
  for (const m of log.messages) {
    if (m.sidechain) continue;
    for (const b of m.blocks) {
      const fate = projection.fates[b.id];
      if (!fate || fate.kind === 'kept') continue;
      const found: Identifier[] = extractIdentifiers(textOfBlock(b));
      if (m.role === 'user' && !m.meta && b.kind === 'text' && b.text.trim()) found.push({ kind: 'instruction', value: b.text.trim() });
      for (const id of found) {
        const key = `${id.kind}:${id.value}`;
        if (seen.has(key)) continue;
        seen.add(key);
        candidates.push({ ...id, turn: m.turn, messageId: m.id, stepId: fate.stepId });
      }
    }
  }
  if (candidates.length === 0) return [];
  const present = new PresenceIndex(projection, options.summaries !== false);
  return candidates.filter((c) => !present.has(c));
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
  const changed = log.messages.filter((m) => !m.sidechain && m.blocks.some((b) => counts(projection.fates[b.id])));
  const items = extractCategories(changed, { format: log.format });
  const s = survivalOf(items, modelTextOf(projection.messages));
  const categories = Object.fromEntries(
    CATEGORIES.map((c) => [c, { kept: s[c].kept, of: s[c].of, lost: s[c].lost.map((i) => ({ text: i.text, ...(i.turn !== undefined && { turn: i.turn }), ...(i.messageId && { messageId: i.messageId }), ...(i.tool && { tool: i.tool }) })) }]),
  ) as LostByCategory['categories'];
  return { categories };
}
