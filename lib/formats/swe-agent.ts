/**
 * SWE-agent `.traj` (FORMATS.md §7a; schema: SWE-agent/SWE-agent:sweagent/types.py).
 * Records are the elements of `history` (the chat log, OpenAI-like), so an untouched export is the
 * file byte for byte; `trajectory` (per-step, with the prompt repeated) and `info` stay in the frame.
 * 1.x: `tool_calls` ↔ `role:"tool"` with a `tool_call_ids` list. 0.x: no tool calls; the action is
 * parsed from the text into a tool_call block and the next observation becomes its result.
 */
import type { Projection, ProjectedMessage } from '../model/projection';
import { ImportError } from '../errors';
import { TranscriptBuilder, type DraftBlock } from '../model/builder';
import { CallOccurrences } from '../model/pairing';
import type { Message, SourceRecord, Transcript } from '../model/types';
import { readJsonDocument } from '../read/json-doc';
import { joinRecords } from '../read/jsonl';
import type { SourceFile } from '../read/source';
import { parsedRoot } from './detect';
import {
  chatContentBlocks,
  cloneJson,
  contentText,
  decodingWarnings,
  isObj,
  num,
  own,
  parseArgs,
  projectedText,
  requireObj,
  serializeRecordDocument,
  str,
  structureError,
  type Obj,
} from './traj-shared';
import type { DetectInput, FormatModule, ParseResult, SerializeResult } from './types';

/** Tool-call prefix for actions parsed out of 0.x text: synthetic ids live only in the canonical view. */
const PARSED_ACTION_PREFIX = 'swe-action-';

function looksLikeHistory(history: unknown[]): { messageTypes: number; agents: number } {
  let messageTypes = 0;
  let agents = 0;
  for (const h of history.slice(0, 20)) {
    if (!isObj(h)) continue;
    if (typeof h.message_type === 'string') messageTypes++;
    if (typeof h.agent === 'string' && typeof h.role === 'string') agents++;
  }
  return { messageTypes, agents };
}

export function detectSweAgent(input: DetectInput): number | null {
  // A document written on one line (json.dump without indent) reaches detection as one JSONL record.
  if (input.container !== 'json' && !(input.container === 'jsonl' && input.values.length === 1)) return null;
  const root = input.values[0];
  if (!isObj(root) || !Array.isArray(root.history)) return null;
  const { messageTypes, agents } = looksLikeHistory(root.history);
  const hasInfoStats = isObj(root.info) && isObj(root.info.model_stats);
  if (Array.isArray(root.trajectory)) return 0.95;
  if (messageTypes > 0) return hasInfoStats ? 0.95 : 0.9;
  if (agents > 0 && hasInfoStats) return 0.85;
  return null;
}

/** Reasoning blocks from `thinking_blocks` (Anthropic-shaped: thinking + signature, or redacted data). */
export function thinkingBlocks(v: unknown, file: string, path: string, line: number): DraftBlock[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw structureError(file, path, 'an array of thinking blocks', v, line);
  const out: DraftBlock[] = [];
  v.forEach((b, i) => {
    if (!isObj(b)) throw structureError(file, `${path}[${i}]`, 'a thinking block object', b, line);
    if (b.type === 'redacted_thinking') out.push({ kind: 'reasoning', text: '', opaque: str(b.data) ?? '', redacted: true });
    else {
      const sig = str(b.signature);
      out.push({ kind: 'reasoning', text: str(b.thinking) ?? str(b.text) ?? '', ...(sig !== undefined && { opaque: sig }) });
    }
  });
  return out;
}

/** OpenAI-style `tool_calls` → tool_call blocks (arguments kept verbatim as rawInput). */
export function toolCallBlocks(v: unknown, file: string, path: string, line: number): DraftBlock[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw structureError(file, path, 'an array of tool calls', v, line);
  return v.map((c, i): DraftBlock => {
    if (!isObj(c)) throw structureError(file, `${path}[${i}]`, 'a tool call object', c, line);
    const fn = isObj(c.function) ? c.function : {};
    const id = str(c.id) ?? str(c.call_id);
    if (id === undefined) throw structureError(file, `${path}[${i}].id`, 'a tool call id string', c.id, line);
    const name = str(fn.name) ?? str(c.name) ?? '(unnamed)';
    const args = own(fn, 'arguments') ?? own(c, 'arguments');
    if (typeof args === 'string') return { kind: 'tool_call', callId: id, name, input: parseArgs(args, { file, path: `${path}[${i}].function.arguments`, ...(line !== undefined && { line }) }), rawInput: args };
    return { kind: 'tool_call', callId: id, name, input: args ?? {} };
  });
}

