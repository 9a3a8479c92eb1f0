/**
 * Conversion between formats: any transcript (or a projection of it) → a new file in an API
 * format (openai-chat, anthropic-messages, openai-responses, gemini-api: the modules with
 * `fromMessages`). Side chains are left out (they were never in the main context). The result
 * says what it could not carry, and is validated by importing it back with the target format:
 * a conversion whose tool calls and results do not pair throws an ExportError.
 */
import type { ProjectedBlock, ProjectedMessage, Projection } from '../model/projection';
import { ExportError, ImportError, userMessage } from '../errors';
import { isFatalForExport, validatePairing } from '../model/pairing';
import type { Message, Transcript } from '../model/types';
import { importBytes } from './import';
import { formatById, formats } from './registry';
import type { ConvertInput, SerializeResult } from './types';
import { contextTotals } from '../tokens/totals';

/**
 * One kind of content the target format cannot carry as the source had it, with its size:
 * `tokens` of the source's blocks, `asText` when they are written as text instead (a placeholder,
 * a summary without its marker) rather than left out.
 */
export interface ConversionLoss {
  what: string;
  blocks: number;
  tokens: number;
  /** Written in another form: 'text' (placeholder or plain text) or 'dropped' (not in the file). */
  becomes: 'dropped' | 'text';
}

export interface ConvertResult extends SerializeResult {
  /** The target format id. */
  format: string;
  /** Messages written (after side chains were left out). */
  messages: number;
  /** What the target cannot carry, by kind, with token counts (the export dialog and the audit list these). */
  losses: ConversionLoss[];
  /** Tokens of what was converted (main context) and of the file written, imported back. */
  tokens: { before: number; after: number };
}

/** Sum the tokens of matching blocks (main messages). */
function tokensOf(messages: readonly ProjectedMessage[], test: (b: ProjectedBlock) => boolean): { blocks: number; tokens: number } {
  let blocks = 0;
  let tokens = 0;
  for (const m of messages)
    for (const b of m.blocks)
      if (test(b)) {
        blocks++;
        tokens += b.tokens;
      }
  return { blocks, tokens };
}

/** Formats that can be written from canonical messages. */
export function conversionTargets(): Array<{ id: string; label: string }> {
  return formats.filter((f) => typeof f.fromMessages === 'function').map((f) => ({ id: f.id, label: f.label }));
}

function asProjected(m: Message): ProjectedMessage {
  return { sourceId: m.id, role: m.role, turn: m.turn, blocks: [...m.blocks] };
}

/**
 * Make the conversation sendable before handing it to the target, reporting each repair:
 *  - call ids may be invalid for the target (Anthropic wants ^[a-zA-Z0-9_-]+$; canonical ids can
 *    carry a "#n" suffix): each call gets a safe id, the same for its result;
 *  - a call id the source reuses gets a fresh id; results answer the earliest unanswered call
 *    with their id (parallel calls sharing an id keep one result each);
 *  - a further result for a call id whose calls are all answered is dropped (real Claude Code
 *    sessions answer some calls twice).
 */
function repairForTarget(messages: readonly ProjectedMessage[], dropped: string[]): ProjectedMessage[] {
  const used = new Set<string>();
  const pending = new Map<string, string[]>(); // source call id → safe ids of its unanswered calls
  const called = new Set<string>();
  const fresh = (id: string): string => {
    let s = id.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || 'call';
    if (used.has(s)) {
      let n = 2;
      while (used.has(`${s}_${n}`)) n++;
      s = `${s}_${n}`;
    }
    used.add(s);
    return s;
  };
  const out: ProjectedMessage[] = [];
  for (const m of messages) {
    let changed = false;
    const blocks: ProjectedBlock[] = [];
    for (const b of m.blocks) {
      if (b.kind === 'tool_call') {
        if (called.has(b.callId)) dropped.push(`tool call id ${b.callId} is reused by the source: the later call was given a new id`);
        called.add(b.callId);
        const id = fresh(b.callId);
        pending.set(b.callId, [...(pending.get(b.callId) ?? []), id]);
        if (id !== b.callId) changed = true;
        blocks.push(id === b.callId ? b : { ...b, callId: id });
      } else if (b.kind === 'tool_result') {
        const queue = pending.get(b.callId);
        if (called.has(b.callId) && (!queue || queue.length === 0)) {
          dropped.push(`a second result for tool call ${b.callId} was dropped (the source answers it twice)`);
          changed = true;
          continue;
        }
        const id = queue && queue.length > 0 ? queue.shift()! : b.callId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || 'result';
        if (id !== b.callId) changed = true;
        blocks.push(id === b.callId ? b : { ...b, callId: id });
      } else blocks.push(b);
    }
    out.push(changed ? { ...m, blocks } : m);
  }
  return out;
}

function countBlocks(messages: readonly { blocks: readonly ProjectedBlock[] | readonly { kind: string }[] }[], test: (b: ProjectedBlock) => boolean): number {
  let n = 0;
  for (const m of messages) for (const b of m.blocks as readonly ProjectedBlock[]) if (test(b)) n++;
  return n;
}

