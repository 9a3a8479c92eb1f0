/**
 * OpenHands event streams (FORMATS.md §7c; All-Hands-AI/OpenHands:openhands/events/serialization/*).
 * Two containers:
 *  - a trajectory: a JSON array of events (records = the events, byte-identical round-trip);
 *  - evaluation output JSONL: one `{instance_id, instruction, history:[events], metrics}` per line
 *    (records = the lines; each line is a conversation, `listConversations`).
 * Actions carry the model's turn (`args.thought` = text, the action = a tool call keyed by
 * `tool_call_metadata.tool_call_id`); observations answer them by `cause` (the action's event id).
 * State-change events carry no message and are kept for export. `condensation` actions are
 * compactions the agent already did: a Marker (and the summary, when it has one).
 */
import type { ProjectedBlock, ProjectedMessage, Projection } from '../model/projection';
import { ImportError } from '../errors';
import { TranscriptBuilder, type DraftBlock, type DraftMessage } from '../model/builder';
import type { Block, JsonStyle, Message, Transcript } from '../model/types';
import { readJsonDocument, stringifyLike } from '../read/json-doc';
import { joinRecords, readJsonl } from '../read/jsonl';
import type { SourceFile } from '../read/source';
import { parsedRoot } from './detect';
import { cloneJson, decodingWarnings, isObj, isUntouched, joinWithFrame, num, own, parseArgs, projectedText, requireObj, str, structureError, type Obj } from './traj-shared';
import type { ConversationInfo, DetectInput, FormatModule, ParseOptions, ParseResult, SerializeResult } from './types';

/** Events that are bookkeeping, not conversation: no message, record kept. */
const SILENT_ACTIONS = new Set(['change_agent_state', 'recall', 'condensation_request', 'null', 'wait', 'push', 'send_pr']);
const SILENT_OBSERVATIONS = new Set(['agent_state_changed', 'null', 'user_rejected', 'agent_condensation', 'condensation_request']);

function isEvent(v: unknown): v is Obj {
  return isObj(v) && typeof v.source === 'string' && (typeof v.action === 'string' || typeof v.observation === 'string');
}

function eventsLike(arr: unknown[]): boolean {
  const head = arr.slice(0, 5);
  return head.length > 0 && head.filter(isEvent).length >= Math.ceil(head.length / 2) && head.some((e) => isObj(e) && typeof e.id === 'number');
}

export function detectOpenHands(input: DetectInput): number | null {
  if (input.container === 'jsonl') {
    const v = input.values.find(isObj);
    if (v && typeof v.instance_id !== 'undefined' && Array.isArray(v.history) && (v.history.length === 0 || eventsLike(v.history))) return 0.95;
    return null;
  }
  if (input.container !== 'json') return null;
  const root = input.values[0];
  if (Array.isArray(root)) return eventsLike(root) ? 0.9 : null;
  if (isObj(root) && Array.isArray(root.history) && eventsLike(root.history)) return 0.9;
  return null;
}

interface EventSource {
  events: unknown[];
  /** Record refs of the message built from event i. */
  refs(i: number): number[];
  line(i: number): number | undefined;
  path(i: number): string;
}

/** What the parser learned that the exporter needs: which events each message came from. */
interface OpenHandsExtra {
  container: 'array' | 'history' | 'jsonl';
  conversation: number;
  /** Message index → indices of the events (in the history) it was read from. */
  messageEvents: number[][];
}

function toolCallArguments(meta: Obj, callId: string): string | undefined {
  const resp = own(meta, 'model_response');
  if (!isObj(resp) || !Array.isArray(resp.choices)) return undefined;
  for (const ch of resp.choices) {
    if (!isObj(ch) || !isObj(ch.message) || !Array.isArray(ch.message.tool_calls)) continue;
    for (const c of ch.message.tool_calls) {
      if (isObj(c) && c.id === callId && isObj(c.function) && typeof c.function.arguments === 'string') return c.function.arguments;
    }
  }
  return undefined;
}

