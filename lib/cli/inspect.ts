/**
 * `npm run -s cli -- inspect FILE [--json] [--conversation K] [--format ID]`
 * What a transcript holds: format, title, model, messages, turns, tool calls/results, tokens by
 * budget kind (lib/tokens/totals.ts, the one definition), markers, recorded usage, conversations of
 * a container, warnings. Errors: the user message on stderr, exit code 2.
 */
import fs from 'node:fs';
import path from 'node:path';
import { userMessage } from '../errors';
import { formatById } from '../formats/registry';
import type { ConversationInfo } from '../formats/types';
import type { Transcript } from '../model/types';
import { EXIT_CODES_HELP, readSource } from './_files';
import { importPooled } from './_token-pool';
import { contextTotals, transcriptTotals, type Totals } from '../tokens/totals';
import { isContextSample, usageCalls } from '../tokens/calibration';
import { ledgerOf } from '../ledger';
import { ledgerChecks } from '../ledger/checks';
import { renderLedger } from '../ledger/render';
import { REPLAY_POLICIES, replayPolicyById } from '../simulate/policies/replay';

export const summary = 'Show what a transcript holds: format, model, turns, tokens by kind, markers, usage (--json for machine output)';

export interface InspectReport {
  file: string;
  format: string;
  formatLabel: string;
  title: string;
  model: string | null;
  records: number;
  messages: number;
  turns: number;
  toolCalls: number;
  toolResults: number;
  tools: number;
  tokens: Totals;
  markers: Array<{ source: string; atMessage: number; covers?: [number, number]; trigger?: string; tokensBefore?: number; tokensAfter?: number; summaryChars?: number }>;
  usage: { calls: number; input: number; cacheRead: number; cacheWrite: number; output: number; lastContext: number };
  /**
   * What the first recorded main-chain call was sent besides the visible messages (system prompt,
   * tool schemas the file does not record): its recorded input + cache minus the estimate of the
   * messages before it. Null without recorded usage.
   */
  overhead: { recordedAtFirstCall: number; visibleEstimate: number; invisible: number } | null;
  conversations?: ConversationInfo[];
  conversation?: number;
  warnings: Array<{ code: string; message: string; line?: number; path?: string }>;
  detection?: { confidence: number; alternatives: Array<{ id: string; confidence: number }> };
}

interface InspectArgs {
  file?: string;
  json: boolean;
  conversation?: number;
  format?: string;
  help: boolean;
  /** The compaction ledger instead of the totals (lib/ledger). */
  compactions: boolean;
  /** Replayed policies whose compactions join the ledger. */
  policies: string[];
}

export function parseInspectArgs(args: string[]): InspectArgs {
  const out: InspectArgs = { json: false, help: false, compactions: false, policies: [] };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--json') out.json = true;
    else if (a === '--help' || a === '-h') out.help = true;
    else if (a === '--compactions') out.compactions = true;
    else if (a === '--policy') out.policies.push(...String(args[++i] ?? '').split(','));
    else if (a === '--conversation' || a === '-c') out.conversation = Number(args[++i]);
    else if (a.startsWith('--conversation=')) out.conversation = Number(a.slice('--conversation='.length));
    else if (a === '--format' || a === '-f') out.format = args[++i];
    else if (a.startsWith('--format=')) out.format = a.slice('--format='.length);
    else if (a.startsWith('-')) throw new Error(`Unknown option ${a}.`);
    else if (out.file === undefined) out.file = a;
    else throw new Error(`Only one FILE can be inspected (got "${out.file}" and "${a}").`);
  }
  if (out.conversation !== undefined && (!Number.isInteger(out.conversation) || out.conversation < 0)) throw new Error('--conversation takes a number from 0.');
  return out;
}

export function inspectTranscript(t: Transcript, file: string): InspectReport {
  let toolCalls = 0;
  let toolResults = 0;
  for (const m of t.messages)
    for (const b of m.blocks) {
      if (b.kind === 'tool_call') toolCalls++;
      else if (b.kind === 'tool_result') toolResults++;
    }
  const usage = { calls: 0, input: 0, cacheRead: 0, cacheWrite: 0, output: 0, lastContext: 0 };
  for (const u of t.usage) {
    usage.calls += usageCalls(u);
    usage.input += u.input;
    usage.cacheRead += u.cacheRead;
    usage.cacheWrite += u.cacheWrite;
    usage.output += u.output;
  }
  // Context size at the last main-chain call = its input + cache (FORMATS.md §0).
  for (let i = t.usage.length - 1; i >= 0; i--) {
    const u = t.usage[i];
    if (t.messages[u.messageIndex]?.sidechain || !isContextSample(u)) continue;
    usage.lastContext = u.input + u.cacheRead + u.cacheWrite;
    break;
  }
  return {
    overhead: invisibleOverhead(t),
    file,
    format: t.format,
    formatLabel: formatById(t.format)?.label ?? t.format,
    title: t.title,
    model: t.model ?? null,
    records: t.records.length,
    messages: t.messages.length,
    turns: t.turnCount,
    toolCalls,
    toolResults,
    tools: t.tools.length,
    tokens: transcriptTotals(t),
    markers: t.markers.map((k) => ({
      source: k.source,
      atMessage: k.atMessage,
      ...(k.covers && { covers: k.covers }),
      ...(k.trigger !== undefined && { trigger: k.trigger }),
      ...(k.tokensBefore !== undefined && { tokensBefore: k.tokensBefore }),
      ...(k.tokensAfter !== undefined && { tokensAfter: k.tokensAfter }),
      ...(k.summary !== undefined && { summaryChars: k.summary.length }),
    })),
    usage,
    warnings: t.warnings.map((w) => ({ code: w.code, message: w.message, ...(w.line !== undefined && { line: w.line }), ...(w.path !== undefined && { path: w.path }) })),
  };
}

