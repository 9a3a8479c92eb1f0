/**
 * The call-by-call replay: "if my agent had used policy X, what would this session have cost, and
 * what would it have forgotten?"
 *
 * For each model call recorded in the transcript (a run of main-chain assistant messages, split
 * where the source recorded one usage record per call), the replay computes the prompt that call
 * would have sent under a policy. The policy fires at its trigger and compacts the context it
 * holds with its plan (our reducers, lib/simulate/policies); the session then continues from the
 * compacted context, and later calls grow from it. Every call is billed with the provider's
 * prompt caching (lib/simulate/billing.ts): the cached part is the common prefix with the previous
 * request while the cache lives, measured with the transcript's real gaps between calls.
 *
 * Sizes. Our estimate of a context leaves out what the file does not hold (system prompt, tool
 * schemas the source does not record) and counts with our tokenizer. Where the source recorded
 * usage, a call's replayed prompt is its recorded prompt plus the calibrated difference between
 * the policy's context and the recorded one: `recorded + f × (policy − as-recorded)`, f the
 * calibration factor (lib/tokens/calibration.ts). So the "as recorded" replay sends exactly the
 * recorded prompts, and its bill differs from the recorded bill only by the cache model.
 * Without recorded usage a prompt is `f × (estimate + overhead)` with f = 1 and no overhead.
 *
 * Two baselines: `recorded` follows what the agent itself did (its own compactions, the source's
 * markers, stay in effect); `none` never compacts (a source's own compaction is undone: the
 * messages it covered stay, its summary is left out). The other policies start from `none`, so
 * they replace the agent's own compaction rather than add to it.
 *
 * Sub-agent (side-chain) calls never enter the main context; they are billed as recorded under
 * every policy.
 *
 * Firing. A policy fires when the call's prompt reaches its trigger (tokens) or its context holds
 * `triggerEvents` messages; after firing it re-arms only once the context has grown by 5 % of the
 * window (tokens) or by half its event count since — a compaction that cannot get under its own
 * trigger would otherwise fire on every call, which no real agent does (they warn and go on).
 */
import { startsTurn } from '../model/turns';
import type { Message, Transcript, UsageRecord } from '../model/types';
import { ImportError } from '../errors';
import { lostIdentifiers } from '../compaction/lost';
import { isStub } from '../compaction/reducers/util';
import { partnersFrom } from '../compaction/reducers/dedup-tools';
import { projectTranscript, rememberLogContext } from '../compaction/project';
import { projectedMessageOf, wrapMessage } from '../compaction/context';
import { BUDGET_KINDS, budgetKind, emptyByKind, finishTotals, type BudgetKind } from '../tokens/totals';
import type { Fate, ProjectedMessage, Step } from '../compaction/types';
import { calibrate, isContextSample, visibleBefore } from '../tokens/calibration';
import { implausibleUsageMessage, usagePlausibility } from '../tokens/usage-sanity';
import { callCost, lookupModel, type ModelInfo } from '../tokens/catalog';
import { billCall, cacheRules, type CacheRules, type CallBill } from './billing';
import { resolveModel } from './replay';
import { clearAtLeast, decideEarly, estimateCallsToCome, judgeCompaction, pricingOf, type CachePricing, type EarlyDecision } from '../compaction/cache-pays';
import type { ModelLimits, PeerPolicy } from './types';

/** One model call of the transcript. */
export interface CallPoint {
  /** The call's prompt is the main-chain messages before this index. */
  promptEnd: number;
  /** The (last) assistant message the call produced. */
  messageIndex: number;
  turn: number;
  /** ms since epoch, when the source has timestamps. */
  time?: number;
  sidechain: boolean;
  recorded?: UsageRecord;
  /** Output tokens: recorded, else our estimate of the call's assistant messages. */
  output: number;
}

/** The model calls of a transcript, in order. */
export function modelCalls(log: Transcript): CallPoint[] {
  const msgs = log.messages;
  const perCall = log.usage.length > 0 && log.usage.every(isContextSample);
  const byRun = new Map<number, UsageRecord[]>();
  const sideUsage: UsageRecord[] = [];
  // Runs of main-chain assistant messages: run id = index of its first message.
  const runOf = new Int32Array(msgs.length).fill(-1);
  let prevMain = -1;
  for (let i = 0; i < msgs.length; i++) {
    const m = msgs[i];
    if (m.sidechain) continue;
    if (m.role === 'assistant') runOf[i] = prevMain >= 0 && msgs[prevMain].role === 'assistant' ? runOf[prevMain] : i;
    prevMain = i;
  }
  if (perCall)
    for (const u of log.usage) {
      const m = msgs[u.messageIndex];
      // A record without a prompt count (an empty token_count) is not a measured call.
      if (!m || u.input + u.cacheRead + u.cacheWrite <= 0) continue;
      if (m.sidechain) sideUsage.push(u);
      else if (runOf[u.messageIndex] >= 0) byRun.set(runOf[u.messageIndex], [...(byRun.get(runOf[u.messageIndex]) ?? []), u]);
    }
  const tokensOf = (from: number, to: number) => {
    let n = 0;
    for (let i = from; i <= to; i++) if (!msgs[i].sidechain && msgs[i].role === 'assistant') for (const b of msgs[i].blocks) n += b.tokens;
    return n;
  };
  const timeOf = (i: number) => {
    const t = msgs[i]?.time ? Date.parse(msgs[i].time!) : NaN;
    return Number.isFinite(t) ? t : undefined;
  };
  const calls: CallPoint[] = [];
  for (let i = 0; i < msgs.length; i++) {
    if (runOf[i] !== i) continue;
    let end = i;
    for (let j = i + 1; j < msgs.length; j++) {
      if (msgs[j].sidechain) continue;
      if (runOf[j] !== i) break;
      end = j;
    }
    const records = (byRun.get(i) ?? []).sort((a, b) => a.messageIndex - b.messageIndex);
    if (records.length === 0) {
      calls.push({ promptEnd: i, messageIndex: end, turn: msgs[i].turn, time: timeOf(i), sidechain: false, output: tokensOf(i, end) });
      continue;
    }
    let start = i;
    for (const u of records) {
      // Two records of one message (a server-side compaction's iterations) share its prompt.
      const promptEnd = Math.min(start, u.messageIndex);
      calls.push({ promptEnd, messageIndex: u.messageIndex, turn: msgs[promptEnd].turn, time: timeOf(promptEnd) ?? timeOf(u.messageIndex), sidechain: false, recorded: u, output: u.output });
      start = u.messageIndex + 1;
    }
  }
  for (const u of sideUsage) calls.push({ promptEnd: u.messageIndex, messageIndex: u.messageIndex, turn: msgs[u.messageIndex].turn, time: timeOf(u.messageIndex), sidechain: true, recorded: u, output: u.output });
  return calls.sort((a, b) => a.messageIndex - b.messageIndex || Number(a.sidechain) - Number(b.sidechain));
}

/** A policy as the replay runs it. */
export interface ReplayPolicy {
  id: string;
  label: string;
  /** Where our emulation differs from the real thing (shown with the table). */
  note?: string;
  kind: 'recorded' | 'none' | 'plan';
  triggerTokens?(model: ModelLimits): number | undefined;
  triggerEvents?: number;
  /** 'turn': the trigger is checked only between turns (before a turn's first call), as JP does. */
  checkAt?: 'call' | 'turn';
  plan?(log: Transcript, model: ModelLimits): Step[];
  /** The plan removes blocks of this kind and nothing else (clear_thinking): a look at a context without one changes nothing. */
  onlyRemoves?: 'reasoning';
  /** The plan's decision for a message depends only on the messages after it (PeerPolicy.endLocal): a look projects only the context's tail. */
  endLocal?: EndLocal;
  /**
   * A cache-aware early compaction (our Auto): below the trigger, the replay tries this plan and
   * keeps it only when it clears at least `clear_at_least` and pays for the cache it breaks over
   * the calls estimated to come (lib/compaction/cache-pays.ts `decideEarly`). The window-forced
   * compaction at the trigger runs `plan` regardless.
   */
  early?: {
    plan(log: Transcript, model: ModelLimits): Step[];
    /** The same plan limited to the messages since the last compaction (the cached prefix untouched). */
    tailPlan?(log: Transcript, model: ModelLimits, fromCall: number): Step[];
  };
}

