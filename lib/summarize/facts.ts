/**
 * Mechanical fact extraction from a span of the projected context: what the offline summarizer
 * (offline.ts) writes and what an LLM prompt can be checked against. No model, no clock, no
 * randomness: the same span always gives the same facts, in the same order.
 *
 * Transcript text is untrusted: nothing here evaluates it, and every extracted string is bounded.
 */
import { extractIdentifiers } from '../categories/identifiers';
import { errorLinesOf, resultCategory } from '../categories/signal';
import { resultLinesText } from '../categories/decode-result';
import { commandOutcome, figuresOf } from '../categories';
import {
  callArguments,
  callSubject,
  defaultOutputCategory,
  exitCodeOf,
  fileEffectsOfCall,
  isTypedByUser,
  isRecord,
  isShellTool,
  lowerName,
  pathsInText,
  str,
  type FileAction,
  type FileEffect,
} from '../categories/tools';
import type { ProjectedBlock, ProjectedMessage } from '../model/projection';

// Moved to lib/categories/tools.ts (below compaction and summarize); re-exported for existing callers.
export { callArguments, callSubject, commandText, exitCodeOf, fileEffectsOfCall, filesFromCommand, filesFromPatch, isHarnessText, isShellTool, pathsInText, type FileAction, type FileEffect } from '../categories/tools';


export interface FileTouch {
  path: string;
  actions: FileAction[];
  firstTurn: number;
  lastTurn: number;
}

export type Outcome = 'ok' | 'error' | 'no result';

export interface CommandRun {
  turn: number;
  tool: string;
  command: string;
  outcome: Outcome;
  exitCode?: number;
  /** The pass/fail counts its output reports ("1 failed, 12 passed"). */
  tally?: string;
  /** The one line that says how it ended (lib/categories commandOutcome). */
  endLine?: string;
}

/** A measured figure of the span's tool output (lib/categories figuresOf): counts, durations, sizes, coverage. */
export interface Figure {
  text: string;
  turn: number;
}

export interface ErrorEvent {
  turn: number;
  tool: string;
  /** What was attempted: the command, or the tool's main argument. */
  subject: string;
  /** The most telling error line of the result. */
  line: string;
  /** How it ended within the span ("later succeeded (turn 7)", "still failing at the end of the span"). */
  resolution: string;
  resolved: boolean;
}

/** A distinct error line of the span's tool output (lib/compaction/signal.ts patterns) and where it occurred. */
export interface ErrorMessage {
  text: string;
  tool: string;
  /** Turns (0-based) of the results that printed it, in order, without repeats. */
  turns: number[];
}

export interface Instruction {
  turn: number;
  text: string;
  /** Text the harness injected into the user's turn (system reminders, command echoes), not typed by the user. */
  harness: boolean;
}

export interface PlanItem {
  text: string;
  status: string;
}

export interface SpanFacts {
  instructions: Instruction[];
  systemNotes: string[];
  files: FileTouch[];
  commands: CommandRun[];
  errors: ErrorEvent[];
  /** Every distinct error line of the span's tool results (failing tests, assertions, errors, exit codes), first seen first. */
  errorMessages: ErrorMessage[];
  /** Every distinct measured figure of the span's shell and generic tool output, first seen first. */
  figures: Figure[];
  /** Sentences of assistant text that state a decision or its reason. */
  decisions: { turn: number; text: string }[];
  /** The latest plan / todo list the agent wrote (TodoWrite, update_plan, ExitPlanMode). */
  plan: PlanItem[];
  planText?: string;
  urls: string[];
  /** Identifiers seen only in tool output and assistant text (paths, URLs, ids), first appearance first. */
  seen: { paths: string[]; urls: string[]; ids: string[]; errorLines: string[] };
  /** Backticked terms in assistant text, most frequent first. */
  concepts: string[];
  /** Summaries already present in the span (a source compaction or an earlier step). */
  embeddedSummaries: string[];
  lastAssistantText?: { turn: number; text: string };
  /** A user instruction after the last assistant message: asked but not yet answered. */
  unanswered?: Instruction;
  toolCounts: { name: string; calls: number; errors: number }[];
  turns: [number, number] | undefined;
  /** Per turn, in order: what happened (for the narrative). */
  turnLog: TurnLog[];
}

