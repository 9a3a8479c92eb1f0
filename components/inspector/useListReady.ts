'use client';

import { skipToken, useQuery } from '@tanstack/react-query';

/**
 * Whether the message list's layout (InspectorPage's row-index query) has come back, or failed.
 * Side figures that make the engine re-read the whole transcript (tool statistics, the peers'
 * trigger points) wait for it: they share the engine worker with the list, and at 100k turns
 * their re-parse of the original held the first messages back by three seconds.
 */
export function useListReady(id: string): boolean {
  return useQuery({ queryKey: ['row-index', id], queryFn: skipToken }).status !== 'pending';
}