export type EndLocal = NonNullable<PeerPolicy['endLocal']>;

export function fromPeer(p: PeerPolicy, note?: string): ReplayPolicy {
  return { id: p.id, label: p.label, kind: 'plan', triggerTokens: p.triggerTokens, ...(p.triggerEvents !== undefined && { triggerEvents: p.triggerEvents }), ...(p.checkAt && { checkAt: p.checkAt }), plan: p.plan, ...(p.onlyRemoves && { onlyRemoves: p.onlyRemoves }), ...(p.endLocal && { endLocal: p.endLocal }), ...(note && { note }) };
}

export interface ReplayedCall {
  index: number;
  messageIndex: number;
  turn: number;
  sidechain: boolean;
  /** The source recorded this call's usage (the calls the recorded bill is made of). */
  recorded: boolean;
  /** Tokens the call sends (calibrated; sub-agent calls: recorded). */
  prompt: number;
  /** The policy compacted its context just before this call. */
  fired: boolean;
  /** Tokens of the context before the compaction, when it fired. */
  before?: number;
  /** The previous request's cache was gone (gap over the TTL) or the compaction rewrote the prefix. */
  cacheBroken: boolean;
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
  usd: number;
  overWindow: boolean;
  /**
   * When the policy compacted before this call: the compaction call itself (a summarizer's call,
   * billed at the session's model: it sends the context it summarizes, read from the cache where
   * alive, and writes the summary as output; not in this call's own fields above, but in the
   * totals) and its break-even (lib/ledger/break-even.ts via lib/compaction/cache-pays.ts): the
   * calls it needs to pay back the cache it broke, against the calls the session still made after it.
   */
  compaction?: {
    callUsd: number;
    /** The summarizer's call by token class (absent for compactions that call no model). */
    call?: { input: number; cacheRead: number; cacheWrite: number; output: number };
    removed: number;
    rewrite: number;
    breakEvenCalls: number | null;
    callsAfter: number;
    paidBack: boolean;
    /** Why it fired: the window forced it, or (cache-aware Auto) it was expected to pay. */
    why: 'window' | 'pays';
  };
  /** The cache-aware Auto weighed an early compaction before this call and declined it: why, with its numbers. */
  declined?: { reason: string; netUsd: number };
}

export interface ReplayTotals {
  calls: number;
  compactions: number;
  peakContext: number;
  callsOverWindow: number;
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
  usd: number;
  /** cacheRead / every prompt token sent. */
  cacheHitRate: number;
  /** Calls where the cached prefix was lost: the TTL ran out, or a compaction rewrote it. */
  cacheBreaks: number;
  identifiersLost: number;
  userMessagesLost: number;
  /** USD of the compaction calls themselves (summarizers), included in `usd`. */
  compactionUsd: number;
  /** Compactions that did not pay back the cache they broke before the session ended. */
  compactionsNotPaidBack: number;
}

export interface ReplayResult {
  policy: string;
  label: string;
  note?: string;
  calls: ReplayedCall[];
  totals: ReplayTotals;
  /** Message index of each firing's call. */
  firings: number[];
}

export interface SimulationOptions {
  model?: string | ModelInfo;
  /** Anthropic's 1-hour cache option (writes at 2× the input price instead of 1.25×); OpenAI's longer retention. */
  cacheTtl?: '5m' | '1h';
}

/** Move a share of the cache reads to what the provider bills instead (writes where it charges them, else input). */
function scaleHits(b: CallBill, scale: number, rules: CacheRules, price: ModelInfo['price'] | undefined): CallBill {
  if (scale === 1 || b.cacheRead === 0) return b;
  const prompt = b.input + b.cacheRead + b.cacheWrite;
  const read = Math.min(prompt, Math.round(b.cacheRead * scale));
  const delta = b.cacheRead - read;
  let { input, cacheWrite } = b;
  if (rules.writes) {
    cacheWrite += delta;
    if (cacheWrite < 0) {
      input += cacheWrite;
      cacheWrite = 0;
    }
  } else input += delta;
  const usd = price ? (input * price.input + read * price.cachedRead + cacheWrite * price.cacheWrite * rules.writePrice + b.output * price.output) / 1_000_000 : 0;
  return { ...b, input, cacheRead: read, cacheWrite, usd };
}

export interface Simulation {
  model: { id?: string; label?: string; contextWindow: number; maxOutput: number; assumed: boolean; priced: boolean };
  cache: CacheRules;
  /**
   * The cache model against the recorded usage: `rawError` = (the "as recorded" replay's bill with
   * the model as is − the recorded bill) / the recorded bill; `hitScale` = recorded cache reads /
   * modelled ones over the recorded calls, applied to every policy.
   */
  cacheFit?: { hitScale: number; rawError: number; calls: number };
  calibration: { factor: number; overhead: number; fromUsage: boolean };
  /** The recorded bill (catalog prices over the recorded usage), when the source has per-call usage. */
  recorded?: { usd: number; input: number; cacheRead: number; cacheWrite: number; output: number };
  results: ReplayResult[];
  /** What the replay could not take as recorded (usage implausible next to the content, timestamps that go backwards). */
  warnings: string[];
  /** The recorded usage was implausible (lib/tokens/usage-sanity.ts): the replay used our counts instead. */
  usageIgnored?: boolean;
}

/** More tokens than any call, or any batch of calls one usage record sums, has ever used. */
export const MAX_USAGE_COUNT = 1e12;

/**
 * A usage record the bill cannot be computed from is refused, naming it: a negative count (it
 * billed "input −999,879"), one past MAX_USAGE_COUNT or not finite (it billed "$Infinity" and
 * "NaN %"). Issue 30.
 */
export function checkUsage(log: Transcript): void {
  for (const u of log.usage)
    for (const key of ['input', 'cacheRead', 'cacheWrite', 'output'] as const) {
      const n = u[key];
      if (Number.isFinite(n) && n >= 0 && n <= MAX_USAGE_COUNT) continue;
      const what = !Number.isFinite(n) ? `is not a number (${n})` : n < 0 ? `is negative (${n.toLocaleString('en-US')})` : `is ${n.toLocaleString('en-US')}, more than any call uses (the limit here is ${MAX_USAGE_COUNT.toLocaleString('en-US')})`;
      throw new ImportError('malformed:usage', `The usage recorded for message ${u.messageIndex + 1}: its ${key} token count ${what}. The bill cannot be computed from it.`, { file: log.fileName }, 'token counts from 0 up');
    }
}

/** Calls whose timestamp is earlier than one before them: the replay's clock does not go back (a gap from a wrong time would expire every cache). */
function backwardsTimes(calls: readonly CallPoint[], log: Transcript): string[] {
  let latest = -Infinity;
  let n = 0;
  let first = -1;
  for (const c of calls) {
    if (c.time === undefined || c.sidechain) continue;
    if (c.time < latest) {
      if (n++ === 0) first = c.messageIndex;
    } else latest = c.time;
  }
  if (n === 0) return [];
  return [`${n} call(s) have a timestamp earlier than a call before them (first: message ${first + 1}${log.messages[first]?.time ? `, ${log.messages[first].time}` : ''}); the replay keeps its clock at the latest time seen, so a cache's life is not measured from a wrong time.`];
}

interface Item {
  tokens: number;
  msg: ProjectedMessage;
}

/**
 * A context item: a projected message and its tokens. Summed where made: a message holds a few
 * blocks, and a WeakMap from every projected message to its item (one lookup per message of every
 * candidate) cost more than the sum — and its ephemerons, more in every garbage collection.
 */
function itemOf(m: ProjectedMessage): Item {
  replayWork.items++;
  let tokens = 0;
  const blocks = m.blocks;
  for (let i = 0; i < blocks.length; i++) tokens += blocks[i].tokens;
  return { tokens, msg: m };
}

/** Tokens of a list of items. */
function itemTokens(items: readonly Item[]): number {
  let n = 0;
  for (let i = 0; i < items.length; i++) n += items[i].tokens;
  return n;
}

/** Two messages the provider sees as the same: one role, the very same blocks in order. */
function sameItem(x: ProjectedMessage, y: ProjectedMessage): boolean {
  if (x === y) return true;
  if (x.role !== y.role || x.blocks.length !== y.blocks.length) return false;
  for (let i = 0; i < x.blocks.length; i++) if (x.blocks[i] !== y.blocks[i]) return false;
  return true;
}

