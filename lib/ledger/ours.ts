/**
 * Our compactions as ledger events: each applied step of a version is one event. Its numbers are
 * our counts, in what the model is sent (`(estimate + overhead) × factor`, lib/tokens/model-view.ts):
 * before = the version's context without the step, after = with it. No call has been made on the
 * result yet, so the cache write it causes is modelled: the next call writes everything after the
 * prefix the step left unchanged (`cacheStablePrefix`), where the provider bills writes.
 * The compaction call: a summary by a configured provider (`producer` = `provider:model`) is
 * priced at that model's list price, the summarized blocks as input and the summary as output;
 * the offline summarizer and the other reducers call no model (cost 0).
 */
import type { Transcript } from '../model/types';
import type { Projection, Step } from '../compaction/types';
import { modelViewOf } from '../compaction/budget';
import { modelTokensOf } from '../tokens/model-view';
import { lookupModel } from '../tokens/catalog';
import { cacheRules } from '../simulate/billing';
import { compactionBreakEven } from './break-even';
import type { LedgerEvent } from './types';
import type { SurvivalFn } from './survival';

export interface OursOptions {
  /** Projections of the version's first i steps, i = 0..steps.length (index 0: no step). */
  project: (steps: readonly Step[]) => Projection;
  survival?: SurvivalFn;
  pinsLost?: (log: Transcript, span: [number, number], modelText: string) => string[];
  versionId?: string;
}

/** Every text of a projection's main-chain context, joined: what the model is sent. */
export function projectionText(p: Pick<Projection, 'messages'>): string {
  const parts: string[] = [];
  for (const m of p.messages) {
    if (m.sidechain) continue;
    for (const b of m.blocks) {
      if (b.kind === 'text' || b.kind === 'summary' || b.kind === 'reasoning' || b.kind === 'opaque') parts.push(b.text);
      else if (b.kind === 'tool_result') parts.push(b.content);
      else if (b.kind === 'tool_call') parts.push(typeof b.input === 'string' ? b.input : JSON.stringify(b.input));
      else if (b.kind === 'attachment' && b.text) parts.push(b.text);
    }
  }
  return parts.join('\n');
}

export function ourEvents(log: Transcript, steps: readonly Step[], options: OursOptions): LedgerEvent[] {
  if (steps.length === 0) return [];
  const view = modelViewOf(log);
  const info = lookupModel(log.model);
  const rules = cacheRules(info);
  const blockTokens = new Map<string, { tokens: number; message: number }>();
  log.messages.forEach((m, mi) => m.blocks.forEach((b) => blockTokens.set(b.id, { tokens: b.tokens, message: mi })));
  const out: LedgerEvent[] = [];
  let prev = options.project([]);
  steps.forEach((step, i) => {
    const cur = options.project(steps.slice(0, i + 1));
    const before = modelTokensOf(prev.tokens.after.total, view);
    const after = modelTokensOf(cur.tokens.after.total, view);
    // The blocks this step changed, and the messages they are in: its span.
    let from = Infinity;
    let to = -1;
    let summarizedTokens = 0;
    for (const [id, f] of Object.entries(cur.fates)) {
      if (f.kind === 'kept' || f.stepId !== step.id) continue;
      const b = blockTokens.get(id);
      if (!b) continue;
      from = Math.min(from, b.message);
      to = Math.max(to, b.message);
      if (f.kind === 'summarized') summarizedTokens += b.tokens;
    }
    const span: [number, number] | null = to >= 0 ? [from, to + 1] : null;
    const summaries = cur.summaries.filter((s) => s.stepId === step.id);
    const producer = summaries.find((s) => s.producer !== 'offline')?.producer;
    const summarizer = producer ? producer.slice(producer.indexOf(':') + 1) : summaries.length > 0 ? 'offline' : null;
    const sInfo = producer ? lookupModel(summarizer ?? undefined) : undefined;
    const summaryTokens = summaries.reduce((n, s) => n + s.tokens, 0);
    const costUsd = producer ? (sInfo ? (summarizedTokens * sInfo.price.input + summaryTokens * sInfo.price.output) / 1_000_000 : null) : 0;
    // The next call: the unchanged prefix read from the cache (with the invisible overhead, which never changes), the rest written.
    const stable = modelTokensOf(cur.cacheStablePrefix ?? 0, view);
    const read = stable >= rules.minTokens ? Math.min(after, stable) : 0;
    const firstCall = rules.writes ? { input: 0, cacheRead: read, cacheWrite: after - read } : { input: after - read, cacheRead: read, cacheWrite: 0 };
    const cacheWriteAfter = rules.writes ? after - read : 0;
    const cacheWriteUsd = info ? (cacheWriteAfter * info.price.cacheWrite * rules.writePrice) / 1_000_000 : null;
    const breakEvenCalls = info ? compactionBreakEven({ price: info.price, tokensBefore: before, tokensAfter: after, firstCall, compactionUsd: costUsd ?? 0, callsAfter: Infinity }) : null;
    const text = projectionText(cur);
    const atMessage = span ? span[1] : log.messages.length;
    out.push({
      id: `ours:${options.versionId ?? 'v'}:${step.id}`,
      by: 'ours',
      label: `our step ${i + 1}${step.label ? ` (${step.label})` : ''}`,
      trigger: 'manual',
      triggerLevel: step.budget !== undefined ? { tokens: modelTokensOf(step.budget, view) } : null,
      policy: step.reducers.map((r) => r.id).join(' + '),
      atMessage,
      atTurn: log.messages[Math.min(atMessage, log.messages.length - 1)]?.turn ?? 0,
      covers: span,
      tokensBefore: before,
      tokensBeforeFrom: 'estimate',
      tokensAfter: after,
      tokensAfterFrom: 'estimate',
      durationMs: null,
      model: summarizer,
      costUsd,
      costFrom: costUsd === null ? null : 'estimate',
      cacheWriteAfter,
      cacheWriteUsd,
      breakEvenCalls,
      callsAfter: null,
      summary: summaries.length > 0 ? summaries.map((s) => s.text).join('\n\n') : null,
      survival: options.survival && span ? options.survival(log, span, text) : null,
      pinsLost: options.pinsLost && span ? options.pinsLost(log, span, text) : [],
    });
    prev = cur;
  });
  return out;
}