function buildFromEvents(src: EventSource, file: string, builder: TranscriptBuilder): { messageEvents: number[][]; model?: string } {
  const messageEvents: number[][] = [];
  const add = (m: DraftMessage, eventIndex: number): number => {
    const idx = builder.addMessage(m);
    messageEvents[idx] = [eventIndex];
    return idx;
  };
  const callOfEvent = new Map<number, string>(); // action event id → canonical call id
  const openCallsByToolId = new Map<string, string>(); // LLM tool_call_id → canonical call id, until answered
  const seenCallIds = new Map<string, number>();
  const messageOfEventId = new Map<number, number>();
  let model: string | undefined;
  let prevUsage = { prompt: 0, completion: 0, cacheRead: 0, cacheWrite: 0 };
  const seenResponses = new Set<string>();
  const reasoningShown = new Set<string>();
  let markerCount = 0;

  src.events.forEach((raw, i) => {
    const path = src.path(i);
    const line = src.line(i);
    const e = requireObj(raw, file, path, line);
    if (!isEvent(e)) {
      builder.warn({ code: 'skipped:event', message: `Event at ${path} has no source/action/observation; kept for export.`, path, ...(line !== undefined && { line }) });
      return;
    }
    const id = num(e.id);
    const time = str(e.timestamp);
    const base = { recordRefs: src.refs(i), ...(time !== undefined && { time }) };
    const meta = isObj(e.tool_call_metadata) ? e.tool_call_metadata : undefined;
    const resp = meta && isObj(meta.model_response) ? meta.model_response : undefined;
    const respModel = resp ? str(resp.model) : undefined;
    if (respModel) model = respModel;
    let produced: number | undefined;

    if (typeof e.action === 'string') {
      const action = e.action;
      const args = isObj(e.args) ? e.args : {};
      if (e.args !== undefined && !isObj(e.args)) throw structureError(file, `${path}.args`, 'an object', e.args, line);
      const argText = (k: string) => {
        const v = own(args, k);
        if (v !== undefined && v !== null && typeof v !== 'string') throw structureError(file, `${path}.args.${k}`, 'a string', v, line);
        return v ?? undefined;
      };
      if (action === 'system') {
        const content = argText('content') ?? str(e.message) ?? '';
        if (Array.isArray(args.tools)) for (const t of args.tools) if (isObj(t) && isObj(t.function) && typeof t.function.name === 'string') builder.addTool({ name: t.function.name, description: str(t.function.description), parameters: t.function.parameters });
        produced = add({ role: 'system', blocks: content ? [{ kind: 'text', text: content }] : [], ...base }, i);
      } else if (action === 'message') {
        const content = argText('content') ?? str(e.message) ?? '';
        const blocks: DraftBlock[] = content ? [{ kind: 'text', text: content }] : [];
        const images = own(args, 'image_urls');
        if (Array.isArray(images)) for (const _ of images) blocks.push({ kind: 'attachment', mediaType: 'image/*' });
        produced = add({ role: e.source === 'user' ? 'user' : 'assistant', blocks, ...base }, i);
      } else if (action === 'condensation') {
        const forgotten = new Set<number>();
        const ids = own(args, 'forgotten_event_ids');
        if (Array.isArray(ids)) for (const x of ids) if (typeof x === 'number') forgotten.add(x);
        const from = num(args.forgotten_events_start_id);
        const to = num(args.forgotten_events_end_id);
        if (from !== undefined && to !== undefined && to - from < 10_000_000) for (let k = from; k <= to; k++) forgotten.add(k);
        const covered = [...forgotten].map((x) => messageOfEventId.get(x)).filter((x): x is number => x !== undefined);
        const summary = argText('summary');
        const atMessage = builder.messageCount;
        builder.addMarker({
          source: 'openhands-condensation',
          atMessage,
          ...(covered.length > 0 && { covers: [Math.min(...covered), Math.max(...covered) + 1] as [number, number] }),
          ...(summary && { summary }),
          recordRef: src.refs(i)[0],
        });
        if (summary) produced = add({ role: 'user', meta: true, blocks: [{ kind: 'summary', text: summary, markerId: `k${markerCount}` }], ...base }, i);
        markerCount++;
      } else if (SILENT_ACTIONS.has(action)) {
        // bookkeeping
      } else if (action === 'finish') {
        // The finish call never gets an observation: its message is the agent's last word.
        const text = argText('final_thought') || argText('thought') || str(e.message) || '';
        produced = add({ role: 'assistant', blocks: text ? [{ kind: 'text', text }] : [], ...base, ...(respModel && { model: respModel }) }, i);
      } else if (e.source === 'agent') {
        const toolId = meta ? str(meta.tool_call_id) : undefined;
        const name = (meta && str(meta.function_name)) || action;
        let callId = toolId ?? `openhands-event-${id ?? i}`;
        const n = (seenCallIds.get(callId) ?? 0) + 1;
        seenCallIds.set(callId, n);
        if (n > 1) {
          if (n === 2) builder.warn({ code: 'repaired:duplicate-call-id', message: `Tool call id "${callId.slice(0, 60)}" is used by more than one action; each is paired by its observation's cause.`, path, ...(line !== undefined && { line }) });
          callId = `${callId}#${n}`;
        }
        const rawArgs = meta && toolId ? toolCallArguments(meta, toolId) : undefined;
        const { thought: _thought, ...restArgs } = args;
        const input = rawArgs !== undefined ? parseArgs(rawArgs, { file, path, ...(line !== undefined && { line }) }) : action === 'think' ? { thought: args.thought } : restArgs;
        const blocks: DraftBlock[] = [];
        // Model reasoning (non-OpenAI servers put it in reasoning_content), once per response.
        const respId = resp ? str(resp.id) : undefined;
        const choiceMsg = resp && Array.isArray(resp.choices) && isObj(resp.choices[0]) && isObj(resp.choices[0].message) ? resp.choices[0].message : undefined;
        const reasoning = choiceMsg ? str(choiceMsg.reasoning_content) : undefined;
        if (reasoning && respId !== undefined && !reasoningShown.has(respId)) {
          reasoningShown.add(respId);
          blocks.push({ kind: 'reasoning', text: reasoning });
        }
        const thought = argText('thought');
        if (thought && action !== 'think') blocks.push({ kind: 'text', text: thought });
        blocks.push({ kind: 'tool_call', callId, name, input, ...(rawArgs !== undefined && { rawInput: rawArgs }) });
        produced = add({ role: 'assistant', blocks, ...base, ...(respModel && { model: respModel }) }, i);
        if (id !== undefined) callOfEvent.set(id, callId);
        if (toolId) openCallsByToolId.set(toolId, callId);
      } else {
        // A user-side action we do not model (e.g. a user "run"): its text, so nothing is hidden.
        const text = str(e.message) ?? '';
        if (text) produced = add({ role: 'user', blocks: [{ kind: 'text', text }], ...base }, i);
      }
    } else {
      const obs = e.observation as string;
      const cause = num(e.cause);
      const content = own(e, 'content');
      if (content !== undefined && content !== null && typeof content !== 'string') throw structureError(file, `${path}.content`, 'a string', content, line);
      const text = (content as string | undefined) ?? str(e.message) ?? '';
      const toolId = meta ? str(meta.tool_call_id) : undefined;
      let callId = cause !== undefined ? callOfEvent.get(cause) : undefined;
      if (callId === undefined && toolId !== undefined) callId = openCallsByToolId.get(toolId);
      if (callId !== undefined) {
        if (cause !== undefined) callOfEvent.delete(cause);
        if (toolId !== undefined && openCallsByToolId.get(toolId) === callId) openCallsByToolId.delete(toolId);
        const extras = isObj(e.extras) ? e.extras : {};
        const md = isObj(extras.metadata) ? extras.metadata : {};
        const exit = num(md.exit_code);
        produced = add({ role: 'tool', blocks: [{ kind: 'tool_result', callId, content: text, isError: obs === 'error' || (exit !== undefined && exit !== 0 && exit !== -1) }], ...base }, i);
      } else if (obs === 'recall' || obs === 'error' || obs === 'user_rejected') {
        // Shown to the model as a user-side message (workspace context, errors without a call).
        if (text) produced = add({ role: 'user', meta: true, blocks: [{ kind: 'text', text }], ...base }, i);
      } else if (!SILENT_OBSERVATIONS.has(obs) && text && cause === undefined) {
        produced = add({ role: 'user', meta: true, blocks: [{ kind: 'text', text }], ...base }, i);
      }
    }
    if (produced !== undefined && id !== undefined) messageOfEventId.set(id, produced);

    // Usage: cumulative accumulated_token_usage → per-call differences; else the raw response's usage once per response.
    const metrics = isObj(e.llm_metrics) ? e.llm_metrics : undefined;
    const acc = metrics && isObj(metrics.accumulated_token_usage) ? metrics.accumulated_token_usage : undefined;
    const at = produced ?? builder.messageCount - 1;
    if (acc) {
      const cur = { prompt: num(acc.prompt_tokens) ?? 0, completion: num(acc.completion_tokens) ?? 0, cacheRead: num(acc.cache_read_tokens) ?? 0, cacheWrite: num(acc.cache_write_tokens) ?? 0 };
      if (cur.prompt !== prevUsage.prompt || cur.completion !== prevUsage.completion) {
        const d = { prompt: cur.prompt - prevUsage.prompt, completion: cur.completion - prevUsage.completion, cacheRead: cur.cacheRead - prevUsage.cacheRead, cacheWrite: cur.cacheWrite - prevUsage.cacheWrite };
        if (d.prompt >= 0 && d.completion >= 0 && at >= 0) {
          const accModel = str(acc.model);
          builder.addUsage({ messageIndex: at, ...(accModel && accModel !== 'default' && { model: accModel }), input: Math.max(0, d.prompt - Math.max(0, d.cacheRead) - Math.max(0, d.cacheWrite)), cacheRead: Math.max(0, d.cacheRead), cacheWrite: Math.max(0, d.cacheWrite), output: d.completion });
        } else if (d.prompt < 0 || d.completion < 0) {
          builder.warn({ code: 'usage:not-cumulative', message: `Token usage at ${path} is lower than the previous event's; per-call usage from here is not reliable.`, path });
        }
        prevUsage = cur;
      }
    } else if (resp && isObj(resp.usage) && e.action !== undefined && at >= 0) {
      const rid = str(resp.id) ?? `event-${i}`;
      if (!seenResponses.has(rid)) {
        seenResponses.add(rid);
        const u = resp.usage;
        const cacheRead = num(u.cache_read_input_tokens) ?? (isObj(u.prompt_tokens_details) ? num(u.prompt_tokens_details.cached_tokens) ?? 0 : 0);
        const cacheWrite = num(u.cache_creation_input_tokens) ?? 0;
        builder.addUsage({ messageIndex: at, ...(respModel && { model: respModel }), input: Math.max(0, (num(u.prompt_tokens) ?? 0) - cacheRead - cacheWrite), cacheRead, cacheWrite, output: num(u.completion_tokens) ?? 0 });
      }
    }
  });
  return { messageEvents, model };
}

