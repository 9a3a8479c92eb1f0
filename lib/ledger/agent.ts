/**
 * The agent's own compactions, as ledger events: one per marker the importer read (Claude Code
 * `compact_boundary` + `compactMetadata`, Codex `compacted`, Gemini CLI `<state_snapshot>`,
 * Anthropic and OpenAI compaction blocks, OpenHands condensations, Inspect compaction events).
 *
 * Numbers, where they come from:
 *  - tokensBefore: the marker's own count (Claude Code `preTokens`, Inspect `tokens_before`), else
 *    the prompt of the compaction call where the source bills it (Anthropic's `compaction`
 *    iteration), else our count of the context before it (calibrated like every budget:
 *    (estimate + invisible overhead) × factor).
 *  - tokensAfter: the recorded context (input + cache read + cache write) of the next model call;
 *    else the marker's own count; else our count of what the model is sent next.
 *  - cacheWriteAfter: the next call's recorded cache write, priced at the catalog's cache-write price.
 *  - costUsd: recorded where the source bills the compaction call (Anthropic `usage.iterations`);
 *    otherwise estimated: the summarizer (Claude Code and Codex compact with the session's own
 *    model) is sent the context it replaces — `tokensBefore`, its prefix read from the cache the
 *    previous call left when that cache is still alive (lib/simulate/billing.ts) — and writes the
 *    summary (its tokens, as output).
 *  - breakEvenCalls: lib/ledger/break-even.ts.
 */
import type { Marker, Message, Transcript, UsageRecord } from '../model/types';
import { calibrate, isContextSample, visibleBefore } from '../tokens/calibration';
import { callCost, lookupModel, type ModelInfo } from '../tokens/catalog';
import { billCall, cacheRules } from '../simulate/billing';
import { contextWindowFor } from '../engine/timeline';
import { compactionBreakEven } from './break-even';
import type { LedgerEvent } from './types';
import type { SurvivalFn } from './survival';

export const AGENT_LABEL: Record<Marker['source'], string> = {
  'claude-code-compact': 'Claude Code',
  'codex-compacted': 'Codex',
  'gemini-state-snapshot': 'Gemini CLI',
  'anthropic-compaction': 'Anthropic API',
  'openai-compaction': 'OpenAI API',
  'openhands-condensation': 'OpenHands',
  'inspect-compaction': 'Inspect',
  other: 'the source',
};

const promptOf = (u: UsageRecord) => u.input + u.cacheRead + u.cacheWrite;
const timeOf = (m: Message | undefined) => {
  const t = m?.time ? Date.parse(m.time) : NaN;
  return Number.isFinite(t) ? t : undefined;
};

/** A main-chain usage record of one call with a prompt count: a measured call. */
function mainCalls(log: Transcript): UsageRecord[] {
  return log.usage.filter((u) => {
    const m = log.messages[u.messageIndex];
    return m && !m.sidechain && isContextSample(u) && promptOf(u) > 0;
  });
}

export interface AgentLedgerOptions {
  /** Survival of a span in what the model is sent after it (lib/ledger/survival.ts); none: survival null. */
  survival?: SurvivalFn;
  /** Pins (lib/ledger/pins.ts): patterns checked in each span. */
  pinsLost?: (log: Transcript, span: [number, number], modelText: string) => string[];
}

/** The first message of the span a marker took out of view: its own `covers`, never before the previous compaction. */
export function spanOf(log: Transcript, markers: readonly Marker[], i: number): [number, number] {
  const k = markers[i];
  const prevAt = i > 0 ? markers[i - 1].atMessage : 0;
  const from = Math.max(k.covers?.[0] ?? prevAt, prevAt);
  const to = Math.min(k.covers?.[1] ?? k.atMessage, log.messages.length);
  return [Math.min(from, to), to];
}

