/**
 * OpenCode: fires at input limit − reserved (≤ 20k), else W − O. Prune first: completed tool
 * outputs older than the newest 40k tool tokens, only if ≥ 20k reclaimable, skipping the last 2
 * turns; then a summary. Plan: the prune (tool-retention tokens mode), keep_last 2.
 */
import { planStep, type PeerPolicy } from '../types';

const PROTECT = 40_000;
const KEEP_TURNS = 2;

export const opencodePrune: PeerPolicy = {
  id: 'opencode-prune',
  label: 'OpenCode prune',
  triggerTokens: (m) => m.contextWindow - m.maxOutput,
  action: 'tool outputs older than the newest 40k tool tokens cleared (if ≥ 20k reclaimable), then summary',
  keeps: 'last 2 turns; newest 40k tool tokens',
  plan: () => [planStep('opencode-prune', [{ id: 'tool-retention', options: { mode: 'tokens', protectTokens: PROTECT, minReclaim: 20_000, useHints: false, placeholder: '[Old tool result content cleared]' } }], KEEP_TURNS)],
  endLocal: { keepResultTokens: PROTECT, keepTurns: KEEP_TURNS },
};
