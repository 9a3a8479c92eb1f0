/**
 * Gemini CLI saved sessions — https://github.com/google-gemini/gemini-cli/blob/main/packages/core/src/services/chatRecordingTypes.ts
 * (FORMATS.md §6b). Legacy: one JSON `{sessionId, projectHash, messages}`. Current: JSONL with a
 * metadata first line, MessageRecords re-appended on every update (last write wins by id, order of
 * first appearance), `$set` patches (`$set.messages` = a full checkpoint) and `$rewindTo`.
 * A gemini record carries its tool calls *and* their results: the results become a `tool` message
 * right after it, so pairing and turn logic stay the same as everywhere else.
 */
import type { ProjectedBlock, ProjectedMessage, Projection } from '../model/projection';
import { ImportError } from '../errors';
import { TranscriptBuilder, type DraftBlock, type DraftMessage } from '../model/builder';
import type { Transcript, UsageRecord } from '../model/types';
import { parseJsonText, readJsonDocument, stringifyLike, type JsonPath } from '../read/json-doc';
import { looksLikeJsonl, readJsonl, type RecordSet } from '../read/jsonl';
import { sourceFromText, type SourceFile } from '../read/source';
import { againstSource, assertProjectionPairing, asText, baseName, cloneJson, getAt, isObject, num, setAt, str, syntheticText, verbatim, writeDocumentRecords, writeJsonl } from './api-projection';
import { lineStyle } from './openai-responses';
import type { DetectInput, FormatModule, ParseOptions, ParseResult, SerializeResult } from './types';
import { imageFields, thumbnailOf } from './images';
import { isGeminiHarnessText } from '../categories/tools';

type AnyObj = Record<string, unknown>;

function isSessionHeader(v: unknown): boolean {
  return isObject(v) && typeof v.sessionId === 'string' && typeof v.projectHash === 'string';
}

function detect(input: DetectInput): number | null {
  const first = input.values[0];
  if (input.container === 'json') return isSessionHeader(first) && Array.isArray((first as AnyObj).messages) ? 0.97 : null;
  if (input.container !== 'jsonl') return null;
  if (isSessionHeader(first) && !('messages' in (first as AnyObj))) return 0.97;
  if (input.values.some((v) => isObject(v) && ('$set' in v || '$rewindTo' in v))) return 0.9;
  return null;
}

// -------------------------------------------------------------------------------------------------
// Records → messages

/** Where a block came from inside a MessageRecord. */
type Slot = { field: 'thoughts' | 'toolCalls' | 'result'; index: number } | { field: 'content'; index: number };

interface Entry {
  /** Record index of every write of this id, in file order. */
  writes: number[];
  /** Path of the MessageRecord inside its record ([] or ['$set','messages',i] / ['messages', i]). */
  path: JsonPath;
  value: AnyObj;
}

interface Layout {
  set: RecordSet;
  jsonl: boolean;
  header?: AnyObj;
  entries: Entry[];
  drafts: Array<{ draft: DraftMessage; entry: number; slots: Slot[] }>;
  usage: UsageRecord[];
  model?: string;
  warnings: number;
}

function partsText(content: unknown): { blocks: DraftBlock[]; slots: Slot[] } {
  const blocks: DraftBlock[] = [];
  const slots: Slot[] = [];
  if (typeof content === 'string') {
    if (content) {
      blocks.push({ kind: 'text', text: content });
      slots.push({ field: 'content', index: -1 });
    }
  } else if (Array.isArray(content)) {
    content.forEach((p, j) => {
      if (isObject(p) && typeof p.text === 'string') blocks.push(p.thought === true ? { kind: 'reasoning', text: p.text } : { kind: 'text', text: p.text });
      else if (isObject(p) && isObject(p.inlineData)) {
        const thumbnail = thumbnailOf(p.inlineData.mimeType, p.inlineData.data);
        blocks.push({ kind: 'attachment', mediaType: str(p.inlineData.mimeType) ?? 'application/octet-stream', ...imageFields(thumbnail) });
      }
      else blocks.push({ kind: 'opaque', type: isObject(p) ? Object.keys(p)[0] ?? 'part' : 'part', text: asText(p) });
      slots.push({ field: 'content', index: j });
    });
  }
  return { blocks, slots };
}

