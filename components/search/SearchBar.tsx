'use client';

import { forwardRef } from 'react';

/** The search field of the inspector (`/` focuses it): hits counted, Enter / Shift+Enter step through. */
export const SearchBar = forwardRef<HTMLInputElement, { value: string; onChange: (v: string) => void; hits: number; active: number; onStep: (dir: 1 | -1) => void; pending?: boolean; capped?: boolean }>(function SearchBar(
  { value, onChange, hits, active, onStep, pending = false, capped = false },
  ref,
) {
  return (
    <div className="flex items-center gap-1 rounded-md border border-neutral-300 bg-white pl-2 text-xs focus-within:border-blue-500 dark:border-neutral-700 dark:bg-neutral-900" role="search">
      <span aria-hidden="true" className="text-neutral-400">
        ⌕
      </span>
      <input
        ref={ref}
        type="search"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            onStep(e.shiftKey ? -1 : 1);
          } else if (e.key === 'Escape') {
            onChange('');
            (e.target as HTMLInputElement).blur();
          }
        }}
        placeholder="Search   /"
        title="Text, tool:NAME or role:user|assistant|system|tool"
        aria-label="Search the transcript"
        data-testid="search"
        className="w-24 bg-transparent py-1 xl:w-36 outline-none placeholder:text-neutral-400"
      />
      {value.trim() && (
        <span className="whitespace-nowrap tabular-nums text-neutral-500" aria-live="polite" data-testid="search-count" data-pending={pending ? 'yes' : 'no'}>
          {pending ? 'searching…' : hits === 0 ? 'no hits' : `${active + 1} / ${hits}${capped ? '+' : ''}`}
        </span>
      )}
      <button type="button" className="px-1 text-neutral-500 hover:text-neutral-900 disabled:opacity-40 dark:hover:text-neutral-100" onClick={() => onStep(-1)} disabled={hits === 0} aria-label="Previous hit">
        ↑
      </button>
      <button type="button" className="px-1 pr-1.5 text-neutral-500 hover:text-neutral-900 disabled:opacity-40 dark:hover:text-neutral-100" onClick={() => onStep(1)} disabled={hits === 0} aria-label="Next hit">
        ↓
      </button>
    </div>
  );
});