/** The last fenced code block of a 0.x response: the action, as SWE-agent's parser reads it. */
export function lastFence(text: string): { start: number; body: string } | null {
  const re = /```[^\n`]*\n([\s\S]*?)```/g;
  let m: RegExpExecArray | null;
  let last: { start: number; body: string } | null = null;
  while ((m = re.exec(text))) last = { start: m.index, body: m[1] };
  return last;
}

/** Tool name of a parsed shell-style action: its first word. */
export function actionName(action: string): string {
  const w = action.trim().split(/\s+/)[0];
  return w && w.length <= 64 ? w : 'bash';
}

interface ChatParseContext {
  file: string;
  builder: TranscriptBuilder;
  records: SourceRecord[];
  arrayPath: string;
  /** Read parsed-from-text actions when a message has no tool_calls (SWE-agent 0.x, mini-swe-agent v1). */
  parseTextActions: (m: Obj) => string | null;
  /** The agent name whose messages are the main context (others are side chains). */
  mainAgent?: string;
  /** Tool name of a parsed action (default: the command's first word, as SWE-agent's commands are tools). */
  actionToolName?: (action: string) => string;
}

/**
 * OpenAI-like history (SWE-agent history, mini-swe-agent messages) → canonical messages.
 * Returns, per record, the index of the message it became.
 */
export function addChatLikeMessages(ctx: ChatParseContext): number[] {
  const { file, builder, records } = ctx;
  const messageOf: number[] = [];
  let pendingTextAction: string | null = null; // synthetic call id awaiting the next observation
  // Real trajectories reuse call ids (marshmallow-1867 repeats several). The canonical id must be
  // unique, so a reused id gets a "#n" suffix and each result answers its own occurrence
  // (lib/model/pairing.ts CallOccurrences).
  const occurrences = new CallOccurrences();
  const canonicalCall = (id: string, path: string, line: number, group: number): string => {
    const canonical = occurrences.call(id, group);
    if (canonical === `${id}#2`) builder.warn({ code: 'repaired:duplicate-call-id', message: `Tool call id "${id.slice(0, 60)}" is used by more than one call; each use is paired with the result that follows it.`, path, line });
    return canonical;
  };
  records.forEach((rec, i) => {
    messageOf[i] = builder.messageCount;
    const path = `${ctx.arrayPath}[${i}]`;
    const m = requireObj(rec.value, file, path, rec.line);
    const role = m.role;
    if (typeof role !== 'string') throw structureError(file, `${path}.role`, 'a role string', role, rec.line);
    const demo = m.is_demo === true;
    const sidechain = ctx.mainAgent !== undefined && typeof m.agent === 'string' && m.agent !== ctx.mainAgent;
    const base = { recordRefs: [i], ...(demo && { meta: true }), ...(sidechain && { sidechain: true }) };
    const contentPath = `${path}.content`;
    if (role === 'system' || role === 'developer') {
      builder.addMessage({ role: 'system', blocks: chatContentBlocks(own(m, 'content'), file, contentPath, rec.line), ...base });
      return;
    }
    if (role === 'tool' || role === 'function') {
      const ids = own(m, 'tool_call_ids');
      const idList: string[] = Array.isArray(ids) ? ids.filter((x): x is string => typeof x === 'string') : typeof m.tool_call_id === 'string' ? [m.tool_call_id] : [];
      if (ids !== undefined && !Array.isArray(ids)) throw structureError(file, `${path}.tool_call_ids`, 'an array of call ids', ids, rec.line);
      const text = contentText(own(m, 'content'), file, contentPath, rec.line);
      if (idList.length === 0) {
        builder.warn({ code: 'unpaired:tool-message', message: `Tool message at ${path} names no call id; shown as a result without a call.`, path, line: rec.line });
        idList.push(`${PARSED_ACTION_PREFIX}orphan-${i}`);
      }
      builder.addMessage({
        role: 'tool',
        // One observation answers every listed call; the text goes to the first so it is counted once.
        blocks: idList.map((id, k) => ({ kind: 'tool_result', callId: occurrences.result(id), content: k === 0 ? text : '', isError: false })),
        ...base,
      });
      pendingTextAction = null;
      return;
    }
    if (role === 'user') {
      if (pendingTextAction !== null && !demo) {
        builder.addMessage({ role: 'tool', blocks: [{ kind: 'tool_result', callId: pendingTextAction, content: contentText(own(m, 'content'), file, contentPath, rec.line), isError: false }], ...base });
        pendingTextAction = null;
        return;
      }
      builder.addMessage({ role: 'user', blocks: chatContentBlocks(own(m, 'content'), file, contentPath, rec.line), ...base });
      return;
    }
    if (role === 'assistant') {
      const blocks: DraftBlock[] = [...thinkingBlocks(own(m, 'thinking_blocks'), file, `${path}.thinking_blocks`, rec.line)];
      const reasoningContent = str(m.reasoning_content);
      if (reasoningContent) blocks.push({ kind: 'reasoning', text: reasoningContent });
      const calls = toolCallBlocks(own(m, 'tool_calls'), file, `${path}.tool_calls`, rec.line).map((c) =>
        c.kind === 'tool_call' ? { ...c, callId: canonicalCall(c.callId, `${path}.tool_calls`, rec.line, i) } : c,
      );
      const action = calls.length === 0 && !demo ? ctx.parseTextActions(m) : null;
      const content = own(m, 'content');
      if (action !== null && typeof content === 'string') {
        // Text without the fenced action, so the command is not counted twice.
        const fence = lastFence(content);
        const thought = fence ? content.slice(0, fence.start).trimEnd() : content;
        if (thought !== '') blocks.push({ kind: 'text', text: thought });
        const callId = `${PARSED_ACTION_PREFIX}${i}`;
        blocks.push({ kind: 'tool_call', callId, name: (ctx.actionToolName ?? actionName)(action), input: action });
        pendingTextAction = callId;
      } else {
        blocks.push(...chatContentBlocks(content, file, contentPath, rec.line), ...calls);
        pendingTextAction = null;
      }
      const model = str(m.model);
      builder.addMessage({ role: 'assistant', blocks, ...base, ...(model && { model }) });
      return;
    }
    throw new ImportError('malformed:role', `Unknown role "${role.slice(0, 40)}" at ${path}.role.`, { file, path: `${path}.role`, line: rec.line }, 'system, user, assistant or tool');
  });
  return messageOf;
}