/** DESIGN.md (Tokens): infer the invisible overhead from the first call's recorded input. */
export function invisibleOverhead(t: Transcript): InspectReport['overhead'] {
  const u = t.usage.find((x) => t.messages[x.messageIndex] && !t.messages[x.messageIndex].sidechain && isContextSample(x));
  if (!u) return null;
  const recorded = u.input + u.cacheRead + u.cacheWrite;
  const visible = contextTotals(t.messages.slice(0, u.messageIndex), t.tools).total;
  return { recordedAtFirstCall: recorded, visibleEstimate: visible, invisible: Math.max(0, recorded - visible) };
}

const fmt = (n: number) => n.toLocaleString('en-US');

export function renderTable(r: InspectReport): string {
  const rows: Array<[string, string]> = [
    ['file', r.file],
    ['format', `${r.formatLabel} (${r.format})`],
    ['title', r.title],
    ['model', r.model ?? '-'],
    ['records', fmt(r.records)],
    ['messages', fmt(r.messages)],
    ['turns', fmt(r.turns)],
    ['tool calls', `${fmt(r.toolCalls)} (results ${fmt(r.toolResults)})`],
    ['tool schemas', fmt(r.tools)],
    ['tokens', `${fmt(r.tokens.total)} (estimated)`],
  ];
  for (const [k, v] of Object.entries(r.tokens.byKind)) if (v > 0) rows.push([`  ${k}`, fmt(v)]);
  if (r.usage.calls > 0) {
    rows.push(['recorded calls', fmt(r.usage.calls)]);
    rows.push(['  input', fmt(r.usage.input)]);
    rows.push(['  cache read', fmt(r.usage.cacheRead)]);
    rows.push(['  cache write', fmt(r.usage.cacheWrite)]);
    rows.push(['  output', fmt(r.usage.output)]);
    rows.push(['  last context', fmt(r.usage.lastContext)]);
  }
  if (r.overhead) rows.push(['invisible overhead', `${fmt(r.overhead.invisible)} (first call ${fmt(r.overhead.recordedAtFirstCall)} recorded − ${fmt(r.overhead.visibleEstimate)} visible)`]);
  for (const k of r.markers) rows.push(['marker', `${k.source} before message ${k.atMessage}${k.trigger ? `, ${k.trigger}` : ''}${k.tokensBefore ? `, ${fmt(k.tokensBefore)} tokens before` : ''}`]);
  if (r.conversations) rows.push(['conversation', `${(r.conversation ?? 0) + 1} of ${r.conversations.length} (--conversation K, 0-based)`]);
  const byCode = new Map<string, number>();
  for (const w of r.warnings) byCode.set(w.code, (byCode.get(w.code) ?? 0) + 1);
  for (const [code, n] of byCode) rows.push(['warning', `${code} ×${n}: ${r.warnings.find((w) => w.code === code)!.message}`]);
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n');
}

export async function run(args: string[]): Promise<number> {
  let parsed: InspectArgs;
  try {
    parsed = parseInspectArgs(args);
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\nUsage: inspect FILE [--json] [--conversation K] [--format ID] [--compactions [--policy ID]…]\n`);
    return 2;
  }
  if (parsed.help || !parsed.file) {
    (parsed.help ? process.stdout : process.stderr).write(`Usage: npm run -s cli -- inspect FILE [--json] [--conversation K] [--format ID] [--compactions [--policy ID]…]\n  --compactions  the compaction ledger: every compaction (the agent's own, and --policy's in a replay), its numbers, cost and survival\n${EXIT_CODES_HELP}\n`);
    return parsed.help ? 0 : 2;
  }
  const file = parsed.file;
  try {
    const source = readSource(file);
    // Exact counts of a large import on every core (lib/cli/_token-pool.ts): the same numbers, sooner.
    const { transcript, detection } = await importPooled(source, { ...(parsed.format && { format: parsed.format }), ...(parsed.conversation !== undefined && { conversation: parsed.conversation }) });
    if (parsed.compactions) return printLedger(transcript, parsed);
    const report = inspectTranscript(transcript, file);
    const mod = formatById(transcript.format);
    const conversations = mod?.listConversations?.(source);
    if (conversations && conversations.length > 0) {
      report.conversations = conversations;
      report.conversation = parsed.conversation ?? 0;
    }
    if (detection) report.detection = { confidence: detection.confidence, alternatives: detection.alternatives.map((a) => ({ id: a.id, confidence: a.confidence })) };
    process.stdout.write((parsed.json ? JSON.stringify(report, null, 2) : renderTable(report)) + '\n');
    return 0;
  } catch (e) {
    process.stderr.write(userMessage(e) + '\n');
    return 2;
  }
}

/** `inspect FILE --compactions [--json] [--policy ID]…`: the compaction ledger (lib/ledger). */
function printLedger(transcript: Transcript, parsed: InspectArgs): number {
  const policies = parsed.policies.filter(Boolean).map((id) => {
    const p = replayPolicyById(id);
    if (!p) throw new Error(`Unknown policy "${id}". Policies: ${REPLAY_POLICIES.map((x) => x.id).join(', ')}.`);
    return p;
  });
  const { events } = ledgerOf(transcript, { policies, ...ledgerChecks() });
  process.stdout.write((parsed.json ? JSON.stringify({ compactions: events }, null, 2) : renderLedger(events)) + '\n');
  return 0;
}
