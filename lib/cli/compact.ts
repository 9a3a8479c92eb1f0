/**
 * `npm run -s cli -- compact FILE --budget N [--strategy S]… [--keep-last K] [--config F]
 *   --out OUT [--report-json R] [--conversation K] [--dry-run]`
 *
 * Compacts a transcript to N tokens — counted exactly like `inspect`'s tokens.total
 * (lib/tokens/totals.ts) — and exports it in its own format (serialize(t, projection)). The
 * command re-imports what it wrote and checks it: tokens ≤ N and tool pairing valid, else it
 * exits 1. With no --strategy, `auto`. Formats write a summary their own way, so the re-imported
 * count can differ a little from the projection's; auto then re-aims below N and tries again.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ImportError, userMessage } from '../errors';
import { importFile } from '../formats/import';
import { formatById } from '../formats/registry';
import type { SerializeResult } from '../formats/types';
import { encodeExport, textEncodingOf, type TextEncodingOf } from '../read/encode';
import { sourceFromBytes, type SourceFile } from '../read/source';
import { EXIT, EXIT_CODES_HELP, checkOutPath, explainExportError, readInputFile, readSource, writeOutput } from './_files';
import { isFatalForExport, newPairingIssues, validatePairing, type PairingIssue } from '../model/pairing';
import type { Transcript } from '../model/types';
import { lookupModel, inputBudgetOf, type ModelInfo } from '../tokens/catalog';
import { fileBudgetFor, modelViewOf, type ModelView } from '../compaction/budget';
import { buildAudit } from '../compaction/audit';
import { parseCompactionConfig, planToStep, type CompactionPlan } from '../compaction/config';
import { lostIdentifiers } from '../compaction/lost';
import { modelViewTotals, projectTranscript as projectBase, startingContext } from '../compaction/project';
import { addPointers } from '../compaction/pointers';
import { contextFloor } from '../compaction/calls';
import { isReducerId } from '../compaction/reducers';
import { formatReport } from '../compaction/report';
import { proposeTangents } from '../compaction/tangents';
import type { Projection, ReducerId, ReducerReport, Step, SummaryKey } from '../compaction/types';
import { projectWithProviderSummaries, providerFromEnvOrFlags, type CliProvider } from '../summarize/cli-provider';
import { nativeUnavailable } from '../summarize/providers/native';
import { importPooled } from './_token-pool';
import { runBatch, runStream } from './_compact-batch';

export const summary = 'Compact a transcript to a token budget and export it in its own format (auto, or --strategy …)';

const USAGE = `Usage: npm run -s cli -- compact FILE --budget N [--strategy S]… [--keep-last K] [--config F]
                              [--keep-last-calls C] [--keep-last-tokens T] [--tail auto|turns]
                              --out OUT [--report-json R] [--conversation K] [--dry-run]
       npm run -s cli -- compact DIR --out DIR2 [--jobs N] [options]     every file of DIR, in worker threads
       npm run -s cli -- compact --stream [options] < in.jsonl > out.jsonl  one transcript per line

  DIR               compacts every file under DIR (recursively, dot files skipped) into DIR2 at the
                    same relative path; progress on stderr, a summary table on stdout; exit 1 if any failed
  --jobs N          worker threads for DIR (default and most: os.availableParallelism(); over 256 refused)
  --stream          each stdin line is a JSON object {"path": F} or {"text": T, "name"?: N} or
                    {"base64": B, "name": N} (any may carry "id"), or the transcript itself (one JSON
                    document, e.g. an OpenAI Chat request); each stdout line is {id, name, ok, format,
                    turns, tokensBefore, tokensAfter, budget, text | base64, error} in input order

  --budget N        target tokens, counted like \`inspect\` (default: the model's input budget
                    minus the invisible overhead and ÷ the calibration factor of the recorded usage)
  --model M         model for the default budget (default: the one the transcript names)
  --strategy S      a reducer (repeatable, applied in order); default auto. One of:
                    auto, strip-reasoning, dedup-tools, tool-hints, tool-retention,
                    truncate-tool-results, strip-tool-results, strip-attachments, prune-tools,
                    sliding-window, summarize, classify-tangents, emergency, native
                    (native: the provider's own compaction API — OpenAI POST /v1/responses/compact,
                    Anthropic compact_20260112 — needs --provider openai|anthropic; offline it is
                    unavailable (exit 2); with gemini, or when Anthropic's 50,000-token trigger
                    does not fire, the provider summarizes with our prompt instead, as said)
  --keep-last K     turns at the end never touched (default 1, or the config's keep_last)
  --keep-last-calls C   when those turns alone exceed the budget (an agent run: one prompt, one
                    turn of many calls), protect the last C model calls instead (default 3) …
  --keep-last-tokens T  … at most T tokens of them (default a quarter of the budget; the last call
                    is always kept), and the prompt that opened the turn; if still too much, the
                    last call alone
  --tail auto|turns auto (default): narrow keep_last as above when needed; turns: never
  --config F        JP TOML or sven YAML compaction settings
  --retention R     tool-retention for tools without a lifespan in the hints table (and for the
                    tool-retention strategy): age:N (results live N turns, default age:5) or
                    count:N (the newest N results of each tool live)
  --tangents T,T    turns (1-based) for classify-tangents
  --out OUT         where to write the compacted conversation
  --report-json R   write the audit record (steps, fates, tokens, lost identifiers)
  --pointers        every stub, truncation and summary names where its full text still lives: FILE
                    (absolute path) at the record's line (and uuid), so a resumed agent can read it
                    back (not with --stream: stdin has no file to point into)
  --conversation K  which conversation of a container file (0-based)
  --dry-run         show what would change; write nothing
  --cache-aware     auto keeps its compaction only if the window forces it (90 % of the model's input
                    budget) or it pays for the prompt cache it breaks over the calls estimated to
                    come; otherwise nothing is written and the report says by how much it would have
                    cost more (exit 0)
  --keep-failed     write OUT even when the check fails (over budget, or tool pairing broken by
                    the compaction); without it a failed check writes nothing at OUT
  --provider P      summaries by an LLM: openai|anthropic|gemini (with --summary-model, --base-url, --timeout,
                    --summary-style, --prompt-file; key from CONTEXTSCOPE_API_KEY or the provider's
                    own variable); default: the offline summarizer. --summary-model defaults to the
                    config's summarize_model/model. A transient failure (rate limit, 5xx, network,
                    timeout) is retried once, after the server's Retry-After (else 1 s; no retry
                    when it asks for more than 30 s); a summary that still fails falls back to
                    emergency

Tool-pairing issues already in FILE (a call the source never answered) are named in the report and
do not fail the check; only issues the compaction adds do.
${EXIT_CODES_HELP}`;

export interface CompactArgs {
  file?: string;
  budget?: number;
  strategies: ReducerId[];
  /** --strategy native: the summarize requests go to the provider's own compaction API. */
  native?: boolean;
  /** Count a large import's exact tokens with the tokenizer pool (one file at a time only). */
  poolTokens?: boolean;
  keepLast?: number;
  keepLastCalls?: number;
  keepLastTokens?: number;
  tail?: 'auto' | 'turns';
  config?: string;
  out?: string;
  reportJson?: string;
  /** --pointers: stubs and summaries name where the full text lives (lib/compaction/pointers.ts). */
  pointers?: boolean;
  conversation?: number;
  dryRun: boolean;
  /** Auto keeps its compaction only if the window forces it or it pays for the cache it breaks (issue #29). */
  cacheAware?: boolean;
  keepFailed?: boolean;
  tangents?: number[];
  model?: string;
  /** Worker threads for a directory (default: os.availableParallelism()). */
  jobs?: number;
  /** Read one transcript per line on stdin, write one result per line on stdout. */
  stream: boolean;
  retention?: { mode: 'age' | 'count'; n: number };
  help: boolean;
}

