/**
 * OpenAI Codex CLI rollout JSONL — https://github.com/openai/codex/blob/main/codex-rs/protocol/src/protocol.rs
 * (`RolloutLine`, `RolloutItem`; FORMATS.md §5). Messages come from `response_item` lines only
 * (`event_msg` repeats the same text for the UI); the model from `turn_context`; usage from
 * `event_msg.token_count`; `compacted` lines are markers whose `replacement_history` is the new
 * model-visible history.
 */
import type { Projection } from '../model/projection';
import { ImportError } from '../errors';
import { TranscriptBuilder, type DraftMessage } from '../model/builder';
import type { Transcript, UsageRecord } from '../model/types';
import { pathText, stringifyLike, withPlace, type JsonPath } from '../read/json-doc';
import { foreignLinesWarning, isClaudeCodeLine, readJsonl, type RecordSet } from '../read/jsonl';
import { sourceFromText, type SourceFile } from '../read/source';
import { againstSource, assertProjectionPairing, baseName, cloneJson, getAt, isObject, num, setAt, str, syntheticText, verbatim, writeJsonl, type MessageSite } from './api-projection';
import { convertItem, lineStyle, rewriteItem, summaryItem, summaryItems } from './openai-responses';
import type { DetectInput, FormatModule, ParseOptions, ParseResult, SerializeResult } from './types';

type AnyObj = Record<string, unknown>;

const ROLLOUT_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted', 'world_state', 'inter_agent_communication', 'inter_agent_communication_metadata']);

function detect(input: DetectInput): number | null {
  if (input.container !== 'jsonl') return null;
  const hits = input.values.filter((v) => isObject(v) && typeof v.type === 'string' && ROLLOUT_TYPES.has(v.type) && isObject(v.payload)).length;
  if (hits === 0) return null;
  return hits === input.values.length ? 0.98 : 0.7;
}

/** Harness-injected user content (FORMATS.md §5): environment context, AGENTS.md / user instructions. */
function isInjectedUserText(text: string): boolean {
  const s = text.trimStart();
  return s.startsWith('<environment_context>') || s.startsWith('<user_instructions>') || s.startsWith('# AGENTS.md instructions') || s.startsWith('<INSTRUCTIONS>') || s.startsWith('<turn_aborted>');
}

interface Layout {
  drafts: Array<{ draft: DraftMessage; site: MessageSite | null }>;
  markers: Array<{ atMessage: number; summary: string; recordRef: number; trigger?: string }>;
  usage: UsageRecord[];
  model?: string;
  title?: string;
  duplicateUsage: number;
}