/** Convert `t` (or `projection` of it) to `targetFormatId`. Throws ExportError when it cannot. */
export function convertTranscript(t: Transcript, targetFormatId: string, projection?: Projection): ConvertResult {
  const target = formatById(targetFormatId);
  if (!target) throw new ExportError('unsupported:target', `Unknown format "${targetFormatId}".`);
  if (!target.fromMessages) {
    throw new ExportError('unsupported:target', `${target.label} cannot be written from another format. Targets: ${conversionTargets().map((x) => x.id).join(', ')}.`);
  }
  const byId = new Map(t.messages.map((m) => [m.id, m] as const));
  const source = projection ? projection.messages : t.messages.map(asProjected);
  const sideChains = source.filter((pm) => pm.sourceId !== undefined && byId.get(pm.sourceId)?.sidechain);
  const repairs: string[] = [];
  const main = repairForTarget(source.filter((pm) => !sideChains.includes(pm)), repairs);
  const input: ConvertInput = {
    messages: main,
    tools: projection ? projection.tools : t.tools,
    ...(t.model !== undefined && { model: t.model }),
    title: t.title,
    sourceFormat: t.format,
    baseName: t.fileName.replace(/\.gz$/i, '').replace(/\.[^.]+$/, '') || 'transcript',
  };

  let out: SerializeResult;
  try {
    out = target.fromMessages(input);
  } catch (e) {
    throw new ExportError('failed:conversion', `Writing ${target.label} failed: ${userMessage(e)}`, { cause: e });
  }

  // Validate: the output must import as the target format, with every call answered.
  const bytes = out.bytes ?? new TextEncoder().encode(out.text);
  let back: Transcript;
  try {
    back = importBytes(out.fileName, bytes, { format: target.id }).transcript;
  } catch (e) {
    throw new ExportError('invalid:conversion', `The ${target.label} file written does not import back: ${e instanceof ImportError ? userMessage(e) : (e as Error).message}`, { cause: e });
  }
  const backMain = back.messages.filter((m) => !m.sidechain);
  const fatal = validatePairing(backMain).filter((i) => isFatalForExport(i, backMain.length));
  if (fatal.length > 0) {
    throw new ExportError('invalid:conversion', `The ${target.label} file written has ${fatal.length} unpaired tool call(s)/result(s) (first: ${fatal[0].kind} ${fatal[0].callId}).`);
  }

  // What the target could not carry, measured on the re-import (whatever the target itself says).
  const dropped = [...repairs, ...out.dropped];
  const losses: ConversionLoss[] = [];
  const measure = (label: string, test: (b: ProjectedBlock) => boolean, becomes: ConversionLoss['becomes']) => {
    const before = countBlocks(main, test);
    const after = countBlocks(backMain, test);
    if (after < before) {
      dropped.push(`${before - after} of ${before} ${label} not carried by ${target.label}`);
      // Tokens of the blocks not carried: all of them when none came back, else a share by count.
      const src = tokensOf(main, test);
      losses.push({ what: label, blocks: before - after, tokens: after === 0 ? src.tokens : Math.round((src.tokens * (before - after)) / before), becomes });
    }
  };
  measure('reasoning block(s)', (b) => b.kind === 'reasoning', 'dropped');
  measure('attachment(s) (images, documents)', (b) => b.kind === 'attachment', 'text');
  measure('server tool / opaque block(s)', (b) => b.kind === 'opaque', 'text');
  const signed = countBlocks(main, (b) => b.kind === 'reasoning' && !!b.opaque);
  const signedBack = countBlocks(backMain, (b) => b.kind === 'reasoning' && !!b.opaque);
  if (signedBack < signed) dropped.push(`${signed - signedBack} of ${signed} reasoning signature(s) / encrypted payload(s) not carried by ${target.label}`);
  if (t.markers.length > 0) {
    dropped.push(`${t.markers.length} compaction marker(s) of the source (${[...new Set(t.markers.map((m) => m.source))].join(', ')}): summaries are carried as text, the markers are not`);
    const summaries = tokensOf(main, (b) => b.kind === 'summary');
    if (summaries.blocks > countBlocks(backMain, (b) => b.kind === 'summary')) losses.push({ what: 'compaction summary(ies) of the source, without their marker', blocks: summaries.blocks, tokens: summaries.tokens, becomes: 'text' });
  }
  if (sideChains.length > 0) {
    dropped.push(`${sideChains.length} side-chain (sub-agent) message(s) left out`);
    let tokens = 0;
    for (const m of sideChains) for (const b of m.blocks) tokens += b.tokens;
    losses.push({ what: 'side-chain (sub-agent) message(s)', blocks: sideChains.length, tokens, becomes: 'dropped' });
  }
  const before = contextTotals(main, input.tools).total;
  const after = contextTotals(backMain, back.tools).total;
  return { ...out, dropped: [...new Set(dropped)], format: target.id, messages: main.length, losses, tokens: { before, after } };
}
