/**
 * Token totals by budget kind — the one definition shared by `cli inspect`, the timeline, the
 * budget and the compaction pipeline, so "N tokens" means the same thing everywhere.
 */
import type { Block, Message, Role, ToolSchema } from '../model/types';

/** The kinds drawn on the timeline (UI.md colours). */
export type BudgetKind = 'system' | 'tools' | 'user' | 'assistant' | 'reasoning' | 'tool_call' | 'tool_result' | 'summary' | 'attachment';

export const BUDGET_KINDS: readonly BudgetKind[] = ['system', 'tools', 'user', 'assistant', 'reasoning', 'tool_call', 'tool_result', 'summary', 'attachment'];

export function budgetKind(role: Role, block: Pick<Block, 'kind'>): BudgetKind {
  switch (block.kind) {
    case 'reasoning':
      return 'reasoning';
    case 'tool_call':
      return 'tool_call';
    case 'tool_result':
      return 'tool_result';
    case 'summary':
      return 'summary';
    case 'attachment':
      return 'attachment';
    case 'text':
    case 'opaque':
      return role === 'system' ? 'system' : role === 'assistant' ? 'assistant' : role === 'tool' ? 'tool_result' : 'user';
  }
}

export interface Totals {
  total: number;
  byKind: Record<BudgetKind, number>;
}

export function emptyByKind(): Record<BudgetKind, number> {
  return { system: 0, tools: 0, user: 0, assistant: 0, reasoning: 0, tool_call: 0, tool_result: 0, summary: 0, attachment: 0 };
}

interface MessageLike {
  role: Role;
  blocks: readonly Pick<Block, 'kind' | 'tokens'>[];
  sidechain?: boolean;
}

// A frozen messages array (an imported log's, a projection's starting context) never changes: its
// totals are computed once. Unfrozen arrays are always counted (a caller may still be filling them).
const frozenTotals = new WeakMap<readonly MessageLike[], { tools: readonly Pick<ToolSchema, 'tokens'>[]; totals: Totals }>();

/** Totals of a context: messages (side chains excluded: the main model never saw them) + tool schemas. */
export function contextTotals(messages: readonly MessageLike[], tools: readonly Pick<ToolSchema, 'tokens'>[]): Totals {
  const frozen = Object.isFrozen(messages) && Object.isFrozen(tools);
  if (frozen) {
    const hit = frozenTotals.get(messages);
    if (hit && hit.tools === tools) return { total: hit.totals.total, byKind: { ...hit.totals.byKind } };
  }
  const totals = countTotals(messages, tools);
  if (frozen) frozenTotals.set(messages, { tools, totals: { total: totals.total, byKind: { ...totals.byKind } } });
  return totals;
}

function countTotals(messages: readonly MessageLike[], tools: readonly Pick<ToolSchema, 'tokens'>[]): Totals {
  const byKind = emptyByKind();
  // Indexed loops (here and in the other passes a new log makes once over all of its blocks): a
  // for…of runs them before V8 has optimized them, and there each step allocates an iterator
  // result, 50 MB of garbage per pass over a 100k-turn log.
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (m.sidechain) continue;
    const blocks = m.blocks;
    for (let j = 0; j < blocks.length; j++) byKind[budgetKind(m.role, blocks[j])] += blocks[j].tokens;
  }
  return finishTotals(byKind, tools);
}

/**
 * Totals from the per-kind sums of a context's messages (added in their order, side chains left
 * out) and its tool schemas: countTotals' last steps, for a caller that keeps the sums as it goes
 * (the replay, lib/simulate/calls.ts). Takes `byKind` over.
 */
export function finishTotals(byKind: Record<BudgetKind, number>, tools: readonly Pick<ToolSchema, 'tokens'>[]): Totals {
  for (let i = 0; i < tools.length; i++) byKind.tools += tools[i].tokens;
  let total = 0;
  for (const k of BUDGET_KINDS) total += byKind[k];
  return { total, byKind };
}

/** Remember the totals of frozen messages and tools, known to their caller (what contextTotals would count). */
export function rememberFrozenTotals(messages: readonly MessageLike[], tools: readonly Pick<ToolSchema, 'tokens'>[], totals: Totals): void {
  if (!Object.isFrozen(messages) || !Object.isFrozen(tools)) return;
  frozenTotals.set(messages, { tools, totals: { total: totals.total, byKind: { ...totals.byKind } } });
}

export function transcriptTotals(t: { messages: readonly Message[]; tools: readonly ToolSchema[] }): Totals {
  return contextTotals(t.messages, t.tools);
}