export interface TurnLog {
  turn: number;
  instructions: Instruction[];
  reads: string[];
  edits: string[];
  creates: string[];
  deletes: string[];
  commands: CommandRun[];
  errors: ErrorEvent[];
  otherTools: string[];
  lastAssistantText?: string;
}


// ---------------------------------------------------------------------------------------------
// Result reading

const ERROR_LINE = /\b(\w*Error|ERROR|Traceback|FAILED|FAIL|\w*Exception|fatal:|panic:|errors?|failed|No such file|not found|Permission denied|Segmentation fault)\b/;

/** An error-ish line anywhere in tool output (the lost report's notion of an error line). */
const SEEN_ERROR_LINE = /\b(error|exception|traceback|failed|failure|fatal|panic(?:ked)?)\b/i;

/**
 * The error lines worth keeping: the first line that reads as an error (where it broke) and, when
 * different, the most telling one (a Traceback's exception line, else the last error line: pytest,
 * tsc and cargo end with the reason).
 */
export function errorLine(content: string): string | undefined {
  const lines = content.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  const matching = lines.filter((l) => ERROR_LINE.test(l));
  if (matching.length === 0) return undefined;
  const first = matching[0];
  let telling = matching[matching.length - 1];
  const tb = lines.findIndex((l) => l.startsWith('Traceback'));
  if (tb >= 0) {
    for (let i = lines.length - 1; i > tb; i--)
      if (/^\w[\w.]*(Error|Exception|Exit|Interrupt)\b/.test(lines[i])) {
        telling = lines[i];
        break;
      }
  }
  return first === telling ? first : `${first} | ${telling}`;
}

// ---------------------------------------------------------------------------------------------

/**
 * A text's sentences, and those of a kind, remembered per text (issue 31): the offline summarizer
 * renders a span up to six times while it tightens, and a preview summarizes the same turns in
 * chunks and once more in one pass; each render split every instruction and assistant text again.
 * The lists are frozen (shared). Bounded: cleared past SENTENCE_CACHE_MAX texts; long texts are not kept.
 */
const SENTENCE_CACHE_MAX = 50_000;
const SENTENCE_TEXT_MAX = 100_000;
export const sentenceStats = { splits: 0 };
function remembered(cache: Map<string, string[]>, text: string, make: () => string[]): string[] {
  if (text.length > SENTENCE_TEXT_MAX) return make();
  let hit = cache.get(text);
  if (!hit) {
    if (cache.size >= SENTENCE_CACHE_MAX) cache.clear();
    cache.set(text, (hit = Object.freeze(make()) as string[]));
  }
  return hit;
}
const sentenceCache = new Map<string, string[]>();
const decisionCache = new Map<string, string[]>();
const constraintCache = new Map<string, string[]>();
const nextCache = new Map<string, string[]>();

/** Sentences of a text (split on ., !, ? followed by space, and on newlines). */
export function sentences(text: string): string[] {
  return remembered(sentenceCache, text, () => {
    sentenceStats.splits++;
    return text
      .split(/(?<=[.!?])\s+|\n+/)
      .map((s) => s.trim().replace(/^[-*•]\s+/, ''))
      .filter((s) => s.length >= 12);
  });
}

const DECISION = /\b(because|instead|decided|decide to|decision|chose|choose|approach|rather than|root cause|the issue (?:is|was)|the problem (?:is|was)|the cause|so that|turns out|since the|the fix (?:is|was)|better to|prefer|trade-?off|in order to|(?:fixed|addressed|resolved|caused|solved) by)\b/i;
const CONSTRAINT = /\b(must|should|never|always|don't|do not|make sure|ensure|only|without|require|required|need to|needs to|avoid|please|cannot|can't|no more than|at most|at least)\b/i;
const NEXT = /\b(next|TODO|remaining|still need|will now|then I|after that|follow-up|not yet)\b/i;