/** The most --jobs accepted (a batch runs at most one worker thread per core anyway). */
export const MAX_JOBS = 256;

export function parseCompactArgs(args: string[]): CompactArgs {
  const out: CompactArgs = { strategies: [], dryRun: false, stream: false, help: false };
  const value = (i: number, name: string): string => {
    const v = args[i];
    if (v === undefined || v.startsWith('--')) throw new Error(`${name} needs a value.`);
    return v;
  };
  const int = (v: string, name: string, min: number): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) throw new Error(`${name} takes a whole number ≥ ${min} (got "${v}").`);
    return n;
  };
  for (let i = 0; i < args.length; i++) {
    let a = args[i];
    let inline: string | undefined;
    const eq = a.indexOf('=');
    if (a.startsWith('--') && eq > 0) {
      inline = a.slice(eq + 1);
      a = a.slice(0, eq);
    }
    const next = () => inline ?? value(++i, a);
    switch (a) {
      case '--help':
      case '-h':
        out.help = true;
        break;
      case '--budget':
        out.budget = int(next(), '--budget', 1);
        break;
      case '--strategy':
      case '-s': {
        const s = next();
        // Native (seed 002): summarize, with the provider's own compaction API answering the requests.
        if (s === 'native') {
          out.native = true;
          out.strategies.push('summarize');
          break;
        }
        if (!isReducerId(s)) throw new Error(`Unknown strategy "${s}".`);
        out.strategies.push(s);
        break;
      }
      case '--keep-last':
        out.keepLast = int(next(), '--keep-last', 0);
        break;
      case '--keep-last-calls':
        out.keepLastCalls = int(next(), '--keep-last-calls', 1);
        break;
      case '--keep-last-tokens':
        out.keepLastTokens = int(next(), '--keep-last-tokens', 0);
        break;
      case '--tail': {
        const v = next();
        if (v !== 'auto' && v !== 'turns') throw new Error(`--tail takes auto or turns (got "${v}").`);
        out.tail = v;
        break;
      }
      case '--config':
        out.config = next();
        break;
      case '--out':
      case '-o':
        out.out = next();
        break;
      case '--report-json':
        out.reportJson = next();
        break;
      case '--pointers':
        out.pointers = true;
        break;
      case '--conversation':
      case '-c':
        out.conversation = int(next(), '--conversation', 0);
        break;
      case '--tangents':
        out.tangents = next()
          .split(',')
          .map((t) => int(t.trim(), '--tangents', 1) - 1);
        break;
      case '--dry-run':
        out.dryRun = true;
        break;
      case '--cache-aware':
        out.cacheAware = true;
        break;
      case '--keep-failed':
        out.keepFailed = true;
        break;
      case '--jobs':
      case '-j':
        out.jobs = int(next(), '--jobs', 1);
        // One worker thread per job, each with its own heap: --jobs 1e9 started one per file (200
        // tiny files reached 12 GiB). Past MAX_JOBS it is a mistake; runBatch caps at the cores.
        if (out.jobs > MAX_JOBS) throw new Error(`--jobs ${out.jobs.toLocaleString('en-US')} is more than ${MAX_JOBS}: each job is a worker thread with its own memory (the batch uses at most one per core, ${os.availableParallelism()} here).`);
        break;
      case '--stream':
        out.stream = true;
        break;
      case '--retention': {
        const v = next();
        const m = /^(age|count):(\d+)$/.exec(v);
        if (!m) throw new Error(`--retention takes age:N or count:N (got "${v}").`);
        out.retention = { mode: m[1] as 'age' | 'count', n: Number(m[2]) };
        break;
      }
      case '--model':
      case '-m':
        out.model = next();
        break;
      default:
        if (a.startsWith('-')) throw new Error(`Unknown option ${a}.`);
        if (out.file !== undefined) throw new Error(`Only one FILE can be compacted (got "${out.file}" and "${a}").`);
        out.file = a;
    }
  }
  return out;
}

