'use client';

import { useMemo } from 'react';
import type { Timeline } from '@/lib/engine/timeline';
import { KIND_STYLE, STACK_ORDER, type DrawnKind } from '../ui/kinds';

/** The timeline's legend: its own module, so the page draws it without the chart's code (a chunk of its own). */
export function TimelineLegend({ timeline }: { timeline: Timeline }) {
  // Once per timeline, not per render: the page re-renders on every cursor move.
  // The kinds and the recorded flag come with the timeline (the worker found them while building it).
  const { kindsPresent, overhead, hasRecorded } = timeline;
  const present = useMemo(() => new Set<DrawnKind>([...kindsPresent, ...(overhead > 0 ? (['overhead'] as const) : [])]), [kindsPresent, overhead]);
  return (
    <ul className="flex flex-wrap items-center gap-x-3 gap-y-1 text-[11px] text-neutral-600 dark:text-neutral-400" aria-label="Legend">
      {STACK_ORDER.filter((k) => present.has(k)).map((k) => (
        <li key={k} className="flex items-center gap-1">
          <span className="inline-block h-2.5 w-2.5 rounded-sm" style={{ backgroundColor: KIND_STYLE[k].color }} aria-hidden="true" />
          {KIND_STYLE[k].label}
        </li>
      ))}
      {timeline.contextWindow !== undefined && (
        <li className="flex items-center gap-1">
          <span className="inline-block h-0.5 w-4 bg-red-600" aria-hidden="true" /> Context window
        </li>
      )}
      {hasRecorded && (
        <li className="flex items-center gap-1">
          <span className="inline-block h-px w-4 bg-neutral-900 dark:bg-neutral-200" aria-hidden="true" /> Recorded context (usage)
        </li>
      )}
      {timeline.bands.length > 0 && (
        <li className="flex items-center gap-1">
          <span className="inline-block h-2.5 w-1 bg-teal-500" aria-hidden="true" /> Source compaction
        </li>
      )}
    </ul>
  );
}
