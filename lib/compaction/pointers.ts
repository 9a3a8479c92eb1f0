/**
 * Issue 27 item 4, "nothing is gone for good": each stub, truncation and summary of a projection can
 * carry a pointer to where the full text still lives, so a resumed agent reads it back with its own
 * file tool (`Read FILE` at the line, `sed -n 'Np' FILE`, `grep -n UUID FILE`).
 *
 * - A source file on disk (a session in an agent's store, or any file `compact` read): the file's
 *   absolute path and the 1-based line of the record (and its uuid when the record has one).
 * - No source path (stdin, the app): a recall file written beside the export, one JSON object a
 *   line (`{"id","message","block","text"}`), and the pointer names its line.
 *
 * A pure transform of the projection: the log is never touched, the source file never written.
 */
import type { Transcript } from '../model/types';
import { countBlock } from '../tokens/count';
import { counterFor } from './budget';
import { contextTotalsOf } from './context';
import { toTokenTotals } from './project';
import type { ProjectedBlock, Projection } from './types';

export interface PointerLocation {
  file: string;
  /** 1-based first line, and the last one for a span. */
  line: number;
  lastLine?: number;
  uuid?: string;
}

export function formatPointer(p: PointerLocation, what: string): string {
  const lines = p.lastLine !== undefined && p.lastLine !== p.line ? `lines ${p.line}-${p.lastLine}` : `line ${p.line}`;
  return `[full text of ${what}: ${p.file} ${lines}${p.uuid ? `, uuid ${p.uuid}` : ''}]`;
}

/** A line of the recall file (no source path): what the pointer's line holds. */
export interface RecallLine {
  id: string;
  message: number;
  block?: string;
  role: string;
  text: string;
}

export function blockText(b: ProjectedBlock): string {
  switch (b.kind) {
    case 'tool_result':
      return b.content;
    case 'tool_call':
      return `${b.name}(${b.rawInput ?? JSON.stringify(b.input ?? {})})`;
    case 'attachment':
      return b.text ?? '';
    case 'text':
    case 'reasoning':
    case 'summary':
    case 'opaque':
      return b.text;
  }
}

function uuidOf(value: unknown): string | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  for (const k of ['uuid', 'id']) if (typeof v[k] === 'string' && (v[k] as string).length >= 8) return v[k] as string;
  return undefined;
}

export interface PointerResult {
  projection: Projection;
  /** The recall file's text (JSONL), when pointers name it (no source path). */
  recall?: string;
  /** How many pointers were added. */
  added: number;
}

/**
 * Add pointers to every stubbed or truncated block and every summary of `projection`.
 * `sourcePath`: the source file on disk (pointers name its records' lines); otherwise `recallPath`
 * names the recall file returned in `recall`.
 */
export function addPointers(log: Transcript, projection: Projection, where: { sourcePath?: string; recallPath: string }): PointerResult {
  const byBlock = new Map<string, { mi: number; bi: number }>();
  log.messages.forEach((m, mi) => m.blocks.forEach((b, bi) => byBlock.set(b.id, { mi, bi })));
  const recall: RecallLine[] = [];
  const recallLine = (mi: number, blockId?: string): number => {
    const m = log.messages[mi];
    const text = blockId ? blockText(m.blocks[byBlock.get(blockId)!.bi]) : m.blocks.map(blockText).filter(Boolean).join('\n');
    recall.push({ id: `r${recall.length + 1}`, message: mi, ...(blockId && { block: blockId }), role: m.role, text });
    return recall.length;
  };
  const recordOf = (mi: number, blockId?: string) => {
    const m = log.messages[mi];
    const refs = m.recordRefs.map((r) => log.records[r]).filter(Boolean);
    if (!refs.length) return undefined;
    const b = blockId ? m.blocks[byBlock.get(blockId)!.bi] : undefined;
    const key = b && (b.kind === 'tool_result' || b.kind === 'tool_call') ? b.callId : undefined;
    return (key && refs.find((r) => r.text.includes(JSON.stringify(key)))) || refs[0];
  };
  const blockPointer = (blockId: string): PointerLocation | undefined => {
    const at = byBlock.get(blockId);
    if (!at) return undefined;
    if (where.sourcePath) {
      const rec = recordOf(at.mi, blockId);
      if (rec) return { file: where.sourcePath, line: rec.line, ...(uuidOf(rec.value) && { uuid: uuidOf(rec.value) }) };
    }
    return { file: where.recallPath, line: recallLine(at.mi, blockId) };
  };
  const spanPointer = (from: number, to: number): PointerLocation | undefined => {
    const mis = log.messages.filter((m) => m.turn >= from && m.turn <= to && !m.sidechain).map((m) => m.index);
    if (!mis.length) return undefined;
    if (where.sourcePath) {
      const lines = mis.flatMap((mi) => log.messages[mi].recordRefs.map((r) => log.records[r]?.line).filter((l): l is number => l !== undefined));
      if (lines.length) return { file: where.sourcePath, line: Math.min(...lines), lastLine: Math.max(...lines) };
    }
    const first = recallLine(mis[0]);
    let last = first;
    for (const mi of mis.slice(1)) last = recallLine(mi);
    return { file: where.recallPath, line: first, lastLine: last };
  };

  // A pointer is text the model is sent: each block it lengthens is counted again, and so is the
  // projection's `tokens.after` (compact's budget check and re-aiming read it).
  const counter = counterFor(log);
  const recount = <B extends ProjectedBlock>(b: B): B => ({ ...b, tokens: countBlock(b, counter) });
  let added = 0;
  const summaryText = new Map<string, { text: string; tokens: number }>();
  const messages = projection.messages.map((pm) => {
    if (pm.synthetic === 'summary' && pm.span) {
      const p = spanPointer(pm.span[0], pm.span[1]);
      if (!p) return pm;
      const note = formatPointer(p, `turns ${pm.span[0] + 1}-${pm.span[1] + 1}`);
      added++;
      return {
        ...pm,
        blocks: pm.blocks.map((b) => {
          if (b.kind !== 'summary' && b.kind !== 'text') return b;
          const text = `${b.text}\n\n${note}`;
          const r = recount({ ...b, text });
          summaryText.set(b.id, { text, tokens: r.tokens });
          return r;
        }),
      };
    }
    let changed = false;
    const blocks = pm.blocks.map((b) => {
      const fate = b.sourceBlockId ? projection.fates[b.sourceBlockId] : undefined;
      if (!fate || (fate.kind !== 'stubbed' && fate.kind !== 'truncated')) return b;
      const p = blockPointer(b.sourceBlockId!);
      if (!p) return b;
      const note = formatPointer(p, fate.kind === 'stubbed' ? 'this result' : 'the cut part');
      changed = true;
      added++;
      if (b.kind === 'tool_result') return recount({ ...b, content: `${b.content}\n${note}` });
      if (b.kind === 'text' || b.kind === 'reasoning' || b.kind === 'opaque') return recount({ ...b, text: `${b.text}\n${note}` });
      return b;
    });
    return changed ? { ...pm, blocks } : pm;
  });
  const summaries = projection.summaries.map((s) => (summaryText.has(s.id) ? { ...s, ...summaryText.get(s.id)! } : s));
  const tokens = added ? { ...projection.tokens, after: toTokenTotals(contextTotalsOf({ messages, tools: projection.tools })) } : projection.tokens;
  return {
    projection: { ...projection, messages, summaries, tokens },
    added,
    ...(recall.length && { recall: recall.map((r) => JSON.stringify(r)).join('\n') + '\n' }),
  };
}
