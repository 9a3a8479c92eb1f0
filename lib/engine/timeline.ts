/**
 * The timeline series: one entry per turn with the estimated context the model was sent at the
 * end of that turn, split by budget kind (lib/tokens/totals.ts, the one definition of "tokens"),
 * the recorded context size from usage, and the source's own compactions as bands.
 *
 * Pure: messages, usage, markers and tools in; plain data out (it crosses the worker boundary).
 */
import type { Marker, Message, ToolSchema, UsageRecord } from '../model/types';
import { calibrate, isContextSample, usageCalls } from '../tokens/calibration';
import { BUDGET_KINDS, budgetKind, emptyByKind, type BudgetKind } from '../tokens/totals';
import { callAtOrAfter, callsOfMessages } from '../compaction/calls';

export interface TimelineTurn {
  turn: number;
  /** Index of the first message of the turn, and one past its last. */
  firstMessage: number;
  endMessage: number;
  /** Tokens the turn's own messages add, by kind. */
  added: Record<BudgetKind, number>;
  addedTotal: number;
  /** Estimated context at the end of the turn: what is still visible to the model, plus tool schemas. */
  context: Record<BudgetKind, number>;
  contextTotal: number;
  /** Context size recorded by the source at the turn's last model call (input + cache read + cache write). */
  recorded?: number;
  /** The same call's split: uncached input, read from the prompt cache, written to it. */
  recordedSplit?: { uncached: number; cacheRead: number; cacheWrite: number };
  /** Model calls recorded in this turn. */
  calls: number;
  toolCalls: number;
  /** Start of the turn's first user text, for the hover card. */
  preview: string;
  time?: string;
  /** On the call axis (`turn` is then the call's index): the turn the call belongs to. */
  ofTurn?: number;
}

/** A compaction the source itself recorded, drawn as a band. */
export interface TimelineBand {
  markerId: string;
  source: Marker['source'];
  /** Turn the marker sits in (its summary starts the new context). */
  atTurn: number;
  /** Turns whose messages the compaction removed from the model's view, inclusive. */
  coversTurns?: [number, number];
  trigger?: string;
  tokensBefore?: number;
  tokensAfter?: number;
  summaryPreview?: string;
}

export interface Timeline {
  turns: TimelineTurn[];
  bands: TimelineBand[];
  /**
   * Context the source sent that the file does not show (Claude Code's system prompt and tool
   * schemas): the first recorded call's input minus our estimate of what was visible. 0 if unknown.
   */
  overhead: number;
  /**
   * The y-axis scale: the largest estimated context (+ overhead), or a recorded size when it is
   * within RECORDED_FIT × that. A recorded line far above every bar (Codex localpush records the
   * whole history's size) runs along the top edge instead of squeezing the bars into the bottom
   * tenth (issue 30).
   */
  maxContext: number;
  /** Kinds that hold tokens in some turn's context, and whether any turn has a recorded size: the legend's entries, found here rather than by a pass over every turn on the main thread. */
  kindsPresent: BudgetKind[];
  hasRecorded: boolean;
  contextWindow?: number;
  /**
   * sven's calibration against the recorded usage (lib/tokens/calibration.ts), the numbers the
   * budget uses (lib/compaction/budget.ts modelViewOf): the model is sent (estimate + overhead) ×
   * factor. Errors are mean |estimate − recorded| / recorded, raw (file only) and calibrated.
   */
  calibration?: { factor: number; overhead: number; calls: number; rawError: number; error: number };
  /** Model calls of the log (lib/compaction/calls.ts): the inspector picks the call axis when a log has few turns and many calls. */
  callCount: number;
  /** 'calls': one bar per model call (each entry's `turn` is the call index), else one per turn. */
  axis: 'turns' | 'calls';
}

/** Messages hidden from the model by a marker: `covers` when the source says, else everything before it. */
function hiddenRange(marker: Marker): [number, number] {
  return marker.covers ?? [0, marker.atMessage];
}

function textPreview(m: Message): string {
  for (const b of m.blocks) {
    if (b.kind === 'text' || b.kind === 'summary') {
      // The first 1,000 characters make the preview unless they are mostly whitespace (a long
      // prompt was read whole at every turn: 125 ms of 100k turns).
      let t = (b.text.length > 1_000 ? b.text.slice(0, 1_000) : b.text).replace(/\s+/g, ' ').trim();
      if (t.length <= 140 && b.text.length > 1_000) t = b.text.replace(/\s+/g, ' ').trim();
      if (t) return t.length > 140 ? t.slice(0, 139) + '…' : t;
    }
  }
  return '';
}

/**
 * The version of what buildTimeline builds, stored with each timeline built at import
 * (lib/db/schema.ts LayoutRow). Bump it with any change to buildTimeline's output (fields, how a
 * figure is counted): a stored timeline of another version is rebuilt from the messages on open.
 */
export const TIMELINE_VERSION = 2;