/** What the model is sent right after a compaction: its summary and the messages up to the next model call. */
export function textAfter(log: Transcript, k: Marker): string {
  const parts: string[] = [];
  if (k.summary) parts.push(k.summary);
  for (let i = k.atMessage; i < log.messages.length; i++) {
    const m = log.messages[i];
    if (m.sidechain) continue;
    if (m.role === 'assistant' && !m.blocks.every((b) => b.kind === 'summary')) break;
    for (const b of m.blocks) {
      if (b.kind === 'summary' && k.summary && b.text === k.summary) continue;
      if (b.kind === 'text' || b.kind === 'summary' || b.kind === 'reasoning' || b.kind === 'opaque') parts.push(b.text);
      else if (b.kind === 'tool_result') parts.push(b.content);
      else if (b.kind === 'tool_call') parts.push(typeof b.input === 'string' ? b.input : JSON.stringify(b.input));
    }
  }
  return parts.join('\n');
}

export function agentEvents(log: Transcript, options: AgentLedgerOptions = {}): LedgerEvent[] {
  const markers = [...log.markers].sort((a, b) => a.atMessage - b.atMessage);
  if (markers.length === 0) return [];
  const calls = mainCalls(log);
  const cal = calibrate(log);
  const factor = cal?.factor ?? 1;
  const overhead = Math.max(0, cal?.invisibleOverhead ?? 0);
  const window = contextWindowFor(log.model, log.usage);
  const calibrated = (n: number) => Math.round((n + overhead) * factor);
  const out: LedgerEvent[] = [];
  markers.forEach((k, i) => {
    // Our count before it: the view with the earlier markers applied, not this one.
    const earlier = markers.slice(0, i);
    const beforeView = visibleBefore({ ...log, markers: earlier });
    const afterView = visibleBefore({ ...log, markers: markers.slice(0, i + 1) });
    // Calls at or after the marker. A server-side compaction billed as its own iteration (two
    // records on one message, Anthropic `usage.iterations`): the first is the compaction call.
    let next = calls.filter((u) => u.messageIndex >= k.atMessage);
    let compactionCall: UsageRecord | undefined;
    if (k.source === 'anthropic-compaction' && next.length >= 2 && next[0].messageIndex === next[1].messageIndex) {
      compactionCall = next[0];
      next = next.slice(1);
    }
    const nextCall = next[0];
    const prevCall = [...calls].reverse().find((u) => u.messageIndex < k.atMessage);
    const model = nextCall?.model ?? compactionCall?.model ?? prevCall?.model ?? lastAssistantModel(log, k.atMessage) ?? log.model ?? null;
    const info: ModelInfo | undefined = lookupModel(model ?? undefined);
    const rules = cacheRules(info);

    let tokensBefore: number | null = null;
    let beforeFrom: LedgerEvent['tokensBeforeFrom'] = null;
    if (k.tokensBefore) [tokensBefore, beforeFrom] = [k.tokensBefore, 'recorded'];
    else if (compactionCall) [tokensBefore, beforeFrom] = [promptOf(compactionCall), 'recorded'];
    else if (prevCall) {
      // The last recorded call's prompt and answer, plus our count of what came after it.
      const since = Math.max(0, beforeView[k.atMessage] - beforeView[Math.min(prevCall.messageIndex + 1, k.atMessage)]);
      [tokensBefore, beforeFrom] = [promptOf(prevCall) + prevCall.output + Math.round(since * factor), 'estimate'];
    } else if (k.atMessage > 0) [tokensBefore, beforeFrom] = [calibrated(beforeView[k.atMessage]), 'estimate'];

    let tokensAfter: number | null = null;
    let afterFrom: LedgerEvent['tokensAfterFrom'] = null;
    if (nextCall && (i + 1 >= markers.length || nextCall.messageIndex < markers[i + 1].atMessage)) [tokensAfter, afterFrom] = [promptOf(nextCall), 'recorded'];
    else if (k.tokensAfter) [tokensAfter, afterFrom] = [k.tokensAfter, 'recorded'];
    else {
      const firstCallAt = firstAssistantFrom(log, k.atMessage);
      [tokensAfter, afterFrom] = [calibrated(afterView[firstCallAt]), 'estimate'];
    }

    const summaryTokens = summaryTokensOf(log, k);
    let costUsd: number | null = null;
    let costFrom: LedgerEvent['costFrom'] = null;
    if (compactionCall && info) [costUsd, costFrom] = [callCost(info, compactionCall), 'recorded'];
    else if (info && tokensBefore !== null) {
      const gap = (timeOf(log.messages[k.atMessage]) ?? NaN) - (timeOf(prevCall ? log.messages[prevCall.messageIndex] : undefined) ?? NaN);
      const alive = !!prevCall && (!Number.isFinite(gap) || gap <= rules.ttlMs);
      const prefix = prevCall ? Math.min(tokensBefore, promptOf(prevCall)) : 0;
      costUsd = billCall(rules, info.price, tokensBefore, prefix, alive, summaryTokens).usd;
      costFrom = 'estimate';
    }

    const cacheWriteAfter = nextCall ? nextCall.cacheWrite : null;
    const cacheWriteUsd = cacheWriteAfter !== null && info ? (cacheWriteAfter * info.price.cacheWrite * rules.writePrice) / 1_000_000 : null;
    const callsAfter = next.filter((u) => u.messageIndex >= k.atMessage).length;
    let breakEvenCalls: LedgerEvent['breakEvenCalls'] = null;
    if (info && tokensBefore !== null && tokensAfter !== null) {
      const firstCall = nextCall ?? modelledFirstCall(rules, tokensAfter, calibrated(0));
      breakEvenCalls = compactionBreakEven({ price: info.price, tokensBefore, tokensAfter, firstCall, compactionUsd: costUsd ?? 0, callsAfter: nextCall ? callsAfter : Infinity });
    }

    const span = spanOf(log, markers, i);
    const after = textAfter(log, k);
    const survival = options.survival && span[1] > span[0] ? options.survival(log, span, after) : null;
    out.push({
      id: `agent:${k.id}`,
      by: 'agent',
      label: AGENT_LABEL[k.source] ?? k.source,
      trigger: k.trigger ?? (k.source === 'anthropic-compaction' || k.source === 'openai-compaction' ? 'server' : 'unrecorded'),
      triggerLevel: tokensBefore !== null ? { tokens: tokensBefore, ...(window && { ofWindow: tokensBefore / window }) } : null,
      policy: null,
      atMessage: k.atMessage,
      atTurn: log.messages[Math.min(k.atMessage, log.messages.length - 1)]?.turn ?? 0,
      covers: span[1] > span[0] ? span : null,
      tokensBefore,
      tokensBeforeFrom: beforeFrom,
      tokensAfter,
      tokensAfterFrom: afterFrom,
      durationMs: k.durationMs ?? null,
      model,
      costUsd,
      costFrom,
      cacheWriteAfter,
      cacheWriteUsd,
      breakEvenCalls,
      callsAfter: nextCall ? callsAfter : null,
      summary: k.summary ?? null,
      survival,
      pinsLost: options.pinsLost && span[1] > span[0] ? options.pinsLost(log, span, after) : [],
    });
  });
  return out;
}