export interface CompactOutcome {
  projection: Projection;
  steps: Step[];
  text?: string;
  /** The written file's bytes: the archive of a binary format (Inspect .eval zip), else `text` in the source's encoding. */
  bytes?: Uint8Array;
  fileName?: string;
  /** tokens.total of the re-imported output (inspect's number). */
  reimportedTokens?: number;
  attempts: number;
  /** What the command had to do differently (fallbacks), for the user. */
  notes?: string[];
  /** --pointers without a source file: the recall file's text (JSONL) the pointers name. */
  recall?: string;
}

/** The step the arguments describe: named strategies (or the config's, or auto), the config's knobs and hints. */
export function stepFromArgs(a: CompactArgs, plan: CompactionPlan | undefined, budget: number): Step {
  const base: CompactionPlan = plan ?? { source: 'jp-toml', strategies: [{ id: 'auto' }], hints: {}, auto: {}, warnings: [] };
  const strategies = a.strategies.length ? a.strategies.map((id) => ({ id })) : base.strategies;
  const step = planToStep(
    { ...base, strategies },
    {
      id: 'cli',
      budget,
      ...(a.keepLast !== undefined && { keepLast: a.keepLast }),
      ...(a.keepLastCalls !== undefined && { keepLastCalls: a.keepLastCalls }),
      ...(a.keepLastTokens !== undefined && { keepLastTokens: a.keepLastTokens }),
      ...(a.tail !== undefined && { tail: a.tail }),
      // Strategies named with --strategy run as asked; the config's own profile waits for its trigger.
      gate: a.strategies.length === 0,
    },
  );
  const { label, ...rest } = step;
  // The config's summarize_threshold is a fraction of the window of the model the plan targets:
  // --model names it here (else the pipeline looks up the transcript's model).
  const window = a.model ? lookupModel(a.model)?.contextWindow : undefined;
  return {
    ...rest,
    ...(plan && label ? { label } : {}),
    reducers: step.reducers.map((r) => {
      if (r.id === 'summarize' && a.native) return { id: r.id, options: { ...r.options, producer: 'native' } };
      if (r.id === 'classify-tangents') return { id: r.id, options: { ...r.options, turns: a.tangents ?? [] } };
      if (r.id === 'tool-retention' && a.retention) return { id: r.id, options: { ...r.options, mode: a.retention.mode, ...(a.retention.mode === 'count' ? { keep: a.retention.n } : { turns: a.retention.n }) } };
      if (r.id !== 'auto') return r;
      const retention = a.retention ? { retentionMode: a.retention.mode, ...(a.retention.mode === 'count' ? { retentionKeep: a.retention.n } : { retentionTurns: a.retention.n }) } : {};
      return { id: r.id, options: { ...r.options, ...retention, ...(window !== undefined && { contextWindow: window }), ...(a.cacheAware && { cacheAware: true }) } };
    }),
  };
}

/**
 * The default --budget: the model's input budget (window − max output) as the file may hold it —
 * minus the invisible overhead the recorded usage shows (system prompt, tool schemas the file does
 * not store), divided by the calibration factor (budget.ts fileBudgetFor). `line` says how.
 */
