'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { getBridge } from '@/lib/engine/client';
import { pinKey, type Pin } from '@/lib/compaction/pins';
import type { PinControl } from '../messages/context';

/**
 * A transcript's pins (issue 26 §4), stored with it in the engine's database: read once, and saved
 * whole on every change. A change refreshes what pins decide: the ledger, the previews (every
 * version's projection honours them) and a comparison of versions.
 */
export function usePins(id: string) {
  const qc = useQueryClient();
  const query = useQuery({ queryKey: ['pins', id], queryFn: ({ signal }) => getBridge().getPins(signal, id), enabled: id !== '', staleTime: Infinity });
  const save = useMutation({
    mutationFn: (next: Pin[]) => getBridge().setPins(undefined, id, next),
    onSuccess: (r) => {
      if (!r.ok) return;
      for (const key of ['pins', 'ledger', 'preview', 'compare']) void qc.invalidateQueries({ queryKey: [key, id] });
    },
  });
  const pins = query.data;
  const { mutate, isPending } = save;
  const control = useMemo<PinControl | null>(() => {
    if (!pins) return null;
    const pinned = new Set(pins.map(pinKey));
    return {
      pinned,
      busy: isPending,
      toggle: (pin) => {
        const key = pinKey(pin);
        mutate(pinned.has(key) ? pins.filter((p) => pinKey(p) !== key) : [...pins, pin]);
      },
    };
  }, [pins, mutate, isPending]);
  return { pins: pins ?? [], control, save };
}