/** Without a recorded next call: the prompt's invisible prefix (system, tools) read from the cache, the rest written. */
function modelledFirstCall(rules: ReturnType<typeof cacheRules>, prompt: number, cachedPrefix: number) {
  const read = cachedPrefix >= rules.minTokens ? Math.min(prompt, cachedPrefix) : 0;
  return rules.writes ? { input: 0, cacheRead: read, cacheWrite: prompt - read } : { input: prompt - read, cacheRead: read, cacheWrite: 0 };
}

function firstAssistantFrom(log: Transcript, from: number): number {
  for (let i = from; i < log.messages.length; i++) {
    const m = log.messages[i];
    if (!m.sidechain && m.role === 'assistant' && !m.blocks.every((b) => b.kind === 'summary')) return i;
  }
  return log.messages.length;
}

function lastAssistantModel(log: Transcript, before: number): string | undefined {
  for (let i = Math.min(before, log.messages.length) - 1; i >= 0; i--) if (log.messages[i].role === 'assistant' && log.messages[i].model) return log.messages[i].model;
  return undefined;
}

/** The summary's tokens as the log counted its block, else characters ÷ 4. */
function summaryTokensOf(log: Transcript, k: Marker): number {
  for (let i = k.atMessage; i < Math.min(log.messages.length, k.atMessage + 3); i++)
    for (const b of log.messages[i].blocks) if (b.kind === 'summary' && (b.markerId === k.id || b.text === k.summary)) return b.tokens;
  return Math.ceil((k.summary?.length ?? 0) / 4);
}