export function defaultBudget(t: Transcript, info: ModelInfo): { budget: number; inputBudget: number; view: ModelView; line: string } {
  const inputBudget = inputBudgetOf(info);
  const view = modelViewOf(t);
  const budget = fileBudgetFor(inputBudget, view);
  const model = `${info.label}${info.approximate ? ', assumed from its family' : ''} input budget ${inputBudget}`;
  const how = view.calls > 0 ? `${model} ÷ ${view.factor.toFixed(3)} calibration − ${view.overhead} invisible overhead (from ${view.calls} recorded call(s))` : `${model}; no recorded usage, so no overhead or calibration is known`;
  return { budget, inputBudget, view, line: `${budget} tokens in the file (${how})` };
}

/**
 * The config's summary model for the CLI's provider: `anthropic/claude-haiku` → `claude-haiku` when
 * the provider is Anthropic. An explicit --summary-model or CONTEXTSCOPE_MODEL wins; a model of
 * another provider is not used (said in `note`).
 */
export function summaryModelFromConfig(configModel: string, kind: string, args: readonly string[], env: Record<string, string | undefined>): { model?: string; note?: string } {
  if (args.some((x) => x === '--summary-model' || x.startsWith('--summary-model='))) return {};
  if (env.CONTEXTSCOPE_MODEL) return { note: `summary model "${configModel}" from the config not used: CONTEXTSCOPE_MODEL is set` };
  const slash = configModel.indexOf('/');
  const vendor = slash > 0 ? configModel.slice(0, slash).toLowerCase() : undefined;
  const name = slash > 0 ? configModel.slice(slash + 1) : configModel;
  const same = vendor === undefined || vendor === kind || (kind === 'gemini' && vendor === 'google');
  if (!same) return { note: `summary model "${configModel}" from the config is not a ${kind} model: the ${kind} provider's default is used` };
  return { model: name, note: `summaries by ${kind}:${name} (the config's summary model)` };
}

/** What an export writes: the archive of a binary format (.eval), else the text in the source's encoding and BOM. */
function fileBytes(out: SerializeResult, encoding?: TextEncodingOf): Uint8Array {
  return encodeExport(out, encoding);
}

/**
/**
 * The output's fatal pairing issues, in what the model is sent on resume (history a file keeps
 * before a compaction is never sent), split into those the source already had (same kind, same
 * source call id: a call the source never answered stays unanswered) and those the compaction
 * added (newPairingIssues, as the engine counts). Only added ones fail the check.
 */
export function pairingBlame(source: Transcript, output: Transcript): { inherited: PairingIssue[]; added: PairingIssue[] } {
  const view = (t: Transcript) => startingContext(t, 'model-view').messages.filter((m) => !m.sidechain);
  const out = view(output);
  const fatal = validatePairing(out).filter((x) => isFatalForExport(x, out.length));
  const added = newPairingIssues(validatePairing(view(source)), fatal, { bySourceId: true });
  const fresh = new Set(added);
  return { inherited: fatal.filter((i) => !fresh.has(i)), added };
}

function describeIssues(issues: PairingIssue[], max = 3): string {
  const shown = issues.slice(0, max).map((i) => `${i.kind} ${i.callId}`);
  return shown.join(', ') + (issues.length > max ? `, … ${issues.length - max} more` : '');
}

/**
 * True when a projection leaves the context the model resumes with as it is: no block changed,
 * no summary added, no tool schema pruned (the source's own compactions stay where they are).
 */
export function changesNothing(t: Pick<Transcript, 'tools'>, projection: Projection): boolean {
  if (projection.tools.length !== t.tools.length || projection.messages.some((m) => m.synthetic)) return false;
  return Object.values(projection.fates).every((f) => f.kind === 'kept' || (f.kind === 'summarized' && f.stepId.startsWith('source-marker:')));
}

/**
 * Project, serialize, re-import, check. Auto re-aims up to 3 times when the format's own way of
 * writing a summary or stub costs more than the projection counted. When the export does not
 * carry what the projection did (the re-import breaks pairing, or holds more than the projection
 * though it fitted), auto falls back once to content-only edits (`conservative`: no schema
 * pruning, no argument stripping, no pair removal), which every exporter carries.
 */
