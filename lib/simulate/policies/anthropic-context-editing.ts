/**
 * Anthropic context editing (API): clear_tool_uses_20250919 fires above 100k input tokens by
 * default, replaces the oldest tool results with a placeholder, keeps the last 3 tool uses and
 * `exclude_tools`; clear_thinking_20251015 drops thinking blocks but the last assistant turn's.
 */
import { CLEARED_TO_SAVE_CONTEXT } from '../../compaction/reducers/tool-retention';
import { planStep, type PeerPolicy } from '../types';

const CLEAR_TOOL_USES_KEEP = 3;

export const anthropicClearToolUses: PeerPolicy = {
  id: 'anthropic-clear-tool-uses',
  label: 'Anthropic clear_tool_uses',
  triggerTokens: () => 100_000,
  action: 'oldest tool results → placeholder (inputs optionally too)',
  keeps: 'last 3 tool uses; exclude_tools',
  plan: () => [planStep('anthropic-clear-tool-uses', [{ id: 'tool-retention', options: { mode: 'count', keep: CLEAR_TOOL_USES_KEEP, scope: 'all', useHints: false, placeholder: CLEARED_TO_SAVE_CONTEXT } }], 0)],
  endLocal: { keepResults: CLEAR_TOOL_USES_KEEP },
};

export const anthropicClearThinking: PeerPolicy = {
  id: 'anthropic-clear-thinking',
  label: 'Anthropic clear_thinking',
  triggerTokens: () => 0,
  action: 'older thinking blocks removed',
  keeps: "the last assistant turn's thinking",
  plan: () => [planStep('anthropic-clear-thinking', [{ id: 'strip-reasoning' }], 1)],
  onlyRemoves: 'reasoning',
};

export const anthropicCompact: PeerPolicy = {
  id: 'anthropic-compact',
  label: 'Anthropic compact_20260112',
  triggerTokens: () => 150_000,
  action: 'server summary in a compaction block; earlier blocks dropped',
  keeps: '—',
  plan: () => [planStep('anthropic-compact', [{ id: 'summarize', options: { producer: 'anthropic-compact' } }], 0)],
};
