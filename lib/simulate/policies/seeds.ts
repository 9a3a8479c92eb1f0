/** The seeds' own policies: JP (RFD D17/036), sven (seed 003), seed 002, seed 004. */
import { planStep, type PeerPolicy } from '../types';

export const jp: PeerPolicy = {
  id: 'jp',
  label: 'JP (RFD D17)',
  triggerTokens: (m) => Math.floor(m.contextWindow * 0.75),
  action: "profile's strategies from after the last compaction to keep_last (auto)",
  keeps: 'keep_last turns (1)',
  plan: (_log, m) => [planStep('jp', [{ id: 'auto', options: { minTurns: 5 } }], 1, Math.floor(m.contextWindow * 0.75))],
};

export const sven: PeerPolicy = {
  id: 'sven',
  label: 'sven',
  triggerTokens: (m) => Math.floor((m.contextWindow - m.maxOutput) * Math.max(0.85 - 0.1, 0.1)),
  action: 'tool results capped at 4000 tokens; structured summary; ≥ 0.95 → emergency drop',
  keeps: 'last 6 messages',
  plan: (_log, m) => [planStep('sven', [{ id: 'auto', options: { toolResultCap: 4000, keepN: 6, threshold: 0.85, overheadReserve: 0.1 } }], 1, m.contextWindow - m.maxOutput)],
};

export const seed002: PeerPolicy = {
  id: 'seed-002',
  label: 'Seed 002 (Truncate)',
  triggerTokens: () => undefined,
  action: 'Native / Summarize / Truncate (keep N recent + system) above auto_compact_threshold',
  keeps: 'N recent messages; target = threshold / 2',
  plan: (_log, m) => [planStep('seed-002', [{ id: 'sliding-window', options: { untilFits: true } }], 1, Math.floor((m.contextWindow - m.maxOutput) / 2))],
};

export const seed004: PeerPolicy = {
  id: 'seed-004',
  label: 'Seed 004 (projection)',
  triggerTokens: (m) => m.contextWindow - m.maxOutput,
  action: 'free reducers always (tool-result retention), summarize only the overflow, prefix-ward',
  keeps: 'verbatim tail',
  plan: (_log, m) => [planStep('seed-004', [{ id: 'tool-retention', options: { mode: 'age', turns: 5 } }, { id: 'auto' }], 1, m.contextWindow - m.maxOutput)],
};