function resultText(result: unknown): string {
  if (!Array.isArray(result)) return asText(result);
  return result
    .map((p) => {
      if (!isObject(p)) return asText(p);
      const fr = isObject(p.functionResponse) ? p.functionResponse : undefined;
      if (fr) {
        const r = isObject(fr.response) ? fr.response : {};
        return typeof r.output === 'string' ? r.output : typeof r.error === 'string' ? r.error : asText(fr.response);
      }
      if (typeof p.text === 'string') return p.text;
      if (isObject(p.inlineData)) return `[${str(p.inlineData.mimeType) ?? 'inline data'}]`;
      return asText(p);
    })
    .join('\n');
}

function layoutOf(file: SourceFile): Layout {
  let set: RecordSet;
  let jsonl = false;
  let header: AnyObj | undefined;
  const entries: Entry[] = [];
  const byId = new Map<string, number>();
  let order: string[] = [];
  let warnings = 0;

  const write = (value: AnyObj, record: number, path: JsonPath) => {
    const id = str(value.id) ?? `#${record}.${path.join('.')}`;
    const k = byId.get(id);
    if (k === undefined) {
      byId.set(id, entries.length);
      entries.push({ writes: [record], path, value });
      order.push(id);
    } else {
      // Last write wins; the message keeps the position of its first appearance.
      entries[k].writes.push(record);
      entries[k].value = value;
      entries[k].path = path;
      if (!order.includes(id)) order.push(id);
    }
  };

  const lines = looksLikeJsonl(file.text()) ? readJsonl(file) : null;
  // A one-line legacy document also looks like JSONL: a `messages` array makes it the legacy shape.
  const first = lines?.records[0]?.value;
  if (lines && !(isObject(first) && Array.isArray(first.messages))) {
    if (!(isSessionHeader(first) || lines.records.some((r) => isObject(r.value) && ('$set' in r.value || '$rewindTo' in r.value)))) {
      throw new ImportError('malformed:gemini-cli', 'The first line is not a Gemini CLI session header ({sessionId, projectHash, startTime}).', { file: file.name, line: lines.records[0]?.line ?? 1 }, 'a session metadata line first');
    }
    jsonl = true;
    set = lines;
    set.records.forEach((rec, r) => {
      const v = rec.value;
      if (!isObject(v)) return;
      if (r === 0 && isSessionHeader(v)) {
        header = v;
        return;
      }
      if (isObject(v.$set)) {
        // Metadata patches update the header (summary, lastUpdated…) for what follows.
        if (header && typeof v.$set.summary === 'string') header = { ...header, summary: v.$set.summary };
        const msgs = v.$set.messages;
        if (Array.isArray(msgs)) {
          // A full checkpoint: everything before is replaced.
          order = [];
          msgs.forEach((m, i) => isObject(m) && write(m, r, ['$set', 'messages', i]));
        }
        return;
      }
      if (typeof v.$rewindTo === 'string') {
        const at = order.indexOf(v.$rewindTo);
        if (at >= 0) order = order.slice(0, at);
        else warnings++;
        return;
      }
      if (typeof v.type === 'string' && 'id' in v) write(v, r, []);
    });
  } else {
    const root = parseJsonText(file.text(), file.name);
    if (!isSessionHeader(root) || !Array.isArray((root as AnyObj).messages)) throw new ImportError('malformed:gemini-cli', 'The document is not a Gemini CLI session ({sessionId, projectHash, messages}).', { file: file.name, path: '$' }, 'a Gemini CLI session object');
    header = root as AnyObj;
    set = readJsonDocument(file.text(), file.name, ['messages'], root, file.bom);
    set.records.forEach((rec, i) => isObject(rec.value) && write(rec.value, i, []));
  }

  const live = order.map((id) => entries[byId.get(id)!]);
  const drafts: Layout['drafts'] = [];
  const usage: UsageRecord[] = [];
  let model: string | undefined;
  for (const e of live) {
    const entry = entries.indexOf(e);
    const v = e.value;
    const time = str(v.timestamp);
    const recordRefs = [...e.writes];
    if (v.type === 'user') {
      const { blocks, slots } = partsText(v.content);
      if (blocks.length) drafts.push({ draft: { role: 'user', blocks, recordRefs, ...(time !== undefined && { time }) }, entry, slots });
      continue;
    }
    if (v.type !== 'gemini') continue; // info / error / warning: kept records, not model context
    if (typeof v.model === 'string') model = v.model;
    const blocks: DraftBlock[] = [];
    const slots: Slot[] = [];
    if (Array.isArray(v.thoughts))
      v.thoughts.forEach((th, k) => {
        if (!isObject(th)) return;
        blocks.push({ kind: 'reasoning', text: [str(th.subject), str(th.description)].filter(Boolean).join('\n') });
        slots.push({ field: 'thoughts', index: k });
      });
    const content = partsText(v.content);
    blocks.push(...content.blocks);
    slots.push(...content.slots);
    const calls = Array.isArray(v.toolCalls) ? v.toolCalls.filter(isObject) : [];
    calls.forEach((c, k) => {
      blocks.push({ kind: 'tool_call', callId: str(c.id) ?? `${str(c.name)}#${k}`, name: str(c.name) ?? '', input: c.args ?? {} });
      slots.push({ field: 'toolCalls', index: k });
    });
    if (blocks.length === 0) continue;
    const idx = drafts.length;
    drafts.push({ draft: { role: 'assistant', blocks, recordRefs, ...(time !== undefined && { time }), ...(typeof v.model === 'string' && { model: v.model }) }, entry, slots });
    const results: DraftBlock[] = [];
    const rslots: Slot[] = [];
    calls.forEach((c, k) => {
      if (c.result === undefined && c.status !== 'cancelled' && c.status !== 'error') return;
      results.push({ kind: 'tool_result', callId: str(c.id) ?? `${str(c.name)}#${k}`, name: str(c.name) ?? '', content: c.result !== undefined ? resultText(c.result) : `[${String(c.status)}]`, isError: c.status === 'error' || c.status === 'cancelled' });
      rslots.push({ field: 'result', index: k });
    });
    if (results.length) drafts.push({ draft: { role: 'tool', blocks: results, recordRefs, ...(time !== undefined && { time }) }, entry, slots: rslots });
    if (isObject(v.tokens)) {
      const t = v.tokens;
      const cached = num(t.cached);
      usage.push({
        messageIndex: idx,
        ...(typeof v.model === 'string' && { model: v.model }),
        // tokens.input is the prompt count including cached tokens; output excludes thoughts.
        input: Math.max(0, num(t.input) + num(t.tool) - cached),
        cacheRead: cached,
        cacheWrite: 0,
        output: num(t.output) + num(t.thoughts),
        reasoning: num(t.thoughts),
      });
    }
  }
  return { set, jsonl, header, entries, drafts, usage, model, warnings };
}

