'use client';

/**
 * The message list's rows, a window at a time: the worker holds every row (Engine.getRows) and the
 * page asks for the chunks the list is about to show. At 100k turns this keeps ~300k rows (and
 * their messages) out of the main thread, where decoding them was a 0.5 s task on open.
 */
import { useCallback, useRef, useState } from 'react';
import { getBridge } from '@/lib/engine/client';
import type { Row } from '@/lib/engine/rows';

/** Rows per request: a screenful or two, so a jump costs one or two round trips. */
export const ROW_CHUNK = 64;

type Chunk = Row[] | 'loading' | Error;

export interface RowWindow {
  /** The row, once its chunk has come. */
  row(i: number): Row | undefined;
  /** Why the row's chunk could not be loaded. */
  error(i: number): Error | undefined;
  /** Ask for rows [from, to): the chunks neither loaded nor on their way. */
  want(from: number, to: number): void;
}

export function useRowWindow(id: string, count: number): RowWindow {
  const [, setArrivals] = useState(0);
  const store = useRef<{ id: string; count: number; chunks: Map<number, Chunk> }>({ id, count, chunks: new Map() });
  if (store.current.id !== id || store.current.count !== count) store.current = { id, count, chunks: new Map() };
  const current = store.current;

  const want = useCallback(
    (from: number, to: number) => {
      const s = current;
      const end = Math.min(to, s.count);
      for (let c = Math.floor(Math.max(0, from) / ROW_CHUNK); c * ROW_CHUNK < end; c++) {
        const chunk = s.chunks.get(c);
        if (chunk !== undefined && !(chunk instanceof Error)) continue;
        s.chunks.set(c, 'loading');
        const done = (value: Chunk) => {
          s.chunks.set(c, value);
          // A chunk of a transcript the list no longer shows is dropped with its store.
          if (store.current === s) setArrivals((n) => n + 1);
        };
        getBridge()
          .getRows(undefined, s.id, c * ROW_CHUNK, Math.min(s.count, (c + 1) * ROW_CHUNK))
          .then(done, (e: unknown) => done(e instanceof Error ? e : new Error(String(e))));
      }
    },
    [current],
  );

  return {
    row(i) {
      const chunk = current.chunks.get(Math.floor(i / ROW_CHUNK));
      return Array.isArray(chunk) ? chunk[i % ROW_CHUNK] : undefined;
    },
    error(i) {
      const chunk = current.chunks.get(Math.floor(i / ROW_CHUNK));
      return chunk instanceof Error ? chunk : undefined;
    },
    want,
  };
}
