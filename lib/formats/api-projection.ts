/**
 * Shared plumbing of the API-shaped formats (anthropic-messages, openai-responses, codex-cli,
 * gemini-api, gemini-cli): where each canonical message lives in the source records, and how an
 * export of a projection (DESIGN.md "export of a compacted conversation") maps projected blocks back
 * onto the source items. Owned by formats-api; no format logic lives here.
 */
import type { ProjectedBlock, ProjectedMessage } from '../model/projection';
import { ExportError, type ErrorWhere } from '../errors';
import { isFatalForExport, newPairingIssues, validatePairing } from '../model/pairing';
import type { Block, JsonStyle, Message, Transcript } from '../model/types';
import { joinRecords } from '../read/jsonl';
import { parseJsonString, type JsonPath } from '../read/json-doc';

/** Where one canonical message came from: a JSON value at `path` inside record `record`. */
export interface MessageSite {
  record: number;
  /** Path of the item inside the record's parsed value ([] = the record itself). */
  path: JsonPath;
  /**
   * For each block of the message, the index of the content part it was read from inside the item
   * (-1 when the block is the item itself, e.g. a function_call item).
   */
  parts: number[];
}

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

/** A deep copy that can be edited (record values are deep-frozen). */
export function cloneJson<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

export function getAt(root: unknown, path: JsonPath): unknown {
  let v: unknown = root;
  for (const seg of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string | number, unknown>)[seg as string];
  }
  return v;
}

/** NOTE mutates `root`: sets the value at `path` (path non-empty). */
export function setAt(root: unknown, path: JsonPath, value: unknown): void {
  const parent = getAt(root, path.slice(0, -1)) as Record<string | number, unknown>;
  parent[path[path.length - 1] as string] = value;
}

/** Parse a JSON argument string for display; the raw string is kept beside it. */
export function parseArgs(raw: string, where?: ErrorWhere): unknown {
  return parseJsonString(raw, where);
}

/** Text of a value the model was shown: strings as-is, anything else as compact JSON. */
export function asText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) return '';
  return JSON.stringify(v);
}

export function approxBase64Bytes(data: unknown): number | undefined {
  return typeof data === 'string' ? Math.floor((data.length * 3) / 4) : undefined;
}

// -------------------------------------------------------------------------------------------------
// Projected messages against their source

export interface ProjectedAgainstSource {
  pm: ProjectedMessage;
  source?: Message;
  /** Every block is the log's own object, in the same order: re-emit the source verbatim. */
  unchanged: boolean;
  /** Projected blocks with the index of the source block they derive from (undefined = new). */
  blocks: Array<{ block: ProjectedBlock; sourceIndex?: number }>;
}

function sourceIndexOf(b: ProjectedBlock, source: Message): number | undefined {
  const same = source.blocks.indexOf(b as Block);
  if (same >= 0) return same;
  const id = b.sourceBlockId;
  if (id === undefined) return undefined;
  const m = /^(\d+)\.(\d+)$/.exec(id);
  if (!m || Number(m[1]) !== source.index) return undefined;
  const k = Number(m[2]);
  return k < source.blocks.length ? k : undefined;
}

export function sourceMessageOf(t: Transcript, pm: ProjectedMessage): Message | undefined {
  if (pm.sourceId === undefined) return undefined;
  const m = /^m(\d+)$/.exec(pm.sourceId);
  const byIndex = m ? t.messages[Number(m[1])] : undefined;
  return byIndex && byIndex.id === pm.sourceId ? byIndex : t.messages.find((x) => x.id === pm.sourceId);
}

export function againstSource(t: Transcript, pm: ProjectedMessage): ProjectedAgainstSource {
  const source = sourceMessageOf(t, pm);
  if (!source) return { pm, unchanged: false, blocks: pm.blocks.map((block) => ({ block })) };
  const unchanged = pm.blocks.length === source.blocks.length && pm.blocks.every((b, i) => b === source.blocks[i]);
  return { pm, source, unchanged, blocks: pm.blocks.map((block) => ({ block, sourceIndex: sourceIndexOf(block, source) })) };
}

export function isSameBlock(pb: ProjectedBlock, source: Message | undefined, index: number | undefined): boolean {
  return source !== undefined && index !== undefined && source.blocks[index] === pb;
}

/**
 * Rewrite the content-part array of one item from its projected blocks: parts whose blocks are all
 * the log's own objects stay as they were; a part whose block changed goes through `patch`; parts
 * with no projected block are removed; blocks with no source part are appended through `fresh`.
 * `patch`/`fresh` return null to drop the part (and push a note to `dropped` themselves).
 */
export function rewriteParts<P>(
  parts: readonly P[],
  site: MessageSite,
  pas: ProjectedAgainstSource,
  patch: (part: P, block: ProjectedBlock, sourceBlock: Block) => P | null,
  fresh: (block: ProjectedBlock) => P | null,
): P[] {
  const byPart = new Map<number, Array<{ block: ProjectedBlock; sourceIndex: number }>>();
  const added: ProjectedBlock[] = [];
  for (const x of pas.blocks) {
    if (x.sourceIndex === undefined) added.push(x.block);
    else {
      const part = site.parts[x.sourceIndex] ?? -1;
      const list = byPart.get(part) ?? [];
      list.push({ block: x.block, sourceIndex: x.sourceIndex });
      byPart.set(part, list);
    }
  }
  const out: P[] = [];
  parts.forEach((part, j) => {
    const bs = byPart.get(j);
    if (!bs) return;
    let current: P | null = part;
    for (const { block, sourceIndex } of bs) {
      if (current === null) break;
      if (isSameBlock(block, pas.source, sourceIndex)) continue;
      current = patch(current, block, pas.source!.blocks[sourceIndex]);
    }
    if (current !== null) out.push(current);
  });
  for (const b of added) {
    const p = fresh(b);
    if (p !== null) out.push(p);
  }
  return out;
}

