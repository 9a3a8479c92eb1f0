'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { getBridge } from '@/lib/engine/client';
import { restoreSummarySettings, SUMMARY_SETTINGS_KEY, type SummarySettings } from '@/lib/summarize/settings';

const QUERY_KEY = ['settings', SUMMARY_SETTINGS_KEY] as const;

/**
 * The stored summary settings (IndexedDB through the worker), repaired on read, and a save that
 * refreshes every reader. The key stays in this browser: it is written to IndexedDB and sent only
 * to the configured provider.
 */
export function useSummarySettings() {
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: QUERY_KEY,
    queryFn: async ({ signal }) => restoreSummarySettings(await getBridge().getSetting(signal, SUMMARY_SETTINGS_KEY)),
    staleTime: Infinity,
  });
  const save = useMutation({
    mutationFn: (settings: SummarySettings) => getBridge().putSetting(undefined, SUMMARY_SETTINGS_KEY, settings),
    onSuccess: (_void, settings) => queryClient.setQueryData(QUERY_KEY, settings),
  });
  return { query, save };
}
