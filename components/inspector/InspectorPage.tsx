'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useSearchParams } from 'next/navigation';
import { useCallback, useEffect, useRef, useState } from 'react';
import { getBridge } from '@/lib/engine/client';
import { userMessage } from '@/lib/errors';
import { MessageList, type MessageListHandle } from '../messages/MessageList';
import { TimelineChart, TimelineLegend } from '../timeline/TimelineChart';
import { downloadBytes } from '../ui/download';
import { SidePanel } from './SidePanel';
import { TopBar } from './TopBar';

/** `sel=a-b` (1-based turns, as the user reads them) → 0-based inclusive range. */
export function parseSelection(sel: string | null, turns: number): [number, number] | null {
  const m = sel ? /^(\d+)-(\d+)$/.exec(sel) : null;
  if (!m) return null;
  const a = Math.max(1, Math.min(Number(m[1]), Number(m[2])));
  const b = Math.min(turns, Math.max(Number(m[1]), Number(m[2])));
  return a <= b ? [a - 1, b - 1] : null;
}

export function InspectorPage() {
  const params = useSearchParams();
  const id = params.get('id') ?? '';
  const list = useRef<MessageListHandle>(null);
  const [cursorTurn, setCursorTurn] = useState<number | null>(null);
  const [exportError, setExportError] = useState<string | null>(null);
  const [exporting, setExporting] = useState(false);

  const data = useQuery({
    queryKey: ['inspector', id],
    queryFn: ({ signal }) => getBridge().getInspectorData(signal, id),
    enabled: id !== '',
    retry: false,
  });
  const turns = data.data?.timeline.turns ?? [];
  const messages = useQuery({
    queryKey: ['messages', id],
    queryFn: ({ signal }) => getBridge().getMessages(signal, id, 0, Math.max(0, (data.data?.meta.turns ?? 1) - 1)),
    enabled: data.isSuccess,
    staleTime: Infinity,
  });
  const selection = parseSelection(params.get('sel'), turns.length);

  const showTurn = useCallback((turn: number) => {
    setCursorTurn(turn);
    list.current?.scrollToTurn(turn);
  }, []);

  const exportFile = useCallback(async () => {
    if (!id) return;
    setExporting(true);
    setExportError(null);
    try {
      // The original version is exported as the exact imported bytes (lossless by construction).
      const file = await getBridge().exportOriginal(undefined, id);
      downloadBytes(file.bytes, file.fileName, file.mimeType);
    } catch (e) {
      setExportError(userMessage(e));
    } finally {
      setExporting(false);
    }
  }, [id]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      if (target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.isContentEditable)) return;
      if (e.key === 'e' && !e.metaKey && !e.ctrlKey && !e.altKey) void exportFile();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [exportFile]);

  if (!id || data.isError) {
    return (
      <div className="flex h-screen flex-col">
        <TopBar onExport={() => {}} exporting={false} />
        <div className="m-auto max-w-md text-center" role="alert" data-testid="inspector-missing">
          <p className="font-semibold">{id ? 'This transcript is not in this browser.' : 'No transcript selected.'}</p>
          {data.isError && <p className="mt-1 text-sm text-neutral-500">{userMessage(data.error)}</p>}
          <Link href="/" className="mt-3 inline-block text-sm font-medium text-blue-700 underline dark:text-blue-400">
            Back to the library
          </Link>
        </div>
      </div>
    );
  }

  return (
    <div className="flex h-screen flex-col" data-testid="inspector">
      <TopBar meta={data.data?.meta} contextWindow={data.data?.timeline.contextWindow} onExport={() => void exportFile()} exporting={exporting} />
      {exportError && (
        <p role="alert" className="border-b border-red-300 bg-red-50 px-4 py-1.5 text-sm text-red-800 dark:border-red-900 dark:bg-red-950/40 dark:text-red-300">
          Export failed: {exportError}
        </p>
      )}
      <section className="shrink-0 border-b border-neutral-200 px-3 pb-2 pt-2 dark:border-neutral-800" aria-label="Timeline">
        {data.data ? (
          <>
            <div className="mb-1 flex items-center justify-between gap-4 px-1">
              <TimelineLegend timeline={data.data.timeline} />
              <span className="shrink-0 text-[11px] text-neutral-500" title="Each bar is the estimated context sent at the end of that turn, by kind">
                context per turn · click a bar to jump
              </span>
            </div>
            <TimelineChart timeline={data.data.timeline} cursorTurn={cursorTurn} selection={selection} onSelectTurn={showTurn} onCursorChange={showTurn} />
          </>
        ) : (
          <div className="h-[234px] animate-pulse rounded bg-neutral-100 dark:bg-neutral-900" aria-label="Loading the timeline" />
        )}
      </section>
      <div className="grid min-h-0 flex-1 grid-cols-[minmax(0,1fr)_18rem]">
        <div className="min-h-0">
          {messages.data && data.data ? (
            <MessageList ref={list} messages={messages.data} turns={turns} activeTurn={cursorTurn} />
          ) : messages.isError ? (
            <p role="alert" className="p-4 text-sm text-red-700">
              Could not load the messages: {userMessage(messages.error)}
            </p>
          ) : (
            <div className="space-y-3 p-4" aria-label="Loading messages">
              {[0, 1, 2].map((i) => (
                <div key={i} className="h-16 animate-pulse rounded bg-neutral-100 dark:bg-neutral-900" />
              ))}
            </div>
          )}
        </div>
        {data.data ? <SidePanel data={data.data} /> : <div className="border-l border-neutral-200 dark:border-neutral-800" />}
      </div>
    </div>
  );
}
