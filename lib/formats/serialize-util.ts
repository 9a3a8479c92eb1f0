/**
 * Shared helpers for `serialize(t, projection)` (the export-of-a-projection rule in DESIGN.md):
 * deciding whether a projected message is untouched, re-joining records with the file's own
 * separators when records are dropped or inserted, and deterministic ids for written lines.
 */
import type { ProjectedBlock, ProjectedMessage, Projection } from '../model/projection';
import type { Block, JsonStyle, Message, Transcript } from '../model/types';

/** True when the projected message is the source message with the very same block objects. */
export function isUnchanged(pm: ProjectedMessage, source: Message): boolean {
  if (pm.synthetic) return false;
  if (pm.blocks.length !== source.blocks.length) return false;
  for (let i = 0; i < pm.blocks.length; i++) if (pm.blocks[i] !== source.blocks[i]) return false;
  return true;
}

/**
 * What became of one source block in a projected message: the same object (kept), a derived
 * block (changed: stubbed, truncated, rewritten), or nothing (removed).
 */
export type BlockOutcome = { kind: 'kept' } | { kind: 'changed'; block: ProjectedBlock } | { kind: 'removed' };

export function blockOutcomes(pm: ProjectedMessage, source: Message): Map<string, BlockOutcome> {
  const out = new Map<string, BlockOutcome>();
  for (const b of source.blocks) out.set(b.id, { kind: 'removed' });
  for (const pb of pm.blocks) {
    const same = source.blocks.find((b) => b === pb);
    if (same) out.set(same.id, { kind: 'kept' });
    else if (pb.sourceBlockId !== undefined && out.has(pb.sourceBlockId)) {
      // A block that was the same object is still "kept" even if a derived copy also exists.
      if (out.get(pb.sourceBlockId)!.kind !== 'kept') out.set(pb.sourceBlockId, { kind: 'changed', block: pb });
    }
  }
  return out;
}

/** Blocks of a projected message that derive from no source block (a notice added inside a message). */
export function addedBlocks(pm: ProjectedMessage, source: Message | undefined): ProjectedBlock[] {
  if (!source) return pm.blocks;
  const ids = new Set(source.blocks.map((b) => b.id));
  return pm.blocks.filter((pb) => !source.blocks.includes(pb as Block) && (pb.sourceBlockId === undefined || !ids.has(pb.sourceBlockId)));
}

/** The readable text of a synthetic message (summary or notice), parts joined by blank lines. */
export function syntheticText(pm: ProjectedMessage): string {
  const parts: string[] = [];
  for (const b of pm.blocks) {
    if (b.kind === 'text' || b.kind === 'summary' || b.kind === 'opaque') parts.push(b.text);
    else if (b.kind === 'tool_result') parts.push(b.content);
  }
  return parts.join('\n\n');
}

/** Index the projection's messages by their source message id. */
export function projectedBySource(projection: Projection): Map<string, ProjectedMessage> {
  const m = new Map<string, ProjectedMessage>();
  for (const pm of projection.messages) if (pm.sourceId !== undefined) m.set(pm.sourceId, pm);
  return m;
}

/** One record of an export: an original record (by index) or a new one. */
export interface OutputRecord {
  /** Index of the source record this text is (or was re-written from). */
  orig?: number;
  text: string;
}

/**
 * Re-join records with the file's own frame: the text after an original record is re-used when
 * it separates two records; elsewhere `defaultSep` is used. With every record in place this is
 * exactly `joinRecords` (byte-identical).
 */
export function joinOutput(frame: readonly string[], items: readonly OutputRecord[], defaultSep: string): string {
  const n = frame.length - 1; // number of source records
  if (n === 0) {
    // No source records: frame[0] is the whole file (an empty array or empty JSONL).
    if (items.length === 0) return frame[0] ?? '';
  }
  let out = frame[0] ?? '';
  for (let k = 0; k < items.length; k++) {
    out += items[k].text;
    if (k === items.length - 1) break;
    const o = items[k].orig;
    out += o !== undefined && o < n - 1 ? frame[o + 1] : defaultSep;
  }
  out += n > 0 ? frame[n] : '';
  return out;
}

/** The separator between two records of a file: the first interior frame, else one built from the style. */
export function defaultSeparator(frame: readonly string[], style: JsonStyle, depth: number): string {
  if (style.container === 'jsonl') return style.eol;
  if (frame.length > 2) return frame[1];
  if (style.indent === 0) return style.spacedSeparators ? ', ' : ',';
  const unit = style.indent === '\t' ? '\t' : ' '.repeat(style.indent);
  return ',' + style.eol + unit.repeat(depth);
}

/** FNV-1a 32-bit, twice with different seeds, for stable pseudo-random ids. */
function fnv(s: string, seed: number): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** A deterministic UUID-shaped id (version 4 layout) derived from a seed string. */
export function uuidFrom(seed: string): string {
  const hex = [fnv(seed, 0x811c9dc5), fnv(seed, 0x050c5d1f), fnv(seed, 0x2f5a3c71), fnv(seed, 0x7e3779b9)].map((h) => h.toString(16).padStart(8, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${'89ab'[parseInt(hex[16], 16) & 3]}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** A file name for an export: the source name with ".compacted" before the extension. */
export function compactedFileName(t: Pick<Transcript, 'fileName'>, compacted: boolean): string {
  if (!compacted) return t.fileName;
  const m = /^(.*?)((?:\.[a-z0-9]+)?(?:\.gz)?)$/i.exec(t.fileName);
  const base = m ? m[1] : t.fileName;
  const ext = (m ? m[2] : '').replace(/\.gz$/i, '');
  return `${base}.compacted${ext || '.json'}`;
}

/** Deep copy of a (frozen) parsed record, so it can be edited for a re-write. */
export function cloneValue<T>(v: T): T {
  return structuredClone(v);
}

export { isRecord } from '../read/json-doc';