function parse(file: SourceFile, _options?: ParseOptions): ParseResult {
  const layout = layoutOf(file);
  const b = new TranscriptBuilder();
  for (const d of layout.drafts) b.addMessage(d.draft);
  for (const u of layout.usage) b.addUsage(u);
  if (layout.warnings) b.warn({ code: 'gemini-cli:rewind', message: `${layout.warnings} $rewindTo record(s) name a message that is not in the session.` });
  const errors = layout.entries.filter((e) => e.value.type === 'error').length;
  if (errors) b.warn({ code: 'gemini-cli:error-records', message: `The session records ${errors} error message(s) (kept in the file, not model context).` });
  // The title: the first words the user typed, not what Gemini CLI sent in their place (/init's prompt, "System: Please continue.").
  const userTexts = layout.drafts.filter((d) => d.draft.role === 'user').map((d) => d.draft.blocks.find((x) => x.kind === 'text'));
  const firstUser = userTexts.find((x) => x?.kind === 'text' && !isGeminiHarnessText(x.text)) ?? userTexts[0];
  const summary = layout.header && typeof layout.header.summary === 'string' ? layout.header.summary : undefined;
  const transcript = b.build({
    format: 'gemini-cli',
    fileName: file.name,
    title: summary ?? (firstUser && firstUser.kind === 'text' ? firstUser.text.replace(/\s+/g, ' ').trim().slice(0, 80) : `Gemini CLI session ${str(layout.header?.sessionId) ?? ''}`.trim()),
    ...(layout.model !== undefined && { model: layout.model }),
    records: layout.set.records,
    frame: layout.set.frame,
    style: layout.set.style,
    warnings: layout.set.warnings,
    extra: { sessionId: layout.header?.sessionId },
  });
  return { transcript, warnings: [] };
}

// -------------------------------------------------------------------------------------------------
// Export

