/**
 * Every tab of the app shares one BroadcastChannel: a version written in one tab shows in the
 * others without a reload. The page's WorkerBridge posts after a version write succeeds and the
 * page listens (app/providers.tsx) on the same channel object, so a tab never hears its own
 * messages (a BroadcastChannel does not deliver to the object that posted) and never refetches
 * twice what it just wrote. Kept apart from the engine so the page imports nothing else.
 */
export const LIBRARY_CHANNEL = 'contextscope-library';

/**
 * 'versions': a transcript's versions changed. 'transcripts': the library's list changed (an import,
 * a rename, a purge). 'deleted' / 'restored': a transcript went to (or came back from) the undo
 * window: a tab showing it says so (issue 30: it stayed open with no notice).
 */
export type LibraryMessage = { kind: 'versions'; transcriptId: string } | { kind: 'transcripts' } | { kind: 'deleted'; transcriptId: string } | { kind: 'restored'; transcriptId: string };

let shared: BroadcastChannel | null = null;

function channel(): BroadcastChannel | null {
  if (typeof BroadcastChannel === 'undefined') return null;
  shared ??= new BroadcastChannel(LIBRARY_CHANNEL);
  return shared;
}

export function announce(message: LibraryMessage): void {
  channel()?.postMessage(message);
}

/** Call `onMessage` for every message another tab posts; returns the unsubscribe. */
export function listenLibrary(onMessage: (m: LibraryMessage) => void): () => void {
  const ch = channel();
  if (!ch) return () => {};
  const handler = (ev: MessageEvent) => {
    const m = ev.data as LibraryMessage | undefined;
    if (!m || typeof m !== 'object') return;
    if (m.kind === 'transcripts') onMessage(m);
    else if ((m.kind === 'versions' || m.kind === 'deleted' || m.kind === 'restored') && typeof m.transcriptId === 'string') onMessage(m);
  };
  ch.addEventListener('message', handler);
  return () => ch.removeEventListener('message', handler);
}