export function compactTranscript(t: Transcript, step: Step, budget: number, opts: { write: boolean; conversation?: number; summaries?: (key: SummaryKey) => string | undefined; summaryItems?: (key: SummaryKey) => readonly unknown[] | undefined; encoding?: TextEncodingOf; pointers?: { sourcePath?: string; recallPath: string } }): CompactOutcome {
  // Stored summaries (from --provider) for the projections below; none = the offline stand-in.
  // Native output items ride on their summary blocks: OpenAI Responses and Codex writers carry them.
  const projectOptions = opts.summaries ? { summaries: opts.summaries, ...(opts.summaryItems && { summaryItems: opts.summaryItems }) } : {};
  const format = formatById(t.format);
  // --pointers: every projection below carries them, so the re-import check counts their tokens.
  let recall: string | undefined;
  // What the reducers brought the context to, before pointers: what they aimed at.
  let reduced = 0;
  const projectTranscript = (log: Transcript, s: Step[], o: typeof projectOptions): Projection => {
    const p = projectBase(log, s, o);
    reduced = p.tokens.after.total;
    if (!opts.pointers) return p;
    const r = addPointers(log, p, opts.pointers);
    recall = r.recall;
    return r.projection;
  };
  const withAim = (s: Step, aim: number): Step => ({ ...s, budget: aim });
  let current = step;
  let aim = budget;
  let steps = [withAim(current, aim)];
  let projection = projectTranscript(t, steps, projectOptions);
  if (!opts.write) return { projection, steps, attempts: 1, ...(recall && { recall }) };
  if (!format) throw new Error(`No exporter for format "${t.format}".`);
  const autoIdx = step.reducers.findIndex((r) => r.id === 'auto');
  let conservative = false;
  const notes: string[] = [];
  let best: CompactOutcome | undefined;
  // --pointers: what the pointers cost depends on what the projection stubs (one per stub, one per
  // summary), so a lower aim can cost far less than the re-aiming subtracted (85 stubs' pointers of
  // localpush's rollout turn into one summary's). The aims between the highest that fitted and the
  // lowest that did not are then halved, and the largest file that fits is the answer.
  let bestFit: CompactOutcome | undefined;
  let fitAim: number | undefined;
  let overAim: number | undefined;
  for (let attempt = 1; ; attempt++) {
    // Nothing to do (the budget is already met, or no reducer changed anything): the original file,
    // byte for byte — not a re-serialization that drops history or re-links records.
    const out = changesNothing(t, projection) ? format.serialize(t) : format.serialize(t, projection);
    const written = fileBytes(out, opts.encoding);
    const re = importFile(sourceFromBytes(out.fileName, written), { format: t.format, ...(opts.conversation !== undefined && { conversation: opts.conversation }) }).transcript;
    const total = modelViewTotals(re).total;
    const pairsBroken = pairingBlame(t, re).added.length > 0;
    const notCarried = pairsBroken || total > Math.max(aim, projection.tokens.after.total) + Math.ceil(budget * 0.05);
    const done = (extra: string[] = []): CompactOutcome => {
      // The projection fits but the file does not: the format writes summaries and stubs with
      // overhead the re-aiming could not absorb (e.g. a summary already at its smallest). Said in
      // the report, never left for the user to discover.
      const overhead = total > budget && reduced <= budget;
      const pointed = projection.tokens.after.total - reduced;
      const why = `the ${t.format} export holds ${total} tokens for ${reduced} projected: ${pointed > 0 ? `the pointers add ${pointed} tokens and ` : ''}the format's own way of writing the summary/stubs adds ${total - projection.tokens.after.total} tokens, and after ${attempt} attempt(s) the output still exceeds the budget of ${budget}`;
      const report = overhead ? [...projection.report, { stepId: current.id, reducer: 'auto' as const, events: 0, tokensBefore: total, tokensAfter: total, notes: [why] }] : projection.report;
      return { projection: overhead ? { ...projection, report } : projection, steps, text: out.text, bytes: written, fileName: out.fileName, reimportedTokens: total, attempts: attempt, notes: [...notes, ...extra, ...(overhead ? [why] : [])], ...(recall && { recall }) };
    };
    if (autoIdx >= 0 && !conservative && notCarried && attempt < 6) {
      conservative = true;
      notes.push(`the ${t.format} export did not carry every edit (${pairsBroken ? 'tool pairing broke on re-import' : `${total} tokens re-imported for ${projection.tokens.after.total} projected`}): retried with content-only edits`);
      const reducers = current.reducers.map((r, i) => (i === autoIdx ? { ...r, options: { ...r.options, conservative: true } } : r));
      current = { ...current, reducers };
      aim = budget;
      steps = [withAim(current, aim)];
      projection = projectTranscript(t, steps, projectOptions);
      continue;
    }
    // Re-aiming cannot help when the projection itself does not fit (protected turns too big).
    // When nothing fits, the smallest file of the attempts is the answer (a content-only retry or a
    // lower aim can do worse than the first try).
    const outcome = done();
    const fits = total <= budget;
    if (fits && (!bestFit || total > bestFit.reimportedTokens!)) bestFit = outcome;
    if (!fits && (!best || total < best.reimportedTokens!)) best = outcome;
    if ((fits && !opts.pointers) || autoIdx < 0 || attempt >= 6 || (!fits && reduced > aim)) return bestFit ?? best!;
    if (fits) fitAim = aim;
    else overAim = aim;
    if (fitAim !== undefined) {
      // Pointers only: halve the gap while the best file leaves much of the budget unused.
      if (overAim === undefined || bestFit!.reimportedTokens! >= budget * 0.9 || overAim - fitAim <= Math.ceil(budget * 0.05)) return bestFit!;
      aim = Math.floor((fitAim + overAim) / 2);
    } else aim = Math.max(1, aim - (total - budget) - Math.ceil(budget * 0.01));
    steps = [withAim(current, aim)];
    projection = projectTranscript(t, steps, projectOptions);
  }
}

/**
 * Why a compaction does not fit, naming the floor: system messages + every user message + the
 * last model call (lib/compaction/calls.ts contextFloor), which no strategy that keeps the user's
 * words goes below.
 */
