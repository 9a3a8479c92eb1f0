'use client';

import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useRef, useState } from 'react';
import type { ConversationInfo } from '@/lib/formats/types';
import type { EngineImportOptions, ImportProgress } from '@/lib/engine/api';
import { getBridge } from '@/lib/engine/client';
import type { TranscriptMeta } from '@/lib/db/schema';
import { isAbortError, serializeError, type SerializedError } from '@/lib/errors';

/**
 * Something to import: a name and a way to (re-)read its bytes (a File, pasted text, the sample). A
 * File or a fetched Blob is handed to the engine worker as it is and read there, never on the page.
 */
export interface ImportSource {
  name: string;
  read: () => Promise<ArrayBuffer | Blob>;
}

export interface ImportInProgress {
  name: string;
  stage: ImportProgress['stage'];
  fraction?: number;
  /** "3 / 200" when importing every conversation of a container. */
  batch?: { done: number; total: number };
}

export interface ImportFailure {
  key: string;
  fileName: string;
  error: SerializedError;
}

export interface PickerState {
  source: ImportSource;
  formatLabel: string;
  conversations: ConversationInfo[];
}

export function fileSource(file: File): ImportSource {
  return { name: file.name, read: async () => file };
}

/** Pasted text gets a name whose extension matches its shape, so detection and export agree. */
export function pastedSource(text: string): ImportSource {
  const lines = text.trim().split(/\r?\n/).filter((l) => l.trim() !== '');
  let jsonl = false;
  if (lines.length > 1) {
    try {
      const first = JSON.parse(lines[0]);
      jsonl = typeof first === 'object' && first !== null && !Array.isArray(first) && lines[1].trimStart().startsWith('{');
    } catch {
      jsonl = false;
    }
  }
  const bytes = new TextEncoder().encode(text);
  return { name: jsonl ? 'pasted.jsonl' : 'pasted.json', read: async () => bytes.slice().buffer };
}

export function urlSource(url: string, name: string): ImportSource {
  return {
    name,
    read: async () => {
      const res = await fetch(url);
      if (!res.ok) throw new Error(`Could not load ${name} (${res.status}).`);
      return res.blob();
    },
  };
}

/** The library's import state machine: progress, cancellation, errors that stay, the container picker. */
export function useImport() {
  const queryClient = useQueryClient();
  const [progress, setProgress] = useState<ImportInProgress | null>(null);
  const [failures, setFailures] = useState<ImportFailure[]>([]);
  const [picker, setPicker] = useState<PickerState | null>(null);
  const [lastImported, setLastImported] = useState<TranscriptMeta | null>(null);
  const controller = useRef<AbortController | null>(null);

  const fail = useCallback((fileName: string, error: SerializedError) => {
    setFailures((f) => [...f, { key: `${fileName}-${Date.now()}-${f.length}`, fileName, error }]);
  }, []);

  /** Import one source; returns the stored meta, or null (cancelled, failed, or the picker opened). */
  const run = useCallback(
    async (source: ImportSource, options: EngineImportOptions = {}): Promise<TranscriptMeta | null> => {
      const ctrl = controller.current && !controller.current.signal.aborted ? controller.current : new AbortController();
      controller.current = ctrl;
      setProgress({ name: source.name, stage: 'reading' });
      try {
        const bytes = await source.read();
        if (ctrl.signal.aborted) return null;
        let finished = false;
        const outcome = await getBridge()
          .importFile(ctrl.signal, bytes, source.name, options, (p) => {
            // Progress messages are fire-and-forget and can arrive after the result: ignore late ones.
            if (!finished) setProgress({ name: source.name, stage: p.stage, fraction: p.fraction });
          })
          .finally(() => (finished = true));
        if (outcome.kind === 'choose') {
          setPicker({ source, formatLabel: outcome.formatLabel, conversations: outcome.conversations });
          return null;
        }
        if (outcome.kind === 'error') {
          fail(source.name, outcome.error);
          return null;
        }
        setLastImported(outcome.meta);
        await queryClient.invalidateQueries({ queryKey: ['transcripts'] });
        void queryClient.invalidateQueries({ queryKey: ['storage'] });
        return outcome.meta;
      } catch (e) {
        if (!isAbortError(e)) fail(source.name, serializeError(e));
        return null;
      } finally {
        setProgress(null);
      }
    },
    [fail, queryClient],
  );

  const importSources = useCallback(
    async (sources: ImportSource[]): Promise<TranscriptMeta | null> => {
      controller.current = new AbortController();
      let last: TranscriptMeta | null = null;
      for (const s of sources) {
        if (controller.current.signal.aborted) break;
        last = (await run(s)) ?? last;
      }
      return last;
    },
    [run],
  );

  const chooseConversation = useCallback(
    async (index: number): Promise<TranscriptMeta | null> => {
      if (!picker) return null;
      const { source } = picker;
      setPicker(null);
      controller.current = new AbortController();
      return run(source, { conversation: index });
    },
    [picker, run],
  );

  const importAllConversations = useCallback(async (): Promise<void> => {
    if (!picker) return;
    const { source, conversations } = picker;
    setPicker(null);
    const ctrl = new AbortController();
    controller.current = ctrl;
    const total = conversations.length;
    setProgress({ name: source.name, stage: 'reading', batch: { done: 0, total } });
    let finished = false;
    try {
      const bytes = await source.read();
      if (ctrl.signal.aborted) return;
      // One transfer and one parse of the file for all of them (the engine loops in the worker).
      const out = await getBridge()
        .importConversations(
          ctrl.signal,
          bytes,
          source.name,
          conversations.map((c) => c.index),
          {},
          (p) => {
            if (!finished) setProgress({ name: source.name, stage: p.stage, fraction: p.fraction, batch: p.batch ?? { done: 0, total } });
          },
        )
        .finally(() => (finished = true));
      for (const e of out.errors) fail(`${source.name} (conversation ${e.conversation})`, e.error);
      if (out.imported.length) setLastImported(out.imported[out.imported.length - 1]);
      await queryClient.invalidateQueries({ queryKey: ['transcripts'] });
      void queryClient.invalidateQueries({ queryKey: ['storage'] });
    } catch (e) {
      if (!isAbortError(e)) fail(source.name, serializeError(e));
    } finally {
      setProgress(null);
    }
  }, [picker, fail, queryClient]);

  const cancel = useCallback(() => {
    controller.current?.abort();
    setProgress(null);
  }, []);

  return {
    progress,
    failures,
    picker,
    lastImported,
    importSources,
    chooseConversation,
    importAllConversations,
    closePicker: () => setPicker(null),
    dismissFailure: (key: string) => setFailures((f) => f.filter((x) => x.key !== key)),
    dismissLastImported: () => setLastImported(null),
    cancel,
  };
}
