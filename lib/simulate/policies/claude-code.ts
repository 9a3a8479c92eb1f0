/**
 * Claude Code (reported): auto-compact at W − min(O, 20k) − 13k (≈ 83.5 % of 200k). Full compact
 * = a 9-section summary incl. "all user messages"; microcompact clears old results of
 * Read, Bash, Grep, Glob, Web fetch/search and edit tools to "[Old tool result content cleared]", newest 5 kept.
 */
import { planStep, type PeerPolicy } from '../types';

const MICRO_KEEP = 5;
const MICRO_TOOLS = ['Read', 'Bash', 'Grep', 'Glob', 'WebFetch', 'WebSearch', 'Edit', 'MultiEdit', 'Write', 'NotebookEdit', 'BashOutput'];

export const claudeCodeTrigger = (m: { contextWindow: number; maxOutput: number }) => m.contextWindow - Math.min(m.maxOutput, 20_000) - 13_000;

export const claudeCodeCompact: PeerPolicy = {
  id: 'claude-code',
  label: 'Claude Code auto-compact',
  triggerTokens: claudeCodeTrigger,
  action: 'full compact: one summary of the whole conversation (claude-code style), history replaced',
  keeps: 'nothing verbatim (the JSONL keeps the rows)',
  plan: (_log, m) => [planStep('claude-code', [{ id: 'summarize', options: { style: 'claude-code', producer: 'claude-code' } }], 0, claudeCodeTrigger(m))],
};

export const claudeCodeMicrocompact: PeerPolicy = {
  id: 'claude-code-microcompact',
  label: 'Claude Code microcompact',
  triggerTokens: claudeCodeTrigger,
  action: 'old tool results of Read/Bash/Grep/Glob/Web*/edits → [Old tool result content cleared]',
  keeps: 'newest 5 of those results',
  plan: () => [
    planStep('claude-code-microcompact', [{ id: 'tool-retention', options: { mode: 'count', keep: MICRO_KEEP, scope: 'all', tools: MICRO_TOOLS, useHints: false, placeholder: '[Old tool result content cleared]' } }], 0),
  ],
  endLocal: { keepResults: MICRO_KEEP },
};
