/**
 * Model calls: the unit an agent run is made of. A turn of a coding agent is one prompt followed
 * by hundreds of calls, so a turn is too coarse to protect or to select; a call is the finest unit
 * a window can start or end at without cutting between a tool call and its result.
 *
 * A model call = a main-chain assistant message and the tool results answering it. Consecutive
 * assistant messages whose calls are still unanswered (Claude Code writes one record per
 * tool_use of a parallel batch) belong to the same call, and so does everything up to the last
 * answer. A user prompt (a user message that is not only tool results) is never part of a call.
 * Side-chain messages are skipped.
 */
import type { Message, Transcript } from '../model/types';
import { isTypedByUser } from '../categories/tools';

export interface ModelCall {
  /** 0-based position among the log's model calls. */
  index: number;
  /** First and last log message index of the call (inclusive). */
  first: number;
  last: number;
  /** The turn of its first message. */
  turn: number;
}

const cache = new WeakMap<Transcript, ModelCall[]>();

function isPrompt(m: Message): boolean {
  return m.role === 'user' && m.blocks.some((b) => b.kind !== 'tool_result');
}

/** The log's model calls, oldest first (cached per transcript). */
export function modelCalls(log: Transcript): ModelCall[] {
  const hit = cache.get(log);
  if (hit) return hit;
  const calls = callsOfMessages(log.messages);
  cache.set(log, calls);
  return calls;
}

/** modelCalls over a message list (the worker's timeline has messages, not a Transcript). */
export function callsOfMessages(messages: readonly Message[]): ModelCall[] {
  const log = { messages };
  // Only calls answered somewhere keep a call open: an orphan call must not swallow the rest of the log.
  const answered = new Set<string>();
  for (const m of log.messages) if (!m.sidechain) for (const b of m.blocks) if (b.kind === 'tool_result') answered.add(b.callId);
  const calls: ModelCall[] = [];
  const pending = new Set<string>();
  let cur: ModelCall | undefined;
  for (const m of log.messages) {
    if (m.sidechain) continue;
    if (m.role === 'assistant' && pending.size === 0) {
      cur = { index: calls.length, first: m.index, last: m.index, turn: m.turn };
      calls.push(cur);
    } else if (isPrompt(m) && pending.size === 0) {
      cur = undefined;
    } else if (cur && (m.role !== 'system' || pending.size > 0)) {
      cur.last = m.index;
    }
    for (const b of m.blocks) {
      if (b.kind === 'tool_call' && answered.has(b.callId)) pending.add(b.callId);
      else if (b.kind === 'tool_result') pending.delete(b.callId);
    }
  }
  return calls;
}

/**
 * Index of the first call ending at or after log message `i`: the call holding it, or for a
 * prompt the call after it (clamped to the last call). Calls are ordered; binary search.
 */
export function callAtOrAfter(calls: readonly Pick<ModelCall, 'last'>[], i: number): number {
  let lo = 0;
  let hi = calls.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (calls[mid].last < i) lo = mid + 1;
    else hi = mid;
  }
  return Math.max(0, Math.min(lo, calls.length - 1));
}

/** log message index → the model call holding it (-1 = none: a prompt, a system or side-chain message). */
const callOfCache = new WeakMap<Transcript, Int32Array>();

export function callOfMessage(log: Transcript): Int32Array {
  let out = callOfCache.get(log);
  if (out) return out;
  out = new Int32Array(log.messages.length).fill(-1);
  for (const c of modelCalls(log)) for (let i = c.first; i <= c.last; i++) if (!log.messages[i].sidechain) out[i] = c.index;
  callOfCache.set(log, out);
  return out;
}

const indexCache = new WeakMap<Transcript, Map<string, number>>();

/** The log index of a projected message's source (undefined for synthetic messages). */
export function sourceIndex(log: Transcript, sourceId: string | undefined): number | undefined {
  if (sourceId === undefined) return undefined;
  let map = indexCache.get(log);
  if (!map) {
    map = new Map(log.messages.map((m) => [m.id, m.index]));
    indexCache.set(log, map);
  }
  return map.get(sourceId);
}

/** The user-typed prompts of a turn range: never editable when a tail narrows into their turn. */
export function promptsOf(log: Transcript, fromTurn: number, toTurn: number): number[] {
  const out: number[] = [];
  for (const m of log.messages) if (!m.sidechain && !m.meta && m.turn >= fromTurn && m.turn <= toTurn && isPrompt(m)) out.push(m.index);
  return out;
}

export interface Floor {
  /** The least any compaction that keeps the user's words can reach: system + every user message + the last model call. */
  total: number;
  system: number;
  user: number;
  lastCall: number;
  tools: number;
}

/** The fields of a context message contextFloor and quotedTypedMessages read (a ProjectedMessage). */
export interface FloorMessage {
  sourceId?: string;
  role: string;
  meta?: boolean;
  sidechain?: boolean;
  synthetic?: 'summary' | 'notice';
  /** A summary's span of turns (0-based, inclusive). */
  span?: [number, number];
  blocks: readonly { kind: string; tokens: number; text?: string }[];
}

/**
 * The log messages with the user's words (lib/categories isTypedByUser) that a summary of the
 * context stands for: those of its span that no message of the context holds any more. Emergency
 * gives them back when it drops the summary (issue #27 item 5), and the floor counts them.
 */
export function quotedTypedMessages(log: Transcript, summary: FloorMessage, present: ReadonlySet<string>): Message[] {
  if (summary.synthetic !== 'summary' || !summary.span) return [];
  const [from, to] = summary.span;
  const out: Message[] = [];
  for (const lm of log.messages) if (lm.turn >= from && lm.turn <= to && !present.has(lm.id) && lm.blocks.some((b) => isTypedByUser(lm, b))) out.push(lm);
  return out;
}

/**
 * The floor of a context (issue 10): system messages, the words the user typed (lib/categories
 * isTypedByUser: text, not attachments, tool results, harness text or a projection's notices;
 * those a summary of the context stands for included) and the last model call, in the context
 * compaction starts from. Tool schemas are counted apart (`tools`): prune-tools drops the ones
 * nothing calls any more.
 */
export function contextFloor(log: Transcript, messages: readonly FloorMessage[], tools: readonly { tokens: number }[] = log.tools): Floor {
  const calls = modelCalls(log);
  const last = calls[calls.length - 1];
  let system = 0;
  let user = 0;
  let lastCall = 0;
  let present: Set<string> | undefined;
  for (const m of messages) {
    if (m.sidechain) continue;
    if (m.synthetic === 'summary') {
      if (!present) {
        present = new Set();
        for (const x of messages) if (x.sourceId) present.add(x.sourceId);
      }
      for (const lm of quotedTypedMessages(log, m, present)) for (const b of lm.blocks) if (isTypedByUser(lm, b)) user += b.tokens;
      continue;
    }
    const i = sourceIndex(log, m.sourceId);
    const inLast = last !== undefined && i !== undefined && i >= last.first && i <= last.last;
    for (const b of m.blocks) {
      if (inLast) lastCall += b.tokens;
      else if (m.role === 'system') system += b.tokens;
      // The user's words: typed text, not attachments (strip-attachments may replace an image).
      else if (isTypedByUser(m, b)) user += b.tokens;
    }
  }
  const toolTokens = tools.reduce((s, t) => s + t.tokens, 0);
  return { total: system + user + lastCall, system, user, lastCall, tools: toolTokens };
}
