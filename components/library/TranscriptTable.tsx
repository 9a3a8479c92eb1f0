'use client';

import Link from 'next/link';
import { useMemo, useState } from 'react';
import type { TranscriptMeta } from '@/lib/db/schema';
import { Button } from '../ui/Button';
import { FormatBadge } from '../ui/FormatBadge';
import { formatBytes, formatShortDate, formatTokens } from '../ui/format';
import { LOG_DEFINITION } from '../ui/context-label';

type SortKey = 'title' | 'format' | 'model' | 'turns' | 'tokens' | 'size' | 'importedAt';

/**
 * `wide`: columns shown only from 1280 px (model, size): below that the row's actions would be
 * pushed behind the table's horizontal scroll.
 */
const COLUMNS: Array<{ key: SortKey; label: string; numeric?: boolean; wide?: boolean }> = [
  { key: 'title', label: 'Title' },
  { key: 'format', label: 'Format' },
  { key: 'model', label: 'Model', wide: true },
  { key: 'turns', label: 'Turns', numeric: true },
  { key: 'tokens', label: 'In the log', numeric: true },
  { key: 'size', label: 'Size', numeric: true, wide: true },
  { key: 'importedAt', label: 'Imported' },
];
const WIDE = 'hidden xl:table-cell';

function sortValue(m: TranscriptMeta, key: SortKey): string | number {
  switch (key) {
    case 'tokens':
      return m.tokens.total;
    case 'model':
      return m.model ?? '';
    case 'format':
      return m.formatLabel;
    default:
      return m[key];
  }
}

export function TranscriptTable({
  rows,
  highlightId,
  onRename,
  onDelete,
  onExport,
}: {
  rows: TranscriptMeta[];
  highlightId?: string;
  onRename: (id: string, title: string) => void;
  onDelete: (meta: TranscriptMeta) => void;
  onExport: (meta: TranscriptMeta) => void;
}) {
  const [sort, setSort] = useState<{ key: SortKey; dir: 1 | -1 }>({ key: 'importedAt', dir: -1 });
  const [editing, setEditing] = useState<string | null>(null);
  const sorted = useMemo(() => {
    const out = [...rows];
    out.sort((a, b) => {
      const x = sortValue(a, sort.key);
      const y = sortValue(b, sort.key);
      const c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
      return c * sort.dir;
    });
    return out;
  }, [rows, sort]);

  return (
    <div className="overflow-x-auto rounded-lg border border-neutral-200 dark:border-neutral-800">
      <table className="w-full text-sm" data-testid="transcript-table">
        <thead className="bg-neutral-50 text-left text-xs uppercase tracking-wide text-neutral-500 dark:bg-neutral-900 dark:text-neutral-400">
          <tr>
            {COLUMNS.map((c) => (
              <th
                key={c.key}
                scope="col"
                aria-sort={sort.key === c.key ? (sort.dir === 1 ? 'ascending' : 'descending') : 'none'}
                className={`px-3 py-2 font-medium ${c.numeric ? 'text-right' : ''} ${c.wide ? WIDE : ''}`}
              >
                <button
                  type="button"
                  data-testid={`sort-${c.key}`}
                  title={c.key === 'tokens' ? LOG_DEFINITION : undefined}
                  className="inline-flex items-center gap-1 uppercase hover:text-neutral-900 dark:hover:text-neutral-100"
                  onClick={() => setSort((s) => ({ key: c.key, dir: s.key === c.key ? ((-s.dir) as 1 | -1) : c.numeric || c.key === 'importedAt' ? -1 : 1 }))}
                >
                  {c.label}
                  <span aria-hidden="true" className="w-2 text-[10px]">
                    {sort.key === c.key ? (sort.dir === 1 ? '▲' : '▼') : ''}
                  </span>
                </button>
              </th>
            ))}
            <th scope="col" className="px-3 py-2 text-right font-medium">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-neutral-200 dark:divide-neutral-800">
          {sorted.map((m) => (
            <tr
              key={m.id}
              data-testid="transcript-row"
              data-id={m.id}
              data-turns={m.turns}
              data-tokens={m.tokens.total}
              className={`align-middle ${m.id === highlightId ? 'bg-blue-50/70 dark:bg-blue-950/30' : 'hover:bg-neutral-50 dark:hover:bg-neutral-900/60'}`}
            >
              <td className="px-3 py-2">
                {editing === m.id ? (
                  <form
                    onSubmit={(e) => {
                      e.preventDefault();
                      const title = new FormData(e.currentTarget).get('title');
                      if (typeof title === 'string') onRename(m.id, title);
                      setEditing(null);
                    }}
                  >
                    <input
                      name="title"
                      defaultValue={m.title}
                      autoFocus
                      aria-label="New title"
                      data-testid="rename-input"
                      onBlur={(e) => e.currentTarget.form?.requestSubmit()}
                      onKeyDown={(e) => e.key === 'Escape' && setEditing(null)}
                      className="w-full rounded border border-blue-500 bg-white px-1.5 py-0.5 dark:bg-neutral-950"
                    />
                  </form>
                ) : (
                  <div className="w-[16rem] min-w-0">
                    <Link href={`/inspect?id=${encodeURIComponent(m.id)}`} className="block truncate font-medium text-blue-700 hover:underline dark:text-blue-400" data-testid="open-transcript" title={m.title}>
                      {m.title}
                    </Link>
                    <div className="truncate font-mono text-[11px] text-neutral-500" title={m.fileName}>
                      {m.fileName}
                      {m.conversation !== undefined && ` · conversation ${m.conversation}`}
                      {m.warnings > 0 && ` · ${m.warnings} warning${m.warnings === 1 ? '' : 's'}`}
                    </div>
                    {m.dataLoss && (
                      <div className="truncate text-[11px] font-medium text-amber-700 dark:text-amber-400" data-testid="row-data-loss" title={m.dataLoss.first}>
                        ⚠ incomplete: {m.dataLoss.first}
                      </div>
                    )}
                  </div>
                )}
              </td>
              <td className="px-3 py-2" title={m.formatLabel}>
                <span className="block max-w-[10rem]">
                  <FormatBadge format={m.format} label={m.formatLabel} />
                </span>
              </td>
              <td className={`px-3 py-2 font-mono text-xs ${WIDE}`} title={m.model}>
                <span className="block max-w-[11rem] truncate">{m.model ?? <span className="text-neutral-400">—</span>}</span>
              </td>
              <td className="px-3 py-2 text-right tabular-nums" data-testid="row-turns">
                {formatTokens(m.turns)}
              </td>
              <td className="px-3 py-2 text-right tabular-nums">{formatTokens(m.tokens.total)}</td>
              <td className={`whitespace-nowrap px-3 py-2 text-right tabular-nums ${WIDE}`}>{formatBytes(m.size)}</td>
              <td className="whitespace-nowrap px-3 py-2 text-neutral-600 dark:text-neutral-400" title={m.importedAt}>{formatShortDate(m.importedAt)}</td>
              <td className="whitespace-nowrap px-2 py-1 text-right [&_button]:px-1.5 [&_button]:py-1 [&_button]:text-xs">
                <Button variant="ghost" onClick={() => setEditing(m.id)} data-testid="rename" aria-label={`Rename ${m.title}`}>
                  Rename
                </Button>
                <Button variant="ghost" onClick={() => onExport(m)} data-testid="export-original" aria-label={`Export the original file of ${m.title}`}>
                  Export
                </Button>
                <Button variant="danger" onClick={() => onDelete(m)} data-testid="delete" aria-label={`Delete ${m.title}`}>
                  Delete
                </Button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
