'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { TranscriptMeta } from '@/lib/db/schema';
import { DELETION_RENEW_MS, UNDO_WINDOW_MS } from '@/lib/undo';
import { getBridge } from '@/lib/engine/client';
import { userMessage } from '@/lib/errors';
import { AppHeader } from '../ui/AppHeader';
import { Button } from '../ui/Button';
import { Toast } from '../ui/Toast';
import { downloadBytes } from '../ui/download';
import { formatTokens } from '../ui/format';
import { CensusSection } from './CensusSection';
import { ConversationPicker } from './ConversationPicker';
import { DropZone } from './DropZone';
import { ImportErrors, ImportProgressBar } from './ImportStatus';
import { StorageMeter } from './StorageMeter';
import { TranscriptTable } from './TranscriptTable';
import { fileSource, pastedSource, urlSource, useImport, type ImportSource } from './useImport';
import { SessionsSection } from '../sessions/SessionsSection';
import { baseName, readSession } from '../sessions/api';
import { completeLength, isLineFile, setLiveLink } from '../sessions/live';
import type { SessionEntry } from '@/lib/sessions/contract';

export const SAMPLE_URL = '/sample/contextscope-demo.jsonl';

export function LibraryPage() {
  const router = useRouter();
  const queryClient = useQueryClient();
  const importer = useImport();
  const [deleted, setDeleted] = useState<TranscriptMeta | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);

  const list = useQuery({ queryKey: ['transcripts'], queryFn: ({ signal }) => getBridge().listTranscripts(signal) });
  const interrupted = useQuery({ queryKey: ['interrupted'], queryFn: ({ signal }) => getBridge().unfinishedImports(signal) });

  const refresh = useCallback(() => {
    void queryClient.invalidateQueries({ queryKey: ['transcripts'] });
    void queryClient.invalidateQueries({ queryKey: ['storage'] });
  }, [queryClient]);

  const rename = useMutation({
    mutationFn: ({ id, title }: { id: string; title: string }) => getBridge().renameTranscript(undefined, id, title),
    onSuccess: refresh,
  });

  const deletedRef = useRef(deleted);
  deletedRef.current = deleted;

  /** The undo window of these deletions closed: free their space now rather than on a later start. */
  const purge = useCallback(
    (ids: string[]) => {
      void getBridge()
        .purgeDeleted(undefined, ids)
        .then(refresh, () => {});
    },
    [refresh],
  );

  const remove = useMutation({
    mutationFn: (meta: TranscriptMeta) => getBridge().deleteTranscript(undefined, meta.id),
    onSuccess: (_, meta) => {
      // One toast at a time: the previous deletion's undo goes with its toast.
      const previous = deletedRef.current;
      if (previous && previous.id !== meta.id) purge([previous.id]);
      setDeleted(meta);
      refresh();
    },
  });

  const undo = useMutation({
    mutationFn: (meta: TranscriptMeta) => getBridge().undoDelete(undefined, meta.id),
    onSuccess: (restored, meta) => {
      setDeleted(null);
      if (!restored) setActionError(`"${meta.title}" could not be restored: it was already removed from this browser.`);
      refresh();
    },
  });

  const deletedId = deleted?.id;
  const expireUndo = useCallback(() => {
    setDeleted(null);
    if (deletedId) purge([deletedId]);
  }, [purge, deletedId]);

  // While the toast is held its countdown pauses: keep the deletion young meanwhile, so a tab
  // starting up elsewhere does not purge what this one still offers back (lib/db/repo.ts).
  const [held, setHeld] = useState(false);
  useEffect(() => {
    if (!held || !deletedId) return;
    const renew = () => void getBridge().renewDeletion(undefined, deletedId).catch(() => {});
    renew();
    const t = setInterval(renew, DELETION_RENEW_MS);
    return () => clearInterval(t);
  }, [held, deletedId]);

  const exportOriginal = async (meta: TranscriptMeta) => {
    try {
      const file = await getBridge().exportOriginal(undefined, meta.id);
      downloadBytes(file.bytes, file.fileName, file.mimeType);
    } catch (e) {
      setActionError(userMessage(e));
    }
  };

  const openSample = async () => {
    const meta = await importer.importSources([urlSource(SAMPLE_URL, 'contextscope-demo.jsonl')]);
    if (meta) router.push(`/inspect?id=${encodeURIComponent(meta.id)}`);
  };

  /**
   * Open a session listed by the local API: its bytes come through the API and are imported like
   * a dropped file. A JSONL session keeps its file and the bytes read, so the inspector can follow
   * what the agent appends (an unfinished last line is left for later).
   */
  const openSession = async (entry: SessionEntry) => {
    const name = baseName(entry.path);
    let offset = 0;
    const source: ImportSource = {
      name,
      read: async () => {
        const { bytes } = await readSession(entry.path);
        offset = isLineFile(entry.path) ? completeLength(bytes, true) : bytes.length;
        return bytes.slice(0, offset).buffer;
      },
    };
    const meta = await importer.importSources([source]);
    if (!meta) return;
    // Every opened session keeps its origin (the export dialog's resume names it); only JSONL is followed live.
    setLiveLink(meta.id, { path: entry.path, offset, name, takenAt: new Date().toISOString(), sessionId: entry.sessionId, ...(entry.cwd && { cwd: entry.cwd }) });
    router.push(`/inspect?id=${encodeURIComponent(meta.id)}`);
  };

  const rows = list.data ?? [];
  const busy = importer.progress !== null;

  // After an import, focus lands on what it made (the new row's title link), or on the error that
  // says why not: never on <body> (issue 30).
  const { importSources } = importer;
  const importAndFocus = useCallback(
    async (sources: Parameters<typeof importSources>[0]) => {
      const meta = await importSources(sources);
      // The row renders once the refetched list commits: look for it over a few frames.
      let frames = 30;
      const focus = () => {
        const target = meta
          ? document.querySelector<HTMLElement>(`[data-testid="transcript-row"][data-id="${CSS.escape(meta.id)}"] [data-testid="open-transcript"]`)
          : document.querySelector<HTMLElement>('[data-testid="import-error-dismiss"]');
        if (target) target.focus();
        else if (--frames > 0) requestAnimationFrame(focus);
      };
      requestAnimationFrame(focus);
    },
    [importSources],
  );

  // Drop anywhere on the page: a file dropped outside the dashed zone is imported too, and the
  // browser never opens it in place of the app (the zone's own drop has already been handled).
  useEffect(() => {
    const hasFiles = (e: DragEvent) => Array.from(e.dataTransfer?.types ?? []).includes('Files');
    const onOver = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      if (e.dataTransfer) e.dataTransfer.dropEffect = busy ? 'none' : 'copy';
    };
    const onDrop = (e: DragEvent) => {
      if (!hasFiles(e) || e.defaultPrevented) return;
      e.preventDefault();
      const files = Array.from(e.dataTransfer?.files ?? []);
      if (files.length && !busy) void importAndFocus(files.map(fileSource));
    };
    window.addEventListener('dragover', onOver);
    window.addEventListener('drop', onDrop);
    return () => {
      window.removeEventListener('dragover', onOver);
      window.removeEventListener('drop', onDrop);
    };
  }, [busy, importAndFocus]);

  return (
    <div className="flex min-h-full flex-col">
      <AppHeader>
        <div className="flex justify-end pr-2">
          <StorageMeter />
        </div>
      </AppHeader>
      <main className="mx-auto w-full max-w-7xl flex-1 space-y-4 px-4 py-6">
        <DropZone
          busy={busy}
          onFiles={(files) => void importAndFocus(files.map(fileSource))}
          onPaste={(text) => void importAndFocus([pastedSource(text)])}
          onSample={() => void openSample()}
        />
        <ImportProgressBar progress={importer.progress} onCancel={importer.cancel} />
        <ImportErrors failures={importer.failures} onDismiss={importer.dismissFailure} />
        {actionError && (
          <p role="alert" className="rounded-lg border border-red-300 bg-red-50 px-4 py-2 text-sm text-red-800 dark:border-red-900 dark:bg-red-950/40 dark:text-red-300">
            {actionError}{' '}
            <button type="button" className="underline" onClick={() => setActionError(null)}>
              Dismiss
            </button>
          </p>
        )}
        <SessionsSection onOpen={(e) => void openSession(e)} busy={busy} />
        {(interrupted.data ?? []).map((r) => (
          <p key={r.id} className="flex items-center gap-3 rounded-lg border border-amber-300 bg-amber-50 px-4 py-2 text-sm dark:border-amber-900 dark:bg-amber-950/30" data-testid="import-interrupted">
            <span className="flex-1">
              The import of <span className="font-mono">{r.fileName}</span> was interrupted (the tab closed or was cancelled); nothing of it was kept. Drop the file again to retry.
            </span>
            <Button
              variant="ghost"
              onClick={() => void getBridge().dismissImport(undefined, r.id).then(() => queryClient.invalidateQueries({ queryKey: ['interrupted'] }))}
            >
              Dismiss
            </Button>
          </p>
        ))}
        {importer.lastImported && !busy && (
          <p
            className={`flex items-center gap-3 rounded-lg border px-4 py-2 text-sm ${importer.lastImported.dataLoss ? 'border-amber-400 bg-amber-50 text-amber-950 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-100' : 'border-emerald-300 bg-emerald-50 dark:border-emerald-900 dark:bg-emerald-950/30'}`}
            data-testid="import-done"
            data-loss={importer.lastImported.dataLoss ? 'true' : undefined}
            role="status"
          >
            {importer.lastImported.dataLoss ? (
              // A file that lost data on import says so here, not behind a grey warnings count.
              <span className="flex-1" data-testid="import-data-loss">
                <span aria-hidden="true">⚠ </span>
                Imported <strong>{importer.lastImported.title}</strong> incompletely — {importer.lastImported.dataLoss.first}
                {importer.lastImported.dataLoss.count > 1 && ` (and ${importer.lastImported.dataLoss.count - 1} more part${importer.lastImported.dataLoss.count === 2 ? '' : 's'} not read)`}. {formatTokens(importer.lastImported.turns)} turns, {formatTokens(importer.lastImported.tokens.total)} tokens were read.
              </span>
            ) : (
              <span className="flex-1">
                Imported <strong>{importer.lastImported.title}</strong> — {formatTokens(importer.lastImported.turns)} turns, {formatTokens(importer.lastImported.tokens.total)} tokens.
              </span>
            )}
            <Link className="font-medium text-blue-700 underline dark:text-blue-400" href={`/inspect?id=${encodeURIComponent(importer.lastImported.id)}`}>
              Open in the inspector →
            </Link>
            <Button variant="ghost" onClick={importer.dismissLastImported} aria-label="Dismiss">
              ✕
            </Button>
          </p>
        )}

        <section aria-labelledby="library-title" className="space-y-2 pt-2">
          <div className="flex items-baseline justify-between">
            <h1 id="library-title" className="text-base font-semibold">
              Your transcripts {rows.length > 0 && <span className="font-normal text-neutral-500">({rows.length})</span>}
            </h1>
          </div>
          {list.isPending ? (
            <div className="h-24 animate-pulse rounded-lg bg-neutral-100 dark:bg-neutral-900" aria-label="Loading the library" />
          ) : list.isError ? (
            <p role="alert" className="text-sm text-red-700">
              Could not read the library: {userMessage(list.error)}
            </p>
          ) : rows.length === 0 ? (
            <div className="rounded-lg border border-neutral-200 px-6 py-8 text-sm dark:border-neutral-800" data-testid="library-empty">
              <p className="text-center text-neutral-500">
                No transcripts yet. Drop one above, or{' '}
                <button type="button" className="font-medium text-blue-700 underline dark:text-blue-400" onClick={() => void openSample()}>
                  open the sample
                </button>{' '}
                to see a Claude Code session fixing a bug.
              </p>
              <ul className="mx-auto mt-6 grid max-w-4xl gap-4 text-neutral-600 sm:grid-cols-3 dark:text-neutral-400">
                <li>
                  <p className="font-medium text-neutral-900 dark:text-neutral-100">See where the context goes</p>
                  <p className="mt-1 text-xs leading-relaxed">Every turn as a stacked bar: prompts, reasoning, tool calls and results against the model&apos;s window and the usage it recorded.</p>
                </li>
                <li>
                  <p className="font-medium text-neutral-900 dark:text-neutral-100">Compact without losing the log</p>
                  <p className="mt-1 text-xs leading-relaxed">Strategies are steps on a version; the imported transcript is never edited, so every change can be undone or compared.</p>
                </li>
                <li>
                  <p className="font-medium text-neutral-900 dark:text-neutral-100">Export in the same format</p>
                  <p className="mt-1 text-xs leading-relaxed">The original comes back byte for byte; a compacted version is written the way its tool writes, ready to resume.</p>
                </li>
              </ul>
            </div>
          ) : (
            <TranscriptTable
              rows={rows}
              highlightId={importer.lastImported?.id}
              onRename={(id, title) => rename.mutate({ id, title })}
              onDelete={(m) => remove.mutate(m)}
              onExport={(m) => void exportOriginal(m)}
            />
          )}
        </section>
        <CensusSection transcripts={rows.length} />
      </main>
      <ConversationPicker
        picker={importer.picker}
        onChoose={(i) => void importer.chooseConversation(i)}
        onImportAll={() => void importer.importAllConversations()}
        onClose={importer.closePicker}
      />
      {deleted && (
        <Toast key={deleted.id} onExpire={expireUndo} onHold={setHeld} ms={UNDO_WINDOW_MS} testId="undo-toast">
          <span>
            Deleted <strong>{deleted.title}</strong>
          </span>
          <button type="button" data-testid="undo-delete" className="font-semibold text-blue-300 underline dark:text-blue-700" onClick={() => undo.mutate(deleted)}>
            Undo
          </button>
        </Toast>
      )}
    </div>
  );
}