export function whyNotFit(t: Transcript, projectedTokens: number, outputTokens: number, budget: number, ran?: { report: readonly ReducerReport[]; step: Pick<Step, 'tail'> }): string {
  const f = contextFloor(t, startingContext(t, 'model-view').messages);
  const floor = `the floor is ${f.total} tokens (system ${f.system} + user messages ${f.user} + the last model call ${f.lastCall}${f.tools ? `; tool schemas ${f.tools} more` : ''})`;
  if (f.total > budget) return `${floor} > budget ${budget}: raise --budget`;
  // Auto stopped on a gate of the config, not on the tail: name the gate (issue 28).
  const gate = ran && gateCause(ran.report);
  if (projectedTokens > budget && gate) return `${floor} ≤ budget ${budget}, but ${gate}`;
  if (projectedTokens > budget) return `${floor} ≤ budget ${budget}, but the protected tail and what the strategies could not reduce hold ${projectedTokens}: lower --keep-last / --keep-last-calls${ran?.step.tail === 'turns' ? ', or use --tail auto' : ''}`;
  return `${floor} ≤ budget ${budget}; the compaction fits (${projectedTokens}) but the ${t.format} export adds ${outputTokens - projectedTokens} tokens of its own records`;
}

/**
 * The config's gate that stopped auto short of the budget, in words, from auto's report notes:
 * a JP trigger that did not fire (trigger_ratio, min_turns), a context window it could not know,
 * or summarize_threshold. undefined when auto ran its ladder (then the tail is what is left).
 */
export function gateCause(report: readonly ReducerReport[]): string | undefined {
  const notes = report.filter((r) => r.reducer === 'auto').flatMap((r) => r.notes.map((x) => x.replace(/^auto: /, '')));
  for (const x of notes) {
    let m = /^([\d,]+) tokens ≤ trigger ([\d,]+)(.*): nothing to do$/.exec(x);
    if (m) return `auto did not fire: the context (${m[1]}) is below the config's trigger ${m[2]}${m[3]}: lower trigger_ratio (or compaction_threshold), or name strategies with --strategy`;
    m = /^(\d+) turn\(s\) ≤ min_turns (\d+): left alone$/.exec(x);
    if (m) return `auto did not fire: the session has ${m[1]} turn(s), not more than the config's min_turns ${m[2]}: lower min_turns, or name strategies with --strategy`;
    if (/^trigger_ratio: the context window of .* is unknown/.test(x)) return `auto did not fire: ${x.replace(/^trigger_ratio: /, '')} — the config's trigger_ratio is a fraction of it: pass --model M (a model in the catalog)`;
    m = /^summarize skipped: (.*), below summarize_threshold (.*)$/.exec(x) ?? /^summarize skipped: (.*), at summarize_threshold (.*)$/.exec(x);
    if (m) return `auto stopped after the free reducers: ${m[1]}, not above the config's summarize_threshold ${m[2]}: lower summarize_threshold to let it summarize`;
  }
  return undefined;
}

/** Where a compaction writes its report (stdout) and its notes (stderr). */
export interface Io {
  out(s: string): void;
  err(s: string): void;
}

export const processIo: Io = { out: (s) => void process.stdout.write(s), err: (s) => void process.stderr.write(s) };

/** One file's result, for the batch summary table and the stream mode's output lines. */
export interface CompactRow {
  file: string;
  code: number;
  format?: string;
  turns?: number;
  tokensBefore?: number;
  /** tokens.total of the written output, re-imported (or the projection's on --dry-run). */
  tokensAfter?: number;
  budget?: number;
  attempts?: number;
  ms: number;
  error?: string;
}

/**
 * Compact one transcript to `a.out` — what `compact FILE` does, for one file, a directory's files
 * (batch) and stdin lines (stream). The report goes to io.out, notes and errors to io.err. The
 * output is checked on the very bytes that would be written (re-imported: what the model is sent
 * on resume within the budget, no tool pairing issue the compaction added) before anything is
 * written; a failed check writes nothing unless --keep-failed. `sink` receives the bytes instead of
 * a file (the stream mode).
 */
