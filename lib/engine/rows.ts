/**
 * Messages → rows for the list (STYLE.md §11 layers: resolve → tree → flatten). Tool results are
 * attached to their calls, so a user message that only carried results is folded into the
 * assistant message that made the calls. Pure, unit-tested.
 */
import type { Message, ToolResultBlock } from '../model/types';
import type { TimelineTurn } from './timeline';

export interface AttachedResult {
  block: ToolResultBlock;
  /** The message the result came from. */
  messageIndex: number;
}

export type Row =
  | { kind: 'turn'; key: string; turn: number; info?: TimelineTurn }
  | { kind: 'message'; key: string; turn: number; message: Message; results: Record<string, AttachedResult[]>; hiddenResultIds: string[] };

// Most rows hide no result and hold none: they share these (rows are read, never changed).
const NONE: string[] = Object.freeze([]) as unknown as string[];
const NO_RESULTS: Record<string, AttachedResult[]> = Object.freeze({}) as Record<string, AttachedResult[]>;

export function buildRows(messages: readonly Message[], turns: readonly TimelineTurn[]): Row[] {
  const turnInfo: Array<TimelineTurn | undefined> = [];
  for (const t of turns) turnInfo[t.turn] = t;
  // Where each call is: results attach to the first message that made the call.
  const callOwner = new Map<string, number>();
  for (const m of messages) for (const b of m.blocks) if (b.kind === 'tool_call' && !callOwner.has(b.callId)) callOwner.set(b.callId, m.index);

  const attached = new Map<number, Record<string, AttachedResult[]>>();
  // The results shown under their call, by the message they came from (in block order).
  const hiddenOf = new Map<number, string[]>();
  for (const m of messages)
    for (const b of m.blocks) {
      if (b.kind !== 'tool_result') continue;
      const owner = callOwner.get(b.callId);
      if (owner === undefined || owner > m.index) continue;
      let byCall = attached.get(owner);
      if (!byCall) attached.set(owner, (byCall = {}));
      (byCall[b.callId] ??= []).push({ block: b, messageIndex: m.index });
      const hidden = hiddenOf.get(m.index);
      if (hidden) hidden.push(b.id);
      else hiddenOf.set(m.index, [b.id]);
    }

  const rows: Row[] = [];
  let lastTurn = -1;
  for (const m of messages) {
    if (m.turn !== lastTurn) {
      rows.push({ kind: 'turn', key: `t${m.turn}`, turn: m.turn, info: turnInfo[m.turn] });
      lastTurn = m.turn;
    }
    const hidden = hiddenOf.get(m.index) ?? NONE;
    // A message whose every block is shown under its call needs no row of its own.
    if (m.blocks.length > 0 && hidden.length === m.blocks.length) continue;
    rows.push({ kind: 'message', key: m.id, turn: m.turn, message: m, results: attached.get(m.index) ?? NO_RESULTS, hiddenResultIds: hidden });
  }
  return rows;
}

/**
 * What the main thread holds of the list: one entry per row in flat typed arrays (transferred from
 * the worker, not cloned), enough to lay the list out and find a turn. The rows themselves stay in
 * the worker and come over a screenful at a time (Engine.getRows): at 100k turns the messages were
 * ~0.5 s of structured-clone decoding on the main thread, and building the rows there another 0.3 s.
 */
export interface RowIndex {
  count: number;
  /** Turn of each row. */
  turn: Int32Array;
  /** 1 for a turn's header row, 0 for a message row. */
  header: Uint8Array;
  /** Estimated height of each row (px, estimateRowHeight). */
  height: Uint16Array;
  /** offsets[i] = the summed heights of rows 0 … i−1 (count + 1 entries): where each row starts in a fixed-height list. */
  offsets: Float64Array;
  /** Log message index of each message row (−1 on a turn's header row): ascending, so the call axis finds a call's row by binary search. */
  message: Int32Array;
}