/**
 * The policy's context as log messages, kept beside its items: what the read appends is appended
 * here too (a message's turn depends only on the messages before it, model/turns.ts), and a
 * compaction rebuilds it. Building it anew for every look at the context was quadratic on the
 * policies whose context grows past their trigger (they look every 5 % of the window).
 */
/**
 * Work the replay did since the process started (tests guard the replay's cost with it): log
 * messages wrapped into a policy's context.
 */
export const replayWork = { messagesScanned: 0, contextMessages: 0, contextMessagesKept: 0, contextMessagesReused: 0, looksWithoutProjection: 0, items: 0, tailLooks: 0, messagesProjected: 0 };

/**
 * Checks the replay can run on itself (tests turn them on): `tail`: every look that projects only
 * the context's tail (ReplayPolicy.endLocal) also projects the whole context and throws unless both
 * give the same messages, fates, size and stable prefix.
 */
export const replayChecks = { tail: false, reset: false };

/** The log message a context item stands for at a position: the same as another's when id, role, blocks, meta and summary-ness are. */
function sameContextMessage(a: ProjectedMessage, b: ProjectedMessage): boolean {
  if (a === b) return true;
  if (a.sourceId !== b.sourceId || a.role !== b.role || !!a.meta !== !!b.meta || (a.synthetic === 'summary') !== (b.synthetic === 'summary')) return false;
  if (a.blocks === b.blocks) return true;
  if (a.blocks.length !== b.blocks.length) return false;
  for (let i = 0; i < a.blocks.length; i++) if (a.blocks[i] !== b.blocks[i]) return false;
  return true;
}

/** Pairing bookkeeping of one appended message, undone when a compaction takes the message out. */
type PairingOp = { kind: 'call' | 'answer'; id: string } | { kind: 'issue'; id: string; call: boolean };
/** The ops of a message without tool calls or results (shared: never pushed to). */
const NO_OPS: PairingOp[] = [];
/** The record references of a context message (none: the replay's context is not written back to a file). */
const NO_REFS: number[] = Object.freeze([]) as unknown as number[];

export class ContextMessages {
  messages: Message[] = [];
  markers: Transcript['markers'] = [];
  /** The item each message was made from (a compaction keeps the messages before the first one it changed). */
  private from: ProjectedMessage[] = [];
  /** Each message as a starting context wraps it (projectedMessageOf), for projectTranscript. */
  private projected: ProjectedMessage[] = [];
  private turn = -1;
  /** Token sums by budget kind after each message (BUDGET_KINDS order), in the order countTotals adds them: [0] is before the first. */
  private sums: number[] = new Array(BUDGET_KINDS.length).fill(0);
  /** Blocks before each message and after the last. */
  private blockCounts: number[] = [0];
  /** Reasoning blocks before each message and after the last. */
  private reasoningCounts: number[] = [0];
  /** Tool results that are not stubs (reducers/util isStub) before each message and after the last. */
  private openResultCounts: number[] = [0];
  // validatePairing as a left fold over the messages: calls seen, those answered, issues found on
  // the way, and calls still unanswered (a missing result at the end); each message's ops, to undo.
  /** Calls seen, by id: the index of the message holding each. */
  private calls = new Map<string, number>();
  private answered = new Set<string>();
  private issues = 0;
  private unanswered = 0;
  private ops: PairingOp[][] = [];
  /** The tool schemas frozen (a log's totals are remembered for frozen arrays only), by the array they copy. */
  private frozenTools: { of: Transcript['tools']; copy: Transcript['tools'] } | undefined;

  /** The context's message for `src` at index `i`, its turn counted, pushed with its source and projection. */
  private pushMessage(src: Item['msg'], i: number): Message {
    // Assigned, not spread (one hidden class); `meta` last, as the spread put it.
    const m = { id: src.sourceId ?? `replay-${i}`, index: i, turn: 0, role: src.role, blocks: src.blocks, recordRefs: NO_REFS } as unknown as Message;
    if (src.meta) m.meta = true;
    if (startsTurn(m) || this.turn < 0) this.turn++;
    m.turn = this.turn;
    this.messages.push(m);
    this.from.push(src);
    this.projected.push(projectedMessageOf(m));
    return m;
  }

  /**
   * The pairing fold's op for a tool call `id` in message `i`: a second call of one id is an issue.
   * `was`: this call's op when the message was appended before (reset), returned as is when it is
   * the same op again.
   */
  private pairCall(id: string, i: number, was?: PairingOp): PairingOp {
    if (this.calls.has(id)) {
      this.issues++;
      return was?.kind === 'issue' && was.call ? was : { kind: 'issue', id, call: true };
    }
    this.calls.set(id, i);
    this.unanswered++;
    return was?.kind === 'call' ? was : { kind: 'call', id };
  }

  /** The pairing fold's op for a result of `id`: one without its call, or a second answer, is an issue. (`was` as for pairCall.) */
  private pairAnswer(id: string, was?: PairingOp): PairingOp {
    if (!this.calls.has(id) || this.answered.has(id)) {
      this.issues++;
      return was?.kind === 'issue' && !was.call ? was : { kind: 'issue', id, call: false };
    }
    this.answered.add(id);
    this.unanswered--;
    return was?.kind === 'answer' ? was : { kind: 'answer', id };
  }

  append(it: Item): void {
    const i = this.messages.length;
    replayWork.contextMessages++;
    replayWork.messagesScanned++;
    const src = it.msg;
    const blocks = src.blocks;
    const m = this.pushMessage(src, i);
    const k = BUDGET_KINDS.length;
    const base = i * k;
    const sums = this.sums;
    for (let j = 0; j < k; j++) sums.push(sums[base + j]);
    // One pass over the blocks: the sums, the pairing fold's ops, reasoning blocks, results not stubbed, all summary blocks.
    let ops: PairingOp[] = NO_OPS;
    let reasoning = 0;
    let open = 0;
    let allSummary = blocks.length > 0;
    for (let j = 0; j < blocks.length; j++) {
      const b = blocks[j];
      sums[base + k + KIND_INDEX[budgetKind(m.role, b)]] += b.tokens;
      if (b.kind !== 'summary') allSummary = false;
      if (b.kind === 'tool_call') {
        if (ops === NO_OPS) ops = [];
        ops.push(this.pairCall(b.callId, i));
      } else if (b.kind === 'tool_result') {
        if (ops === NO_OPS) ops = [];
        ops.push(this.pairAnswer(b.callId));
        if (!isStub(b.content)) open++;
      } else if (b.kind === 'reasoning') reasoning++;
    }
    this.ops.push(ops);
    this.blockCounts.push(this.blockCounts[i] + blocks.length);
    this.reasoningCounts.push(this.reasoningCounts[i] + reasoning);
    this.openResultCounts.push(this.openResultCounts[i] + open);
    // An earlier compaction's summary stays a compaction point: 'after-last-compaction' ranges start
    // after it (prefix-ward: the summary and what precedes it keep their cached prefix).
    if (src.synthetic === 'summary' || allSummary) this.markers.push({ id: `replay-summary-${i}`, source: 'other', atMessage: i });
  }