function conversationTitle(v: Obj, fallback: string): string {
  return str(v.instance_id) ?? (typeof v.instance_id === 'number' ? String(v.instance_id) : fallback);
}

function parseJsonl(file: SourceFile, options: ParseOptions): ParseResult {
  const set = readJsonl(file);
  const k = options.conversation ?? 0;
  if (set.records.length === 0) throw new ImportError('empty:file', 'The file holds no evaluation records.', { file: file.name }, 'one {instance_id, history} object per line');
  if (!Number.isInteger(k) || k < 0 || k >= set.records.length) {
    throw new ImportError('invalid:conversation', `Conversation ${k} does not exist: the file holds ${set.records.length}.`, { file: file.name }, `a conversation index from 0 to ${set.records.length - 1}`);
  }
  const rec = set.records[k];
  const v = requireObj(rec.value, file.name, '$', rec.line);
  if (!Array.isArray(v.history)) throw structureError(file.name, '$.history', 'an array of events', v.history, rec.line);
  const builder = new TranscriptBuilder();
  const { messageEvents, model: respModel } = buildFromEvents({ events: v.history, refs: () => [k], line: () => rec.line, path: (i) => `$.history[${i}]` }, file.name, builder);
  const md = isObj(v.metadata) ? v.metadata : {};
  const cfgModel = isObj(md.llm_config) ? str(md.llm_config.model) : undefined;
  const extra: OpenHandsExtra = { container: 'jsonl', conversation: k, messageEvents };
  const transcript = builder.build({
    format: 'openhands',
    fileName: file.name,
    title: conversationTitle(v, `${file.name} #${k}`),
    model: respModel ?? cfgModel,
    records: set.records,
    frame: set.frame,
    style: set.style,
    warnings: [...set.warnings, ...decodingWarnings(rec.text, file.name)],
    extra: extra as unknown as Record<string, unknown>,
  });
  return { transcript, warnings: [] };
}