export function decisionSentences(text: string): string[] {
  return remembered(decisionCache, text, () => sentences(text).filter((s) => DECISION.test(s)));
}
export function constraintSentences(text: string): string[] {
  return remembered(constraintCache, text, () => sentences(text).filter((s) => CONSTRAINT.test(s)));
}
export function nextStepSentences(text: string): string[] {
  return remembered(nextCache, text, () => sentences(text).filter((s) => NEXT.test(s)));
}

const URL_RE = /\bhttps?:\/\/[^\s<>"'`)\]}]+/g;

function urlsIn(text: string): string[] {
  return (text.match(URL_RE) ?? []).map((u) => u.replace(/[.,;:]+$/, ''));
}


function backticked(text: string): string[] {
  return (text.match(/`([^`\n]{2,80})`/g) ?? []).map((s) => s.slice(1, -1));
}

// ---------------------------------------------------------------------------------------------
// Plans

function planFromCall(name: string, args: unknown): { items: PlanItem[]; text?: string } | undefined {
  if (!isRecord(args)) return undefined;
  const n = lowerName(name);
  if (n === 'todowrite' && Array.isArray(args.todos)) {
    return {
      items: args.todos.filter(isRecord).map((t) => ({ text: String(t.content ?? t.activeForm ?? ''), status: String(t.status ?? 'pending') })),
    };
  }
  if (n === 'update_plan' && Array.isArray(args.plan)) {
    return {
      items: args.plan.filter(isRecord).map((t) => ({ text: String(t.step ?? ''), status: String(t.status ?? 'pending') })),
      text: str(args.explanation),
    };
  }
  if (n === 'exitplanmode' && str(args.plan)) return { items: [], text: str(args.plan) };
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// The walk

interface OpenCall {
  name: string;
  args: unknown;
  turn: number;
  subject: string;
  command?: CommandRun;
}

function textOf(block: ProjectedBlock): string | undefined {
  if (block.kind === 'text') return block.text;
  return undefined;
}

/**
 * extractIdentifiers (lost.ts) on bounded windows: its path pattern backtracks quadratically on
 * hostile text (a 200 KB run of "a/a/a/…" takes minutes), and transcript text is untrusted. Lines
 * are cut into windows of at most 300 characters, at whitespace where possible, which keeps the
 * cost linear; an identifier longer than a window is the only thing this can miss.
 */
const ID_WINDOW = 300;

/** Whether a window can hold an identifier at all: a path (a "/" and a "."), a URL, or a hash (hex with a digit). */
function mayHoldIdentifier(w: string): boolean {
  return (w.includes('/') && w.includes('.')) || w.includes('://') || (/\d/.test(w) && /[0-9a-f]{7}/i.test(w));
}

export function boundedIdentifiers(text: string): ReturnType<typeof extractIdentifiers> {
  const out: ReturnType<typeof extractIdentifiers> = [];
  const scan = (w: string) => {
    if (mayHoldIdentifier(w)) out.push(...extractIdentifiers(w));
  };
  for (const line of text.split('\n')) {
    if (line.length <= ID_WINDOW) {
      if (line.length >= 4) scan(line);
      continue;
    }
    for (let i = 0; i < line.length; ) {
      let end = Math.min(line.length, i + ID_WINDOW);
      if (end < line.length) {
        const space = line.lastIndexOf(' ', end);
        if (space > i + ID_WINDOW / 2) end = space;
      }
      scan(line.slice(i, end));
      i = end;
    }
  }
  return out;
}

/** Keys whose values are file bodies or code, not instructions: paths written there are content. */
const BODY_KEYS = new Set(['content', 'old_string', 'new_string', 'text', 'edits', 'patch', 'input', 'file_text', 'old_str', 'new_str', 'code', 'todos', 'plan', 'search', 'replace']);

/** The prose of a call's arguments (commands, prompts, descriptions), without file bodies. */
function argumentProse(args: unknown): string {
  if (typeof args === 'string') return args.includes('*** Begin Patch') ? '' : args;
  if (!isRecord(args)) return '';
  const parts: string[] = [];
  for (const [k, v] of Object.entries(args)) {
    if (BODY_KEYS.has(k)) continue;
    if (typeof v === 'string') parts.push(v);
    else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) parts.push(v.join(' '));
  }
  return parts.join('\n');
}

/**
 * What the walk reads of one block that depends on the block alone (issue 31, session 16): its
 * identifiers, URLs, backticked terms, a result's decoded lines, error lines, figures and how a
 * command ended. Remembered per block object: a log's blocks are the very objects every context
 * made of it holds (a projection makes new blocks only for what it changes), so the replay's
 * summarizing policies, firing after firing, and a preview's chunks and its one pass read each
 * block once, not once per summary that covers it. Blocks are not mutated; each entry also keeps
 * the text it was made from and is made again if that differs. Entries go with their blocks (WeakMap).
 */
interface TextFacts {
  text: string;
  urls: string[];
  /** boundedIdentifiers, for assistant text (noteSeen); made when first asked. */
  ids?: ReturnType<typeof extractIdentifiers>;
  backticked?: string[];
  paths?: string[];
}
interface CallFacts {
  input: unknown;
  name: string;
  args: unknown;
  subject: string;
  /** pathsInText of the arguments' prose. */
  prosePaths: string[];
  urls: string[];
}
interface ResultFacts {
  content: string;
  isError: boolean | undefined;
  name: string;
  said: string;
  /** boundedIdentifiers(said), when noteSeen reads it (not empty, not over 2 MB). */
  ids: ReturnType<typeof extractIdentifiers> | undefined;
  category: ReturnType<typeof resultCategory>;
  figures: string[] | undefined;
  line: string | undefined;
  /** The lines noteErrorLines would add, in order; undefined when it returns before reading any. */
  errorLineCandidates: string[] | undefined;
  errorLines: string[];
  exitCode?: { value: number | undefined };
  outcome?: ReturnType<typeof commandOutcome>;
}
const blockFacts = new WeakMap<object, TextFacts | CallFacts | ResultFacts>();
/** Blocks whose facts were made, and those read from the cache (tests count them). */
export const blockFactsStats = { made: 0, reused: 0 };

function textFacts(block: object, text: string): TextFacts {
  const hit = blockFacts.get(block) as TextFacts | undefined;
  if (hit && hit.text === text && 'urls' in hit && !('said' in hit) && !('prosePaths' in hit)) {
    blockFactsStats.reused++;
    return hit;
  }
  blockFactsStats.made++;
  const f: TextFacts = { text, urls: urlsIn(text) };
  blockFacts.set(block, f);
  return f;
}

function callFacts(block: { input: unknown; rawInput?: string; name: string }): CallFacts {
  const hit = blockFacts.get(block) as CallFacts | undefined;
  if (hit && 'prosePaths' in hit && hit.input === block.input && hit.name === block.name) {
    blockFactsStats.reused++;
    return hit;
  }
  blockFactsStats.made++;
  const args = callArguments(block);
  const f: CallFacts = { input: block.input, name: block.name, args, subject: callSubject(block.name, args), prosePaths: pathsInText(argumentProse(args)), urls: urlsIn(typeof args === 'string' ? args : JSON.stringify(args) ?? '') };
  blockFacts.set(block, f);
  return f;
}

function resultFacts(block: { content?: string; isError?: boolean }, name: string): ResultFacts {
  const content = block.content ?? '';
  const hit = blockFacts.get(block) as ResultFacts | undefined;
  if (hit && 'said' in hit && hit.content === content && hit.isError === block.isError && hit.name === name) {
    blockFactsStats.reused++;
    return hit;
  }
  blockFactsStats.made++;
  const said = resultLinesText(content);
  const category = resultCategory(block, defaultOutputCategory(name));
  let errorLineCandidates: string[] | undefined;
  if (said && said.length <= 2_000_000 && SEEN_ERROR_LINE.test(said)) {
    errorLineCandidates = [];
    for (const line of said.split('\n')) {
      const l = line.trim();
      if (l.length >= 8 && SEEN_ERROR_LINE.test(l)) errorLineCandidates.push(l.length > 200 ? l.slice(0, 200) : l);
    }
  }
  const f: ResultFacts = {
    content,
    isError: block.isError,
    name,
    said,
    ids: said && said.length <= 2_000_000 ? boundedIdentifiers(said) : undefined,
    category,
    figures: category === 'head-tail' || category === 'generic' ? figuresOf(said) : undefined,
    line: errorLine(said),
    errorLineCandidates,
    errorLines: errorLinesOf(content, category),
  };
  blockFacts.set(block, f);
  return f;
}

/** Walk the span once and collect its facts. */
export function extractSpanFacts(messages: readonly ProjectedMessage[]): SpanFacts {
  const instructions: Instruction[] = [];
  const systemNotes: string[] = [];
  const files = new Map<string, FileTouch>();
  const commands: CommandRun[] = [];
  const errors: ErrorEvent[] = [];
  const errorMessages = new Map<string, ErrorMessage>();
  const figures = new Map<string, Figure>();
  const decisions: { turn: number; text: string }[] = [];
  const urls = new Set<string>();
  const conceptCounts = new Map<string, number>();
  const embeddedSummaries: string[] = [];
  const toolCounts = new Map<string, { name: string; calls: number; errors: number }>();
  const calls = new Map<string, OpenCall>();
  const turnLogs = new Map<number, TurnLog>();
  const editorState: { currentFile?: string } = {};
  let plan: PlanItem[] = [];
  let planText: string | undefined;
  let lastAssistantText: { turn: number; text: string } | undefined;
  let lastAssistantIndex = -1;
  let lastInstructionIndex = -1;
  let minTurn = Infinity;
  let maxTurn = -Infinity;

  // Identifiers lost.ts would look for in tool output and assistant text: kept as a bounded list.
  const seenPaths = new Set<string>();
  const seenUrls = new Set<string>();
  const seenIds = new Set<string>();
  const seenErrorLines = new Set<string>();
  /** A result's error-ish lines (ResultFacts.errorLineCandidates: its lines that read as errors, each cut at 200 characters). */
  const noteErrorLines = (candidates: readonly string[] | undefined, failed: boolean) => {
    if (!candidates) return;
    // Failed results first (they are what the agent reacted to); others only while there is room.
    if (!failed && seenErrorLines.size >= 200) return;
    for (const l of candidates) seenErrorLines.add(l);
  };
  /** Identifiers of a text (boundedIdentifiers; undefined: an empty text or one over 2 MB, not read). */
  const noteSeen = (ids: ReturnType<typeof extractIdentifiers> | undefined) => {
    if (!ids) return;
    for (const id of ids) {
      if (id.kind === 'path') seenPaths.add(id.value);
      else if (id.kind === 'url') seenUrls.add(id.value);
      else if (id.kind === 'id') seenIds.add(id.value);
    }
  };
  const log = (turn: number): TurnLog => {
    let t = turnLogs.get(turn);
    if (!t) {
      t = { turn, instructions: [], reads: [], edits: [], creates: [], deletes: [], commands: [], errors: [], otherTools: [] };
      turnLogs.set(turn, t);
    }
    return t;
  };
  const touch = (effect: FileEffect, turn: number) => {
    const path = effect.path.trim();
    if (!path) return;
    let f = files.get(path);
    if (!f) {
      f = { path, actions: [], firstTurn: turn, lastTurn: turn };
      files.set(path, f);
    }
    if (!f.actions.includes(effect.action)) f.actions.push(effect.action);
    f.lastTurn = Math.max(f.lastTurn, turn);
    if (effect.action === 'mentioned') return;
    const tl = log(turn);
    const bucket =
      effect.action === 'read' || effect.action === 'searched' || effect.action === 'listed' || effect.action === 'touched'
        ? tl.reads
        : effect.action === 'created'
          ? tl.creates
          : effect.action === 'deleted'
            ? tl.deletes
            : tl.edits;
    if (!bucket.includes(path)) bucket.push(path);
  };

  messages.forEach((message, index) => {
    const turn = message.turn;
    minTurn = Math.min(minTurn, turn);
    maxTurn = Math.max(maxTurn, turn);
    if (message.span) {
      minTurn = Math.min(minTurn, message.span[0]);
      maxTurn = Math.max(maxTurn, message.span[1]);
    }
    for (const block of message.blocks) {
      switch (block.kind) {
        case 'summary':
          embeddedSummaries.push(block.text);
          break;
        case 'text': {
          const text = textOf(block) ?? '';
          const tf = textFacts(block, text);
          for (const u of tf.urls) urls.add(u);
          if (message.synthetic === 'summary') {
            embeddedSummaries.push(text);
            break;
          }
          if (message.synthetic === 'notice') break;
          if (message.role === 'user') {
            if (!text.trim()) break;
            // Harness-injected (meta) and sub-agent (side chain) user text is not the user's instruction
            // (lib/categories isTypedByUser: the test the floor and emergency use).
            const instruction = { turn, text, harness: !isTypedByUser(message, { kind: 'text', text }) };
            instructions.push(instruction);
            log(turn).instructions.push(instruction);
            if (!instruction.harness) lastInstructionIndex = index;
            // Paths named in the turn matter even when a long instruction has to be shortened.
            for (const p of (tf.paths ??= pathsInText(text))) if (!files.has(p)) touch({ path: p, action: 'mentioned' }, turn);
          } else if (message.role === 'system') {
            if (text.trim()) systemNotes.push(text);
          } else if (message.role === 'assistant') {
            if (!text.trim()) break;
            lastAssistantText = { turn, text };
            noteSeen(text.length <= 2_000_000 ? (tf.ids ??= boundedIdentifiers(text)) : undefined);
            log(turn).lastAssistantText = text;
            for (const s of decisionSentences(text)) decisions.push({ turn, text: s });
            for (const c of (tf.backticked ??= backticked(text))) conceptCounts.set(c, (conceptCounts.get(c) ?? 0) + 1);
          }
          break;
        }
        case 'tool_call': {
          const cf = callFacts(block);
          const args = cf.args;
          const subject = cf.subject;
          const open: OpenCall = { name: block.name, args, turn, subject };
          calls.set(block.callId, open);
          const count = toolCounts.get(block.name) ?? { name: block.name, calls: 0, errors: 0 };
          count.calls++;
          toolCounts.set(block.name, count);
          const effects = fileEffectsOfCall(block.name, args, editorState);
          for (const e of effects) touch(e, turn);
          for (const p of cf.prosePaths) if (!files.has(p)) touch({ path: p, action: 'mentioned' }, turn);
          if (isShellTool(block.name) && subject) {
            const run: CommandRun = { turn, tool: block.name, command: subject, outcome: 'no result' };
            commands.push(run);
            log(turn).commands.push(run);
            open.command = run;
          } else if (!effects.length && !planFromCall(block.name, args)) {
            const tl = log(turn);
            if (!tl.otherTools.includes(block.name)) tl.otherTools.push(block.name);
          }
          const p = planFromCall(block.name, args);
          if (p) {
            if (p.items.length) plan = p.items;
            if (p.text) planText = p.text;
          }
          for (const u of cf.urls) urls.add(u);
          break;
        }
        case 'tool_result': {
          const call = calls.get(block.callId);
          const name = call?.name ?? block.name ?? 'tool';
          const content = block.content ?? '';
          // What the result says (a Codex JSON string decoded): the lines its identifiers, figures and errors are read from.
          const rf = resultFacts(block, name);
          noteSeen(rf.ids);
          const exitCode = call?.command ? (rf.exitCode ??= { value: exitCodeOf(content) }).value : undefined;
          const failed = block.isError || (exitCode !== undefined && exitCode !== 0);
          if (call?.command) {
            call.command.outcome = failed ? 'error' : 'ok';
            if (exitCode !== undefined) call.command.exitCode = exitCode;
            const o = (rf.outcome ??= commandOutcome(content, block.isError));
            if (o.tally) call.command.tally = o.tally;
            if (o.line) call.command.endLine = o.line;
          }
          if (rf.figures) for (const f of rf.figures) if (!figures.has(f)) figures.set(f, { text: f, turn });
          const line = rf.line;
          noteErrorLines(rf.errorLineCandidates, failed);
          for (const text of rf.errorLines) {
            const e = errorMessages.get(text);
            if (!e) errorMessages.set(text, { text, tool: name, turns: [turn] });
            else if (e.turns.at(-1) !== turn) e.turns.push(turn);
          }
          if (failed) {
            const count = toolCounts.get(name) ?? { name, calls: 0, errors: 0 };
            count.errors++;
            toolCounts.set(name, count);
            // A tool use the user refused is a decision, not a failure to fix.
            const rejected = /The user doesn't want to proceed with this tool use|tool use was rejected|User rejected|user denied/i.test(content);
            const event: ErrorEvent = {
              turn,
              tool: name,
              subject: call?.subject ?? '',
              line: line ?? content.split('\n').find((l) => l.trim())?.trim() ?? (exitCode !== undefined ? `exit code ${exitCode}` : 'error (no output)'),
              resolution: rejected ? 'rejected by the user' : 'still failing at the end of the span',
              resolved: rejected,
            };
            errors.push(event);
            log(turn).errors.push(event);
          } else {
            // A success resolves the earlier failures of the same tool on the same subject (or, for
            // shell commands, any earlier failure of the same program).
            for (const e of errors) {
              if (e.resolved || e.tool !== name) continue;
              if (e.subject === (call?.subject ?? '') || (call?.command && firstWord(e.subject) === firstWord(call.subject))) {
                e.resolved = true;
                e.resolution = `later succeeded (turn ${turn + 1}${e.subject === call?.subject ? '' : `: ${oneLine(call?.subject ?? '', 120)}`})`;
              }
            }
          }
          break;
        }
        default:
          break;
      }
    }
    if (message.role === 'assistant' && message.blocks.some((b) => b.kind === 'text' || b.kind === 'tool_call')) lastAssistantIndex = index;
  });

  const concepts = [...conceptCounts.entries()]
    .filter(([c]) => !files.has(c))
    .sort((a, b) => b[1] - a[1])
    .map(([c]) => c);

  const lastInstruction = lastInstructionIndex >= 0 ? instructions.filter((i) => !i.harness).at(-1) : undefined;
  return {
    instructions,
    systemNotes,
    files: [...files.values()],
    commands,
    errors,
    errorMessages: [...errorMessages.values()],
    figures: [...figures.values()],
    decisions,
    plan,
    planText,
    urls: [...urls],
    seen: {
      paths: [...seenPaths].filter((p) => !files.has(p)),
      urls: [...seenUrls].filter((u) => !urls.has(u)),
      ids: [...seenIds],
      errorLines: [...seenErrorLines],
    },
    concepts,
    // Empty markers (opaque server compactions) say nothing; repeats say it once.
    embeddedSummaries: [...new Set(embeddedSummaries.map((x) => x.trim()).filter(Boolean))],
    lastAssistantText,
    unanswered: lastInstructionIndex > lastAssistantIndex ? lastInstruction : undefined,
    toolCounts: [...toolCounts.values()],
    turns: messages.length ? [minTurn, maxTurn] : undefined,
    turnLog: [...turnLogs.values()].sort((a, b) => a.turn - b.turn),
  };
}

function firstWord(s: string): string {
  return s.trim().split(/\s+/)[0] ?? '';
}

/** Collapse whitespace to one line and cap it (with the cut marker). */
export function oneLine(text: string, cap: number): string {
  return clip(text.replace(/\s+/g, ' ').trim(), cap);
}

/** Thousands separators without locale (deterministic everywhere). */
export function formatCount(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * Shorten text past `cap` characters, keeping its head (verbatim) and a short tail, with a visible
 * marker saying how much was cut: `head [… 1,234 chars cut] tail`.
 */
export function clip(text: string, cap: number): string {
  if (text.length <= cap) return text;
  const tail = Math.min(Math.floor(cap / 4), 200);
  const head = cap - tail;
  const cut = text.length - head - tail;
  return `${text.slice(0, head)} [… ${formatCount(cut)} chars cut] ${tail > 0 ? text.slice(text.length - tail) : ''}`.trimEnd();
}