/** SWE-agent 0.x: the action is in the `action` field (also fenced in the content). */
function sweTextAction(m: Obj): string | null {
  const a = str(m.action);
  if (a !== undefined && a.trim() !== '') return a.replace(/\n$/, '');
  return null;
}

function sweModel(root: Obj): string | undefined {
  let rc: unknown = root.replay_config;
  if (typeof rc === 'string') {
    try {
      rc = JSON.parse(rc);
    } catch {
      rc = undefined;
    }
  }
  if (isObj(rc) && isObj(rc.agent) && isObj(rc.agent.model)) {
    const name = str(rc.agent.model.name) ?? str(rc.agent.model.model_name);
    // "replay" / "instant_empty_submit" are SWE-agent's test models, not the model that wrote the run.
    if (name && name !== 'replay' && name !== 'instant_empty_submit') return name;
  }
  return undefined;
}

function parse(file: SourceFile): ParseResult {
  const text = file.text();
  const root = parsedRoot(file);
  if (!isObj(root)) throw structureError(file.name, '$', 'a JSON object with a "history" array', root);
  if (!Array.isArray(root.history)) throw structureError(file.name, '$.history', 'an array of history messages', root.history);
  const doc = readJsonDocument(text, file.name, ['history'], root, file.bom);
  const builder = new TranscriptBuilder();
  const firstAgent = doc.records.map((r) => (isObj(r.value) ? str(r.value.agent) : undefined)).find((a) => a !== undefined);
  addChatLikeMessages({ file: file.name, builder, records: doc.records, arrayPath: '$.history', parseTextActions: sweTextAction, mainAgent: firstAgent });

  const info = isObj(root.info) ? root.info : undefined;
  const stats = info && isObj(info.model_stats) ? info.model_stats : undefined;
  const extra: Record<string, unknown> = { mainAgent: firstAgent ?? null };
  if (stats) {
    const totals = { tokensSent: num(stats.tokens_sent) ?? null, tokensReceived: num(stats.tokens_received) ?? null, apiCalls: num(stats.api_calls) ?? null, cost: num(stats.instance_cost) ?? null };
    extra.modelStats = totals;
    // Only run totals exist: one UsageRecord would be read as one call's context size, so warn instead.
    builder.warn({
      code: 'usage:totals-only',
      message: `SWE-agent records only run totals (${totals.apiCalls ?? '?'} calls, ${totals.tokensSent ?? '?'} tokens sent, ${totals.tokensReceived ?? '?'} received); per-call usage is estimated.`,
      path: '$.info.model_stats',
    });
  }
  if (Array.isArray(root.trajectory)) extra.trajectorySteps = root.trajectory.length;
  const model = sweModel(root);
  const rcAgent = isObj(root.replay_config) && isObj(root.replay_config.agent) ? root.replay_config.agent : undefined;
  const title = (info && str(info.instance_id)) ?? (rcAgent && str(rcAgent.name)) ?? file.name.replace(/\.traj(\.json)?$/, '');
  const transcript = builder.build({ format: 'swe-agent', fileName: file.name, title, model, records: doc.records, frame: doc.frame, style: doc.style, extra, warnings: decodingWarnings(text, file.name) });
  return { transcript, warnings: [] };
}