export async function compactBytes(a: CompactArgs, name: string, input: Uint8Array | SourceFile, cliIn: CliProvider, io: Io, sink?: (bytes: Uint8Array) => void, args: readonly string[] = []): Promise<CompactRow> {
  let cli = cliIn;
  const t0 = performance.now();
  const row: CompactRow = { file: name, code: 0, ms: 0 };
  const end = (code: number, error?: string): CompactRow => Object.assign(row, { code, ms: performance.now() - t0, ...(error !== undefined && { error }) });
  let t: Transcript;
  let source: SourceFile;
  let plan: CompactionPlan | undefined;
  try {
    source = input instanceof Uint8Array ? sourceFromBytes(path.basename(name), input) : input;
    const opts = { ...(a.conversation !== undefined && { conversation: a.conversation }) };
    t = (a.poolTokens ? await importPooled(source, opts) : importFile(source, opts)).transcript;
    plan = a.config ? parseCompactionConfig(a.config, new TextDecoder().decode(readInputFile(a.config, '--config'))) : undefined;
  } catch (e) {
    const msg = userMessage(e);
    io.err(msg + '\n');
    return end(EXIT.badInput, msg);
  }
  Object.assign(row, { format: t.format, turns: t.turnCount });
  try {
    for (const w of plan?.warnings ?? []) io.err(`config: ${w}\n`);
    // JP summarize_model / model: the summarizing model when --provider is given and no --summary-model.
    if (plan?.summaryModel && cli.config) {
      const chosen = summaryModelFromConfig(plan.summaryModel, cli.config.kind, args, process.env);
      if (chosen.note) io.err(`config: ${chosen.note}\n`);
      if (chosen.model) cli = providerFromEnvOrFlags([...args, '--summary-model', chosen.model], process.env, { modelFlag: '--summary-model' });
    }
    let budget = a.budget;
    if (budget === undefined) {
      const info = lookupModel(a.model ?? t.model);
      if (!info) {
        const msg = `No --budget given and the model (${a.model ?? t.model ?? 'not recorded'}) is not in the catalog: pass --budget N or --model M.`;
        io.err(msg + '\n');
        return end(EXIT.badInput, msg);
      }
      const d = defaultBudget(t, info);
      budget = d.budget;
      io.err(`budget: ${d.line}\n`);
    }
    row.budget = budget;
    const step = stepFromArgs(a, plan, budget);
    if (a.strategies.includes('classify-tangents') && !a.tangents) {
      const proposed = proposeTangents(t, { keepLast: step.keepLast });
      io.out(`tangent candidates (pass --tangents to remove):\n${proposed.map((p) => `  turn ${p.turn + 1}: ${p.reason}`).join('\n') || '  none'}\n`);
    }
    if (a.native && !cli.provider) {
      const msg = `--strategy native: ${nativeUnavailable(undefined)}`;
      io.err(msg + '\n');
      return end(EXIT.badInput, msg);
    }
    // --provider: answer the projection's summary requests with the LLM before the final projection.
    const filled = cli.provider ? await projectWithProviderSummaries({ log: t, steps: [step], cli, onLine: (l) => io.err(`${l}\n`) }) : undefined;
    const summaries = filled?.lookup;
    const summaryItems = filled?.items;
    let outcome: CompactOutcome;
    try {
      outcome = compactTranscript(t, step, budget, { write: !a.dryRun, ...(a.pointers && { pointers: pointerTargets(a, name) }), encoding: textEncodingOf(source), ...(a.conversation !== undefined && { conversation: a.conversation }), ...(summaries && { summaries }), ...(summaryItems && { summaryItems }) });
    } catch (e) {
      throw explainExportError(e, 'compacted export');
    }
    row.tokensBefore = outcome.projection.tokens.before.total;
    row.attempts = outcome.attempts;
    const lost = lostIdentifiers(t, outcome.projection);
    io.out(formatReport(t, outcome.steps, outcome.projection, lost) + '\n');
    for (const n of outcome.notes ?? []) io.out(`note: ${n}\n`);
    // --cache-aware: auto left the context as it was because compacting would cost more.
    const declined = a.cacheAware ? outcome.projection.report.flatMap((r) => r.notes).find((n) => n.startsWith('cache check: not compacted')) : undefined;
    if (declined) {
      row.tokensAfter = outcome.projection.tokens.after.total;
      io.out(`auto chose not to compact (--cache-aware): ${declined.slice('cache check: '.length)}; nothing written\n`);
      return end(EXIT.ok);
    }
    const writeReport = () => {
      if (!a.reportJson) return;
      const audit = buildAudit({ log: t, steps: outcome.steps, projection: outcome.projection, lost, budget, ...(a.out && outcome.fileName && { output: { fileName: path.basename(a.out), format: t.format, tokens: outcome.reimportedTokens } }) });
      writeOutput(a.reportJson, JSON.stringify(audit, null, 2) + '\n', '--report-json');
      io.out(`wrote the audit record to ${a.reportJson}\n`);
    };
    if (a.dryRun) {
      writeReport();
      const fits = outcome.projection.tokens.after.total <= budget;
      row.tokensAfter = outcome.projection.tokens.after.total;
      io.out(`dry run: ${fits ? 'fits' : 'does NOT fit'} the budget of ${budget}; nothing written${a.reportJson ? ' but the audit record' : ''}\n`);
      if (fits) return end(EXIT.ok);
      const why = `does not fit: ${whyNotFit(t, outcome.projection.tokens.after.total, outcome.projection.tokens.after.total, budget, { report: outcome.projection.report, step })}`;
      io.err(why + '.\n');
      return end(EXIT.missedTarget, why);
    }
    // The check runs on the very bytes that would be written, before anything is written at --out.
    const written = outcome.bytes ?? new TextEncoder().encode(outcome.text!);
    const outName = a.out ?? outcome.fileName ?? name;
    const re = importFile(sourceFromBytes(path.basename(outName), written), { ...(a.conversation !== undefined && { conversation: a.conversation }) }).transcript;
    const total = modelViewTotals(re).total;
    row.tokensAfter = total;
    const { inherited, added } = pairingBlame(t, re);
    const failures: string[] = [];
    if (added.length) failures.push(`${added.length} tool pairing issue(s) added by the compaction (${describeIssues(added)})`);
    if (total > budget) failures.push(`the output holds ${total} tokens > budget ${budget}: ${whyNotFit(t, outcome.projection.tokens.after.total, total, budget, { report: outcome.projection.report, step })}`);
    if (inherited.length) io.out(`inherited: ${inherited.length} tool pairing issue(s) already in ${path.basename(name)} are kept as they were, not counted against the compaction (${describeIssues(inherited)})\n`);
    writeReport();
    if (failures.length === 0 || a.keepFailed) {
      if (sink) sink(written);
      else writeOutput(a.out!, written);
      if (outcome.recall && a.out) {
        writeOutput(a.out + '.recall.jsonl', outcome.recall, '--pointers');
        io.out(`wrote the recall file the pointers name to ${a.out}.recall.jsonl\n`);
      }
      io.out(`wrote ${outName}: re-imported as ${re.format}, ${total} tokens (budget ${budget})${outcome.attempts > 1 ? ` after ${outcome.attempts} attempts` : ''}${failures.length ? ', although it failed the check (--keep-failed)' : ''}\n`);
    } else {
      io.out(`nothing written to ${outName}: the output failed the check (pass --keep-failed to write it anyway)\n`);
    }
    if (failures.length) {
      const msg = `verification failed: ${failures.join('; ')}.`;
      io.err(msg + '\n');
      return end(EXIT.missedTarget, msg);
    }
    return end(EXIT.ok);
  } catch (e) {
    const msg = userMessage(e);
    io.err(msg + '\n');
    return end(e instanceof ImportError ? EXIT.badInput : EXIT.missedTarget, msg);
  }
}