function parseJson(file: SourceFile): ParseResult {
  const text = file.text();
  const root = parsedRoot(file);
  const inHistory = isObj(root) && Array.isArray(root.history);
  if (!inHistory && !Array.isArray(root)) throw structureError(file.name, '$', 'an array of OpenHands events or an object with "history"', root);
  const doc = readJsonDocument(text, file.name, inHistory ? ['history'] : [], root, file.bom);
  const builder = new TranscriptBuilder();
  const prefix = inHistory ? '$.history' : '$';
  const { messageEvents, model } = buildFromEvents({ events: doc.records.map((r) => r.value), refs: (i) => [i], line: (i) => doc.records[i].line, path: (i) => `${prefix}[${i}]` }, file.name, builder);
  const first = doc.records.map((r) => r.value).find((e) => isObj(e) && e.source === 'user' && e.action === 'message') as Obj | undefined;
  const title = (isObj(root) && !Array.isArray(root) && str((root as Obj).instance_id)) || (first && str(first.message)?.slice(0, 80)) || file.name;
  const extra: OpenHandsExtra = { container: inHistory ? 'history' : 'array', conversation: 0, messageEvents };
  const transcript = builder.build({ format: 'openhands', fileName: file.name, title, model, records: doc.records, frame: doc.frame, style: doc.style, extra: extra as unknown as Record<string, unknown>, warnings: decodingWarnings(text, file.name) });
  return { transcript, warnings: [] };
}