  /**
   * The context after a compaction. The messages before the first item the compaction changed are
   * kept as they are (a message's index, id, turn and marker depend only on it and those before it);
   * the rest are made anew. Rebuilding every message at every firing was quadratic on the policies
   * that fire every 5 % of the window on a context that keeps growing.
   */
  reset(items: readonly Item[], unchanged = 0): void {
    // `unchanged`: the caller knows the first items are the very ones the context holds.
    let k = Math.min(unchanged, items.length, this.messages.length);
    const n = Math.min(items.length, this.messages.length);
    while (k < n && sameContextMessage(this.from[k], items[k].msg)) k++;
    replayWork.contextMessagesKept += k;
    for (let i = this.messages.length - 1; i >= k; i--) {
      const ops = this.ops[i];
      for (let j = ops.length - 1; j >= 0; j--) {
        const op = ops[j];
        if (op.kind === 'issue') this.issues--;
        else if (op.kind === 'call') {
          this.calls.delete(op.id);
          this.unanswered--;
        } else {
          this.answered.delete(op.id);
          this.unanswered++;
        }
      }
    }
    // What each message from k on read of its blocks, kept to re-append the messages the
    // compaction left as they were at another position (a summary at the front shifts them all):
    // their sums, counts and pairing ops depend only on their role and blocks.
    // Whichever is shorter is copied: the messages from k on (kept aside as `old`, the arrays cut at
    // k), or the first k (the arrays themselves become `old`, from position k on, and the context
    // continues on the copies): a summary at the front (k = 0) copied the whole context at every firing.
    const K = BUDGET_KINDS.length;
    let old: OldMessages | undefined;
    const reuse = items.length > k + 1 && this.messages.length > k + 1;
    if (reuse && k < this.messages.length - k) {
      old = { base: k, messages: this.messages, projected: this.projected, ops: this.ops, sums: this.sums, blocks: this.blockCounts, reasoning: this.reasoningCounts, open: this.openResultCounts, byBlocks: undefined };
      this.messages = this.messages.slice(0, k);
      this.from = this.from.slice(0, k);
      this.projected = this.projected.slice(0, k);
      this.ops = this.ops.slice(0, k);
      this.sums = this.sums.slice(0, (k + 1) * K);
      this.blockCounts = this.blockCounts.slice(0, k + 1);
      this.reasoningCounts = this.reasoningCounts.slice(0, k + 1);
      this.openResultCounts = this.openResultCounts.slice(0, k + 1);
    } else {
      if (reuse) old = { base: 0, messages: this.messages.slice(k), projected: this.projected.slice(k), ops: this.ops.slice(k), sums: this.sums.slice(k * K), blocks: this.blockCounts.slice(k), reasoning: this.reasoningCounts.slice(k), open: this.openResultCounts.slice(k), byBlocks: undefined };
      this.messages.length = k;
      this.from.length = k;
      this.projected.length = k;
      this.ops.length = k;
      this.sums.length = (k + 1) * K;
      this.blockCounts.length = k + 1;
      this.reasoningCounts.length = k + 1;
      this.openResultCounts.length = k + 1;
    }
    while (this.markers.length > 0 && this.markers[this.markers.length - 1].atMessage >= k) this.markers.pop();
    this.turn = k > 0 ? this.messages[k - 1].turn : -1;
    // Where in the old messages the next item's blocks are expected: right after the last one found
    // (a compaction keeps the messages it leaves in order); elsewhere, looked up by its blocks.
    let next = old?.base ?? 0;
    for (let i = k; i < items.length; i++) {
      const blocks = items[i].msg.blocks;
      let j: number | undefined;
      if (old) {
        if (next < old.messages.length && old.messages[next].blocks === blocks) j = next;
        else if (!old.byBlocks) {
          // Further on (a summary in place of the oldest messages: the first kept one is past
          // them); the map is built at the first item not found ahead, so the scans stay linear.
          for (let q = next + 1; q < old.messages.length; q++)
            if (old.messages[q].blocks === blocks) {
              j = q;
              break;
            }
          if (j === undefined) {
            old.byBlocks = new Map();
            for (let q = old.messages.length - 1; q >= old.base; q--) old.byBlocks.set(old.messages[q].blocks, q);
            j = old.byBlocks.get(blocks);
          }
        } else j = old.byBlocks.get(blocks);
      }
      if (j !== undefined && old!.messages[j].role === items[i].msg.role) {
        this.appendKnown(items[i], old!, j);
        next = j + 1;
      } else this.append(items[i]);
    }
    if (replayChecks.reset) this.checkAgainstFresh(items);
  }

  /**
   * append(it) for a message whose role and blocks are those of old message `j` (reset): its
   * sums, block counts, results not stubbed and summary-ness are that message's; its pairing ops
   * are replayed against the context as it is now (a call or an answer may have become an issue).
   */
  private appendKnown(it: Item, old: OldMessages, j: number): void {
    const i = this.messages.length;
    replayWork.contextMessages++;
    const src = it.msg;
    // The old message itself where it would be made again the same: at its own index, with its id,
    // meta and turn (a compaction that stubs results in place moves no message). Making every message
    // after the first change anew was a quarter of what the replay allocated (session 20).
    const same = old.messages[j];
    let m: Message;
    if (same.index === i && !!same.meta === !!src.meta && same.id === (src.sourceId ?? `replay-${i}`) && same.turn === (startsTurn(same) || this.turn < 0 ? this.turn + 1 : this.turn)) {
      replayWork.contextMessagesReused++;
      m = same;
      this.turn = same.turn;
      this.messages.push(same);
      this.from.push(src);
      this.projected.push(old.projected[j]);
    } else m = this.pushMessage(src, i);
    const K = BUDGET_KINDS.length;
    const sums = this.sums;
    const base = i * K;
    for (let q = 0; q < K; q++) sums.push(sums[base + q] + (old.sums[(j + 1) * K + q] - old.sums[j * K + q]));
    // Its ops replayed: the very ops (and their array) where each comes out as before.
    const was = old.ops[j];
    let ops = was;
    for (let q = 0; q < was.length; q++) {
      const op = was[q];
      const now = op.kind === 'call' || (op.kind === 'issue' && op.call) ? this.pairCall(op.id, i, op) : this.pairAnswer(op.id, op);
      if (now !== op && ops === was) ops = was.slice(0, q);
      if (ops !== was) ops.push(now);
    }
    this.ops.push(ops);
    this.blockCounts.push(this.blockCounts[i] + (old.blocks[j + 1] - old.blocks[j]));
    this.reasoningCounts.push(this.reasoningCounts[i] + (old.reasoning[j + 1] - old.reasoning[j]));
    this.openResultCounts.push(this.openResultCounts[i] + (old.open[j + 1] - old.open[j]));
    // A summary marker as append makes it: a summary, or a message whose every block is one.
    if (src.synthetic === 'summary' || isSummaryMessage(m)) this.markers.push({ id: `replay-summary-${i}`, source: 'other', atMessage: i });
  }

  /** replayChecks.reset: the context after a reset equals one appended message by message. */
  private checkAgainstFresh(items: readonly Item[]): void {
    const fresh = new ContextMessages();
    for (const it of items) fresh.append(it);
    const view = (c: ContextMessages) => JSON.stringify([c.messages.map((m) => [m.id, m.index, m.turn, m.role, m.meta]), c.markers, c.sums, c.blockCounts, c.reasoningCounts, c.openResultCounts, c.ops, [...c.calls], [...c.answered], c.issues, c.unanswered, c.turn, c.projected.map((p) => [p.sourceId, p.turn, p.role, p.meta])]);
    if (view(this) !== view(fresh)) throw new Error('ContextMessages.reset: the context differs from one appended message by message');
  }

  /** Tokens of the first `k` messages (every block; the tools not included). */
  tokensBefore(k: number): number {
    const n = BUDGET_KINDS.length;
    let t = 0;
    for (let j = 0; j < n; j++) t += this.sums[k * n + j];
    return t;
  }

  /**
   * Where a look of a plan that keeps the newest `keep` tool results (ReplayPolicy.endLocal) must
   * start: the message holding the oldest of them, moved back to the message of the call of any
   * result after it (so the tail holds every pair it answers). 0 when the context holds fewer.
   */
  tailStart(rule: EndLocal): number {
    let k = 0;
    if ('keepResults' in rule) {
      let seen = 0;
      for (let i = this.messages.length - 1; i >= 0 && k === 0; i--) {
        const blocks = this.messages[i].blocks;
        for (let j = 0; j < blocks.length; j++) if (blocks[j].kind === 'tool_result') seen++;
        if (seen >= rule.keepResults) k = i;
      }
    } else {
      // The oldest result within the newest `keepResultTokens` (the tokens of the results after it
      // under it), and no later than the first message of the last `keepTurns` turns.
      let seen = 0;
      let oldest = -1;
      for (let i = this.messages.length - 1; i >= 0 && seen < rule.keepResultTokens; i--) {
        const blocks = this.messages[i].blocks;
        for (let j = blocks.length - 1; j >= 0; j--) {
          const b = blocks[j];
          if (b.kind !== 'tool_result') continue;
          if (seen < rule.keepResultTokens) oldest = i;
          seen += b.tokens;
        }
      }
      if (oldest < 0) return 0;
      k = oldest;
      const firstKeptTurn = this.turn - rule.keepTurns + 1;
      while (k > 0 && this.messages[k - 1].turn >= firstKeptTurn) k--;
    }
    // Scan what each step back takes in for results whose call comes before it.
    for (let end = this.messages.length; k > 0; ) {
      let to = k;
      for (let i = k; i < end; i++) for (const b of this.messages[i].blocks) if (b.kind === 'tool_result') to = Math.min(to, this.calls.get(b.callId) ?? to);
      if (to === k) break;
      end = k;
      k = to;
    }
    return k;
  }

