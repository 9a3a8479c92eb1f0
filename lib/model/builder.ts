/**
 * TranscriptBuilder: importers add messages; build() assigns ids, counts tokens, segments turns,
 * resolves result names from their calls, validates pairing (warnings) and deep-freezes.
 * Importers are lenient and warn; the builder enforces the invariants (STYLE.md §3-4).
 */
import { countBlock, counterById, tokenizerForModel, toolSchemaText, type TokenizerId } from '../tokens/count';
import { validatePairing } from './pairing';
import { assignTurns } from './turns';
import type { Block, ImportWarning, JsonStyle, Marker, Message, Role, SourceRecord, ToolSchema, Transcript, UsageRecord } from './types';

/** A block as an importer gives it: without id and tokens. */
export type DraftBlock = Block extends infer B ? (B extends Block ? Omit<B, 'id' | 'tokens'> : never) : never;

export interface DraftMessage {
  role: Role;
  blocks: DraftBlock[];
  recordRefs: number[];
  time?: string;
  model?: string;
  meta?: boolean;
  sidechain?: boolean;
}

export interface BuildInput {
  format: string;
  fileName: string;
  title: string;
  model?: string;
  records: SourceRecord[];
  frame: string[];
  style: JsonStyle;
  warnings?: ImportWarning[];
  extra?: Record<string, unknown>;
  /** Force a tokenizer (default: from the model). */
  tokenizer?: TokenizerId;
}

export class TranscriptBuilder {
  private messages: DraftMessage[] = [];
  private tools: Array<Omit<ToolSchema, 'tokens'>> = [];
  /** Names of `tools`, so a request declaring 100k tools is read in linear time. */
  private readonly toolNames = new Set<string>();
  private markers: Marker[] = [];
  private usage: UsageRecord[] = [];
  private warnings: ImportWarning[] = [];

  /** Returns the message's index. */
  addMessage(m: DraftMessage): number {
    this.messages.push(m);
    return this.messages.length - 1;
  }

  get messageCount(): number {
    return this.messages.length;
  }

  /** The last message added (to append blocks to a response split over several records). */
  lastMessage(): DraftMessage | undefined {
    return this.messages[this.messages.length - 1];
  }

  addTool(t: Omit<ToolSchema, 'tokens'>): void {
    if (this.toolNames.has(t.name)) return;
    this.toolNames.add(t.name);
    this.tools.push(t);
  }

  addMarker(m: Omit<Marker, 'id'>): void {
    this.markers.push({ ...m, id: `k${this.markers.length}` });
  }

  addUsage(u: UsageRecord): void {
    this.usage.push(u);
  }

  warn(w: ImportWarning): void {
    this.warnings.push(w);
  }