/** NOTE mutates `record`: apply the changed blocks of one message to its MessageRecord. */
function applyBlocks(record: AnyObj, slots: readonly Slot[], pas: ReturnType<typeof againstSource>, dropped: string[]): void {
  const keep = new Set<number>();
  for (const { block, sourceIndex } of pas.blocks) {
    if (sourceIndex === undefined) {
      dropped.push(`a new ${block.kind} block in a Gemini CLI record cannot be placed — dropped`);
      continue;
    }
    keep.add(sourceIndex);
    if (block === pas.source!.blocks[sourceIndex]) continue;
    patchSlot(record, slots[sourceIndex], block, dropped);
  }
  // Removed blocks: thoughts and content parts go; calls/results cannot go alone (pairing) and are kept.
  const removedThoughts: number[] = [];
  const removedParts: number[] = [];
  pas.source!.blocks.forEach((_, i) => {
    if (keep.has(i)) return;
    const s = slots[i];
    if (s.field === 'thoughts') removedThoughts.push(s.index);
    else if (s.field === 'content') removedParts.push(s.index);
  });
  if (removedThoughts.length && Array.isArray(record.thoughts)) record.thoughts = record.thoughts.filter((_, k) => !removedThoughts.includes(k));
  if (removedParts.length) {
    if (typeof record.content === 'string') record.content = '';
    else if (Array.isArray(record.content)) record.content = record.content.filter((_, k) => !removedParts.includes(k));
  }
}

function patchSlot(record: AnyObj, slot: Slot, b: ProjectedBlock, dropped: string[]): void {
  if (slot.field === 'content') {
    const text = b.kind === 'text' || b.kind === 'summary' || b.kind === 'opaque' || b.kind === 'reasoning' ? b.text : b.kind === 'tool_result' ? b.content : '';
    if (slot.index < 0) record.content = text;
    else if (Array.isArray(record.content)) record.content[slot.index] = { ...(record.content[slot.index] as AnyObj), text };
    return;
  }
  if (slot.field === 'thoughts' && b.kind === 'reasoning' && Array.isArray(record.thoughts)) {
    record.thoughts[slot.index] = { ...(record.thoughts[slot.index] as AnyObj), subject: '', description: b.text };
    return;
  }
  const calls = Array.isArray(record.toolCalls) ? (record.toolCalls as AnyObj[]) : [];
  const call = calls[slot.index];
  if (!call) return;
  if (slot.field === 'toolCalls' && b.kind === 'tool_call') {
    call.args = b.input;
    return;
  }
  if (slot.field === 'result' && b.kind === 'tool_result') {
    // Swap the output inside the functionResponse the model was sent; every other field is kept.
    const result = Array.isArray(call.result) ? (call.result as AnyObj[]) : [];
    const fr = result.find((p) => isObject(p) && isObject(p.functionResponse));
    if (fr && isObject(fr.functionResponse)) fr.functionResponse = { ...fr.functionResponse, response: b.isError ? { error: b.content } : { output: b.content } };
    else call.result = [{ functionResponse: { id: call.id, name: call.name, response: { output: b.content } } }];
    return;
  }
  dropped.push(`${b.kind} block: no place for it in a Gemini CLI ${slot.field} entry`);
}

/** An ISO timestamp moved by `ms` milliseconds (undefined stays undefined, an unreadable one as it is). */
function shiftIso(iso: string | undefined, ms: number): string | undefined {
  if (iso === undefined) return undefined;
  const at = Date.parse(iso);
  return Number.isFinite(at) ? new Date(at + ms).toISOString() : iso;
}

function summaryRecord(pm: ProjectedMessage, n: number, timestamp: string | undefined): AnyObj {
  return { id: `contextscope-summary-${n}`, ...(timestamp !== undefined && { timestamp }), type: 'user', content: [{ text: syntheticText(pm) }] };
}

