/** Peers whose trigger we draw but whose action is an LLM flow we only approximate. */
import { planStep, type PeerPolicy } from '../types';

export const goose: PeerPolicy = {
  id: 'goose',
  label: 'Goose',
  triggerTokens: (m) => Math.floor(m.contextWindow * 0.8),
  action: 'whole visible history → summary',
  keeps: 'latest user message',
  plan: () => [planStep('goose', [{ id: 'summarize', options: { producer: 'goose' } }], 1)],
};

export const cline: PeerPolicy = {
  id: 'cline',
  label: 'Cline SDK',
  triggerTokens: (m) => Math.floor((m.contextWindow - m.maxOutput) * 0.9),
  action: 'agentic or basic summary down to 0.7 of max input',
  keeps: 'newest 20k tokens',
  plan: (_log, m) => [planStep('cline', [{ id: 'summarize', options: { untilFits: true, producer: 'cline' } }], 1, Math.floor((m.contextWindow - m.maxOutput) * 0.7))],
};

export const aider: PeerPolicy = {
  id: 'aider',
  label: 'Aider',
  triggerTokens: (m) => Math.min(Math.max(Math.floor((m.contextWindow - m.maxOutput) / 16), 1024), 8192),
  action: 'older half of done messages → summary written as the user',
  keeps: 'newer half',
  plan: () => [planStep('aider', [{ id: 'summarize', options: { fraction: 0.5, producer: 'aider' } }], 0)],
};

const OPENHANDS_KEEP = 10;

export const openhands: PeerPolicy = {
  id: 'openhands',
  label: 'OpenHands condenser',
  triggerTokens: () => undefined,
  triggerEvents: 120,
  action: 'observations older than the attention window → <MASKED>; LLM summary past keep_first',
  keeps: 'keep_first events',
  plan: () => [planStep('openhands', [{ id: 'tool-retention', options: { mode: 'count', keep: OPENHANDS_KEEP, scope: 'all', useHints: false, placeholder: '<MASKED>' } }], 0)],
  endLocal: { keepResults: OPENHANDS_KEEP },
};

export const inspectAi: PeerPolicy = {
  id: 'inspect-ai',
  label: 'Inspect AI',
  triggerTokens: (m) => Math.floor(m.contextWindow * 0.9),
  action: 'Auto / Native / Summary / Edit / Trim',
  keeps: 'keep_tool_uses 3, keep_thinking_turns 1',
  plan: (_log, m) => [
    planStep('inspect-ai', [{ id: 'tool-retention', options: { mode: 'count', keep: 3, scope: 'all', useHints: false } }, { id: 'strip-reasoning' }, { id: 'auto' }], 1, Math.floor(m.contextWindow * 0.9)),
  ],
};

export const openaiResponsesCompaction: PeerPolicy = {
  id: 'openai-responses',
  label: 'OpenAI Responses compaction',
  triggerTokens: () => undefined,
  action: 'opaque encrypted compaction item at compact_threshold',
  keeps: '—',
};
