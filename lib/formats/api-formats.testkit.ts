/**
 * Test helpers shared by the API-format tests (formats-api): hand-built projections of real
 * transcripts, the way the compaction pipeline would hand them to `serialize`.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ProjectedMessage, Projection } from '../compaction/types';
import { validatePairing } from '../model/pairing';
import type { Message, Transcript } from '../model/types';
import { importBytes } from './import';
import { formatById } from './registry';
import type { FormatModule } from './types';
import { ImportError } from '../errors';
import { sourceFromText } from '../read/source';
import { startingContext } from '../compaction/project';

/** Every message kept, every block the log's own object. */
export function identity(t: Transcript, messages: readonly Message[] = t.messages): ProjectedMessage[] {
  return messages.map((m) => ({ sourceId: m.id, role: m.role, turn: m.turn, blocks: [...m.blocks] }));
}

export function projectionOf(t: Transcript, messages: ProjectedMessage[]): Projection {
  const zero = { total: 0, byKind: {}, tools: 0 };
  return { messages, tools: [...t.tools], fates: {}, report: [], summaries: [], tokens: { before: zero, after: zero } };
}

export const summaryMessage = (text: string): ProjectedMessage => ({ role: 'user', turn: 0, synthetic: 'summary', span: [0, 0], blocks: [{ kind: 'summary', id: 's.0', tokens: 1, text }] });

/** NOTE mutates `pms`: replaces the first tool_result block with a stub (a new object). Returns the message index. */
export function stubFirstResult(pms: ProjectedMessage[], content: string): number {
  const target = pms.findIndex((pm) => pm.blocks.some((b) => b.kind === 'tool_result'));
  const bi = pms[target].blocks.findIndex((b) => b.kind === 'tool_result');
  const old = pms[target].blocks[bi];
  pms[target] = { ...pms[target], blocks: pms[target].blocks.map((b, i) => (i === bi && old.kind === 'tool_result' ? { ...old, content, sourceBlockId: old.id } : b)) };
  return target;
}

/** What strip-reasoning + strip-tool-results would produce: every result stubbed, every reasoning block removed. */
export function stripAll(t: Transcript, stub: string): ProjectedMessage[] {
  return t.messages
    .map((m) => ({ sourceId: m.id, role: m.role, turn: m.turn, blocks: m.blocks.filter((b) => b.kind !== 'reasoning').map((b) => (b.kind === 'tool_result' ? { ...b, content: stub, sourceBlockId: b.id } : b)) }))
    .filter((m) => m.blocks.length > 0);
}

export interface StripOutcome {
  back: Transcript;
  results: number;
  stubbed: number;
  reasoningLeft: number;
  dropped: string[];
  /** Pairing issues of the re-import that the source did not already have. */
  newPairingIssues: number;
}

/** Export a corpus file with everything stripped, re-import it with the same format. */
export function exportStripped(file: string, format: string, conversation?: number): StripOutcome {
  const name = path.basename(file);
  const t = importBytes(name, new Uint8Array(fs.readFileSync(file)), { format, conversation }).transcript;
  const out = formatById(format)!.serialize(t, projectionOf(t, stripAll(t, '[stub]')));
  const back = importBytes(name, new TextEncoder().encode(out.text), { format, conversation }).transcript;
  // What the model sees when the file is resumed: a format that keeps history before a compaction
  // (Codex, Claude Code) keeps it as it was, out of the model's view.
  const view = startingContext(back, 'model-view').messages;
  const blocks = view.flatMap((m) => m.blocks);
  const before = new Set(validatePairing(t.messages).map((i) => `${i.kind}:${i.callId}`));
  return {
    back,
    results: blocks.filter((b) => b.kind === 'tool_result').length,
    stubbed: blocks.filter((b) => b.kind === 'tool_result' && b.content === '[stub]').length,
    reasoningLeft: blocks.filter((b) => b.kind === 'reasoning').length,
    dropped: out.dropped,
    newPairingIssues: validatePairing(view).filter((i) => !before.has(`${i.kind}:${i.callId}`)).length,
  };
}

const HOSTILE_VALUES: unknown[] = [null, 5, 'x', [], {}, [null], { type: 'message' }, true];

/**
 * Real records with one value replaced by something hostile (null, a number, an empty object…),
 * plus the file cut short: each variant must import or fail with an ImportError, never crash.
 */
export function* hostileVariants(text: string, maxPaths = 24): Generator<string> {
  // Cut short (a session still being written, a download cut off): within the first 256 KB, to keep parses cheap.
  const head = Math.min(text.length, 256 * 1024);
  for (const cut of [0.1, 0.5, 0.9]) yield text.slice(0, Math.floor(head * cut));
  const all = text.split('\n');
  const jsonl = all.filter((l) => l.trim()).length > 1 && all[0].trim().startsWith('{') && all[0].trim().endsWith('}');
  // JSONL: the file's first lines are enough to reach every record kind's parser (and keep parses cheap).
  const lines = jsonl ? all.filter((l) => l.trim()).slice(0, 3) : all;
  const units = jsonl ? lines.map((l, i) => [l, i] as const).slice(0, 2) : [[text, -1] as const];
  for (const [unit, lineIndex] of units) {
    const value = JSON.parse(unit);
    for (const p of valuePaths(value).slice(0, maxPaths))
      for (const h of HOSTILE_VALUES) {
        const mutated = JSON.stringify(replaceAt(value, p, h));
        yield jsonl ? lines.map((l, i) => (i === lineIndex ? mutated : l)).join('\n') + '\n' : mutated;
      }
  }
}

function valuePaths(v: unknown, depth = 0, path: Array<string | number> = [], out: Array<Array<string | number>> = []): Array<Array<string | number>> {
  if (depth > 6) return out;
  out.push(path);
  if (Array.isArray(v)) v.slice(0, 3).forEach((x, i) => valuePaths(x, depth + 1, [...path, i], out));
  else if (v !== null && typeof v === 'object') for (const k of Object.keys(v).slice(0, 12)) valuePaths((v as Record<string, unknown>)[k], depth + 1, [...path, k], out);
  return out;
}

function replaceAt(root: unknown, path: ReadonlyArray<string | number>, value: unknown): unknown {
  if (path.length === 0) return value;
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let o = copy;
  for (const seg of path.slice(0, -1)) o = o[seg] as Record<string | number, unknown>;
  o[path[path.length - 1]] = value;
  return copy;
}

/**
 * Parse every hostile variant (hostileVariants) of the given real files with one format module.
 * Anything but an ImportError is a crash and throws, naming the file; returns how many variants
 * imported and how many were rejected, so a caller can check both outcomes really happened.
 */
export function parseHostileVariants(format: Pick<FormatModule, 'parse'>, files: readonly string[], maxBytes = 300_000): { imported: number; rejected: number } {
  let imported = 0;
  let rejected = 0;
  for (const f of files.filter((x) => fs.statSync(x).size < maxBytes))
    for (const text of hostileVariants(fs.readFileSync(f, 'utf8'))) {
      try {
        format.parse(sourceFromText(path.basename(f), text));
        imported++;
      } catch (e) {
        if (!(e instanceof ImportError)) throw new Error(`${path.basename(f)}: ${(e as Error).stack}`);
        rejected++;
      }
    }
  return { imported, rejected };
}