export function rowIndexOf(rows: readonly Row[]): RowIndex {
  const count = rows.length;
  const index: RowIndex = { count, turn: new Int32Array(count), header: new Uint8Array(count), height: new Uint16Array(count), offsets: new Float64Array(count + 1), message: new Int32Array(count) };
  for (let i = 0; i < count; i++) {
    const row = rows[i];
    index.turn[i] = row.turn;
    index.message[i] = row.kind === 'message' ? row.message.index : -1;
    index.header[i] = row.kind === 'turn' ? 1 : 0;
    index.height[i] = Math.min(65_535, estimateRowHeight(row));
    index.offsets[i + 1] = index.offsets[i] + index.height[i];
  }
  return index;
}

/** The first message row at or after log message `messageIndex` (−1 when none): where the list shows a model call. */
export function rowOfMessage(index: Pick<RowIndex, 'count' | 'message'>, messageIndex: number): number {
  for (let i = 0; i < index.count; i++) if (index.message[i] >= messageIndex) return i;
  return -1;
}

/** Row index of a turn's header (binary search: rows are in turn order; O(log n) at 100k turns), or −1. */
export function rowOfTurn(index: Pick<RowIndex, 'count' | 'turn' | 'header'>, turn: number): number {
  let lo = 0;
  let hi = index.count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (index.turn[mid] < turn) lo = mid + 1;
    else hi = mid;
  }
  return lo < index.count && index.header[lo] === 1 && index.turn[lo] === turn ? lo : -1;
}

/** Plain text of a row, so find still works when the list is virtualized (STYLE.md §11). */
export function rowSearchText(row: Row): string[] {
  if (row.kind === 'turn') return [`Turn ${row.turn + 1}`];
  const out: string[] = [];
  for (const b of row.message.blocks) {
    if (b.kind === 'text' || b.kind === 'reasoning' || b.kind === 'summary' || b.kind === 'opaque') out.push(b.text);
    else if (b.kind === 'tool_call') out.push(b.name, typeof b.input === 'string' ? b.input : JSON.stringify(b.input) ?? '');
    else if (b.kind === 'tool_result') out.push(b.content);
  }
  for (const list of Object.values(row.results)) for (const r of list) out.push(r.block.content);
  return out;
}

/** Characters per line of message text at the list's usual width, and the line heights (px). */
const CHARS_PER_LINE = 110;
const TEXT_LINE_PX = 23;
const MONO_LINE_PX = 17;
/** Lines shown before "show all" (components/messages/Collapsible.tsx collapses ~1,600 chars). */
const MAX_LINES = 16;

function textLines(text: string): number {
  let lines = 0;
  let start = 0;
  while (start <= text.length && lines < MAX_LINES) {
    const nl = text.indexOf('\n', start);
    const end = nl < 0 ? text.length : nl;
    lines += Math.max(1, Math.ceil((end - start) / CHARS_PER_LINE));
    if (nl < 0) break;
    start = nl + 1;
  }
  return Math.min(MAX_LINES, lines);
}

/**
 * Height of a row estimated from its content (px): the virtualizer's first guess, and the fixed
 * height of rows in very long lists (MessageList FIXED_HEIGHTS_ABOVE), where rows are not measured.
 */
export function estimateRowHeight(row: Row): number {
  if (row.kind === 'turn') return 30;
  const hidden = row.hiddenResultIds.length > 0 ? new Set(row.hiddenResultIds) : undefined;
  let px = 20 + 22; // padding + header line
  for (const b of row.message.blocks) {
    if (hidden?.has(b.id)) continue;
    if (b.kind === 'text' || b.kind === 'summary') px += textLines(b.text) * TEXT_LINE_PX + 6;
    else if (b.kind === 'tool_call') {
      px += 34 + 22 + 6; // name bar, folded input, gap
      const results = row.results[b.callId] ?? [];
      for (const r of results) px += 28 + textLines(r.block.content) * MONO_LINE_PX;
      if (results.length === 0) px += 22;
    } else if (b.kind === 'tool_result' || b.kind === 'opaque') px += 36 + textLines(b.kind === 'opaque' ? b.text : b.content) * MONO_LINE_PX;
    else px += 40;
  }
  return Math.round(px);
}
