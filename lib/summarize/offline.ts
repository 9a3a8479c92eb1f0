/**
 * The embedded default summarizer: deterministic, offline, no model (DESIGN.md "Summaries").
 * It fills sven's six sections (seed 003, "Structured") mechanically from the span's facts
 * (facts.ts): every message the user typed verbatim, never cut and never merged (harness-injected
 * text — reminders, command expansions, environment context — is shortened past a cap, with a
 * visible marker), every file the span changed, the files it only read in a compact list (capped:
 * `maxReadFiles`), commands run and how they ended, every distinct error line of its tool output
 * with the turns where it occurred (lib/compaction/signal.ts patterns), errors and their
 * resolution, the agent's decisions and its last state.
 *
 * Where each goes (structured style): the latest request under Active Task; changed files, the
 * read-only list and commands under Files & Artifacts; user constraints under Constraints &
 * Requirements; unresolved errors under Pending Items; every user message (in its turn), the
 * errors with how they ended and the distinct error lines under Session Narrative. Identifiers are copied, never paraphrased:
 * they are what a resumed agent needs and what lost.ts checks for.
 *
 * Prefix-ward chunking (seed 004): a previous chunk's summary is folded in first, so the summary of
 * chunk N covers turns 0..N on its own.
 *
 * Same input → same output: no clock, no randomness, insertion-ordered collections only.
 * Turns are written 1-based, as the app, the CLI and the reports show them.
 */
import type { ProjectedMessage } from '../model/projection';
import {
  clip,
  constraintSentences,
  extractSpanFacts,
  formatCount,
  nextStepSentences,
  oneLine,
  sentences,
  type FileTouch,
  type SpanFacts,
} from './facts';
import type { TurnLog } from './facts';
import type { SpanInput, SummaryStyle, SyncSummarizer } from './types';

/** How much of each kind of fact the summary keeps. Every cut is marked in the text. */
export interface OfflineLimits {
  /**
   * The latest request quoted under Active Task is shortened past this (it is verbatim in the
   * narrative). Messages the user typed are never shortened in the narrative.
   */
  instructionChars: number;
  /** Harness-injected user text (system reminders, command echoes) is noise: shortened harder. */
  harnessChars: number;
  commandChars: number;
  /** The line a command's run ended with is quoted up to this (0: not quoted). */
  commandEndChars: number;
  /** Distinct commands listed (ranked: see rankedCommands). */
  maxCommands: number;
  /** Distinct measured figures listed (the latest when cut). */
  maxFigures: number;
  errorLineChars: number;
  maxErrors: number;
  /** A distinct error line is quoted up to this many characters (every one is listed). */
  errorMessageChars: number;
  /** Files only read / searched / listed / mentioned: one compact list, up to this many paths. Changed files are all listed. */
  maxReadFiles: number;
  decisionChars: number;
  maxDecisions: number;
  maxConstraints: number;
  lastStateChars: number;
  maxUrls: number;
  /** Paths / URLs / ids seen only in tool output: listed up to these caps. */
  maxSeenPaths: number;
  maxSeenUrls: number;
  maxSeenIds: number;
  maxSeenErrorLines: number;
  maxConcepts: number;
  planChars: number;
  /** Files listed (default: all — every path the span touched). */
  maxFiles: number;
  /** Turns in the session narrative (default: all). */
  maxNarrativeTurns: number;
  /** An earlier summary quoted or folded in, per section (default: all of it). */
  earlierSummaryChars: number;
}

export const DEFAULT_OFFLINE_LIMITS: OfflineLimits = {
  instructionChars: 2000,
  harnessChars: 240,
  commandChars: 240,
  commandEndChars: 160,
  maxCommands: 60,
  maxFigures: 80,
  errorLineChars: 300,
  maxErrors: 25,
  errorMessageChars: 240,
  maxReadFiles: 120,
  decisionChars: 300,
  maxDecisions: 12,
  maxConstraints: 15,
  lastStateChars: 800,
  maxUrls: 30,
  maxSeenPaths: 60,
  maxSeenUrls: 60,
  maxSeenIds: 20,
  maxSeenErrorLines: 60,
  maxConcepts: 20,
  planChars: 1500,
  maxFiles: Number.POSITIVE_INFINITY,
  maxNarrativeTurns: Number.POSITIVE_INFINITY,
  earlierSummaryChars: Number.POSITIVE_INFINITY,
};

export { STRUCTURED_SECTIONS, CLAUDE_CODE_SECTIONS } from './sections';
import { STRUCTURED_SECTIONS, CLAUDE_CODE_SECTIONS } from './sections';

// ---------------------------------------------------------------------------------------------
// Ranked lines: what goes first when the summary is over its room (DESIGN-NOTES "Summary tightening")

/**
 * While a summary is rendered for tightening, the lines that may be left out, with their drop key:
 * the lowest key goes first (ties: the earlier line first). Lines not listed are never dropped:
 * headings, what the user typed (quotes, constraints), files, error lines, errors and how they
 * ended, unanswered requests, figures. Set only inside summarizeOfflineWith (synchronous).
 */
let dropKeys: Map<string, number> | undefined;

/** Drop keys by tier (see DESIGN-NOTES "Summary tightening"). */
const DROP = { seen: 100, urls: 200, decisions: 300, stated: 400, lastState: 450, agentTurns: 500, commands: 1000 } as const;

/**
 * A command line's drop key: by tier (0 ok, 1 a test run with a tally, 2 failed), then by place
 * in it (0–499: an earlier chunk's line, folded in; 500–999: this span's, the most recent highest).
 */
function commandKey(tier: number, place: number): number {
  return DROP.commands + tier * 1000 + place;
}

