/**
 * What each reducer is called on screen (issue 30: ids such as `tool-hints`, `prune-tools` were
 * shown as labels). The id stays the engine's and the CLI's name; the UI shows this, with the id
 * beside it where a user may want to look it up (README, `compact --strategy`).
 */
import type { ReducerId } from '@/lib/compaction/types';

export const REDUCER_LABELS: Record<ReducerId | 'pairing-repair', string> = {
  'strip-reasoning': 'Strip reasoning',
  'strip-tool-results': 'Stub tool results',
  'tool-retention': 'Expire old tool results',
  'dedup-tools': 'Remove duplicate tool calls',
  'tool-hints': 'Per-tool hints',
  'strip-attachments': 'Replace attachments',
  'prune-tools': 'Drop unused tool schemas',
  'truncate-tool-results': 'Truncate long tool results',
  'sliding-window': 'Keep newest turns',
  summarize: 'Summarize',
  'classify-tangents': 'Remove tangents',
  emergency: 'Emergency drop',
  auto: 'Auto',
  'pairing-repair': 'Pairing repair',
};

/** The human label of a reducer id (an unknown id is shown as it is). */
export function reducerLabel(id: string): string {
  return (REDUCER_LABELS as Record<string, string>)[id] ?? id;
}
