'use client';

import { useRouter, useSearchParams } from 'next/navigation';
import { useEffect, useMemo, useRef, useState } from 'react';
import { getBridge } from '@/lib/engine/client';
import { isAbortError, userMessage } from '@/lib/errors';
import { apiToken, readSession } from './api';
import { completeLength, isLineFile, LIVE_POLL_MS, liveLinkOf, setLiveLink, type LiveLink } from './live';

export type LiveStatus = 'off' | 'following' | 'paused' | 'stopped';

export interface LiveState {
  status: LiveStatus;
  link: LiveLink | null;
  /** Complete records on disk that are not in this snapshot (while paused). */
  waiting: number;
  /** When the file was last asked for appended bytes (ms since epoch). */
  checkedAt: number | null;
  /** Why following stopped, or what the last check failed with (it goes on trying). */
  message: string | null;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

function countLines(bytes: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 0x0a) n++;
  return n;
}

/** A superseded snapshot that holds no step of the user's is dropped, so the library keeps one row per followed session. */
async function dropSnapshot(id: string): Promise<void> {
  const bridge = getBridge();
  const versions = await bridge.listVersions(undefined, id);
  if (versions.some((v) => v.steps.length > 0)) return;
  await bridge.deleteTranscript(undefined, id);
  await bridge.purgeDeleted(undefined, [id]);
}

/**
 * Follow a session opened from the local API while its agent writes it: every LIVE_POLL_MS ask
 * for the bytes after the ones in this snapshot; when they hold complete lines, import the next
 * snapshot (this one's original + those lines, in the worker) and move the page to it. An
 * unfinished last line waits for its newline. While `paused` (a preview, a selection or a
 * compacted version is on screen: they work on this snapshot) the appended bytes are only
 * collected and counted.
 */
export function useLiveSession(id: string, paused: boolean): LiveState {
  const router = useRouter();
  const params = useSearchParams();
  const link = useMemo(() => liveLinkOf(id), [id]);
  // Only a file written a line at a time can be followed by its appended bytes (a Gemini CLI .json is rewritten whole).
  const enabled = link !== null && isLineFile(link.path) && apiToken() !== null;
  const [state, setState] = useState<LiveState>({ status: enabled ? 'following' : 'off', link, waiting: 0, checkedAt: null, message: null });
  const pausedRef = useRef(paused);
  pausedRef.current = paused;
  const paramsRef = useRef(params);
  paramsRef.current = params;

  useEffect(() => {
    if (!enabled || !link) {
      setState({ status: 'off', link: null, waiting: 0, checkedAt: null, message: null });
      return;
    }
    let pending: Uint8Array = new Uint8Array(0);
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ctrl = new AbortController();
    const stop = (message: string) => setState({ status: 'stopped', link, waiting: 0, checkedAt: Date.now(), message });
    const tick = async () => {
      if (stopped) return;
      let message: string | null = null;
      try {
        const { bytes, size } = await readSession(link.path, link.offset + pending.length, ctrl.signal);
        if (stopped) return;
        if (size < link.offset) {
          stop('The file is now shorter than this snapshot: it was rewritten or truncated. Open it again from the library.');
          return;
        }
        if (bytes.length > 0) pending = concat(pending, bytes);
        const complete = completeLength(pending);
        if (complete > 0 && !pausedRef.current) {
          const chunk = pending.slice(0, complete);
          const out = await getBridge().importAppended(undefined, id, chunk.buffer, link.name);
          if (stopped) return;
          if (out.kind === 'error') {
            stop(`The appended records could not be read: ${out.error.message}`);
            return;
          }
          if (out.kind === 'imported' && out.meta.id !== id) {
            setLiveLink(out.meta.id, { ...link, offset: link.offset + complete, takenAt: new Date().toISOString() });
            const next = new URLSearchParams(paramsRef.current.toString());
            next.set('id', out.meta.id);
            next.delete('v');
            router.replace(`/inspect?${next.toString()}`, { scroll: false });
            // Later: queries of this page may still be reading the old snapshot.
            setTimeout(() => void dropSnapshot(id).catch(() => {}), 3_000);
            return;
          }
        }
        setState({ status: pausedRef.current ? 'paused' : 'following', link, waiting: countLines(pending.subarray(0, complete)), checkedAt: Date.now(), message: null });
      } catch (e) {
        if (stopped || isAbortError(e)) return;
        message = `The local server did not answer (${userMessage(e)}); trying again.`;
        setState((s) => ({ ...s, message, checkedAt: Date.now() }));
      }
      timer = setTimeout(() => void tick(), LIVE_POLL_MS);
    };
    void tick();
    return () => {
      stopped = true;
      ctrl.abort();
      if (timer) clearTimeout(timer);
    };
  }, [id, enabled, link, router]);

  // Pausing and resuming show at once, not at the next check.
  useEffect(() => {
    setState((s) => (s.status === 'following' && paused ? { ...s, status: 'paused' } : s.status === 'paused' && !paused ? { ...s, status: 'following' } : s));
  }, [paused]);

  return state;
}