/** A recorded size up to this many times the largest bar is on the y-axis; above, it is clipped. */
export const RECORDED_FIT = 2;

export function buildTimeline(input: {
  messages: readonly Message[];
  usage: readonly UsageRecord[];
  markers: readonly Marker[];
  tools: readonly ToolSchema[];
  contextWindow?: number;
  /** One bar per model call instead of per turn (the call axis: agent runs are one turn of many calls). */
  axis?: 'turns' | 'calls';
}): Timeline {
  const { messages, usage, markers, tools } = input;
  const n = messages.length;
  const kinds = BUDGET_KINDS;
  const k = kinds.length;
  const kindIndex = Object.fromEntries(kinds.map((kind, i) => [kind, i])) as Record<BudgetKind, number>;

  // Prefix sums per kind over main-chain messages: prefix[i*k + j] = tokens of kind j in messages [0, i).
  const prefix = new Float64Array((n + 1) * k);
  for (let i = 0; i < n; i++) {
    const m = messages[i];
    for (let j = 0; j < k; j++) prefix[(i + 1) * k + j] = prefix[i * k + j];
    if (m.sidechain) continue;
    for (const b of m.blocks) prefix[(i + 1) * k + kindIndex[budgetKind(m.role, b)]] += b.tokens;
  }
  const rangeSum = (from: number, to: number, j: number) => prefix[to * k + j] - prefix[from * k + j];
  const toolTokens = tools.reduce((s, t) => s + t.tokens, 0);

  // Bar boundaries: turns, or model calls on the call axis.
  const axis = input.axis ?? 'turns';
  const calls = callsOfMessages(messages);
  const turnCount = axis === 'calls' ? calls.length : n === 0 ? 0 : messages[n - 1].turn + 1;
  const first = new Array<number>(turnCount).fill(-1);
  const end = new Array<number>(turnCount).fill(0);
  if (axis === 'calls')
    for (const c of calls) {
      first[c.index] = c.first;
      end[c.index] = c.last + 1;
    }
  else
    for (const m of messages) {
      if (first[m.turn] < 0) first[m.turn] = m.index;
      end[m.turn] = m.index + 1;
    }
  /** Bar of a message: its turn, or on the call axis the call holding it (a prompt: the call after it). */
  const barOfMessage = (i: number): number => (axis !== 'calls' ? messages[i].turn : callAtOrAfter(calls, i));

  const sortedMarkers = [...markers].sort((a, b) => a.atMessage - b.atMessage);

  /** Estimated context of messages [0, upTo) minus what markers before `upTo` hid, by kind. */
  const visibleContext = (upTo: number): Record<BudgetKind, number> => {
    const out = emptyByKind();
    if (sortedMarkers.length === 0) {
      // Nothing hidden (most logs): the prefix sums as they are.
      for (let j = 0; j < k; j++) out[kinds[j]] = rangeSum(0, upTo, j);
      out.tools += toolTokens;
      return out;
    }
    const hidden: Array<[number, number]> = [];
    for (const mk of sortedMarkers) {
      if (mk.atMessage >= upTo) break;
      const [a, b] = hiddenRange(mk);
      hidden.push([Math.max(0, a), Math.min(upTo, b)]);
    }
    hidden.sort((x, y) => x[0] - y[0]);
    const merged: Array<[number, number]> = [];
    for (const h of hidden) {
      const last = merged[merged.length - 1];
      if (last && h[0] <= last[1]) last[1] = Math.max(last[1], h[1]);
      else if (h[1] > h[0]) merged.push([h[0], h[1]]);
    }
    kinds.forEach((kind, j) => {
      let v = rangeSum(0, upTo, j);
      for (const [a, b] of merged) v -= rangeSum(a, b, j);
      out[kind] = v;
    });
    out.tools += toolTokens;
    return out;
  };
  const total = (r: Record<BudgetKind, number>) => kinds.reduce((s, kind) => s + r[kind], 0);

  // Usage per turn (main chain only: side chains are a different model context).
  const mainUsage = usage.filter((u) => messages[u.messageIndex] && !messages[u.messageIndex].sidechain);
  const recordedByTurn = new Map<number, UsageRecord>();
  const callsByTurn = new Map<number, number>();
  for (const u of mainUsage) {
    const turn = barOfMessage(u.messageIndex);
    // An aggregate of several calls has no one context size; its calls still count.
    if (isContextSample(u)) recordedByTurn.set(turn, u);
    callsByTurn.set(turn, (callsByTurn.get(turn) ?? 0) + usageCalls(u));
  }

  // Invisible overhead: the first call saw everything before its message, plus what the file omits.
  let overhead = 0;
  const firstCall = mainUsage.find((u) => isContextSample(u) && u.input + u.cacheRead + u.cacheWrite > 0);
  if (firstCall) {
    const recorded = firstCall.input + firstCall.cacheRead + firstCall.cacheWrite;
    overhead = Math.max(0, Math.round(recorded - total(visibleContext(firstCall.messageIndex))));
  }

  let maxContext = 0;
  let recordedMax = 0;
  const present = new Array<boolean>(k).fill(false);
  let hasRecorded = false;
  const turns: TimelineTurn[] = [];
  for (let t = 0; t < turnCount; t++) {
    if (first[t] < 0) continue;
    const added = emptyByKind();
    for (let j = 0; j < k; j++) added[kinds[j]] = rangeSum(first[t], end[t], j);
    const context = visibleContext(end[t]);
    const contextTotal = total(context);
    const sample = recordedByTurn.get(t);
    const recorded = sample && sample.input + sample.cacheRead + sample.cacheWrite;
    maxContext = Math.max(maxContext, contextTotal + overhead);
    if (recorded !== undefined && recorded > recordedMax) recordedMax = recorded;
    for (let j = 0; j < k; j++) if (context[kinds[j]] > 0) present[j] = true;
    if (sample) hasRecorded = true;
    let toolCalls = 0;
    let preview = '';
    for (let i = first[t]; i < end[t]; i++) {
      const m = messages[i];
      for (const b of m.blocks) if (b.kind === 'tool_call') toolCalls++;
      if (!preview && m.role === 'user' && axis !== 'calls') preview = textPreview(m);
    }
    if (!preview) preview = textPreview(messages[first[t]]);
    if (!preview && axis === 'calls') {
      const names: string[] = [];
      for (const b of messages[first[t]].blocks) if (b.kind === 'tool_call') names.push(b.name);
      preview = names.length ? `calls ${names.join(', ')}` : '';
    }
    turns.push({
      turn: t,
      firstMessage: first[t],
      endMessage: end[t],
      added,
      addedTotal: total(added),
      context,
      contextTotal,
      ...(sample && { recorded, recordedSplit: { uncached: sample.input, cacheRead: sample.cacheRead, cacheWrite: sample.cacheWrite } }),
      calls: callsByTurn.get(t) ?? 0,
      toolCalls,
      preview,
      ...(messages[first[t]].time !== undefined && { time: messages[first[t]].time }),
      ...(axis === 'calls' && { ofTurn: messages[first[t]].turn }),
    });
  }

  const bands: TimelineBand[] = sortedMarkers.map((mk) => {
    const atIndex = Math.min(mk.atMessage, n - 1);
    const [a, b] = hiddenRange(mk);
    const coversTurns: [number, number] | undefined = b > a && messages[a] && messages[b - 1] ? [barOfMessage(a), barOfMessage(b - 1)] : undefined;
    return {
      markerId: mk.id,
      source: mk.source,
      atTurn: atIndex >= 0 && turnCount > 0 ? barOfMessage(atIndex) : Math.max(0, turnCount - 1),
      ...(coversTurns && { coversTurns }),
      ...(mk.trigger !== undefined && { trigger: mk.trigger }),
      ...(mk.tokensBefore !== undefined && { tokensBefore: mk.tokensBefore }),
      ...(mk.tokensAfter !== undefined && { tokensAfter: mk.tokensAfter }),
      ...(mk.summary && { summaryPreview: mk.summary.slice(0, 300) }),
    };
  });

  const contextWindow = input.contextWindow;
  const c = calibrate(input);
  return {
    ...(c && { calibration: { factor: c.factor, overhead: Math.max(0, Math.round(c.invisibleOverhead)), calls: c.calls.length, rawError: c.meanRelativeError.raw, error: c.meanRelativeError.corrected } }),
    turns,
    bands,
    overhead,
    maxContext: Math.max(recordedMax <= RECORDED_FIT * maxContext ? Math.max(maxContext, recordedMax) : maxContext, 1),
    kindsPresent: kinds.filter((_, j) => present[j]),
    hasRecorded,
    ...(contextWindow !== undefined && { contextWindow }),
    callCount: calls.length,
    axis,
  };
}

/**
 * Context window of a model when the source does not record one. A small table of the families
 * seen in the corpus; lib/tokens/catalog.ts (compaction) is the full catalog once it lands.
 */
export function contextWindowFor(model: string | undefined, usage: readonly UsageRecord[]): number | undefined {
  const recorded = usage.find((u) => u.contextWindow)?.contextWindow;
  if (recorded) return recorded;
  if (!model) return undefined;
  const m = model.toLowerCase();
  if (m.includes('[1m]')) return 1_000_000;
  if (/claude/.test(m)) return 200_000;
  if (/gpt-4\.1/.test(m)) return 1_047_576;
  if (/gpt-5|codex/.test(m)) return 400_000;
  if (/gpt-4o|gpt-4-turbo|gpt-oss/.test(m)) return 128_000;
  if (/^o[134]/.test(m)) return 200_000;
  if (/gemini/.test(m)) return 1_048_576;
  if (/gpt-3\.5/.test(m)) return 16_385;
  if (/gpt-4/.test(m)) return 8_192;
  return undefined;
}

