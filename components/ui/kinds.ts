/**
 * Colour and label per budget kind (UI.md): one table for the canvas, the legend and the chips, so
 * a kind looks the same everywhere. Values mirror the --color-kind-* variables in app/globals.css.
 */
import type { BudgetKind } from '@/lib/tokens/totals';

export type DrawnKind = BudgetKind | 'overhead';

export const KIND_STYLE: Record<DrawnKind, { label: string; color: string }> = {
  overhead: { label: 'Invisible overhead', color: '#a3a3a3' },
  system: { label: 'System', color: '#475569' },
  tools: { label: 'Tool schemas', color: '#94a3b8' },
  summary: { label: 'Summary', color: '#14b8a6' },
  user: { label: 'User', color: '#3b82f6' },
  assistant: { label: 'Assistant', color: '#10b981' },
  reasoning: { label: 'Reasoning', color: '#8b5cf6' },
  tool_call: { label: 'Tool call', color: '#f59e0b' },
  tool_result: { label: 'Tool result', color: '#ea580c' },
  attachment: { label: 'Attachment', color: '#ec4899' },
};

/** Bottom-to-top stacking order of a bar: what is always there first, then what grows. */
export const STACK_ORDER: readonly DrawnKind[] = ['overhead', 'system', 'tools', 'summary', 'user', 'assistant', 'reasoning', 'tool_call', 'tool_result', 'attachment'];