  /**
   * The context from message `k` on as a log of its own: each message its id, role, blocks and turn
   * (the turns and the turn count stay the whole context's, so a step's turn window is the same),
   * its index its position in the tail. A plan with `endLocal` projects it instead of the whole.
   */
  tailLog(log: Transcript, tools: Transcript['tools'], k: number): Transcript {
    const messages: Message[] = [];
    for (let i = k; i < this.messages.length; i++) {
      const m = this.messages[i];
      messages.push({ ...m, index: i - k });
    }
    replayWork.tailLooks++;
    const tail: Transcript = { ...log, messages, tools, markers: [], usage: [], turnCount: this.messages.length === 0 ? 0 : this.turn + 1 };
    partnersFrom(tail, log);
    return tail;
  }

  /** Tool results that are not stubs in the first `k` messages. */
  openResultsBefore(k: number): number {
    return this.openResultCounts[k];
  }

  /** Reasoning blocks in the context. */
  get reasoningBlocks(): number {
    return this.reasoningCounts[this.messages.length];
  }

  /** The context has no pairing issue (validatePairing would find none). */
  get paired(): boolean {
    return this.issues === 0 && this.unanswered === 0;
  }

  /**
   * A transcript whose messages are the context: what a policy compacts when it fires. What
   * projectTranscript would pass over the whole context for (its starting context, totals, block
   * count, and its pairing when it has no issue) is handed to it from what was kept as it grew.
   */
  asLog(log: Transcript, tools: Transcript['tools']): Transcript {
    if (!Object.isFrozen(tools)) {
      if (this.frozenTools?.of !== tools) this.frozenTools = { of: tools, copy: Object.freeze(tools.slice()) as Transcript['tools'] };
      tools = this.frozenTools.copy;
    }
    const messages = Object.freeze(this.messages.slice()) as Message[];
    const context: Transcript = { ...log, messages, tools, markers: this.markers.slice(), usage: [], turnCount: messages.length === 0 ? 0 : this.turn + 1 };
    const k = BUDGET_KINDS.length;
    const byKind = emptyByKind();
    for (let j = 0; j < k; j++) byKind[BUDGET_KINDS[j]] = this.sums[messages.length * k + j];
    const totals = finishTotals(byKind, tools);
    rememberLogContext(context, Object.freeze(this.projected.slice()), { totals, blocks: this.blockCounts[messages.length], ...(this.paired && { pairingIssues: [] }) });
    partnersFrom(context, log);
    return context;
  }
}

/** What a reset kept of the messages from `k` on: position `base` of its arrays is message k (its sums and counts at `base` are those before it). */
interface OldMessages {
  base: number;
  messages: Message[];
  ops: PairingOp[][];
  sums: number[];
  blocks: number[];
  reasoning: number[];
  open: number[];
  projected: ProjectedMessage[];
  /** Each old message's blocks array → its position (the first, for a shared one); made when first needed. */
  byBlocks: Map<readonly unknown[], number> | undefined;
}

const KIND_INDEX = Object.fromEntries(BUDGET_KINDS.map((k, i) => [k, i])) as Record<BudgetKind, number>;

/**
 * commonPrefixTokens of `a` and the context made of `items`' first `from` messages and then `tail`
 * (a tail look's result), with `prefixTokens` the tokens of those first messages.
 */
function commonPrefixTokensWithTail(a: readonly Item[], items: readonly Item[], from: number, prefixTokens: number, tail: readonly ProjectedMessage[]): number {
  let n = 0;
  let i = 0;
  if (a === items && a.length >= from) {
    n = prefixTokens;
    i = from;
  }
  const len = Math.min(a.length, from + tail.length);
  for (; i < len && sameItem(a[i].msg, i < from ? items[i].msg : tail[i - from]); i++) n += a[i].tokens;
  return n;
}

/** Tokens of the leading items the provider sees unchanged in the messages `b`. */
function commonPrefixTokens(a: readonly Item[], b: readonly ProjectedMessage[]): number {
  let n = 0;
  const len = Math.min(a.length, b.length);
  for (let i = 0; i < len && sameItem(a[i].msg, b[i]); i++) n += a[i].tokens;
  return n;
}

const isSummaryMessage = (m: Message) => m.blocks.length > 0 && m.blocks.every((b) => b.kind === 'summary');

/** replayChecks.tail: a tail look against the look at the whole context. */
function checkTailLook(tail: Candidate, whole: Candidate, items: readonly Item[], at: number, policy: string): void {
  const view = (ms: readonly ProjectedMessage[]) => JSON.stringify(ms.map((m) => [m.sourceId, m.role, m.turn, m.meta, m.synthetic, m.blocks]));
  const merged = [...items.slice(0, tail.from).map((it) => it.msg), ...tail.projection.messages];
  const differs: string[] = [];
  if (tail.after !== whole.after) differs.push(`after ${tail.after} ≠ ${whole.after}`);
  if (tail.stable !== whole.stable) differs.push(`stable ${tail.stable} ≠ ${whole.stable}`);
  if (tail.toolTokens !== whole.toolTokens) differs.push(`tools ${tail.toolTokens} ≠ ${whole.toolTokens}`);
  if (JSON.stringify(tail.projection.fates) !== JSON.stringify(whole.projection.fates)) differs.push('fates');
  if (tail.projection.summaries.length !== whole.projection.summaries.length) differs.push('summaries');
  if (view(merged) !== view(whole.projection.messages)) differs.push('messages');
  if (differs.length) throw new Error(`${policy}: the tail look from context message ${tail.from} at message ${at + 1} differs from the whole look: ${differs.join(', ')}`);
}

const RECORDED_POLICY: ReplayPolicy = { id: 'recorded', label: 'As recorded', kind: 'recorded' };