/** Text of a synthetic (summary / notice) projected message. */
export function syntheticText(pm: ProjectedMessage): string {
  return pm.blocks
    .map((b) => (b.kind === 'text' || b.kind === 'summary' || b.kind === 'reasoning' || b.kind === 'opaque' ? b.text : b.kind === 'tool_result' ? b.content : ''))
    .filter((s) => s.length > 0)
    .join('\n\n');
}

// -------------------------------------------------------------------------------------------------
// Writing records back

/** JSONL: one record per line, the file's end of line, final newline as in the source. */
export function writeJsonl(style: JsonStyle, lines: readonly string[], leading = ''): string {
  if (lines.length === 0) return leading;
  return leading + lines.join(style.eol) + (style.finalNewline ? style.eol : '');
}

/**
 * A JSON document whose records are the elements of one array: keep the text before the first
 * record and after the last, join the new records with the source's own separator.
 */
export function writeDocumentRecords(t: Transcript, recordTexts: readonly string[], depth: number): string {
  const n = t.records.length;
  if (n === 0) return t.frame.join('');
  const prefix = t.frame[0];
  const suffix = t.frame[n];
  const unit = t.style.indent === 0 ? '' : t.style.indent === '\t' ? '\t' : ' '.repeat(t.style.indent);
  const separator = n > 1 ? t.frame[1] : t.style.indent === 0 ? (t.style.spacedSeparators ? ', ' : ',') : ',' + t.style.eol + unit.repeat(depth);
  return prefix + recordTexts.join(separator) + suffix;
}

/** Untouched export: frame and records re-joined, byte for byte. */
export function verbatim(t: Transcript): string {
  return joinRecords(t.frame, t.records.map((r) => r.text));
}

export function baseName(fileName: string): string {
  return fileName.replace(/\.gz$/i, '').replace(/(\.chunks)?\.(jsonl|json|txt|responses)$/i, '');
}

/**
 * The export-time pairing check: a projection may not break tool call/result pairs. Issues the
 * source itself already has (a crashed session's unanswered call, a replay file that holds model
 * turns only) are the log's, not the projection's, and do not block the export.
 */
export function assertProjectionPairing(t: Transcript, messages: readonly ProjectedMessage[]): void {
  // Counted per kind and call id: a source issue excuses one issue, not every one with its id.
  const issues = newPairingIssues(validatePairing(t.messages.filter((m) => !m.sidechain)), validatePairing(messages)).filter((i) => isFatalForExport(i, messages.length));
  if (issues.length) throw new ExportError('export:pairing', `The projection breaks tool call/result pairing (${issues[0].kind} ${issues[0].callId} in projected message ${issues[0].message}).`);
}

/**
 * Signed reasoning (Anthropic `signature`, OpenAI `encrypted_content`, Gemini `thoughtSignature`)
 * can only be replayed to the provider that signed it. A conversion knows the source's model
 * (ConvertInput.model): keep the payloads only when that model is the target provider's, or unknown.
 */
export function signedByProvider(model: string | undefined, provider: 'anthropic' | 'openai' | 'google'): boolean {
  if (!model) return true;
  const m = model.toLowerCase();
  if (provider === 'anthropic') return /claude|anthropic/.test(m);
  if (provider === 'google') return /gemini|google/.test(m);
  return /gpt|^o\d|\/o\d|codex|openai/.test(m);
}

export type ReasoningSigner = 'anthropic' | 'openai' | 'google';

/**
 * The provider whose API wrote (and signed) a format's reasoning. Formats that log any provider's
 * calls (Chat completions, agent harnesses, Inspect) name no signer: the model name decides there.
 */
const SIGNER_OF_FORMAT: Record<string, ReasoningSigner> = {
  'anthropic-messages': 'anthropic',
  'claude-code': 'anthropic',
  'claude-code-web': 'anthropic',
  'claude-code-sdk': 'anthropic',
  'openai-responses': 'openai',
  'codex-cli': 'openai',
  'gemini-api': 'google',
  'gemini-cli': 'google',
};

/**
 * Whether signed reasoning of a conversion's source may be replayed to `provider`: only to the
 * provider that signed it. The source format says who signed when it is one provider's own; else
 * (or without a source format) the model name is the guess.
 */
export function replaysSignedReasoning(input: { sourceFormat?: string; model?: string }, provider: ReasoningSigner): boolean {
  const signer = input.sourceFormat !== undefined ? SIGNER_OF_FORMAT[input.sourceFormat] : undefined;
  if (signer) return signer === provider;
  return signedByProvider(input.model, provider);
}

/** A reasoning block the log holds unchanged: its signature / encrypted payload is still valid. */
export function isUntouchedSigned(b: { kind: string; opaque?: string; sourceBlockId?: string }): boolean {
  return b.kind === 'reasoning' && !!b.opaque && b.sourceBlockId === undefined && Object.isFrozen(b);
}