function serialize(t: Transcript, projection?: Projection): SerializeResult {
  if (!projection) return { text: verbatim(t), fileName: t.fileName, mimeType: t.style.container === 'jsonl' ? 'application/x-ndjson' : 'application/json', dropped: [] };
  assertProjectionPairing(t, projection.messages);
  const layout = layoutOf(sourceFromText(t.fileName, verbatim(t)));
  const dropped: string[] = [];

  // Per entry: is it kept, and what does it become?
  const entryMessages = new Map<number, number[]>();
  layout.drafts.forEach((d, i) => entryMessages.set(d.entry, [...(entryMessages.get(d.entry) ?? []), i]));
  const projectedBySource = new Map<number, ReturnType<typeof againstSource>>();
  const inserts = new Map<number, AnyObj[]>(); // entry index → summary records placed before it
  const trailing: AnyObj[] = [];
  let pending: ProjectedMessage[] = [];
  let summaries = 0;
  for (const pm of projection.messages) {
    const pas = againstSource(t, pm);
    if (!pas.source) {
      if (pm.synthetic) pending.push(pm);
      else dropped.push(`a new ${pm.role} message without a source cannot be placed in a Gemini CLI session — dropped`);
      continue;
    }
    projectedBySource.set(pas.source.index, pas);
    if (pending.length) {
      const entry = layout.drafts[pas.source.index].entry;
      const ts = str(layout.entries[entry].value.timestamp);
      // Before the record they precede, in order (as the agents write their own compactions).
      inserts.set(entry, [...(inserts.get(entry) ?? []), ...pending.map((p, j) => summaryRecord(p, summaries++, shiftIso(ts, j - pending.length)))]);
      pending = [];
    }
  }
  const lastTs = [...layout.entries].reverse().map((e) => str(e.value.timestamp)).find((x) => x !== undefined);
  pending.forEach((p, j) => trailing.push(summaryRecord(p, summaries++, shiftIso(lastTs, j + 1))));

  type EntryFate = { kind: 'drop' } | { kind: 'keep' } | { kind: 'rewrite'; value: AnyObj };
  const fates = new Map<number, EntryFate>();
  layout.entries.forEach((e, k) => {
    const msgs = entryMessages.get(k);
    if (!msgs) return; // info / error / superseded by a rewind: records stay as they are
    const pas = msgs.map((i) => projectedBySource.get(i));
    if (pas.every((p) => p === undefined)) return fates.set(k, { kind: 'drop' });
    if (pas.every((p) => p?.unchanged)) return fates.set(k, { kind: 'keep' });
    const value = cloneJson(e.value);
    msgs.forEach((i, j) => {
      const p = pas[j];
      if (p && !p.unchanged) applyBlocks(value, layout.drafts[i].slots, p, dropped);
    });
    fates.set(k, { kind: 'rewrite', value });
  });

  const recordEntry = new Map<number, number[]>(); // record → entries written there
  layout.entries.forEach((e, k) => e.writes.forEach((r) => recordEntry.set(r, [...(recordEntry.get(r) ?? []), k])));
  const out: string[] = [];
  const style = (text: string) => (layout.jsonl ? lineStyle(text, t.style) : t.style);
  const depth = layout.jsonl ? 0 : t.style.indent === 0 ? 0 : 2;
  t.records.forEach((rec, r) => {
    const ks = recordEntry.get(r) ?? [];
    for (const k of ks) if (layout.entries[k].writes[0] === r) for (const s of inserts.get(k) ?? []) out.push(stringifyLike(s, style(rec.text), depth));
    if (ks.length === 0) return void out.push(rec.text);
    const path = layout.entries[ks[0]].path;
    if (path.length > 0) {
      // A $set.messages checkpoint: rewrite its list entry by entry.
      const value = cloneJson(rec.value) as AnyObj;
      const list = getAt(value, path.slice(0, -1)) as unknown[];
      const next: unknown[] = [];
      list.forEach((item, i) => {
        const k = ks.find((x) => layout.entries[x].path[layout.entries[x].path.length - 1] === i && layout.entries[x].writes.includes(r));
        const f = k === undefined ? undefined : fates.get(k);
        if (k !== undefined) for (const s of inserts.get(k) ?? []) next.push(s);
        if (!f || f.kind === 'keep') next.push(item);
        else if (f.kind === 'rewrite') next.push(f.value);
      });
      setAt(value, path.slice(0, -1), next);
      out.push(JSON.stringify(next) === JSON.stringify(list) ? rec.text : stringifyLike(value, style(rec.text), depth));
      return;
    }
    const k = ks[0];
    const f = fates.get(k);
    if (!f || f.kind === 'keep') return void out.push(rec.text);
    if (f.kind === 'drop') return;
    // Rewritten: written once, at the first write; the earlier versions (and their content) go.
    if (layout.entries[k].writes[0] === r) out.push(stringifyLike(f.value, style(rec.text), depth));
  });
  for (const s of trailing) out.push(stringifyLike(s, layout.jsonl ? { ...t.style, indent: 0 } : t.style, depth));
  const name = baseName(t.fileName);
  if (layout.jsonl) return { text: writeJsonl(t.style, out, t.frame[0]), fileName: `${name}.compacted.jsonl`, mimeType: 'application/x-ndjson', dropped };
  return { text: writeDocumentRecords(t, out, depth), fileName: `${name}.compacted.json`, mimeType: 'application/json', dropped };
}

export const geminiCli: FormatModule = {
  id: 'gemini-cli',
  label: 'Gemini CLI session',
  specUrl: 'https://github.com/google-gemini/gemini-cli/blob/main/packages/core/src/services/chatRecordingTypes.ts',
  extensions: ['.json', '.jsonl'],
  detect,
  parse,
  serialize,
};

export default geminiCli;
