/**
 * The sidecar audit record written next to an exported compacted conversation (seed 004
 * "observability": how you prove whether something was compacted out or the model ignored it).
 * Plain JSON, versioned; no transcript content except the lost identifiers and summary texts.
 */
import type { Transcript } from '../model/types';
import { lostByCategory, type LostByCategory, type LostIdentifier } from './lost';
import { summarizeProjection, type CompactionSummary } from './report';
import type { Projection, Step } from './types';

export const AUDIT_VERSION = 1;

export interface AuditRecord {
  $schema: 'contextscope-compaction-audit';
  version: typeof AUDIT_VERSION;
  source: { fileName: string; format: string; transcriptId: string; messages: number; turns: number; model?: string };
  /**
   * `notCarried`: a conversion's losses (what the target format cannot carry), with token counts.
   * `leftOut`: in the source's own format, the messages a compaction took out that the file does
   * not keep as history (formats without a compaction record: only Claude Code and Codex keep them).
   */
  output?: {
    fileName: string;
    format: string;
    tokens?: number;
    notCarried?: Array<{ what: string; blocks: number; tokens: number; becomes: 'dropped' | 'text' }>;
    leftOut?: { messages: number; tokens: number; summarized: number; removed: number };
  };
  budget?: number;
  steps: Step[];
  tokens: { before: number; start: number; after: number };
  cacheStablePrefix: number;
  fates: CompactionSummary['fates'];
  reducers: CompactionSummary['reducers'];
  summaries: Array<{ id: string; span: [number, number]; producer: string; tokens: number; text: string }>;
  summaryRequests: Array<{ key: string; span: [number, number] }>;
  lost: LostIdentifier[];
  /** What the compacted blocks held, by category (instructions, paths, commands, errors, figures), and what the model is no longer sent: lib/compaction/lost.ts lostByCategory. */
  lostByCategory: LostByCategory['categories'];
  /** Block ids by fate (not kept), so a viewer can map the audit back onto the log. */
  changedBlocks: Record<string, string>;
}

export function buildAudit(input: { log: Transcript; steps: readonly Step[]; projection: Projection; lost: readonly LostIdentifier[]; budget?: number; output?: AuditRecord['output'] }): AuditRecord {
  const { log, projection } = input;
  const s = summarizeProjection(projection, input.lost);
  const changedBlocks: Record<string, string> = {};
  for (const [id, f] of Object.entries(projection.fates)) if (f.kind !== 'kept') changedBlocks[id] = `${f.kind}:${f.by}`;
  return {
    $schema: 'contextscope-compaction-audit',
    version: AUDIT_VERSION,
    source: { fileName: log.fileName, format: log.format, transcriptId: log.id, messages: log.messages.length, turns: log.turnCount, ...(log.model && { model: log.model }) },
    ...(input.output && { output: input.output }),
    ...(input.budget !== undefined && { budget: input.budget }),
    steps: [...input.steps],
    tokens: { before: s.tokens.before, start: s.tokens.start, after: s.tokens.after },
    cacheStablePrefix: s.cacheStablePrefix,
    fates: s.fates,
    reducers: s.reducers,
    summaries: projection.summaries.map((x) => ({ id: x.id, span: x.span, producer: x.producer, tokens: x.tokens, text: x.text })),
    summaryRequests: (projection.summaryRequests ?? []).map((r) => ({ key: r.key.id, span: r.span })),
    lost: [...input.lost],
    lostByCategory: lostByCategory(log, projection).categories,
    changedBlocks,
  };
}
