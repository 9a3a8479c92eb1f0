'use client';

import { useIsFetching, useIsMutating } from '@tanstack/react-query';

/**
 * "Working…" while the engine worker answers for this page (preview, versions, triggers, search,
 * apply): the page never blocks on it, so this is how a user knows a result is on its way. Its own
 * component, so a count changing re-renders this dot and not the inspector. `data-busy` lets tests
 * wait for the worker to settle between measured interactions.
 */
export function WorkerActivity() {
  const busy = useIsFetching() + useIsMutating() > 0;
  return (
    <span
      data-testid="worker-activity"
      data-busy={busy ? 'yes' : 'no'}
      className={`flex w-3 shrink-0 items-center xl:w-20 gap-1.5 text-xs text-neutral-500 transition-opacity ${busy ? 'opacity-100' : 'opacity-0'}`}
      title="The engine worker is computing; the page stays responsive."
    >
      {/* A still dot: a pulse makes the compositor draw every frame while the worker computes (a replay: seconds of it), on the cores the worker needs. */}
      <span className="inline-block h-1.5 w-1.5 rounded-full bg-blue-500" aria-hidden="true" />
      {busy && <span className="hidden xl:inline">working…</span>}
    </span>
  );
}