/** Replay every given policy on the transcript. */
export function simulate(source: Transcript, policies: readonly ReplayPolicy[], options: SimulationOptions = {}): Simulation {
  checkUsage(source);
  // Usage implausible next to the content (10 tokens a call for a context of 1.5M: "peak 10"):
  // replayed on our counts, as a session without recorded usage is, and said (issue 31).
  const usageNote = source.usage.length ? implausibleUsageMessage(usagePlausibility(source)) : undefined;
  const log: Transcript = usageNote ? { ...source, usage: [] } : source;
  const { model: limits, assumed } = resolveModel(log, options.model);
  const info: ModelInfo | undefined = typeof options.model === 'object' ? options.model : lookupModel(typeof options.model === 'string' ? options.model : log.model);
  const rules = cacheRules(info, { ttl: options.cacheTtl });
  const cal = calibrate(log);
  const factor = cal?.factor ?? 1;
  const overhead = Math.max(0, cal?.invisibleOverhead ?? 0);
  const calls = modelCalls(log);
  // Overlapping source markers can take a message out twice: a context is never negative.
  const before = visibleBefore(log).map((n) => Math.max(0, n));
  const toolTokens = log.tools.reduce((n, t) => n + t.tokens, 0);
  const price = info?.price;

  let recorded: Simulation['recorded'];
  if (calls.some((c) => c.recorded)) {
    recorded = { usd: 0, input: 0, cacheRead: 0, cacheWrite: 0, output: 0 };
    for (const c of calls) {
      const u = c.recorded;
      if (!u) continue;
      const mi = lookupModel(u.model ?? log.model) ?? info;
      recorded.usd += mi ? callCost(mi, u) : 0;
      recorded.input += u.input;
      recorded.cacheRead += u.cacheRead;
      recorded.cacheWrite += u.cacheWrite;
      recorded.output += u.output;
    }
  }

  const recordedPrompt = (c: CallPoint) => (c.recorded ? c.recorded.input + c.recorded.cacheRead + c.recorded.cacheWrite : Math.round((before[c.promptEnd] + overhead) * factor));
  // Each call at its own model's price (a session can switch models, or route small calls to a
  // cheaper one), unless the user picked the model to price the session with.
  const priceCache = new Map<string, ModelInfo['price'] | undefined>();
  const priceOf = (c: CallPoint): ModelInfo['price'] | undefined => {
    if (options.model) return price;
    const id = c.recorded?.model ?? log.messages[c.messageIndex]?.model;
    if (!id) return price;
    if (!priceCache.has(id)) priceCache.set(id, lookupModel(id)?.price ?? price);
    return priceCache.get(id);
  };
  const pricing = info ? pricingOf(info, options.cacheTtl) : undefined;
  const env: ReplayEnv = { calls, before, toolTokens, factor, overhead, limits, rules, price, priceOf, recordedPrompt, hitScale: 1, ...(pricing && { pricing }), minCleared: clearAtLeast(pricing ?? { minTokens: 0 }, limits.contextWindow - limits.maxOutput) };
  // Cache calibration: the share of the modelled cache hits the provider really served on this
  // session (best-effort caches hit less than "whenever the prefix is alive"), from the
  // "as recorded" replay over the recorded calls; every policy's hits are scaled by it.
  let cacheFit: Simulation['cacheFit'];
  if (recorded) {
    const asRecorded = replayOne(log, RECORDED_POLICY, env);
    let modelled = 0;
    let real = 0;
    let usd = 0;
    let n = 0;
    for (const c of asRecorded.calls) {
      if (!c.recorded || c.sidechain) continue;
      const u = calls[c.index].recorded!;
      modelled += c.cacheRead;
      real += u.cacheRead;
      n++;
    }
    for (const c of asRecorded.calls) if (c.recorded) usd += c.usd;
    const rawError = recorded.usd > 0 ? (usd - recorded.usd) / recorded.usd : 0;
    const hitScale = n >= 3 && modelled > 0 ? Math.min(2, real / modelled) : 1;
    env.hitScale = hitScale;
    cacheFit = { hitScale, rawError, calls: n };
  }
  const results = policies.map((p) => replayOne(log, p, env));
  return {
    model: { ...(info && { id: info.id, label: info.label }), contextWindow: limits.contextWindow, maxOutput: limits.maxOutput, assumed, priced: !!price },
    cache: rules,
    ...(cacheFit && { cacheFit }),
    calibration: { factor, overhead, fromUsage: !!cal },
    ...(recorded && { recorded }),
    results,
    warnings: [...(usageNote ? [usageNote] : []), ...backwardsTimes(calls, log)],
    ...(usageNote && { usageIgnored: true }),
  };
}

interface Candidate {
  /** The projection of the context, or of its tail from message `from` on (the messages before it kept as they are). */
  projection: ReturnType<typeof projectTranscript>;
  from: number;
  /** Tokens of the messages before `from`. */
  prefixTokens: number;
  tools: Transcript['tools'];
  toolTokens: number;
  /** The next call's prompt with it. */
  after: number;
  /** Leading tokens of that prompt the previous request shares (the cache still holds them). */
  stable: number;
  /** The summarizer's call, when the plan summarized. */
  call?: CallBill;
}

interface ReplayEnv {
  calls: CallPoint[];
  before: number[];
  toolTokens: number;
  factor: number;
  overhead: number;
  limits: ModelLimits;
  rules: CacheRules;
  price: ModelInfo['price'] | undefined;
  priceOf(c: CallPoint): ModelInfo['price'] | undefined;
  recordedPrompt(c: CallPoint): number;
  /** Scale on modelled cache hits (the session's observed hit rate; 1 = the model as is). */
  hitScale: number;
  /** The model's pricing for the cache-aware rule (undefined: not priced, no early compaction). */
  pricing?: CachePricing;
  /** The least an early compaction must clear (cache-pays.ts clearAtLeast). */
  minCleared: number;
}

/**
 * One policy's replay (`replayOne`): its state is one object of one shape, and each part of a call's
 * work is a method of its own. It was one function of ~300 lines with closures: V8 compiled the whole
 * of it, callees inlined, ~200 ms of background CPU a time, and compiled it again after each
 * deoptimization (a path or an object shape the first policies had not shown it): 14 compiles, 1.5 s
 * of the Replay page's 18 policies at 2,000 turns (DESIGN-NOTES, session 20). Methods are compiled
 * (and deoptimized) on their own.
 */
class PolicyRun {
  readonly msgs: Message[];
  readonly out: ReplayedCall[] = [];
  readonly firings: number[] = [];
  readonly fates = new Map<string, Fate>();
  readonly tracksContext: boolean;
  // The policy's context (for 'none' and plans): items, and how far into the log it has read.
  items: Item[] = [];
  // Tokens of `items` (kept with it: summing the context on every call was quadratic in the calls).
  itemsTokens = 0;
  readonly contextMessages = new ContextMessages();
  tools: Transcript['tools'];
  toolTokens: number;
  cursor = 0;
  prevItems: Item[] = [];
  prevPrompt = 0;
  prevTime: number | undefined = undefined;
  first = true;
  seenRecorded = false;
  // A provider caches per model: a call to another model than the previous one (Gemini CLI routes
  // between Flash and Pro) reads only what that model cached, at its own last call.
  prevModel: string | undefined = undefined;
  readonly lastOfModel = new Map<string, { prompt: number; time?: number }>();
  armedAt = -Infinity;
  armedEvents = -Infinity;
  // Cache-aware Auto: the prompt size at its last look, and where its last compaction ended (items index).
  checkedAt = -Infinity;
  boundary = 0;
  // A plan local to the context's end (endLocal): its next look need project only from this message (0: all).
  tailFrom = 0;
  mainCallsSoFar = 0;
  // 'recorded': the source's own markers take effect at their message; a marker rewrites the prefix.
  readonly markerAt = new Map<number, number>();
  markerCursor = 0;
  readonly trigger: number | undefined;
  readonly reArm: number;
  lastTurn = -1;
  // The call being replayed: its recorded prompt (`base`) and whether the cache is alive as the policy can know it.
  base = 0;
  aliveGuess = false;
  // The context as a log, built once per call: the plan and every candidate of this call
  // compact the same one (and projectTranscript's per-log work is done once for it).
  contextLog: Transcript | undefined = undefined;

  constructor(
    readonly log: Transcript,
    readonly policy: ReplayPolicy,
    readonly env: ReplayEnv,
  ) {
    this.msgs = log.messages;
    this.tracksContext = policy.kind !== 'recorded';
    this.tools = log.tools;
    this.toolTokens = env.toolTokens;
    for (const k of log.markers) if (k.covers) this.markerAt.set(k.atMessage, Math.min(this.markerAt.get(k.atMessage) ?? Infinity, k.covers[0]));
    this.trigger = policy.triggerTokens?.(env.limits);
    this.reArm = 0.05 * env.limits.contextWindow;
  }

  run(): ReplayResult {
    const calls = this.env.calls;
    for (let ci = 0; ci < calls.length; ci++) {
      const c = calls[ci];
      if (c.sidechain) this.sideCall(c, ci);
      else this.mainCall(c, ci);
    }
    return this.finish();
  }

  read(upTo: number): void {
    const msgs = this.msgs;
    for (; this.cursor < upTo; this.cursor++) {
      const m = msgs[this.cursor];
      if (m.sidechain || isSummaryMessage(m)) continue;
      const it = itemOf(wrapMessage(m));
      this.items.push(it);
      this.itemsTokens += it.tokens;
      this.contextMessages.append(it);
    }
  }

  /** The call's prompt with the context as it is now. */
  size(c: CallPoint): number {
    return Math.max(1, Math.round(this.base + this.env.factor * (this.toolTokens + this.itemsTokens - this.env.before[c.promptEnd])));
  }

  contextNow(): Transcript {
    return (this.contextLog ??= this.contextMessages.asLog(this.log, this.tools));
  }

  sideCall(c: CallPoint, ci: number): void {
    const u = c.recorded!;
    const p = this.env.priceOf(c);
    const usd = p ? callCost({ price: p } as ModelInfo, u) : 0;
    this.out.push({ index: ci, messageIndex: c.messageIndex, turn: c.turn, sidechain: true, recorded: true, prompt: u.input + u.cacheRead + u.cacheWrite, fired: false, cacheBroken: false, input: u.input, cacheRead: u.cacheRead, cacheWrite: u.cacheWrite, output: u.output, usd, overWindow: false });
  }