function parse(file: SourceFile, options: ParseOptions = {}): ParseResult {
  return file.isZip || !looksJsonl(file) ? parseJson(file) : parseJsonl(file, options);
}

function looksJsonl(file: SourceFile): boolean {
  // Eval output: one object per line. A trajectory is one array (or a pretty-printed object).
  for (const l of file.lines()) {
    const s = l.text.trim();
    if (s === '') continue;
    if (!s.startsWith('{')) return false;
    try {
      JSON.parse(s);
      return true;
    } catch {
      return false;
    }
  }
  return false;
}

function listConversations(file: SourceFile): ConversationInfo[] {
  if (!looksJsonl(file)) {
    const root = parsedRoot(file);
    const events = Array.isArray(root) ? root : isObj(root) && Array.isArray(root.history) ? root.history : [];
    return [{ index: 0, title: file.name, messages: events.filter((e) => isEvent(e)).length }];
  }
  const set = readJsonl(file);
  return set.records.map((r, index) => {
    const v = isObj(r.value) ? r.value : {};
    const h = Array.isArray(v.history) ? v.history : [];
    return { index, title: conversationTitle(v, `#${index}`), messages: h.filter((e) => isEvent(e) && !SILENT_OBSERVATIONS.has(String(e.observation)) && !SILENT_ACTIONS.has(String(e.action))).length };
  });
}

// ---------------------------------------------------------------------------------------------
// Export

type EventItem = { keep: number } | { value: unknown };

/**
 * The projection at event level: untouched messages keep their events, changed ones get their
 * event rewritten (only the changed content swapped), events without a message stay in place,
 * events of dropped messages go, and a synthetic summary becomes a condensation action.
 */
