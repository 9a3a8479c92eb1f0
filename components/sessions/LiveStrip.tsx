'use client';

import { formatBytes, formatTokens } from '../ui/format';
import type { LiveState } from './useLiveSession';

function clock(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

/**
 * The inspector's live state, for a session opened from the local API: following (new calls
 * join the timeline as the agent appends them), paused on a snapshot (a preview, a selection or
 * a compacted version works on the session as it was), or stopped (and why).
 */
export function LiveStrip({ live, onFollow }: { live: LiveState; onFollow: () => void }) {
  if (live.status === 'off' || !live.link) return null;
  const { link } = live;
  const base = 'flex h-7 shrink-0 items-center gap-2 border-b px-3 text-xs';
  if (live.status === 'stopped') {
    return (
      <div className={`${base} border-amber-300 bg-amber-50 text-amber-950 dark:border-amber-900 dark:bg-amber-950/40 dark:text-amber-100`} data-testid="live-strip" data-live="stopped" role="status">
        <span aria-hidden="true">■</span>
        <span className="font-semibold">Not following</span>
        <span className="truncate">{live.message}</span>
      </div>
    );
  }
  if (live.status === 'paused') {
    return (
      <div className={`${base} border-sky-200 bg-sky-50 text-sky-950 dark:border-sky-900 dark:bg-sky-950/40 dark:text-sky-100`} data-testid="live-strip" data-live="paused" role="status">
        <span aria-hidden="true">❚❚</span>
        <span className="font-semibold">Snapshot</span>
        <span className="truncate">
          The preview and the steps work on the session as of {clock(link.takenAt)} ({formatBytes(link.offset)}).
          {live.waiting > 0 ? (
            <span data-testid="live-waiting">
              {' '}
              {formatTokens(live.waiting)} new record{live.waiting === 1 ? '' : 's'} written since.
            </span>
          ) : (
            ' Nothing new written since.'
          )}
        </span>
        <div className="flex-1" />
        <button type="button" className="shrink-0 font-medium text-blue-700 underline dark:text-sky-300" onClick={onFollow} data-testid="live-follow" title="Clear the selection and show the original version, following the file again">
          Follow live
        </button>
      </div>
    );
  }
  return (
    <div className={`${base} border-emerald-200 bg-emerald-50 text-emerald-950 dark:border-emerald-900 dark:bg-emerald-950/40 dark:text-emerald-100`} data-testid="live-strip" data-live="following" role="status">
      <span className="relative flex h-2 w-2" aria-hidden="true">
        <span className="absolute inline-flex h-full w-full animate-ping rounded-full bg-emerald-400 opacity-75 motion-reduce:animate-none" />
        <span className="relative inline-flex h-2 w-2 rounded-full bg-emerald-500" />
      </span>
      <span className="font-semibold">Live</span>
      <span className="truncate">
        following <span className="font-mono">{link.path}</span> · {formatBytes(link.offset)} read · snapshot of {clock(link.takenAt)}
      </span>
      {live.message && <span className="truncate text-amber-800 dark:text-amber-300">{live.message}</span>}
      <div className="flex-1" />
      <span className="shrink-0 text-emerald-800/80 dark:text-emerald-200/70">new calls appear as the agent writes them; a selection or a step pauses on a snapshot</span>
    </div>
  );
}
