/**
 * Codex CLI: model_auto_compact_token_limit, default 90 % of W. Handoff summary; history rebuilt
 * as initial context + recent user messages (≤ 20k tokens) + summary. Tool outputs are stored
 * capped at 2,560 tokens. Plan: cap results at 2,560, then summarize all but the last turn (our
 * summary keeps every user instruction verbatim, which stands in for Codex's kept user messages).
 */
import { planStep, type PeerPolicy } from '../types';

export const codex: PeerPolicy = {
  id: 'codex',
  label: 'Codex CLI',
  triggerTokens: (m) => Math.floor(m.contextWindow * 0.9),
  action: 'handoff summary; history = initial context + recent user messages + summary',
  keeps: 'user messages (≤ 20k tokens, newest first)',
  plan: (_log, m) => [
    planStep('codex', [{ id: 'truncate-tool-results', options: { cap: 2560 } }, { id: 'summarize', options: { producer: 'codex' } }], 1, Math.floor(m.contextWindow * 0.9)),
  ],
};
