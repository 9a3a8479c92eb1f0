'use client';

import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useEffect, useState, type ReactNode } from 'react';
import { getBridge, warmEngine } from '@/lib/engine/client';
import { listenLibrary } from '@/lib/engine/channel';
import { isAbortError } from '@/lib/errors';

declare global {
  interface Window {
    /** Test hook (STYLE.md §15): only in builds made with NEXT_PUBLIC_E2E=1. */
    __contextscope?: { bridge: ReturnType<typeof getBridge> };
  }
}

// The engine's query worker starts as this module loads (the layout's, on every page), before React
// renders: the library's first list query no longer waits for hydration to start it.
warmEngine();

export function Providers({ children }: { children: ReactNode }) {
  const [client] = useState(
    () =>
      new QueryClient({
        defaultOptions: {
          queries: {
            refetchOnWindowFocus: false,
            // A cancelled query (AbortError) is not a failure worth retrying; others get one retry.
            retry: (count, error) => !isAbortError(error) && count < 1,
            staleTime: 30_000,
          },
        },
      }),
  );
  useEffect(() => {
    if (process.env.NEXT_PUBLIC_E2E === '1') window.__contextscope = { bridge: getBridge() };
  }, []);
  // Another tab applied, undid, forked, renamed or deleted a version: refetch this transcript's list
  // (a refetch already running is left to finish: cancelling it would restart the query worker).
  // Another tab imported, renamed or deleted a transcript: refetch the library's list and storage.
  useEffect(
    () =>
      listenLibrary((m) => {
        if (m.kind === 'versions') void client.invalidateQueries({ queryKey: ['versions', m.transcriptId] }, { cancelRefetch: false });
        else for (const key of ['transcripts', 'storage']) void client.invalidateQueries({ queryKey: [key] }, { cancelRefetch: false });
      }),
    [client],
  );
  // A file dropped where no page takes it must not replace the app (the browser would open it).
  useEffect(() => {
    const guard = (e: DragEvent) => {
      if (Array.from(e.dataTransfer?.types ?? []).includes('Files')) e.preventDefault();
    };
    window.addEventListener('dragover', guard);
    window.addEventListener('drop', guard);
    return () => {
      window.removeEventListener('dragover', guard);
      window.removeEventListener('drop', guard);
    };
  }, []);
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}