/** An earlier summary's file line (mergeFileLines reads it back): never cut when folding, every path stays. */
const PRIOR_FILE_RE = /^- `.+` — [a-z, ]+ \(turns? \d/;

/** An earlier summary's command line (folded in): its tier, read back from how it is written. */
const PRIOR_COMMAND_RE = /^- `.+` → (ok|failed|no result in span)(; \d)?/;
function priorCommandTier(line: string): number | undefined {
  const m = PRIOR_COMMAND_RE.exec(line);
  if (!m) return undefined;
  return m[1] === 'failed' ? 2 : m[2] ? 1 : 0;
}

/**
 * An earlier chunk's line folded into a section: its decision sentences, plan and stated-next lines,
 * and its narrative lines of turns where the user typed nothing, rank as this span's do (earlier
 * chunks first among equal keys, as they come first).
 */
function priorDroppable(section: string, line: string): string {
  if (section === 'Key Decisions & Rationale' && /^- (?:Turn \d+|Plan): /.test(line)) return droppable(line, DROP.decisions);
  if (section === 'Session Narrative' && /^- Turn \d+: agent /.test(line)) return droppable(line, DROP.agentTurns);
  return line;
}

/** Record `line` as droppable with `key` (no-op outside a tightening render). */
function droppable(line: string, key: number): string {
  if (dropKeys && !dropKeys.has(line)) dropKeys.set(line, key);
  return line;
}

// ---------------------------------------------------------------------------------------------
// Rendering pieces shared by the three styles

/** A message the user typed is quoted whole; harness text is shortened past `harnessChars`. */
function quoteInstruction(text: string, harness: boolean, limits: OfflineLimits): string {
  return harness ? clip(text.trim(), limits.harnessChars) : text.trim();
}

/** The latest request as quoted once more under Active Task / Primary Request: shortened past `instructionChars`. */
function quoteLatest(text: string, limits: OfflineLimits): string {
  const t = text.trim();
  return t.length <= limits.instructionChars ? t : `${clip(t, limits.instructionChars)} (verbatim in the turn's entry below)`;
}

const CHANGED: ReadonlySet<string> = new Set(['edited', 'created', 'deleted']);

function isChanged(f: FileTouch): boolean {
  return f.actions.some((a) => CHANGED.has(a));
}

/** Every distinct error line of the span, with the turns where it occurred. */
function errorMessageLines(facts: SpanFacts, limits: OfflineLimits): string[] {
  return facts.errorMessages.map((e) => {
    const turns = e.turns.length === 1 ? `turn ${e.turns[0] + 1}` : `turns ${e.turns.map((t) => t + 1).join(', ')}`;
    return `- ${turns}, ${e.tool}: ${clip(e.text, limits.errorMessageChars)}`;
  });
}

/**
 * An earlier summary quoted inside this one: verbatim, except that its `## ` headings go one level
 * down, so they can never be taken for this summary's own sections (when folding the next chunk).
 */
function nested(text: string): string {
  return text.replace(/^(#{1,2})(\s)/gm, '###$2');
}

function moreMarker(shown: number, total: number, what: string): string[] {
  return total > shown ? [`- [… ${formatCount(total - shown)} more ${what} not listed]`] : [];
}

/** Keep the first `n/2` and last `n/2` of a list: the start of a span and where it ended both matter. */
function headAndTail<T>(list: readonly T[], n: number): { items: T[]; omitted: number } {
  if (list.length <= n) return { items: [...list], omitted: 0 };
  const head = Math.ceil(n / 2);
  return { items: [...list.slice(0, head), ...list.slice(list.length - (n - head))], omitted: list.length - n };
}

/** No single identifier is worth more than this many characters of summary (untrusted text can hold a 200 KB "URL"). */
const IDENTIFIER_CHARS = 300;

function fileLine(f: FileTouch): string {
  const turns = f.firstTurn === f.lastTurn ? `turn ${f.firstTurn + 1}` : `turns ${f.firstTurn + 1}–${f.lastTurn + 1}`;
  return `- \`${f.path}\` — ${f.actions.join(', ')} (${turns})`;
}

/** One distinct command of the span: its latest run, and the turns of every run. */
interface DistinctCommand {
  latest: SpanFacts['commands'][number];
  turns: number[];
}

/**
 * Each distinct command run in the span (whitespace collapsed), once, with how its latest run
 * ended. Ranked for a tight size (what a cap keeps first): commands whose latest run failed, then
 * those whose output reports a tally (test runs), then the rest; within each, the most recently run
 * first (the latest run of a command is the one listed; its earlier runs are its turns).
 */
export function rankedCommands(facts: SpanFacts): DistinctCommand[] {
  const byText = new Map<string, DistinctCommand>();
  for (const c of facts.commands) {
    const key = c.command.replace(/\s+/g, ' ').trim();
    const d = byText.get(key);
    if (!d) byText.set(key, { latest: c, turns: [c.turn] });
    else {
      d.latest = c;
      if (d.turns.at(-1) !== c.turn) d.turns.push(c.turn);
    }
  }
  const rank = (d: DistinctCommand) => (d.latest.outcome === 'error' ? 0 : d.latest.tally ? 1 : 2);
  return [...byText.values()].sort((x, y) => rank(x) - rank(y) || y.latest.turn - x.latest.turn);
}

/** A command in compact form: whitespace collapsed, its head verbatim up to `cap` characters, then "…" (the tail of a long command is its heredoc body or its argument list). */
function commandHead(command: string, cap: number): string {
  const one = command.replace(/\s+/g, ' ').trim();
  return one.length <= cap ? one : one.slice(0, cap) + '…';
}

function commandLines(facts: SpanFacts, limits: OfflineLimits): string[] {
  const ranked = rankedCommands(facts);
  const shown = ranked.slice(0, limits.maxCommands);
  // Tier (0 ok, 1 a test run with a tally, 2 failed) and place in it: the most recent of a tier is kept longest.
  const tierOf = (c: DistinctCommand['latest']) => (c.outcome === 'error' ? 2 : c.tally ? 1 : 0);
  const inTier = [0, 0, 0];
  for (const d of shown) inTier[tierOf(d.latest)]++;
  const seenInTier = [0, 0, 0];
  const lines = shown.map(({ latest: c, turns }) => {
    const tier = tierOf(c);
    const key = commandKey(tier, 500 + Math.min(499, inTier[tier] - 1 - seenInTier[tier]++));
    const outcome = c.outcome === 'ok' ? 'ok' : c.outcome === 'error' ? (c.exitCode !== undefined ? `failed, exit ${c.exitCode}` : 'failed') : 'no result in span';
    const tally = c.tally ? `; ${c.tally}` : '';
    // The line it ended with, unless it says little more than the tally it gave.
    const end = c.endLine?.replace(/^[=\-_*\s]+|[=\-_*\s]+$/g, '');
    const ended = end && limits.commandEndChars > 0 && !(c.tally && end.includes(c.tally.split(', ')[0]) && end.length <= c.tally.length + 16) ? `; "${oneLine(end, limits.commandEndChars)}"` : '';
    const when = turns.length === 1 ? `turn ${turns[0] + 1}` : `turns ${turns.map((t) => t + 1).join(', ')}`;
    // Ranked list, most important first: the last one is dropped first.
    return droppable(`- \`${commandHead(c.command, limits.commandChars)}\` → ${outcome}${tally}${ended} (${when})`, key);
  });
  lines.push(...moreMarker(shown.length, ranked.length, 'commands'));
  return lines;
}

/** Every distinct figure the span's tool output measured (counts, durations, sizes, coverage), in one line. */
function figureLines(facts: SpanFacts, limits: OfflineLimits): string[] {
  if (!facts.figures.length) return [];
  const shown = facts.figures.slice(Math.max(0, facts.figures.length - limits.maxFigures));
  return [`- ${shown.map((f) => f.text).join(', ')}${facts.figures.length > shown.length ? ` [… ${formatCount(facts.figures.length - shown.length)} earlier figures not listed]` : ''}`];
}

function errorLines(facts: SpanFacts, limits: OfflineLimits): string[] {
  const { items, omitted } = headAndTail(facts.errors, limits.maxErrors);
  const lines = items.map((e) => {
    const subject = e.subject ? ` \`${oneLine(e.subject, limits.commandChars)}\`` : '';
    return `- Turn ${e.turn + 1}, ${e.tool}${subject}: ${oneLine(e.line, limits.errorLineChars)} → ${e.resolution}`;
  });
  if (omitted) lines.splice(Math.ceil(limits.maxErrors / 2), 0, `- [… ${formatCount(omitted)} more errors not listed]`);
  return lines;
}

function decisionLines(facts: SpanFacts, limits: OfflineLimits): string[] {
  const seen = new Set<string>();
  const unique = facts.decisions.filter((d) => (seen.has(d.text) ? false : (seen.add(d.text), true)));
  const { items, omitted } = headAndTail(unique, limits.maxDecisions);
  const lines = items.map((d, i) => droppable(`- Turn ${d.turn + 1}: ${oneLine(d.text, limits.decisionChars)}`, DROP.decisions + Math.min(i, 98)));
  if (omitted) lines.splice(Math.ceil(limits.maxDecisions / 2), 0, `- [… ${formatCount(omitted)} more decision sentences not listed]`);
  if (facts.planText) lines.push(droppable(`- Plan: ${oneLine(facts.planText, limits.planChars)}`, DROP.decisions + 99));
  return lines;
}

function constraintLines(facts: SpanFacts, limits: OfflineLimits): string[] {
  const seen = new Set<string>();
  const found: string[] = [];
  for (const i of facts.instructions) {
    if (i.harness) continue;
    for (const s of constraintSentences(i.text)) {
      const line = oneLine(s, limits.decisionChars);
      if (!seen.has(line)) {
        seen.add(line);
        found.push(`- Turn ${i.turn + 1} (user): ${line}`);
      }
    }
  }
  const lines = found.slice(0, limits.maxConstraints);
  lines.push(...moreMarker(lines.length, found.length, 'constraint sentences'));
  for (const note of facts.systemNotes.slice(0, 3)) lines.push(`- System: ${oneLine(note, limits.harnessChars)}`);
  return lines;
}

function pendingLines(facts: SpanFacts, limits: OfflineLimits): string[] {
  const lines: string[] = [];
  if (facts.unanswered) lines.push(`- Unanswered user request (turn ${facts.unanswered.turn + 1}): ${oneLine(facts.unanswered.text, limits.instructionChars)}`);
  for (const item of facts.plan) if (item.status !== 'completed') lines.push(`- [${item.status}] ${oneLine(item.text, limits.decisionChars)}`);
  for (const e of facts.errors) if (!e.resolved) lines.push(`- Unresolved error (turn ${e.turn + 1}, ${e.tool}): ${oneLine(e.line, limits.errorLineChars)}`);
  if (facts.lastAssistantText) for (const s of nextStepSentences(facts.lastAssistantText.text).slice(0, 3)) lines.push(droppable(`- Stated next: ${oneLine(s, limits.decisionChars)}`, DROP.stated));
  return lines;
}

/**
 * Changed files one per line (all of them), then the files only read / searched / listed /
 * mentioned as one compact line, up to `maxReadFiles` (the most recently used ones when cut).
 */
function fileSection(facts: SpanFacts, limits: OfflineLimits): string[] {
  return [...fileList(facts.files, limits), ...fileExtras(facts, limits)];
}

const READ_ONLY_PREFIX = '- Only read, searched or mentioned';

function fileList(files: readonly FileTouch[], limits: OfflineLimits): string[] {
  const changed = files.filter(isChanged);
  const readOnly = files.filter((f) => !isChanged(f));
  const lines = changed.map(fileLine);
  if (readOnly.length) {
    const shown = readOnly.length > limits.maxReadFiles ? readOnly.slice(readOnly.length - limits.maxReadFiles) : readOnly;
    lines.push(
      `${READ_ONLY_PREFIX} (${formatCount(readOnly.length)}): ${shown.map((f) => `\`${clip(f.path, IDENTIFIER_CHARS)}\``).join(', ')}${readOnly.length > shown.length ? ` [… ${formatCount(readOnly.length - shown.length)} earlier ones not listed]` : ''}`,
    );
  }
  return lines;
}

/** Commands, URLs, identifiers and error lines seen in tool output: the rest of Files & Artifacts. */
function fileExtras(facts: SpanFacts, limits: OfflineLimits): string[] {
  const lines: string[] = [];
  if (facts.commands.length) lines.push('', 'Commands run (each once: how its latest run ended, the turns it ran):', ...commandLines(facts, limits));
  if (facts.figures.length) lines.push('', 'Figures measured:', ...figureLines(facts, limits));
  if (facts.urls.length) {
    lines.push('', 'URLs:', ...facts.urls.slice(0, limits.maxUrls).map((u, i) => droppable(`- ${clip(u, IDENTIFIER_CHARS)}`, DROP.urls + Math.min(i, 99))), ...moreMarker(Math.min(facts.urls.length, limits.maxUrls), facts.urls.length, 'URLs'));
  }
  const { paths, urls, ids } = facts.seen;
  if (paths.length || urls.length || ids.length) {
    lines.push('', 'Also seen in tool output:');
    const list = (label: string, items: string[], cap: number) => {
      if (!items.length) return;
      const shown = items.slice(0, cap);
      lines.push(droppable(`- ${label}: ${shown.map((x) => `\`${clip(x, IDENTIFIER_CHARS)}\``).join(', ')}${items.length > cap ? ` [… ${formatCount(items.length - cap)} more]` : ''}`, DROP.seen));
    };
    list('paths', paths, limits.maxSeenPaths);
    list('URLs', urls, limits.maxSeenUrls);
    list('ids', ids, limits.maxSeenIds);
  }
  // Error lines already quoted (errors list, distinct error lines) are not repeated.
  const quoted = new Set([...facts.errors.flatMap((e) => e.line.split(' | ')), ...facts.errorMessages.map((e) => e.text)]);
  const errorLinesSeen = facts.seen.errorLines.filter((l) => !quoted.has(l));
  if (errorLinesSeen.length) {
    const { items, omitted } = headAndTail(errorLinesSeen, limits.maxSeenErrorLines);
    lines.push('', 'Error lines in tool output:', ...items.map((l) => `- ${l}`));
    if (omitted) lines.push(`- [… ${formatCount(omitted)} more error lines not listed]`);
  }
  return lines;
}

function lastState(facts: SpanFacts, limits: OfflineLimits): string | undefined {
  return facts.lastAssistantText ? droppable(`Last assistant state (turn ${facts.lastAssistantText.turn + 1}): ${oneLine(facts.lastAssistantText.text, limits.lastStateChars)}`, DROP.lastState) : undefined;
}

function latestInstruction(facts: SpanFacts) {
  return facts.instructions.filter((i) => !i.harness).at(-1);
}

/** One line per turn: what the user asked (verbatim) and what the agent did about it. */
function narrativeLines(facts: SpanFacts, limits: OfflineLimits): string[] {
  const lines: string[] = [];
  const turns = headAndTail(facts.turnLog, limits.maxNarrativeTurns);
  const shown = new Set(turns.items);
  // A turn left out of the narrative still says what the user typed in it (never cut, never merged).
  const typed = (t: TurnLog) => t.instructions.some((i) => !i.harness);
  let skipped = 0;
  for (const t of facts.turnLog) {
    const full = shown.has(t);
    if (!full && !typed(t)) {
      skipped++;
      continue;
    }
    if (skipped) lines.push(`- [… ${formatCount(skipped)} more turns not narrated]`);
    skipped = 0;
    const head = `- Turn ${t.turn + 1}:`;
    if (!full) {
      const said = t.instructions.filter((i) => !i.harness).map((i) => `user asked: «${quoteInstruction(i.text, false, limits)}»`);
      lines.push(`${head} ${said.join('; ')}`);
      continue;
    }
    const parts: string[] = [];
    // The same text repeated within a turn (resent prompts, fixture placeholders) is said once, with a count.
    const repeats = new Map<string, number>();
    for (const i of t.instructions) repeats.set(i.text, (repeats.get(i.text) ?? 0) + 1);
    for (const i of t.instructions) {
      const n = repeats.get(i.text);
      if (n === undefined) continue;
      repeats.delete(i.text);
      const q = quoteInstruction(i.text, i.harness, limits);
      parts.push((i.harness ? `harness note: «${q}»` : `user asked: «${q}»`) + (n > 1 ? ` (×${n})` : ''));
    }
    const did: string[] = [];
    if (t.reads.length) did.push(`read ${listPaths(t.reads)}`);
    if (t.edits.length) did.push(`edited ${listPaths(t.edits)}`);
    if (t.creates.length) did.push(`created ${listPaths(t.creates)}`);
    if (t.deletes.length) did.push(`deleted ${listPaths(t.deletes)}`);
    if (t.commands.length) {
      const failed = t.commands.filter((c) => c.outcome === 'error').length;
      did.push(`ran ${t.commands.length} command${t.commands.length === 1 ? '' : 's'}${failed ? ` (${failed} failed)` : ''}`);
    }
    if (t.otherTools.length) did.push(`used ${t.otherTools.join(', ')}`);
    if (t.errors.length) did.push(`hit ${t.errors.length} error${t.errors.length === 1 ? '' : 's'}`);
    if (did.length) parts.push(`agent ${did.join('; ')}`);
    if (t.lastAssistantText) {
      const first = sentences(t.lastAssistantText)[0] ?? t.lastAssistantText;
      parts.push(`agent said: "${oneLine(first, limits.decisionChars)}"`);
    }
    // A turn where the user typed nothing is the agent's own account: dropped before any command (oldest first).
    if (parts.length) lines.push(typed(t) ? `${head} ${parts.join('; ')}` : droppable(`${head} ${parts.join('; ')}`, DROP.agentTurns + Math.min(t.turn, 499)));
  }
  if (skipped) lines.push(`- [… ${formatCount(skipped)} more turns not narrated]`);
  return lines;
}

function listPaths(paths: string[]): string {
  const shown = paths.slice(0, 6).map((p) => `\`${p}\``);
  return shown.join(', ') + (paths.length > 6 ? ` and ${paths.length - 6} more` : '');
}

// ---------------------------------------------------------------------------------------------
// Folding a previous summary in (prefix-ward chunks)

/** Lines of our own summaries that quote what a user typed, or list a distinct error line: never cut when folding. */
const KEPT_WHEN_FOLDED = /user asked: «|^- Turn \d+ \(user\): |the user wrote: «|^- Turn \d+: «|^- turns? [\d, ]+, [^:]+: /;

/**
 * An earlier summary shortened to `cap` characters when folded in: the lines quoting user messages
 * and listing error lines stay whole (a later chunk must not lose what an earlier one kept), the
 * others are kept from the top while they fit, and the cut is marked.
 */
function clipEarlier(text: string, cap: number): string {
  if (text.length <= cap) return text;
  const lines = text.split('\n');
  // A quoted user message can span lines ("1. One-way\n2. Economy…"): its continuation lines, up
  // to the closing », stay with it (issue #27 item 5: they were cut as "[… 2 earlier lines cut]").
  let open = false;
  // Commands and figures are not cut blindly either: the summary's tightening ranks them (issue 27 item 2).
  const keep = lines.map((l, i) => {
    const kept = open || KEPT_WHEN_FOLDED.test(l) || PRIOR_COMMAND_RE.test(l) || (i > 0 && lines[i - 1] === 'Figures measured:') || PRIOR_FILE_RE.test(l) || l.startsWith(READ_ONLY_PREFIX);
    if (kept) {
      const from = open ? 0 : l.indexOf('«');
      open = from >= 0 && l.lastIndexOf('»') < Math.max(from, l.lastIndexOf('«'));
    }
    return kept;
  });
  let room = cap - lines.reduce((n, l, i) => n + (keep[i] ? l.length + 1 : 0), 0);
  let cut = 0;
  const out: string[] = [];
  lines.forEach((l, i) => {
    if (keep[i] || l.length + 1 <= room) {
      if (!keep[i]) room -= l.length + 1;
      if (cut) out.push(`[… ${formatCount(cut)} earlier lines cut]`);
      cut = 0;
      out.push(l);
    } else {
      room = 0; // keep the order readable: once a line is cut, only kept lines follow
      cut++;
    }
  });
  if (cut) out.push(`[… ${formatCount(cut)} earlier lines cut]`);
  return out.join('\n');
}

/**
 * Split a Markdown summary into its `## ` sections (heading → body); text before the first heading
 * goes under "". With `names`, only those headings split: a user instruction quoted verbatim may
 * itself contain `## ` lines, and must not be mistaken for a section.
 */
export function parseSections(summary: string, names?: readonly string[]): Map<string, string> {
  const sections = new Map<string, string>();
  let current = '';
  let body: string[] = [];
  const flush = () => {
    const text = body.join('\n').trim();
    if (text || current) sections.set(current, text);
  };
  for (const line of summary.split('\n')) {
    const h = /^##\s+(.+?)\s*$/.exec(line);
    if (h && (!names || names.includes(h[1]))) {
      flush();
      current = h[1];
      body = [];
    } else body.push(line);
  }
  flush();
  return sections;
}

function isSectioned(previous: Map<string, string>, names: readonly string[]): boolean {
  return names.every((n) => previous.has(n));
}

/** Merge file lines: the same path keeps one line, with the union of actions and the widened turn range. */
function mergeFileLines(previousBody: string, current: FileTouch[]): { files: FileTouch[]; rest: string[] } {
  const byPath = new Map<string, FileTouch>();
  const rest: string[] = [];
  const lineRe = /^- `(.+)` — ([a-z, ]+) \(turns? (\d+)(?:–(\d+))?\)$/;
  for (const line of previousBody.split('\n')) {
    const m = lineRe.exec(line);
    // Written 1-based (as people read turns): back to 0-based indices.
    if (m) byPath.set(m[1], { path: m[1], actions: m[2].split(', ') as FileTouch['actions'], firstTurn: Number(m[3]) - 1, lastTurn: Number(m[4] ?? m[3]) - 1 });
    else if (line.startsWith(READ_ONLY_PREFIX)) {
      // The earlier compact list: its paths join this one (their turns are not in it).
      for (const p of line.matchAll(/`([^`]+)`/g)) if (!byPath.has(p[1])) byPath.set(p[1], { path: p[1], actions: ['read'], firstTurn: Number.POSITIVE_INFINITY, lastTurn: Number.NEGATIVE_INFINITY });
    } else if (line.trim() || rest.length) rest.push(line);
  }
  for (const f of current) {
    const prev = byPath.get(f.path);
    if (!prev) byPath.set(f.path, { ...f, actions: [...f.actions] });
    else {
      for (const a of f.actions) if (!prev.actions.includes(a)) prev.actions.push(a);
      prev.firstTurn = Math.min(prev.firstTurn, f.firstTurn);
      prev.lastTurn = Math.max(prev.lastTurn, f.lastTurn);
    }
  }
  return { files: [...byPath.values()], rest };
}

// ---------------------------------------------------------------------------------------------
// The three styles

function section(name: string, lines: string[], empty = '- (none in this span)'): string {
  const body = lines.join('\n').trim();
  return `## ${name}\n${body || empty}`;
}

/**
 * The previous summary's sections and their clipped forms, per summarizer input (issue 31): the
 * input is rendered up to 6 times while it tightens, and each render parsed the previous summary
 * (a chunk's: ~250 KB at 10,000 turns) and clipped each of its sections again, several times.
 */
type PriorMemo = { previous: string | undefined; sections?: Map<string, string>; clipped: Map<string, string>; floors?: Map<number, number> };
const priorMemo = new WeakMap<SpanInput, PriorMemo>();
export const priorStats = { parses: 0, clips: 0 };

/** The earlier summary folded into `input` (structured style): its sections when it has all of them, and each one clipped to a cap, memoized per input. */
function priorOf(input: SpanInput): { memo: PriorMemo; foldable: boolean; prior(name: string, cap: number): string } {
  let memo = priorMemo.get(input);
  if (!memo || memo.previous !== input.previousSummary) priorMemo.set(input, (memo = { previous: input.previousSummary, clipped: new Map() }));
  const m = memo;
  const previous = input.previousSummary?.trim() ? (m.sections ??= (priorStats.parses++, parseSections(input.previousSummary, STRUCTURED_SECTIONS))) : undefined;
  const foldable = !!previous && isSectioned(previous, STRUCTURED_SECTIONS);
  return {
    memo: m,
    foldable,
    prior(name, cap) {
      if (!foldable) return '';
      const key = `${cap}|${name}`;
      let clipped = m.clipped.get(key);
      if (clipped === undefined) {
        priorStats.clips++;
        m.clipped.set(key, (clipped = clipEarlier((previous!.get(name) ?? '').trim(), cap)));
      }
      return clipped;
    },
  };
}

/**
 * A floor under the length of any structured rendering of `input` whose earlier-summary cap is
 * `cap` (issue 31): what every such rendering carries of the earlier summary whatever its other
 * caps. Key Decisions, Constraints and Session Narrative quote the clipped earlier section whole
 * (withPrior: it starts and ends with no whitespace, so the section's trim leaves it whole); Files &
 * Artifacts carries the earlier section's lines that are no file line (each at least trimmed, as
 * the section's trim may take a leading or trailing space) and one line per earlier changed file
 * (still changed after the merge: actions are only added), each longer than its path. A rendering
 * is also never shorter than the sum, as the sections are disjoint. 0 for other styles, or when
 * there is no earlier summary to fold.
 */
function structuredFloor(input: SpanInput, cap: number): number {
  if ((input.style ?? 'structured') !== 'structured' || !input.previousSummary?.trim()) return 0;
  const p = priorOf(input);
  if (!p.foldable) return 0;
  const m = p.memo;
  const hit = m.floors?.get(cap);
  if (hit !== undefined) return hit;
  let n = 0;
  for (const name of ['Key Decisions & Rationale', 'Constraints & Requirements', 'Session Narrative']) {
    const before = p.prior(name, cap);
    if (before && !before.startsWith('- (none')) n += before.length;
  }
  const files = mergeFileLines(p.prior('Files & Artifacts', cap), []);
  for (const l of files.rest) if (!l.startsWith('- (none')) n += l.trim().length;
  for (const f of files.files) if (isChanged(f)) n += f.path.length + 6;
  (m.floors ??= new Map()).set(cap, n);
  return n;
}

/**
 * A floor under the length of any structured rendering of `facts` from this span's own lines
 * (issue 31, session 17), whatever the caps: the Session Narrative has one line per turn where the
 * user typed something (narrativeLines: never cut, never dropped by a cap), `- Turn N: ` and each
 * distinct text of the turn whose first occurrence is typed, quoted whole as `user asked: «…»`
 * (a turn not narrated in full lists every typed text, so at least those); the lines are elements
 * of one array, joined by a newline each. Without an earlier summary folded in, Files & Artifacts
 * also has one line per changed file (fileList: every changed file, fileLine, no cap). Every
 * character counted lies between the line's first and last non-space character, so no section's
 * trim takes it, and none is counted by structuredFloor (the earlier summary's own lines).
 */
function spanFloor(input: SpanInput, facts: SpanFacts): number {
  if ((input.style ?? 'structured') !== 'structured') return 0;
  let n = 0;
  let lines = 0;
  for (const t of facts.turnLog) {
    if (!t.instructions.some((i) => !i.harness)) continue;
    lines++;
    n += `- Turn ${t.turn + 1}: `.length;
    const seen = new Set<string>();
    for (const i of t.instructions) {
      if (seen.has(i.text)) continue;
      seen.add(i.text);
      if (!i.harness) n += 'user asked: «'.length + i.text.trim().length + '»'.length;
    }
  }
  if (lines > 1) n += lines - 1;
  if (!(input.previousSummary?.trim() && priorOf(input).foldable)) for (const f of facts.files) if (isChanged(f)) n += fileLine(f).length;
  return n;
}

/**
 * Checks the summarizer can run on itself (tests turn them off): `floor`, skip a tightening render
 * whose floor is over the room. `verifyFloor` (tests): make every render the floor skips anyway and
 * throw when it would have fit or is shorter than its floor.
 */
export const offlineChecks = { floor: true, verifyFloor: false };

function structured(input: SpanInput, facts: SpanFacts, limits: OfflineLimits): string {
  const p = priorOf(input);
  const foldable = p.foldable;
  const prior = (name: string): string => p.prior(name, limits.earlierSummaryChars);
  const withPrior = (name: string, lines: string[]) => {
    const before = prior(name);
    return before && !before.startsWith('- (none') ? [...before.split('\n').map((l) => priorDroppable(name, l)), ...lines] : lines;
  };

  // Active Task: the latest instruction of this span; when the span has none, the task carries over.
  const latest = latestInstruction(facts);
  const active: string[] = [];
  if (latest) {
    active.push(`Latest user request (turn ${latest.turn + 1}): «${quoteLatest(latest.text, limits)}»`);
  } else if (prior('Active Task')) active.push(prior('Active Task'));
  const state = lastState(facts, limits);
  if (state && !(latest === undefined && prior('Active Task'))) active.push('', state);

  // Files: previous and current merged per path.
  let fileLines: string[];
  if (foldable) {
    const merged = mergeFileLines(prior('Files & Artifacts'), facts.files);
    // An earlier chunk's commands are earlier runs: in their tier, dropped before this span's.
    const rest = merged.rest.filter((l) => !l.startsWith('- (none')).map((l, i) => {
      const tier = priorCommandTier(l);
      if (tier !== undefined) return droppable(l, commandKey(tier, Math.min(i, 499)));
      // An earlier chunk's URLs and seen-in-output lists rank as this span's do.
      return /^- (?:paths|URLs|ids): /.test(l) ? droppable(l, DROP.seen) : /^- [a-z][a-z0-9+.-]*:\/\//i.test(l) ? droppable(l, DROP.urls) : l;
    });
    fileLines = [...fileList(merged.files, limits), ...(rest.length ? ['', ...rest] : []), ...fileExtras(facts, limits)];
  } else fileLines = fileSection(facts, limits);

  const narrative: string[] = [];
  if (input.previousSummary?.trim() && !foldable) narrative.push('Earlier turns (previous summary, verbatim):', nested(clipEarlier(input.previousSummary.trim(), limits.earlierSummaryChars)), '');
  for (const s of facts.embeddedSummaries) narrative.push('Summary already in the span:', nested(clip(s.trim(), limits.earlierSummaryChars)), '');
  narrative.push(...narrativeLines(facts, limits));
  const errs = errorLines(facts, limits);
  if (errs.length) narrative.push('', 'Errors and how they ended:', ...errs);
  const messages = errorMessageLines(facts, limits);
  if (messages.length) narrative.push('', 'Error lines in tool output (every distinct one, with its turns):', ...messages);

  const pending = pendingLines(facts, limits);
  return [
    section('Active Task', active, '- (no user request in this span)'),
    section('Key Decisions & Rationale', withPrior('Key Decisions & Rationale', decisionLines(facts, limits))),
    section('Files & Artifacts', fileLines),
    section('Constraints & Requirements', withPrior('Constraints & Requirements', constraintLines(facts, limits))),
    // Pending items are a snapshot: the latest span's view replaces the earlier one when it has any.
    section('Pending Items', pending.length ? pending : prior('Pending Items') ? [prior('Pending Items')] : []),
    section('Session Narrative', withPrior('Session Narrative', narrative)),
  ].join('\n\n');
}

function claudeCode(input: SpanInput, facts: SpanFacts, limits: OfflineLimits): string {
  const userMessages = facts.instructions.filter((i) => !i.harness);
  const primary: string[] = [];
  if (input.previousSummary?.trim()) primary.push('Earlier turns (previous summary, verbatim):', nested(clipEarlier(input.previousSummary.trim(), limits.earlierSummaryChars)), '');
  for (const s of facts.embeddedSummaries) primary.push('Summary already in the span:', nested(clip(s.trim(), limits.earlierSummaryChars)), '');
  const first = userMessages[0];
  const latest = userMessages.at(-1);
  if (first) primary.push(`First request (turn ${first.turn + 1}): «${quoteLatest(first.text, limits)}»`);
  if (latest && latest !== first) primary.push('', `Latest request (turn ${latest.turn + 1}): «${quoteLatest(latest.text, limits)}»`);

  const concepts = facts.concepts.slice(0, limits.maxConcepts).map((c) => `- \`${c}\``);
  const tools = facts.toolCounts.map((t) => `${t.name} ×${t.calls}${t.errors ? ` (${t.errors} failed)` : ''}`);
  if (tools.length) concepts.push(`- Tools used: ${tools.join(', ')}`);

  const all = facts.instructions.map((i) => {
    const q = quoteInstruction(i.text, i.harness, limits);
    return i.harness ? `- Turn ${i.turn + 1} (harness): «${q}»` : `- Turn ${i.turn + 1}: «${q}»`;
  });

  const current: string[] = [];
  const state = lastState(facts, limits);
  if (state) current.push(state);
  const lastTurn = facts.turnLog.at(-1);
  if (lastTurn) {
    const touched = [...lastTurn.edits, ...lastTurn.creates, ...lastTurn.reads];
    if (touched.length) current.push(`Files in the last turn: ${listPaths(touched)}`);
    const lastCommand = lastTurn.commands.at(-1);
    if (lastCommand) current.push(`Last command: \`${oneLine(lastCommand.command, limits.commandChars)}\` (${lastCommand.outcome})`);
  }

  const next: string[] = [];
  if (facts.unanswered) next.push(`- Answer the user's latest request (turn ${facts.unanswered.turn + 1}).`);
  if (facts.lastAssistantText) for (const s of nextStepSentences(facts.lastAssistantText.text).slice(0, 3)) next.push(`- ${oneLine(s, limits.decisionChars)}`);

  return [
    section(CLAUDE_CODE_SECTIONS[0], primary, '- (no user request in this span)'),
    section(CLAUDE_CODE_SECTIONS[1], concepts),
    section(CLAUDE_CODE_SECTIONS[2], fileSection(facts, limits)),
    section(CLAUDE_CODE_SECTIONS[3], [...errorLines(facts, limits), ...(facts.errorMessages.length ? ['', 'Error lines in tool output (every distinct one, with its turns):', ...errorMessageLines(facts, limits)] : [])]),
    section(CLAUDE_CODE_SECTIONS[4], [...decisionLines(facts, limits), ...constraintLines(facts, limits)]),
    section(CLAUDE_CODE_SECTIONS[5], all),
    section(CLAUDE_CODE_SECTIONS[6], pendingLines(facts, limits)),
    section(CLAUDE_CODE_SECTIONS[7], current),
    section(CLAUDE_CODE_SECTIONS[8], next, '- None recorded.'),
  ].join('\n\n');
}

/** Prose, turn by turn: the legacy style (seed 003 "Narrative"), for conversational sessions. */
function narrative(input: SpanInput, facts: SpanFacts, limits: OfflineLimits): string {
  const paragraphs: string[] = [];
  if (input.previousSummary?.trim()) paragraphs.push(`Earlier: ${clipEarlier(input.previousSummary.trim(), limits.earlierSummaryChars)}`);
  for (const s of facts.embeddedSummaries) paragraphs.push(`An earlier compaction summarized: ${clip(s.trim(), limits.earlierSummaryChars)}`);
  const range = facts.turns ? (facts.turns[0] === facts.turns[1] ? `turn ${facts.turns[0] + 1}` : `turns ${facts.turns[0] + 1}–${facts.turns[1] + 1}`) : 'this span';
  paragraphs.push(`Summary of ${range}.`);
  for (const t of facts.turnLog) {
    const s: string[] = [];
    for (const i of t.instructions) {
      if (i.harness) s.push(`The harness added to turn ${t.turn + 1}: «${quoteInstruction(i.text, true, limits)}»`);
      else s.push(`In turn ${t.turn + 1} the user wrote: «${quoteInstruction(i.text, false, limits)}»`);
    }
    const acts: string[] = [];
    if (t.reads.length) acts.push(`read ${listPaths(t.reads)}`);
    if (t.edits.length) acts.push(`edited ${listPaths(t.edits)}`);
    if (t.creates.length) acts.push(`created ${listPaths(t.creates)}`);
    if (t.deletes.length) acts.push(`deleted ${listPaths(t.deletes)}`);
    if (t.commands.length) acts.push(`ran ${t.commands.map((c) => `\`${oneLine(c.command, 80)}\``).slice(0, 5).join(', ')}${t.commands.length > 5 ? ` and ${t.commands.length - 5} more commands` : ''}`);
    if (acts.length) s.push(`The agent ${acts.join(', ')}.`);
    for (const e of t.errors) s.push(`It hit an error (${e.tool}: ${oneLine(e.line, limits.errorLineChars)}), which ${e.resolution === 'rejected by the user' ? 'the user rejected' : e.resolved ? e.resolution : 'was still failing at the end of the span'}.`);
    if (t.lastAssistantText) s.push(`It said: "${oneLine(sentences(t.lastAssistantText)[0] ?? t.lastAssistantText, limits.decisionChars)}"`);
    if (s.length) paragraphs.push(s.join(' '));
  }
  // The turn sentences name at most a few files each: the full list follows, one path each.
  if (facts.files.length) paragraphs.push(`Files involved: ${facts.files.map((f) => `\`${f.path}\` (${f.actions.join(', ')})`).join(', ')}.`);
  if (facts.errorMessages.length) paragraphs.push(`Error lines in tool output: ${errorMessageLines(facts, limits).map((l) => l.replace(/^- /, '')).join('; ')}.`);
  const state = lastState(facts, limits);
  if (state) paragraphs.push(state);
  const pending = pendingLines(facts, limits);
  if (pending.length) paragraphs.push(`Still open: ${pending.map((p) => p.replace(/^- /, '')).join(' ')}`);
  return paragraphs.join('\n\n');
}

/** Work of the offline summarizer, counted (issue 31: the preview path's tests count, never time). */
export const offlineWork = { calls: 0, messages: 0, renders: 0, rendersSkipped: 0 };

function render(input: SpanInput, facts: SpanFacts, limits: OfflineLimits): string {
  offlineWork.renders++;
  const style: SummaryStyle = input.style ?? 'structured';
  if (style === 'claude-code') return claudeCode(input, facts, limits);
  if (style === 'narrative') return narrative(input, facts, limits);
  return structured(input, facts, limits);
}

/** The caps scaled by `f` (never below a floor that keeps each kind of fact represented). */
export function scaleLimits(limits: OfflineLimits, f: number): OfflineLimits {
  const s = (n: number, floor: number) => Math.max(floor, Math.floor(n * f));
  return {
    instructionChars: s(limits.instructionChars, 200),
    harnessChars: s(limits.harnessChars, 60),
    commandChars: s(limits.commandChars, 100),
    commandEndChars: f >= 0.25 ? s(limits.commandEndChars, 80) : 0,
    maxCommands: s(limits.maxCommands, 30),
    maxFigures: s(limits.maxFigures, 40),
    errorLineChars: s(limits.errorLineChars, 80),
    maxErrors: s(limits.maxErrors, 4),
    errorMessageChars: s(limits.errorMessageChars, 160),
    maxReadFiles: s(limits.maxReadFiles, 60),
    decisionChars: s(limits.decisionChars, 80),
    maxDecisions: s(limits.maxDecisions, 2),
    maxConstraints: s(limits.maxConstraints, 2),
    lastStateChars: s(limits.lastStateChars, 120),
    maxUrls: s(limits.maxUrls, 2),
    maxSeenPaths: s(limits.maxSeenPaths, 0),
    maxSeenUrls: s(limits.maxSeenUrls, 0),
    maxSeenIds: s(limits.maxSeenIds, 0),
    maxSeenErrorLines: s(limits.maxSeenErrorLines, 0),
    maxConcepts: s(limits.maxConcepts, 3),
    planChars: s(limits.planChars, 200),
    // Every file and every turn stay listed until the tightest steps.
    maxFiles: f >= 0.25 ? limits.maxFiles : f > 0 ? Math.min(limits.maxFiles, 40) : Math.min(limits.maxFiles, 12),
    maxNarrativeTurns: f >= 0.25 ? limits.maxNarrativeTurns : f > 0 ? Math.min(limits.maxNarrativeTurns, 30) : Math.min(limits.maxNarrativeTurns, 8),
    earlierSummaryChars: f >= 0.5 ? limits.earlierSummaryChars : Math.min(limits.earlierSummaryChars, f >= 0.25 ? 4000 : f > 0 ? 2000 : 800),
  };
}

/**
 * The offline summarizer with explicit limits (the default export uses DEFAULT_OFFLINE_LIMITS).
 * With `input.maxChars`, the caps shrink step by step until the summary fits (the facts are
 * extracted once). Before the two tightest steps, which cap the files and the narrated turns, the
 * summary over its room is tightened instead: its lowest-ranked lines are left out (tighten, the
 * ranking of DESIGN-NOTES "Summary tightening": an agent-only turn before a command, an ok command
 * before a test run, a passing run before a failing one, the earlier before the latest), so every
 * path, user message and error line stays. The smallest rendering, as it is, is returned when
 * even that does not fit.
 */
export function summarizeOfflineWith(input: SpanInput, limits: OfflineLimits = DEFAULT_OFFLINE_LIMITS): string {
  offlineWork.calls++;
  offlineWork.messages += input.messages.length;
  const facts = extractSpanFacts(input.messages);
  // A rendering whose floor (structuredFloor + spanFloor) is over the room cannot fit: only whether
  // it fits is read of the renderings before the last of the loop, so such a one is not made.
  let own: number | undefined;
  const overRoom = (l: OfflineLimits) => {
    if (!offlineChecks.floor || input.maxChars === undefined) return false;
    const floor = structuredFloor(input, l.earlierSummaryChars) + (own ??= spanFloor(input, facts));
    if (floor <= input.maxChars) return false;
    offlineWork.rendersSkipped++;
    if (offlineChecks.verifyFloor) {
      const length = render(input, facts, l).length;
      if (length <= input.maxChars || length < floor) throw new Error(`offline summarizer: a render of ${length} characters was skipped by its floor ${floor} (room ${input.maxChars})`);
    }
    return true;
  };
  let text: string;
  if (!overRoom(limits)) {
    text = render(input, facts, limits);
    if (input.maxChars === undefined || text.length <= input.maxChars) return text;
  }
  const maxChars = input.maxChars!;
  const rendered = (l: OfflineLimits) => {
    const keys = new Map<string, number>();
    dropKeys = keys;
    try {
      return { text: render(input, facts, l), keys };
    } finally {
      dropKeys = undefined;
    }
  };
  // Shorter lines first, every file and every turn still listed (the caps of the step, not its cuts).
  let r: { text: string; keys: Map<string, number> } | undefined;
  for (const f of [0.5, 0.25, 0.1, 0]) {
    const l = { ...scaleLimits(limits, f), maxFiles: limits.maxFiles, maxNarrativeTurns: limits.maxNarrativeTurns };
    // The last one is tightened below: made even over the room.
    if (f > 0 && overRoom(l)) continue;
    r = rendered(l);
    if (r.text.length <= maxChars) return r.text;
  }
  // Then fewer lines: the lowest-ranked go first.
  text = tighten(r!.text, r!.keys, maxChars);
  if (text.length <= maxChars) return text;
  // Last resort: the tightest caps (files and narrated turns capped), tightened too. When nothing
  // fits, the smallest rendering as it is: no line is left out for nothing.
  r = rendered(scaleLimits(limits, 0));
  if (r.text.length <= maxChars) return r.text;
  text = tighten(r.text, r.keys, maxChars);
  return text.length <= maxChars ? text : r.text;
}

/**
 * Leave out the droppable lines of `text` (keys: line → drop key), lowest key first and, among
 * equal keys, the earlier line first, until it fits `maxChars` with a closing note that says how
 * many lines were left out. Returns `text` tightened as far as its droppable lines allow.
 */
export function tighten(text: string, keys: ReadonlyMap<string, number>, maxChars: number): string {
  if (text.length <= maxChars || keys.size === 0) return text;
  const lines = text.split('\n');
  const order = lines.map((l, i) => ({ i, key: keys.get(l) })).filter((x): x is { i: number; key: number } => x.key !== undefined);
  order.sort((a, b) => a.key - b.key || a.i - b.i);
  const dropped = new Set<number>();
  let length = text.length;
  const note = (n: number) => `[… ${formatCount(n)} lower-ranked line${n === 1 ? '' : 's'} left out to fit]`;
  for (const { i } of order) {
    if (dropped.size > 0 && length + 1 + note(dropped.size).length <= maxChars) break;
    dropped.add(i);
    length -= lines[i].length + 1;
  }
  if (dropped.size === 0) return text;
  return [...lines.filter((_, i) => !dropped.has(i)), note(dropped.size)].join('\n');
}

export const summarizeOffline: SyncSummarizer = (input) => summarizeOfflineWith(input);

/**
 * The naive baseline: the first line of every message. Used only to measure what the structured
 * summarizer adds (identifier retention), never offered as a strategy.
 */
export const summarizeFirstLines: SyncSummarizer = (input) => {
  const lines: string[] = [];
  if (input.previousSummary?.trim()) lines.push(input.previousSummary.trim().split('\n')[0]);
  for (const m of input.messages) {
    const first = firstLineOf(m);
    if (first) lines.push(`${m.role}: ${first}`);
  }
  return lines.join('\n');
};

function firstLineOf(m: ProjectedMessage): string | undefined {
  for (const b of m.blocks) {
    const text = b.kind === 'text' || b.kind === 'summary' || b.kind === 'reasoning' ? b.text : b.kind === 'tool_result' ? b.content : b.kind === 'tool_call' ? `${b.name} ${b.rawInput ?? JSON.stringify(b.input) ?? ''}` : '';
    const line = text.split('\n').find((l) => l.trim());
    if (line) return line.trim().slice(0, 200);
  }
  return undefined;
}