  /**
   * A candidate compaction of the context (`from` > 0: `context` is the context from that message
   * on, a tail look, the rest kept as it is). A summarizer's call sends the context it summarizes
   * (the previous request's prefix, read from the cache while alive) and writes the summary.
   */
  candidate(c: CallPoint, prompt: number, steps: Step[], from: number, context: Transcript): Candidate {
    const env = this.env;
    const factor = env.factor;
    replayWork.messagesProjected += context.messages.length;
    // A plan's budget is a prompt size (what the model is sent); the context it compacts is
    // counted the way the file is: less the invisible overhead, ÷ the calibration factor.
    const scaled = steps.map((st) => (st.budget === undefined ? st : { ...st, budget: Math.max(1, Math.floor((st.budget - env.overhead) / factor)) }));
    const projection = projectTranscript(context, scaled, { baseline: 'log', signalCacheOf: this.log });
    const nextTools = projection.tools as Transcript['tools'];
    const nextToolTokens = nextTools.reduce((n, t) => n + t.tokens, 0);
    // The projection's own total (its tools and every block, counted once by project) is the
    // candidate's size; its items are made only if it is kept (most looks keep nothing).
    const prefixTokens = from > 0 ? this.contextMessages.tokensBefore(from) : 0;
    const after = Math.max(1, Math.round(this.base + factor * (prefixTokens + projection.tokens.after.total - env.before[c.promptEnd])));
    const common = from > 0 ? commonPrefixTokensWithTail(this.prevItems, this.items, from, prefixTokens, projection.messages) : commonPrefixTokens(this.prevItems, projection.messages);
    const stable = Math.min(this.prevPrompt, Math.round((env.overhead + nextToolTokens) * factor + factor * common));
    const summaryTokens = projection.summaries.reduce((n, x) => n + x.tokens, 0);
    const p = env.priceOf(c);
    const call = summaryTokens > 0 ? scaleHits(billCall(env.rules, p, prompt, Math.min(prompt, this.prevPrompt), this.aliveGuess, Math.round(summaryTokens * factor)), env.hitScale, env.rules, p) : undefined;
    return { projection, from, prefixTokens, tools: nextTools, toolTokens: nextToolTokens, after, stable, call };
  }

  /** The cache-aware Auto's early look: the whole context, or only what came since the last compaction, whichever nets more. */
  early(c: CallPoint, prompt: number): { chosen?: Candidate; declined?: ReplayedCall['declined'] } {
    const env = this.env;
    const policy = this.policy;
    this.checkedAt = prompt;
    const callsToCome = estimateCallsToCome(this.mainCallsSoFar);
    const options: Array<{ cand: Candidate; d: EarlyDecision }> = [];
    const context = this.contextNow();
    const tryPlan = (steps: Step[]) => {
      const cand = this.candidate(c, prompt, steps, 0, context);
      const d = decideEarly({ before: prompt, after: cand.after, stablePrefix: cand.stable, callUsd: cand.call?.usd ?? 0, cacheAlive: this.aliveGuess }, env.pricing!, callsToCome, env.minCleared);
      options.push({ cand, d });
    };
    tryPlan(policy.early!.plan(context, env.limits));
    if (policy.early!.tailPlan && this.boundary > 0 && this.boundary < this.items.length) tryPlan(policy.early!.tailPlan(context, env.limits, this.boundary));
    const best = options.filter((o) => o.d.compact).sort((a, b) => b.d.netUsd - a.d.netUsd)[0];
    if (best) return { chosen: best.cand };
    const closest = options.sort((a, b) => b.d.netUsd - a.d.netUsd)[0];
    return { declined: { reason: closest.d.reason, netUsd: closest.d.netUsd } };
  }

  /** The context after a kept compaction: its items, tokens and log messages. */
  keep(chosen: Candidate): void {
    for (const [id, f] of Object.entries(chosen.projection.fates)) if (f.kind !== 'kept') this.fates.set(id, f);
    if (chosen.from > 0) {
      // A tail look: the items before it stay, the tail's are made.
      // In place: a copy of the whole context at every firing was quadratic (`prevItems`, the
      // only other reference, is the same array and is not read again before it is set).
      const items = this.items;
      items.length = chosen.from;
      let tailTokens = 0;
      for (const m of chosen.projection.messages) {
        const it = itemOf(m);
        items.push(it);
        tailTokens += it.tokens;
      }
      this.itemsTokens = chosen.prefixTokens + tailTokens;
      this.contextMessages.reset(items, chosen.from);
    } else {
      this.items = chosen.projection.messages.map(itemOf);
      this.itemsTokens = itemTokens(this.items);
      this.contextMessages.reset(this.items);
    }
    this.tools = chosen.tools;
    this.toolTokens = chosen.toolTokens;
  }

  mainCall(c: CallPoint, ci: number): void {
    const env = this.env;
    const policy = this.policy;
    const rules = env.rules;
    const base = env.recordedPrompt(c);
    this.base = base;
    let prompt: number;
    let prefix: number;
    let fired = false;
    let firedBefore: number | undefined;
    let declined: ReplayedCall['declined'];
    let compaction: ReplayedCall['compaction'];
    // The cache as the policy can know it before the call: alive when the gap since the previous call is within the TTL.
    this.aliveGuess = ci > 0 && (this.prevTime === undefined || c.time === undefined || c.time - this.prevTime <= rules.ttlMs);
    if (!this.tracksContext) {
      prompt = base;
      // A source compaction between the previous call and this one rewrote the prefix from the first message it covered.
      let cut = Infinity;
      for (; this.markerCursor < c.promptEnd; this.markerCursor++) if (this.markerAt.has(this.markerCursor)) cut = Math.min(cut, this.markerAt.get(this.markerCursor)!);
      prefix = cut === Infinity ? this.prevPrompt : Math.round((env.before[cut] + env.overhead) * env.factor);
    } else {
      this.read(c.promptEnd);
      this.contextLog = undefined;
      prompt = this.size(c);
      const contextMessages = this.contextMessages;
      const trigger = this.trigger;
      const overTokens = trigger !== undefined && prompt >= trigger && prompt >= this.armedAt + this.reArm;
      const overEvents = policy.triggerEvents !== undefined && this.items.length >= policy.triggerEvents && this.items.length >= this.armedEvents + policy.triggerEvents / 2;
      // JP checks between turns only: the first call of a turn (the previous turn has completed).
      const checks = policy.checkAt !== 'turn' || c.turn !== this.lastTurn;
      const forced = policy.kind === 'plan' && !!policy.plan && checks && (overTokens || overEvents);
      let chosen: Candidate | undefined;
      let why: 'window' | 'pays' = 'window';
      // A plan that only removes reasoning, at a context without any (and no pairing to repair), would
      // take nothing out: the look is not kept, as below, without projecting the whole context.
      if (forced && policy.onlyRemoves === 'reasoning' && contextMessages.reasoningBlocks === 0 && contextMessages.paired) {
        replayWork.looksWithoutProjection++;
        this.armedAt = prompt;
        this.armedEvents = this.items.length;
      } else if (forced && policy.endLocal && this.tailFrom > 0 && contextMessages.paired && contextMessages.markers.length === 0 && ('keepResults' in policy.endLocal || contextMessages.openResultsBefore(this.tailFrom) === 0)) {
        // A plan local to the context's end: the messages before `tailFrom` hold only results the
        // previous look already left or stubbed for good; project the rest.
        const tail = contextMessages.tailLog(this.log, this.tools, this.tailFrom);
        chosen = this.candidate(c, prompt, policy.plan!(tail, env.limits), this.tailFrom, tail);
        if (replayChecks.tail) checkTailLook(chosen, this.candidate(c, prompt, policy.plan!(this.contextNow(), env.limits), 0, this.contextNow()), this.items, c.messageIndex, policy.id);
      } else if (forced) chosen = this.candidate(c, prompt, policy.plan!(this.contextNow(), env.limits), 0, this.contextNow());
      else if (policy.early && env.pricing && ci > 0 && prompt >= this.checkedAt + env.minCleared) {
        const look = this.early(c, prompt);
        chosen = look.chosen;
        if (chosen) why = 'pays';
        declined = look.declined;
      }
      // Whether the look's outcome is in the context now (kept, or it changed nothing): then a plan
      // local to the end has settled every result before its newest `keepResults`.
      // (A look of a tokens rule that pruned nothing may prune later, when more is reclaimable: only a kept one settles.)
      const settles = forced && policy.endLocal !== undefined && chosen !== undefined && (chosen.after < prompt || ('keepResults' in policy.endLocal && !Object.values(chosen.projection.fates).some((f) => f.kind !== 'kept')));
      // A compaction that takes nothing out would only rewrite the cache: not kept (the trigger re-arms as after a firing).
      if (chosen && chosen.after >= prompt) {
        this.armedAt = prompt;
        this.armedEvents = this.items.length;
        chosen = undefined;
      }
      if (chosen) {
        this.keep(chosen);
        firedBefore = prompt;
        prompt = this.size(c);
        fired = true;
        this.firings.push(c.messageIndex);
        this.armedAt = prompt;
        this.armedEvents = this.items.length;
        this.checkedAt = prompt;
        this.boundary = this.items.length;
        compaction = this.compactionOf(chosen, firedBefore, prompt, why);
      }
      if (settles) this.tailFrom = contextMessages.tailStart(policy.endLocal!);
      // Without a compaction the request only appends: the previous one is its prefix. After one,
      // the prefix ends at the first message the compaction changed (`prevItems` is the array the
      // previous request was read into; it never holds more than the previous prompt's prefix).
      prefix = fired ? chosen!.stable : this.prevPrompt;
      this.prevItems = this.items;
      this.lastTurn = c.turn;
      this.contextLog = undefined;
    }
    this.bill(c, ci, prompt, prefix, fired, firedBefore, compaction, declined);
  }