/**
 * Rewrite an OpenAI-like record for a changed message: only the changed content is swapped,
 * every other field kept (FORMATS.md §0).
 */
export function rewriteChatLikeRecord(record: SourceRecord, pm: ProjectedMessage, src: Message): unknown {
  const v = cloneJson(record.value) as Obj;
  const results = pm.blocks.filter((b) => b.kind === 'tool_result');
  const texts = pm.blocks.filter((b) => b.kind === 'text' || b.kind === 'summary' || b.kind === 'opaque').map((b) => ('text' in b ? b.text : ''));
  const calls = pm.blocks.filter((b) => b.kind === 'tool_call');
  const setContent = (text: string) => {
    v.content = Array.isArray(v.content) ? [{ type: 'text', text }] : text;
  };
  if (src.role === 'tool') {
    setContent(results.map((b) => (b.kind === 'tool_result' ? b.content : '')).join('\n'));
    return v;
  }
  if (src.role === 'assistant') {
    const parsedAction = src.blocks.find((b) => b.kind === 'tool_call' && b.callId.startsWith(PARSED_ACTION_PREFIX));
    let text = texts.join('\n\n');
    const parsedKept = parsedAction !== undefined && calls.some((c) => c.kind === 'tool_call' && c.callId === (parsedAction as { callId: string }).callId);
    if (parsedAction && typeof v.content === 'string') {
      const fence = lastFence(v.content);
      if (parsedKept && fence) text = (text ? text + '\n\n' : '') + v.content.slice(fence.start);
    }
    setContent(text);
    // The importer reads a 0.x action from the `action` field: a removed call leaves no action behind.
    if (parsedAction && !parsedKept) delete v.action;
    if (typeof v.thought === 'string') v.thought = texts.join('\n\n');
    if (Array.isArray(v.tool_calls)) {
      // The record's tool_calls are, in order, the source message's call blocks (ids may be canonicalized).
      const srcCalls = src.blocks.filter((b) => b.kind === 'tool_call');
      const out: unknown[] = [];
      (v.tool_calls as unknown[]).forEach((c, j) => {
        const srcCall = srcCalls[j];
        const kept = srcCall && calls.find((b) => b.kind === 'tool_call' && b.callId === (srcCall as { callId: string }).callId);
        if (!kept || kept.kind !== 'tool_call') return;
        if (isObj(c) && isObj(c.function) && kept !== srcCall) {
          c.function = { ...c.function, arguments: kept.rawInput ?? (typeof kept.input === 'string' ? kept.input : JSON.stringify(kept.input)) };
        }
        out.push(c);
      });
      v.tool_calls = out;
      if (out.length === 0) {
        delete v.tool_calls;
        // 1.x records mirror the call in `action`; without tool_calls the importer would read it as a
        // 0.x text action (a call with no result), so it goes with the calls.
        delete v.action;
      }
    }
    if (!pm.blocks.some((b) => b.kind === 'reasoning')) {
      // Signed thinking goes with its signature or not at all (FORMATS.md §0).
      delete v.thinking_blocks;
      delete v.reasoning_content;
    }
    return v;
  }
  if (results.length > 0) {
    // 0.x observation carried by a user record.
    setContent(results.map((b) => (b.kind === 'tool_result' ? b.content : '')).join('\n'));
    return v;
  }
  setContent(projectedText(pm));
  return v;
}

function serialize(t: Transcript, projection?: Projection): SerializeResult {
  const fileName = t.fileName;
  if (!projection) return { text: joinRecords(t.frame, t.records.map((r) => r.text)), fileName, mimeType: 'application/json', dropped: [] };
  const mainAgent = typeof t.extra?.mainAgent === 'string' ? t.extra.mainAgent : undefined;
  const text = serializeRecordDocument(t, projection, {
    depth: 2,
    rewrite: rewriteChatLikeRecord,
    // Chat-shaped logs hold a summary as a user message carrying the text.
    synthetic: (pm) => [{ role: 'user', content: projectedText(pm), ...(mainAgent !== undefined && { agent: mainAgent }) }],
  });
  return { text, fileName: fileName.replace(/(\.traj)?$/, '.compacted.traj'), mimeType: 'application/json', dropped: [] };
}

export const sweAgentFormat: FormatModule = {
  id: 'swe-agent',
  label: 'SWE-agent trajectory',
  specUrl: 'https://github.com/SWE-agent/SWE-agent/blob/main/sweagent/types.py',
  extensions: ['.traj', '.json'],
  detect: detectSweAgent,
  parse,
  serialize,
};

export default sweAgentFormat;