function layoutOf(set: RecordSet, fileName: string): Layout {
  const drafts: Layout['drafts'] = [];
  const markers: Layout['markers'] = [];
  const usage: UsageRecord[] = [];
  let model: string | undefined;
  let title: string | undefined;
  let lastTotals = '';
  let duplicateUsage = 0;
  let lastAssistant = -1;

  const addItem = (item: unknown, record: number, path: JsonPath, time: string | undefined, summaryText?: string) => {
    let c: ReturnType<typeof convertItem>;
    try {
      c = convertItem(item);
    } catch (e) {
      throw withPlace(e, { file: fileName, line: set.records[record]?.line, path: pathText(path) });
    }
    if (!c) return;
    let meta = c.role === 'system';
    if (c.role === 'user' && c.blocks.length > 0 && c.blocks.every((b) => b.kind === 'text' && isInjectedUserText(b.text))) meta = true;
    let blocks = c.blocks;
    // The user message a local compaction wrote carries the summary: show it as one.
    if (summaryText && c.role === 'user' && blocks.length === 1 && blocks[0].kind === 'text' && blocks[0].text === summaryText) blocks = [{ kind: 'summary', text: summaryText }];
    const draft: DraftMessage = { role: c.role, blocks, recordRefs: [record], ...(time !== undefined && { time }), ...(meta && { meta: true }), ...(c.role === 'assistant' && model !== undefined && { model }) };
    if (c.role === 'assistant') lastAssistant = drafts.length;
    drafts.push({ draft, site: { record, path, parts: c.parts } });
    if (!title && c.role === 'user' && !meta) {
      const t = blocks.find((b) => b.kind === 'text');
      if (t && t.kind === 'text') title = t.text.replace(/\s+/g, ' ').trim().slice(0, 80);
    }
  };

  set.records.forEach((rec, r) => {
    const v = rec.value;
    if (!isObject(v)) return;
    const payload = isObject(v.payload) ? v.payload : undefined;
    const time = str(v.timestamp);
    switch (v.type) {
      case 'session_meta': {
        if (!payload || drafts.length > 0) return;
        const base = isObject(payload.base_instructions) ? str(payload.base_instructions.text) : str(payload.instructions) ?? str(payload.base_instructions);
        // Base instructions are sent with every request (the API's `instructions`); they live in this record.
        if (base) drafts.push({ draft: { role: 'system', blocks: [{ kind: 'text', text: base }], recordRefs: [r], ...(time !== undefined && { time }) }, site: null });
        return;
      }
      case 'turn_context':
        if (payload && typeof payload.model === 'string') model = payload.model;
        return;
      case 'response_item':
        if (!payload) throw new ImportError('malformed:codex', `Line ${rec.line}: a response_item without a payload object.`, { file: fileName, line: rec.line, path: '$.payload' }, 'a Responses item');
        addItem(payload, r, ['payload'], time);
        return;
      case 'compacted': {
        if (!payload) return;
        const summary = str(payload.message) ?? '';
        const at = drafts.length;
        markers.push({ atMessage: at, summary, recordRef: r, ...(typeof payload.window_number === 'number' && { trigger: `window ${payload.window_number}` }) });
        if (Array.isArray(payload.replacement_history)) {
          payload.replacement_history.forEach((item, i) => addItem(item, r, ['payload', 'replacement_history', i], time, summary || undefined));
        } else if (summary) {
          // Older local compaction: the model then saw the summary as a user message.
          drafts.push({ draft: { role: 'user', blocks: [{ kind: 'summary', text: summary }], recordRefs: [r], ...(time !== undefined && { time }) }, site: { record: r, path: ['payload', 'message'], parts: [-1] } });
        }
        return;
      }
      case 'event_msg': {
        if (!payload || payload.type !== 'token_count' || !isObject(payload.info)) return;
        const info = payload.info;
        const totals = JSON.stringify(info.total_token_usage ?? null);
        // The same totals are often emitted twice in a row (a rate-limit refresh): one call, count once.
        if (totals === lastTotals) {
          duplicateUsage++;
          return;
        }
        lastTotals = totals;
        const last = isObject(info.last_token_usage) ? info.last_token_usage : isObject(info.total_token_usage) ? info.total_token_usage : null;
        if (!last) return;
        const cached = num(last.cached_input_tokens);
        usage.push({
          messageIndex: Math.max(0, lastAssistant),
          ...(model !== undefined && { model }),
          // Codex input_tokens include the cached ones.
          input: Math.max(0, num(last.input_tokens) - cached),
          cacheRead: cached,
          cacheWrite: 0,
          output: num(last.output_tokens),
          reasoning: num(last.reasoning_output_tokens),
          ...(typeof info.model_context_window === 'number' && { contextWindow: info.model_context_window }),
        });
        return;
      }
      default:
        return;
    }
  });
  return { drafts, markers, usage, model, title, duplicateUsage };
}

function readRollout(file: SourceFile): RecordSet {
  const set = readJsonl(file);
  const first = set.records[0];
  if (!first || !isObject(first.value) || typeof first.value.type !== 'string' || !('payload' in first.value)) {
    throw new ImportError('malformed:codex', 'The first line is not a Codex rollout line ({timestamp, type, payload}).', { file: file.name, line: first?.line ?? 1 }, 'a session_meta line or another {type, payload} rollout line');
  }
  return set;
}

function parse(file: SourceFile, _options?: ParseOptions): ParseResult {
  const set = readRollout(file);
  const layout = layoutOf(set, file.name);
  const b = new TranscriptBuilder();
  for (const d of layout.drafts) b.addMessage(d.draft);
  // Everything before a compaction is display-only from then on: the marker covers it.
  for (const m of layout.markers) {
    b.addMarker({ source: 'codex-compacted', atMessage: m.atMessage, ...(m.atMessage > 0 && { covers: [0, m.atMessage] as [number, number] }), ...(m.summary && { summary: m.summary }), recordRef: m.recordRef, ...(m.trigger && { trigger: m.trigger }) });
  }
  for (const u of layout.usage) b.addUsage(u);
  const meta = set.records.find((r) => isObject(r.value) && r.value.type === 'session_meta');
  const sessionId = meta && isObject(meta.value) && isObject(meta.value.payload) ? str(meta.value.payload.id) : undefined;
  const transcript = b.build({
    format: 'codex-cli',
    fileName: file.name,
    title: layout.title ?? `Codex session ${sessionId ?? ''}`.trim(),
    ...(layout.model !== undefined && { model: layout.model }),
    records: set.records,
    frame: set.frame,
    style: set.style,
    warnings: [...set.warnings, ...foreignLinesWarning(set.records, isClaudeCodeLine, 'Claude Code lines', 'Codex rollout lines')],
    extra: { duplicateTokenCounts: layout.duplicateUsage },
  });
  return { transcript, warnings: [] };
}