/** Where --pointers point: the source file on disk when there is one, else a recall file beside --out. */
function pointerTargets(a: CompactArgs, name: string): { sourcePath?: string; recallPath: string } {
  let sourcePath: string | undefined;
  // The bytes were read from `name` (one file, or a directory's file in a worker): point into it.
  if (!a.stream) {
    try {
      if (fs.statSync(name).isFile()) sourcePath = path.resolve(name);
    } catch {
      // not a file on disk: the recall file
    }
  }
  return { ...(sourcePath && { sourcePath }), recallPath: path.resolve(a.out ?? name) + '.recall.jsonl' };
}

export async function run(args: string[]): Promise<number> {
  let a: CompactArgs;
  let cli: CliProvider;
  try {
    // Its own --model picks the budget's model: the summarizing model is --summary-model.
    cli = providerFromEnvOrFlags(args, process.env, { modelFlag: '--summary-model' });
    a = parseCompactArgs(cli.rest);
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n\n${USAGE}\n`);
    return EXIT.badInput;
  }
  if (a.help) {
    process.stdout.write(USAGE + '\n');
    return EXIT.ok;
  }
  if (a.stream) {
    if (a.file !== undefined || a.out !== undefined || a.reportJson !== undefined) {
      process.stderr.write(`--stream reads transcripts from stdin and writes results to stdout: no FILE, --out or --report-json.\n\n${USAGE}\n`);
      return 2;
    }
    if (a.pointers) {
      process.stderr.write(`--pointers names the file where each full text lives: a transcript read from stdin has none (compact the file itself, or a directory of them).\n`);
      return 2;
    }
    return runStream(a, cli, process.stdin, processIo, args);
  }
  if (!a.file) {
    process.stderr.write(`compact needs a FILE (or a directory, or --stream).\n\n${USAGE}\n`);
    return EXIT.badInput;
  }
  let isDir = false;
  try {
    isDir = fs.statSync(a.file).isDirectory();
  } catch {
    // not there: compactBytes' read says so below
  }
  if (isDir) {
    if (!a.out) {
      process.stderr.write(`compact DIR needs --out DIR2 (the directory to write the compacted files to).\n\n${USAGE}\n`);
      return 2;
    }
    if (a.reportJson) {
      process.stderr.write(`--report-json names one file: it does not go with a directory.\n`);
      return 2;
    }
    return runBatch(args, a, processIo);
  }
  if (a.jobs !== undefined) process.stderr.write('note: --jobs applies to a directory; one file runs in this process.\n');
  if (!a.dryRun && !a.out) {
    process.stderr.write(`compact needs --out OUT (or --dry-run).\n\n${USAGE}\n`);
    return EXIT.badInput;
  }
  let source: SourceFile;
  try {
    // Everything the command line names is checked before any work: a bad --out is said now.
    if (a.out && !a.dryRun) checkOutPath(a.out);
    if (a.reportJson) checkOutPath(a.reportJson, '--report-json');
    source = readSource(a.file);
  } catch (e) {
    process.stderr.write(userMessage(e) + '\n');
    return EXIT.badInput;
  }
  // One file: its exact token counts on every core (batch and stream already run one file per thread).
  const row = await compactBytes({ ...a, poolTokens: true }, a.file, source, cli, processIo, undefined, args);
  return row.code;
}
