'use client';

import type { FateKind } from '@/lib/model/projection';
import { fateSwatchStyle } from '../timeline/patterns';
import { useBlockFate } from './context';

const LABEL: Record<Exclude<FateKind, 'kept'>, string> = { stubbed: 'stubbed', truncated: 'truncated', removed: 'removed', deduped: 'deduplicated', summarized: 'summarized' };

/** The fate of a block in the previewed version, as a chip with the same pattern as the timeline. */
export function FateBadge({ blockId }: { blockId: string }) {
  const fate = useBlockFate(blockId);
  if (!fate || fate === 'kept') return null;
  return (
    <span
      className={`inline-flex items-center gap-1 rounded border px-1 text-[10px] font-medium ${fate === 'summarized' ? 'border-teal-400 text-teal-700 dark:text-teal-300' : 'border-neutral-400 text-neutral-700 dark:border-neutral-600 dark:text-neutral-300'}`}
      data-testid="fate-badge"
      data-fate={fate}
      title={`In the previewed version this block is ${LABEL[fate]}`}
    >
      <span className="inline-block h-2.5 w-2.5" style={fateSwatchStyle(fate)} aria-hidden="true" />
      {LABEL[fate]}
    </span>
  );
}

/** Dim what compaction takes out, so the list reads like the timeline. */
export function useFateClass(blockId: string): string {
  const fate = useBlockFate(blockId);
  if (!fate || fate === 'kept') return '';
  return fate === 'removed' || fate === 'summarized' || fate === 'deduped' ? 'opacity-55' : 'opacity-80';
}