function projectEvents(t: Transcript, events: readonly unknown[], projection: Projection): EventItem[] {
  const extra = t.extra as unknown as OpenHandsExtra;
  const owner = new Map<number, number>();
  extra.messageEvents.forEach((evs, mi) => evs?.forEach((e) => owner.set(e, mi)));
  const byId = new Map(t.messages.map((m) => [m.id, m] as const));
  const kept = new Set(projection.messages.map((pm) => pm.sourceId).filter((x): x is string => x !== undefined));
  let nextId = 1 + Math.max(0, ...events.map((e) => (isObj(e) ? num(e.id) ?? 0 : 0)));
  const out: EventItem[] = [];
  const emitted = new Set<number>();
  let cursor = 0;
  const flush = (until: number) => {
    for (; cursor < until; cursor++) if (!owner.has(cursor) && !emitted.has(cursor)) {
      emitted.add(cursor);
      out.push({ keep: cursor });
    }
  };
  for (const pm of projection.messages) {
    const src = pm.sourceId !== undefined ? byId.get(pm.sourceId) : undefined;
    if (!src) {
      // Which events the summary replaces: those of messages absent from the projection.
      const forgotten: number[] = [];
      t.messages.forEach((m) => {
        if (kept.has(m.id)) return;
        for (const ei of extra.messageEvents[m.index] ?? []) {
          const ev = events[ei];
          if (isObj(ev) && typeof ev.id === 'number') forgotten.push(ev.id);
        }
      });
      const summary = projectedText(pm);
      out.push({ value: { id: nextId++, source: 'agent', message: summary, action: 'condensation', args: { forgotten_event_ids: forgotten, forgotten_events_start_id: null, forgotten_events_end_id: null, summary, summary_offset: null } } });
      continue;
    }
    const evs = extra.messageEvents[src.index] ?? [];
    if (evs.length === 0) continue;
    flush(Math.min(...evs));
    const untouched = isUntouched(pm, src);
    for (const ei of evs) {
      if (emitted.has(ei)) continue;
      emitted.add(ei);
      if (untouched) out.push({ keep: ei });
      else {
        const v = rewriteEvent(events[ei], pm, src);
        if (v !== null) out.push({ value: v });
      }
    }
    cursor = Math.max(cursor, Math.max(...evs) + 1);
  }
  flush(events.length);
  return out;
}

/**
 * A tool call whose arguments the projection rewrote (tool-hints "strip request"): the action's
 * `args` fields and, when the event holds the model's own response, that call's
 * `function.arguments` get the projected values — the importer reads the arguments from there
 * first, so both must agree. Fields the projection did not change stay as they were.
 */
function rewriteActionArgs(e: Obj, args: Obj, call: ProjectedBlock & { kind: 'tool_call' }, before: Block | undefined): void {
  if (!before || before.kind !== 'tool_call' || (before.input === call.input && before.rawInput === call.rawInput)) return;
  const next = call.input;
  const prev = before.input;
  // `thought` is the message text, except for a think action, where it is the call's one argument.
  const textField = e.action === 'think' ? '' : 'thought';
  if (isObj(next) && isObj(prev)) {
    for (const [k, v] of Object.entries(next)) {
      if (k === textField || JSON.stringify(v) === JSON.stringify(prev[k])) continue;
      // A stripped value stands in for the same long value wherever the action holds it.
      if (k in args) args[k] = cloneJson(v);
      else for (const [ak, av] of Object.entries(args)) if (ak !== textField && JSON.stringify(av) === JSON.stringify(prev[k])) args[ak] = cloneJson(v);
    }
  }
  const meta = own(e, 'tool_call_metadata');
  const toolId = isObj(meta) ? str(meta.tool_call_id) : undefined;
  const resp = isObj(meta) ? own(meta, 'model_response') : undefined;
  if (!toolId || !isObj(resp) || !Array.isArray(resp.choices)) return;
  const raw = call.rawInput ?? (typeof next === 'string' ? next : JSON.stringify(next ?? {}));
  for (const ch of resp.choices) {
    if (!isObj(ch) || !isObj(ch.message) || !Array.isArray(ch.message.tool_calls)) continue;
    for (const c of ch.message.tool_calls) if (isObj(c) && c.id === toolId && isObj(c.function) && typeof c.function.arguments === 'string') c.function.arguments = raw;
  }
}