// -------------------------------------------------------------------------------------------------
// Export: the way Codex itself writes a compaction

/**
 * With a projection, the way Codex itself writes a compaction. Codex rebuilds the model's history
 * on resume by replaying the rollout: response_items append, and a `compacted` line REPLACES the
 * whole history with its `replacement_history`. So:
 *  - the model-visible prefix (every projected message up to our summary, and every kept item of
 *    the source's own last compaction) goes into ONE new `compacted` line (message = the summary),
 *    written after the source's own compaction and before the first record of the kept suffix —
 *    never before the source's, which would then replace it;
 *  - every record before that line stays as it is: the session's history (Codex keeps it too);
 *  - after it, records of kept messages verbatim (rewritten where a block changed), records of
 *    removed messages dropped (nothing else hides them from the model), records without a
 *    message (event_msg, turn_context …) kept.
 * With no summary and no change to what the source's compaction carries, no `compacted` line is
 * written and history ends at the source's own.
 */
function serialize(t: Transcript, projection?: Projection): SerializeResult {
  if (!projection) return { text: verbatim(t), fileName: t.fileName, mimeType: 'application/x-ndjson', dropped: [] };
  assertProjectionPairing(t, projection.messages);
  const set = readRollout(sourceFromText(t.fileName, verbatim(t)));
  const layout = layoutOf(set, t.fileName);
  const dropped: string[] = [];
  const pms = projection.messages;
  const isCompactedRecord = (r: number) => isObject(set.records[r]?.value) && (set.records[r].value as AnyObj).type === 'compacted';
  let lastCompacted = -1;
  set.records.forEach((_, r) => {
    if (isCompactedRecord(r)) lastCompacted = r;
  });

  const projected = pms.map((pm) => {
    const pas = againstSource(t, pm);
    const site = pas.source ? layout.drafts[pas.source.index]?.site ?? null : null;
    return { pm, pas, site };
  });
  // The model-visible prefix: up to our last summary, and up to the last item the source's own
  // (last) compaction carries.
  let prefixEnd = -1;
  let lastSummary = -1;
  let changedInPrefix = false;
  projected.forEach((p, i) => {
    if (p.pm.synthetic) lastSummary = prefixEnd = i;
    else if (p.site && p.site.record === lastCompacted) prefixEnd = i;
  });
  const fromLast = (d: Layout['drafts'][number]) => d.site?.record === lastCompacted;
  const keptFromLast = projected.filter((p) => p.site?.record === lastCompacted).length;
  projected.slice(0, prefixEnd + 1).forEach((p) => {
    if (!p.pas.unchanged) changedInPrefix = true;
  });
  const newCompaction = lastSummary >= 0 || (lastCompacted >= 0 && (changedInPrefix || keptFromLast !== layout.drafts.filter(fromLast).length));

  const itemsOf = (p: (typeof projected)[number]): AnyObj[] => {
    const original = getAt(set.records[p.site!.record].value, p.site!.path);
    if (typeof original === 'string') return [summaryItem(p.pm)]; // an old compaction's message: the model saw it as a user message
    return p.pas.unchanged ? [original as AnyObj] : rewriteItem(original, p.site!, p.pas, dropped);
  };

  // What happens to each message-carrying item after the compaction line: kept verbatim, rewritten, or gone.
  type ItemFate = { kind: 'keep' } | { kind: 'rewrite'; items: AnyObj[] };
  const fateByMessage = new Map<number, ItemFate>();
  const replacement: AnyObj[] = [];
  let firstSuffixRecord = Infinity;
  projected.forEach((p, i) => {
    const { pm, pas, site } = p;
    if (pas.source && !site) return; // base instructions: stay in session_meta
    const inPrefix = newCompaction && i <= prefixEnd;
    if (!pas.source || !site) {
      if (pm.synthetic && inPrefix) replacement.push(...summaryItems(pm));
      else if (!pm.synthetic) dropped.push(`a new ${pm.role} message without a source cannot be placed in a rollout — dropped`);
      return;
    }
    if (inPrefix) {
      replacement.push(...itemsOf(p).map((x) => cloneJson(x)));
      return;
    }
    fateByMessage.set(pas.source.index, pas.unchanged ? { kind: 'keep' } : { kind: 'rewrite', items: itemsOf(p) });
    if (site.record !== lastCompacted || !newCompaction) firstSuffixRecord = Math.min(firstSuffixRecord, site.record);
  });
  // Records before `historyEnd` are the session's history, written as they are.
  const compactAt = Math.max(firstSuffixRecord === Infinity ? set.records.length : firstSuffixRecord, lastCompacted + 1);
  const historyEnd = newCompaction ? compactAt : lastCompacted + 1;

  // Messages per record (a `compacted` line can hold several).
  const byRecord = new Map<number, number[]>();
  layout.drafts.forEach((d, i) => {
    if (!d.site) return;
    const list = byRecord.get(d.site.record) ?? [];
    list.push(i);
    byRecord.set(d.site.record, list);
  });

  const lines: string[] = [];
  const summaryPm = lastSummary >= 0 ? pms[lastSummary] : undefined;
  const sourceMessage = lastCompacted >= 0 ? str(((set.records[lastCompacted].value as AnyObj).payload as AnyObj | undefined)?.message) : undefined;
  const emitCompaction = (timestamp: string) => {
    const compacted = { timestamp, type: 'compacted', payload: { message: summaryPm ? syntheticText(summaryPm) : sourceMessage ?? '', replacement_history: replacement } };
    lines.push(stringifyLike(compacted, { ...t.style, indent: 0 }));
    lines.push(stringifyLike({ timestamp, type: 'event_msg', payload: { type: 'context_compacted' } }, { ...t.style, indent: 0 }));
  };
  let lastTimestamp = '';
  set.records.forEach((rec, r) => {
    const ts = isObject(rec.value) ? str(rec.value.timestamp) : undefined;
    if (newCompaction && r === compactAt) emitCompaction(ts ?? lastTimestamp);
    if (ts) lastTimestamp = ts;
    const msgs = byRecord.get(r);
    if (!msgs || r < historyEnd) {
      lines.push(rec.text);
      return;
    }
    const fates = msgs.map((i) => fateByMessage.get(i));
    if (fates.every((f) => f === undefined)) return; // removed from the model's view
    if (fates.every((f) => f?.kind === 'keep') && fates.length === msgs.length) {
      lines.push(rec.text);
      return;
    }
    // Rewrite: change only the items whose message changed or went.
    const value = cloneJson(rec.value) as AnyObj;
    const listEdits = new Map<string, Array<{ index: number; items: AnyObj[] | null }>>();
    msgs.forEach((mi, k) => {
      const site = layout.drafts[mi].site!;
      const fate = fates[k];
      const last = site.path[site.path.length - 1];
      if (typeof last === 'number') {
        const key = JSON.stringify(site.path.slice(0, -1));
        const edits = listEdits.get(key) ?? [];
        edits.push({ index: last, items: fate === undefined ? null : fate.kind === 'keep' ? [getAt(rec.value, site.path) as AnyObj] : fate.items });
        listEdits.set(key, edits);
      } else if (fate?.kind === 'rewrite') {
        if (fate.items.length === 1) setAt(value, site.path, site.path[site.path.length - 1] === 'message' ? syntheticTextOfItem(fate.items[0]) : fate.items[0]);
        else dropped.push(`line ${rec.line}: a rewritten item became ${fate.items.length} items; kept the first`);
      }
    });
    for (const [key, edits] of listEdits) {
      const path = JSON.parse(key) as JsonPath;
      const list = getAt(rec.value, path) as unknown[];
      const next: unknown[] = [];
      list.forEach((item, i) => {
        const e = edits.find((x) => x.index === i);
        if (!e) next.push(item);
        else if (e.items) next.push(...e.items);
      });
      setAt(value, path, next);
    }
    lines.push(stringifyLike(value, lineStyle(rec.text, t.style)));
  });
  if (newCompaction && compactAt >= set.records.length) emitCompaction(lastTimestamp);
  return { text: writeJsonl(t.style, lines, t.frame[0]), fileName: `${baseName(t.fileName)}.compacted.jsonl`, mimeType: 'application/x-ndjson', dropped };
}

function syntheticTextOfItem(item: AnyObj): string {
  const c = item.content;
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map((p) => (isObject(p) ? str(p.text) ?? '' : '')).join('\n');
  return '';
}

export const codexCli: FormatModule = {
  id: 'codex-cli',
  keepsHistory: true,
  label: 'OpenAI Codex CLI rollout',
  specUrl: 'https://github.com/openai/codex/blob/main/codex-rs/protocol/src/protocol.rs',
  extensions: ['.jsonl'],
  detect,
  parse,
  serialize,
};

export default codexCli;
