'use client';

import Link from 'next/link';
import { useSearchParams } from 'next/navigation';
import type { ReactNode } from 'react';
import type { Version } from '@/lib/compaction/types';
import type { TranscriptMeta } from '@/lib/db/schema';
import { MODEL_CATALOG, type ModelInfo } from '@/lib/tokens/catalog';
import { Button } from '../ui/Button';
import { FormatBadge } from '../ui/FormatBadge';
import { ThemeToggle } from '../ui/ThemeToggle';
import { WorkerActivity } from './WorkerActivity';
import { formatCompact } from '../ui/format';

const select = 'rounded-md border border-neutral-300 bg-white px-1.5 py-1 text-xs dark:border-neutral-700 dark:bg-neutral-900';

/**
 * ← library · title · format · model ▾ (window / max output) · version ▾ · search · Export · ? · theme.
 * The model changes the window and budget lines; the version is what the timeline and export show.
 */
export function TopBar({
  meta,
  model,
  onModel,
  versions = [],
  versionId,
  onVersion,
  onExport,
  onHelp,
  search,
}: {
  meta?: TranscriptMeta;
  model?: ModelInfo;
  onModel?: (id: string) => void;
  versions?: Version[];
  versionId?: string;
  onVersion?: (id: string) => void;
  onExport: () => void;
  onHelp?: () => void;
  search?: ReactNode;
}) {
  // The Replay page prices as the inspector's overlay does: the session's own model routing unless the
  // user picked a model here (m= in the URL). The model shown by default is a guess: not passed on (issue 30).
  const chosenModel = useSearchParams().get('m') ?? '';
  return (
    <header className="flex h-12 shrink-0 items-center gap-2.5 border-b border-neutral-200 px-3 dark:border-neutral-800">
      <Link href="/" className="shrink-0 whitespace-nowrap rounded px-2 py-1 text-sm text-neutral-600 hover:bg-neutral-100 dark:text-neutral-300 dark:hover:bg-neutral-800" data-testid="back-to-library">
        ← Library
      </Link>
      <div className="h-5 w-px bg-neutral-200 dark:bg-neutral-800" />
      {meta ? (
        <>
          <h1 className="min-w-[5rem] max-w-[20rem] truncate text-sm font-semibold" title={meta.title} data-testid="inspector-title">
            {meta.title}
          </h1>
          <span className="shrink-0 text-xs">
            <FormatBadge format={meta.format} label={meta.formatLabel} labelClassName="hidden 2xl:inline" />
          </span>
          {onModel && (
            <label className="flex shrink-0 items-center gap-1 text-xs text-neutral-500" title={meta.model ? `The transcript says ${meta.model}` : 'The transcript names no model'}>
              <span className="sr-only">Model</span>
              <select className={`${select} max-w-[9.5rem]`} value={model?.id ?? ''} onChange={(e) => onModel(e.target.value)} aria-label="Model" data-testid="model-select">
                {!model && <option value="">unknown model</option>}
                {MODEL_CATALOG.map((m) => (
                  <option key={m.id} value={m.id}>
                    {m.label}
                  </option>
                ))}
              </select>
              {model && (
                <span className="hidden tabular-nums xl:inline" data-testid="model-limits">
                  {formatCompact(model.contextWindow)} / {formatCompact(model.maxOutput)}
                </span>
              )}
            </label>
          )}
          {onVersion && versions.length > 0 && (
            <select className={`${select} max-w-[10rem]`} value={versionId} onChange={(e) => onVersion(e.target.value)} aria-label="Version" data-testid="version-select">
              {versions.map((v) => (
                <option key={v.id} value={v.id}>
                  {v.name}
                  {v.steps.length ? ` (${v.steps.length})` : ''}
                </option>
              ))}
            </select>
          )}
        </>
      ) : (
        <span className="h-4 w-64 animate-pulse rounded bg-neutral-200 dark:bg-neutral-800" />
      )}
      <div className="flex-1" />
      {meta && <WorkerActivity />}
      {search}
      <Button onClick={onExport} disabled={!meta} data-testid="export" title="Export a version in its own or another format (e)">
        Export
      </Button>
      {onHelp && (
        <button type="button" onClick={onHelp} aria-label="Keyboard shortcuts" title="Keyboard shortcuts (?)" className="rounded px-2 py-1 text-sm text-neutral-600 hover:bg-neutral-100 dark:text-neutral-300 dark:hover:bg-neutral-800" data-testid="help">
          ?
        </button>
      )}
      {meta && (
        <Link
          href={`/replay?id=${encodeURIComponent(meta.id)}${chosenModel ? `&m=${encodeURIComponent(chosenModel)}` : ''}`}
          className="rounded px-2 py-1 text-sm text-neutral-600 hover:bg-neutral-100 dark:text-neutral-300 dark:hover:bg-neutral-800"
          title="Replay every compaction policy on this session, call by call: cost with caching, peak context, what each forgot"
          data-testid="open-replay"
        >
          Replay
        </Link>
      )}
      <Link href="/settings" aria-label="Settings" title="Settings" className="rounded px-2 py-1 text-sm text-neutral-600 hover:bg-neutral-100 dark:text-neutral-300 dark:hover:bg-neutral-800">
        <span className="hidden 2xl:inline">Settings</span>
        <span className="2xl:hidden" aria-hidden="true">
          ⚙
        </span>
      </Link>
      <ThemeToggle />
    </header>
  );
}