  build(input: BuildInput): Omit<Transcript, 'id'> {
    const counter = counterById(input.tokenizer ?? tokenizerForModel(input.model));
    // Built by assignment, not by spreading: objects spread from importers' literals each got a
    // hidden class of their own, which made every later pass over 60k blocks a megamorphic read
    // (summing their tokens: 14 ms against 1 ms; DESIGN-NOTES "The first run of a log").
    // Arrays grown by push, not made by map: map's result was HOLEY when V8 pretenured it (a big
    // log), PACKED otherwise, so a log's frozen arrays had one of two hidden classes and the code
    // compiled for the last log was thrown away for the next (DESIGN-NOTES "A new log must not
    // throw away the code compiled for the last one").
    const messages: Message[] = [];
    for (let index = 0; index < this.messages.length; index++) {
      const d = this.messages[index];
      const m = { id: `m${index}`, index, turn: 0, role: d.role, recordRefs: d.recordRefs } as Message;
      if (d.time !== undefined) m.time = d.time;
      if (d.model !== undefined) m.model = d.model;
      if (d.meta) m.meta = true;
      if (d.sidechain) m.sidechain = true;
      const blocks: Block[] = [];
      for (let bi = 0; bi < d.blocks.length; bi++) {
        const block = Object.assign({}, d.blocks[bi]) as Block;
        block.id = `${index}.${bi}`;
        block.tokens = countBlock(block, counter);
        blocks.push(block);
      }
      m.blocks = blocks;
      messages.push(m);
    }
    const turnCount = assignTurns(messages);

    // Resolve result names from their calls.
    const callNames = new Map<string, string>();
    for (const m of messages) for (const b of m.blocks) if (b.kind === 'tool_call') callNames.set(b.callId, b.name);
    for (const m of messages)
      for (const b of m.blocks)
        if (b.kind === 'tool_result' && b.name === undefined) {
          const n = callNames.get(b.callId);
          if (n !== undefined) b.name = n;
        }

    const warnings = [...(input.warnings ?? []), ...this.warnings];
    const issues = pairingIssuesByEpoch(messages, this.markers);
    const byKind = new Map<string, number>();
    for (const i of issues) byKind.set(i.kind, (byKind.get(i.kind) ?? 0) + 1);
    // Broken beyond repair (importers already paired what re-used ids could be paired): say which ids.
    for (const [kind, n] of byKind) {
      const these = issues.filter((i) => i.kind === kind);
      const shown = these.slice(0, 10).map((i) => `${i.callId} (message ${i.message})`).join(', ');
      warnings.push({
        code: `pairing:${kind}`,
        message: `${n} tool ${kind === 'orphan-result' ? 'result(s) without a call' : kind === 'missing-result' ? 'call(s) without a result' : kind.replace('-', ' ') + '(s)'}: ${shown}${n > 10 ? ` and ${n - 10} more` : ''}.`,
      });
    }

    const tools: ToolSchema[] = [];
    for (const t of this.tools) tools.push(Object.assign({}, t, { tokens: counter.count(toolSchemaText(t)) }));
    const transcript: Omit<Transcript, 'id'> = {
      format: input.format,
      title: input.title,
      ...(input.model !== undefined && { model: input.model }),
      fileName: input.fileName,
      records: input.records,
      frame: input.frame,
      style: input.style,
      messages,
      tools,
      markers: this.markers,
      usage: this.usage,
      warnings,
      turnCount,
      ...(input.extra !== undefined && { extra: input.extra }),
    };
    return deepFreeze(transcript);
  }
}

/** Freeze the normalized view (records' parsed values too: nothing may edit the log). */
export function deepFreeze<T>(o: T): T {
  if (o === null || typeof o !== 'object' || Object.isFrozen(o)) return o;
  Object.freeze(o);
  if (Array.isArray(o)) {
    for (let i = 0; i < o.length; i++) {
      const v: unknown = o[i];
      if (v !== null && typeof v === 'object') deepFreeze(v);
    }
  } else {
    // for…in over own keys: no array of values allocated per object (millions of them in a big log).
    for (const k in o) {
      const v: unknown = (o as Record<string, unknown>)[k];
      if (v !== null && typeof v === 'object' && Object.hasOwn(o as object, k)) deepFreeze(v);
    }
  }
  return o;
}

/**
 * Pairing issues of a log, where a call id repeated across a compaction is not a duplicate: a
 * compaction (a marker covering the messages before it) replaces the history the model sees, and
 * Codex's `compacted` line carries calls of that history again in its replacement_history (an
 * export of a call range summarized mid-turn writes the calls before it there). Duplicates are
 * counted within each span between compactions; the other kinds over the whole main chain.
 */
function pairingIssuesByEpoch(messages: readonly Message[], markers: readonly { covers?: [number, number] }[]) {
  const main = messages.filter((m) => !m.sidechain);
  const all = validatePairing(main);
  const cuts = [...new Set(markers.filter((k) => k.covers && k.covers[1] > k.covers[0]).map((k) => k.covers![1]))].sort((a, b) => a - b);
  if (cuts.length === 0 || !all.some((i) => i.kind === 'duplicate-call' || i.kind === 'duplicate-result')) return all;
  const out = all.filter((i) => i.kind !== 'duplicate-call' && i.kind !== 'duplicate-result');
  // main[i] is messages[k] for some k ≥ i: split by the log index of each main message.
  let start = 0;
  for (const cut of [...cuts, Infinity]) {
    let end = start;
    while (end < main.length && main[end].index < cut) end++;
    for (const i of validatePairing(main.slice(start, end))) if (i.kind === 'duplicate-call' || i.kind === 'duplicate-result') out.push({ ...i, message: i.message + start });
    start = end;
  }
  return out;
}
