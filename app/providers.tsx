'use client';

import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useEffect, useState, type ReactNode } from 'react';
import { getBridge } from '@/lib/engine/client';
import { listenLibrary } from '@/lib/engine/channel';
import { isAbortError } from '@/lib/errors';

declare global {
  interface Window {
    /** Test hook (STYLE.md §15): only in builds made with NEXT_PUBLIC_E2E=1. */
    __contextscope?: { bridge: ReturnType<typeof getBridge> };
  }
}

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
  useEffect(() => listenLibrary((m) => void client.invalidateQueries({ queryKey: ['versions', m.transcriptId] }, { cancelRefetch: false })), [client]);
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}
