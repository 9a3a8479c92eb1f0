'use client';

import Link from 'next/link';
import type { TranscriptMeta } from '@/lib/db/schema';
import { Button } from '../ui/Button';
import { FormatBadge } from '../ui/FormatBadge';
import { ThemeToggle } from '../ui/ThemeToggle';
import { formatTokens } from '../ui/format';

export function TopBar({ meta, contextWindow, onExport, exporting }: { meta?: TranscriptMeta; contextWindow?: number; onExport: () => void; exporting: boolean }) {
  return (
    <header className="flex h-12 shrink-0 items-center gap-3 border-b border-neutral-200 px-3 dark:border-neutral-800">
      <Link href="/" className="rounded px-2 py-1 text-sm text-neutral-600 hover:bg-neutral-100 dark:text-neutral-300 dark:hover:bg-neutral-800" data-testid="back-to-library">
        ← Library
      </Link>
      <div className="h-5 w-px bg-neutral-200 dark:bg-neutral-800" />
      {meta ? (
        <>
          <h1 className="min-w-0 truncate font-semibold" title={meta.title} data-testid="inspector-title">
            {meta.title}
          </h1>
          <span className="shrink-0 text-xs">
            <FormatBadge format={meta.format} label={meta.formatLabel} />
          </span>
          {meta.model && (
            <span className="shrink-0 truncate font-mono text-xs text-neutral-600 dark:text-neutral-400" title="Model recorded in the transcript">
              {meta.model}
              {contextWindow !== undefined && <span className="text-neutral-400"> · window {formatTokens(contextWindow)}</span>}
            </span>
          )}
        </>
      ) : (
        <span className="h-4 w-64 animate-pulse rounded bg-neutral-200 dark:bg-neutral-800" />
      )}
      <div className="flex-1" />
      <Button onClick={onExport} disabled={!meta || exporting} data-testid="export" title="Download the transcript in its own format (e)">
        {exporting ? 'Exporting…' : 'Export'}
      </Button>
      <Link href="/settings" className="rounded px-2 py-1 text-sm text-neutral-600 hover:bg-neutral-100 dark:text-neutral-300 dark:hover:bg-neutral-800">
        Settings
      </Link>
      <ThemeToggle />
    </header>
  );
}
