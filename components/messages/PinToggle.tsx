'use client';

import { useContext } from 'react';
import { pinKey, type Pin } from '@/lib/compaction/pins';
import { PinsContext } from './context';

/**
 * Pin or unpin one message or tool result (issue 26 §4): a pinned item is never stubbed,
 * truncated, summarized or dropped by any step of any version. A toggle button (aria-pressed),
 * labelled with what it pins; the pinned state is shown as a filled chip.
 */
export function PinToggle({ pin, what }: { pin: Extract<Pin, { kind: 'message' | 'block' }>; what: string }) {
  const control = useContext(PinsContext);
  if (!control) return null;
  const pinned = control.pinned.has(pinKey(pin));
  return (
    <button
      type="button"
      data-testid="pin-toggle"
      data-pinned={pinned ? 'true' : 'false'}
      aria-pressed={pinned}
      aria-label={pinned ? `Unpin this ${what}` : `Pin this ${what}`}
      title={pinned ? `Pinned: no compaction step touches this ${what}. Click to unpin.` : `Pin this ${what}: no compaction step will stub, truncate, summarize or drop it`}
      disabled={control.busy}
      onClick={() => control.toggle(pin)}
      className={`inline-flex items-center gap-0.5 rounded border px-1 text-[10px] font-medium leading-4 focus-visible:outline focus-visible:outline-2 focus-visible:outline-blue-500 disabled:opacity-50 ${
        pinned
          ? 'border-blue-500 bg-blue-600 text-white dark:border-blue-400 dark:bg-blue-500'
          : 'border-neutral-300 text-neutral-500 hover:border-neutral-500 hover:text-neutral-800 dark:border-neutral-700 dark:text-neutral-400 dark:hover:text-neutral-100'
      }`}
    >
      {/* A dot, not an <svg>: the message list holds no svg, img or script, so a hostile transcript's cannot hide among ours (e2e/hostile.spec.ts counts them). */}
      <span aria-hidden="true" className="inline-block h-1.5 w-1.5 rounded-full bg-current" />
      {pinned ? 'Pinned' : 'Pin'}
    </button>
  );
}
