/**
 * Every tab of the app listens on one BroadcastChannel (app/providers.tsx): a version written in
 * one tab shows in the others without a reload. The worker that wrote it posts; a tab receiving
 * a message refetches what it names. Kept apart from the engine so the page imports nothing else.
 */
export const LIBRARY_CHANNEL = 'contextscope-library';

export type LibraryMessage = { kind: 'versions'; transcriptId: string };

export function announce(message: LibraryMessage): void {
  if (typeof BroadcastChannel === 'undefined') return;
  const ch = new BroadcastChannel(LIBRARY_CHANNEL);
  ch.postMessage(message);
  ch.close();
}

/** Call `onMessage` for every message another context posts; returns the unsubscribe. */
export function listenLibrary(onMessage: (m: LibraryMessage) => void): () => void {
  if (typeof BroadcastChannel === 'undefined') return () => {};
  const ch = new BroadcastChannel(LIBRARY_CHANNEL);
  ch.onmessage = (ev: MessageEvent) => {
    const m = ev.data as LibraryMessage | undefined;
    if (m && m.kind === 'versions' && typeof m.transcriptId === 'string') onMessage(m);
  };
  return () => ch.close();
}