  /** A kept compaction's record: its call, what it removed and rewrote, its break-even. */
  compactionOf(chosen: Candidate, firedBefore: number, prompt: number, why: 'window' | 'pays'): NonNullable<ReplayedCall['compaction']> {
    const call = chosen.call;
    const compaction: NonNullable<ReplayedCall['compaction']> = { callUsd: call?.usd ?? 0, ...(call && { call: { input: call.input, cacheRead: call.cacheRead, cacheWrite: call.cacheWrite, output: call.output } }), removed: Math.max(0, firedBefore - prompt), rewrite: Math.max(0, prompt - chosen.stable), breakEvenCalls: null, callsAfter: 0, paidBack: false, why };
    if (this.env.pricing) {
      const v = judgeCompaction({ before: firedBefore, after: prompt, stablePrefix: chosen.stable, callUsd: compaction.callUsd, cacheAlive: this.aliveGuess }, this.env.pricing);
      compaction.breakEvenCalls = Number.isFinite(v.breakEvenCalls) ? v.breakEvenCalls : null;
    }
    return compaction;
  }

  /** The main-chain call's bill with the provider's cache, pushed to `out`. */
  bill(c: CallPoint, ci: number, prompt: number, prefix: number, fired: boolean, firedBefore: number | undefined, compaction: ReplayedCall['compaction'], declined: ReplayedCall['declined']): void {
    const rules = this.env.rules;
    const model = c.recorded?.model ?? this.msgs[c.messageIndex]?.model;
    const first = this.first;
    const switched = !first && model !== undefined && this.prevModel !== undefined && model !== this.prevModel;
    const own = switched ? this.lastOfModel.get(model!) : undefined;
    const sinceTime = switched ? own?.time : this.prevTime;
    // The first recorded call: what the provider held before it is outside anything the file records
    // (the calls before it, if any, carry no usage), so its recorded cache read is taken as the start.
    const anchor = !!c.recorded && !this.seenRecorded;
    // The replay's clock never goes back: a call stamped before the one it follows is taken at the
    // latest time seen (measured from its wrong time, the next gap expired every cache: +37 %, issue 30).
    const at = c.time === undefined ? undefined : Math.max(c.time, this.prevTime ?? -Infinity);
    let alive = anchor || (first ? false : sinceTime === undefined || at === undefined || at - sinceTime <= rules.ttlMs);
    if (switched && !own) alive = false;
    if (switched && own) prefix = Math.min(prefix, own.prompt);
    // The first call: the cache state at the session's start is outside the file; where recorded, take it as recorded.
    const startPrefix = anchor ? c.recorded!.cacheRead : first ? 0 : prefix;
    const price = this.env.priceOf(c);
    const bill = scaleHits(billCall(rules, price, prompt, Math.min(prompt, startPrefix), alive, c.output, c.recorded?.input ?? 0), this.env.hitScale, rules, price);
    const broken = !first && (!alive || prefix < this.prevPrompt);
    // Assigned in the order the spreads gave (the JSON is the same), not spread: objects made by
    // spreads whose parts vary take shapes of their own; here a plain call has one, and a call
    // that fired or declined adds its fields to it.
    const call = { index: ci, messageIndex: c.messageIndex, turn: c.turn, sidechain: false, recorded: !!c.recorded, prompt, fired } as ReplayedCall;
    if (firedBefore !== undefined) call.before = firedBefore;
    call.cacheBroken = broken;
    call.input = bill.input;
    call.cacheRead = bill.cacheRead;
    call.cacheWrite = bill.cacheWrite;
    call.output = bill.output;
    call.usd = bill.usd;
    call.overWindow = prompt + c.output > this.env.limits.contextWindow;
    if (compaction) call.compaction = compaction;
    if (declined) call.declined = declined;
    this.out.push(call);
    this.mainCallsSoFar++;
    this.prevPrompt = prompt;
    this.prevTime = at ?? this.prevTime;
    this.first = false;
    if (c.recorded) this.seenRecorded = true;
    if (model !== undefined) {
      this.prevModel = model;
      this.lastOfModel.set(model, { prompt, ...(at !== undefined && { time: at }) });
    }
  }

  finish(): ReplayResult {
    const policy = this.policy;
    const out = this.out;
    const firings = this.firings;
    // What it forgot: identifiers and user messages of the whole session absent from its final context.
    let identifiersLost = 0;
    let userMessagesLost = 0;
    if (this.tracksContext && this.fates.size > 0) {
      this.read(this.msgs.length);
      const fateRecord: Record<string, Fate> = {};
      for (const [id, f] of this.fates) fateRecord[id] = f;
      const lost = lostIdentifiers(this.log, { messages: this.items.map((it) => it.msg), fates: fateRecord });
      for (const l of lost) l.kind === 'instruction' ? userMessagesLost++ : identifiersLost++;
    }

    const main = out.filter((c) => !c.sidechain);
    // Each compaction's break-even against the calls the session still made after it.
    for (let k = 0; k < main.length; k++) {
      const comp = main[k].compaction;
      if (!comp) continue;
      comp.callsAfter = main.length - k;
      comp.paidBack = comp.breakEvenCalls !== null && comp.callsAfter >= comp.breakEvenCalls;
    }
    // The compaction calls (summarizers) count in the bill and its token classes.
    const sum = (k: 'input' | 'cacheRead' | 'cacheWrite' | 'output' | 'usd') => out.reduce((n, c) => n + c[k] + (k === 'usd' ? c.compaction?.callUsd ?? 0 : c.compaction?.call?.[k] ?? 0), 0);
    const promptTokens = sum('input') + sum('cacheRead') + sum('cacheWrite');
    return {
      policy: policy.id,
      label: policy.label,
      ...(policy.note && { note: policy.note }),
      calls: out,
      firings,
      totals: {
        calls: out.length,
        compactions: firings.length,
        peakContext: main.reduce((n, c) => Math.max(n, c.prompt), 0),
        callsOverWindow: main.filter((c) => c.overWindow).length,
        input: sum('input'),
        cacheRead: sum('cacheRead'),
        cacheWrite: sum('cacheWrite'),
        output: sum('output'),
        usd: sum('usd'),
        cacheHitRate: promptTokens > 0 ? sum('cacheRead') / promptTokens : 0,
        cacheBreaks: main.filter((c) => c.cacheBroken).length,
        identifiersLost,
        userMessagesLost,
        compactionUsd: main.reduce((n, c) => n + (c.compaction?.callUsd ?? 0), 0),
        compactionsNotPaidBack: main.filter((c) => c.compaction && !c.compaction.paidBack).length,
      },
    };
  }
}

function replayOne(log: Transcript, policy: ReplayPolicy, env: ReplayEnv): ReplayResult {
  return new PolicyRun(log, policy, env).run();
}