function rewriteEvent(raw: unknown, pm: ProjectedMessage, src: Message): unknown | null {
  const e = cloneJson(raw) as Obj;
  const text = pm.blocks.filter((b) => b.kind === 'text' || b.kind === 'summary' || b.kind === 'opaque').map((b) => ('text' in b ? b.text : '')).join('\n\n');
  const result = pm.blocks.find((b) => b.kind === 'tool_result');
  if (typeof e.observation === 'string') {
    if (result && result.kind === 'tool_result') e.content = result.content;
    else e.content = text;
    return e;
  }
  const args = isObj(e.args) ? e.args : (e.args = {});
  if (e.action === 'message' || e.action === 'system') {
    args.content = text;
    if (e.action === 'message') e.message = text;
    return e;
  }
  if (e.action === 'condensation') {
    args.summary = text;
    return e;
  }
  if (e.action === 'finish') {
    if (typeof args.final_thought === 'string') args.final_thought = text;
    else args.thought = text;
    return e;
  }
  const call = pm.blocks.find((b) => b.kind === 'tool_call');
  if (!call || call.kind !== 'tool_call') return null; // the action itself was removed
  if (typeof args.thought === 'string' && e.action !== 'think') args.thought = text;
  rewriteActionArgs(e, args, call, src.blocks.find((b) => b.kind === 'tool_call' && b.callId === call.callId));
  return e;
}

function jsonlStyleOf(recordText: string): JsonStyle {
  // Python's json.dumps default separators (", " and ": ") are what OpenHands' eval writer uses.
  const spaced = /^\{"[^"]*": /.test(recordText);
  return { container: 'json', indent: 0, eol: '\n', finalNewline: false, spacedSeparators: spaced, asciiEscapes: /\\u[0-9a-f]{4}/i.test(recordText.slice(0, 65536)) && !/[^\x00-\x7f]/.test(recordText) };
}

function serialize(t: Transcript, projection?: Projection): SerializeResult {
  const fileName = t.fileName;
  const mimeType = fileName.endsWith('.jsonl') ? 'application/jsonl' : 'application/json';
  if (!projection) return { text: joinRecords(t.frame, t.records.map((r) => r.text)), fileName, mimeType, dropped: [] };
  const extra = t.extra as unknown as OpenHandsExtra;
  const outName = fileName.replace(/(\.jsonl|\.json)?$/, (ext) => `.compacted${ext || '.json'}`);
  if (extra.container === 'jsonl') {
    const k = extra.conversation;
    const rec = t.records[k];
    const v = cloneJson(rec.value) as Obj;
    const events = v.history as unknown[];
    v.history = projectEvents(t, events, projection).map((it) => ('keep' in it ? events[it.keep] : it.value));
    const texts = t.records.map((r, i) => (i === k ? stringifyLike(v, jsonlStyleOf(rec.text)) : r.text));
    return { text: joinRecords(t.frame, texts), fileName: outName, mimeType, dropped: [] };
  }
  const events = t.records.map((r) => r.value);
  const depth = extra.container === 'history' ? 2 : 1;
  const texts = projectEvents(t, events, projection).map((it) => ('keep' in it ? t.records[it.keep].text : stringifyLike(it.value, t.style, depth)));
  return { text: joinWithFrame(t, texts, depth), fileName: outName, mimeType, dropped: [] };
}

export const openhandsFormat: FormatModule = {
  id: 'openhands',
  label: 'OpenHands events',
  specUrl: 'https://github.com/All-Hands-AI/OpenHands/tree/main/openhands/events/serialization',
  extensions: ['.json', '.jsonl'],
  detect: detectOpenHands,
  parse,
  serialize,
  listConversations,
};

export default openhandsFormat;
