'use client';

import { useState } from 'react';
import type { Version } from '@/lib/compaction/types';
import { getBridge } from '@/lib/engine/client';
import { ORIGINAL_VERSION } from '@/lib/engine/versions';
import { userMessage } from '@/lib/errors';
import { Button } from '../ui/Button';
import { formatTokens } from '../ui/format';
import { formatDelta, formatUsd } from '../plan/numbers';
import type { Workbench } from '../inspector/useWorkbench';
import { reducerLabel } from '../ui/reducer-labels';

export function stepLabel(v: Version['steps'][number]): string {
  const r = v.range;
  const range = r.kind === 'turns' ? `turns ${r.from + 1}–${r.to + 1}` : r.kind === 'calls' ? `calls ${r.from + 1}–${r.to + 1}` : r.kind === 'all-but-last' ? (r.n > 0 ? `all but last ${r.n}` : 'whole context') : 'after last compaction';
  return `${v.label ?? v.reducers.map((r) => reducerLabel(r.id)).join(' + ')} · ${range}${v.keepLast ? ` · keep ${v.keepLast}` : ''}`;
}

/** Original + named versions with their steps: select, fork, rename, delete, compare two. */
export function VersionsTab({ id, wb }: { id: string; wb: Workbench }) {
  const [renaming, setRenaming] = useState<{ id: string; name: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const act = async (f: () => Promise<unknown>) => {
    setError(null);
    try {
      await f();
      wb.refreshVersions();
    } catch (e) {
      setError(userMessage(e));
    }
  };
  const cmp = wb.comparison.data;
  return (
    <div className="space-y-3 text-xs" data-testid="versions">
      <ul className="space-y-1.5">
        {wb.versions.map((v) => {
          const current = v.id === wb.versionId;
          return (
            <li
              key={v.id}
              data-testid="version"
              data-version={v.id}
              className={`rounded-md border px-2 py-1.5 ${current ? 'border-blue-400 bg-blue-50/60 dark:border-blue-700 dark:bg-blue-950/30' : 'border-neutral-200 dark:border-neutral-800'}`}
            >
              <div className="flex items-center gap-1.5">
                {renaming?.id === v.id ? (
                  <form
                    className="flex flex-1 gap-1"
                    onSubmit={(e) => {
                      e.preventDefault();
                      void act(() => getBridge().renameVersion(undefined, id, v.id, renaming.name)).then(() => setRenaming(null));
                    }}
                  >
                    <input autoFocus value={renaming.name} onChange={(e) => setRenaming({ id: v.id, name: e.target.value })} aria-label="Version name" className="min-w-0 flex-1 rounded border border-neutral-300 bg-white px-1 dark:border-neutral-700 dark:bg-neutral-900" />
                    <Button type="submit" className="!px-1.5 !py-0.5 text-xs">
                      Save
                    </Button>
                  </form>
                ) : (
                  <button type="button" className="min-w-0 flex-1 truncate text-left font-semibold hover:underline" onClick={() => wb.selectVersion(v.id)} aria-current={current ? 'true' : undefined}>
                    {v.name}
                  </button>
                )}
                <span className="shrink-0 text-neutral-500">{v.steps.length} step{v.steps.length === 1 ? '' : 's'}</span>
              </div>
              {v.steps.length > 0 && (
                <ol className="mt-1 list-decimal space-y-0.5 pl-4 text-[11px] text-neutral-600 dark:text-neutral-400">
                  {v.steps.map((s) => (
                    <li key={s.id}>{stepLabel(s)}</li>
                  ))}
                </ol>
              )}
              <div className="mt-1 flex flex-wrap gap-x-2 text-[11px]">
                <button type="button" className="text-blue-700 hover:underline dark:text-blue-400" onClick={() => void act(async () => wb.selectVersion((await getBridge().forkVersion(undefined, id, v.id)).id))}>
                  Fork
                </button>
                {v.id !== ORIGINAL_VERSION && (
                  <>
                    <button type="button" className="text-blue-700 hover:underline dark:text-blue-400" onClick={() => setRenaming({ id: v.id, name: v.name })}>
                      Rename
                    </button>
                    <button
                      type="button"
                      className="text-red-700 hover:underline dark:text-red-400"
                      onClick={() =>
                        void act(async () => {
                          await getBridge().removeVersion(undefined, id, v.id);
                          if (current) wb.selectVersion(ORIGINAL_VERSION);
                        })
                      }
                    >
                      Delete
                    </button>
                  </>
                )}
                {!current && (
                  <label className="ml-auto flex items-center gap-1">
                    <input type="checkbox" checked={wb.compareWith === v.id} onChange={(e) => wb.setCompareWith(e.target.checked ? v.id : null)} aria-label={`Compare with ${v.name}`} />
                    compare
                  </label>
                )}
              </div>
            </li>
          );
        })}
      </ul>
      {error && (
        <p role="alert" className="text-red-700 dark:text-red-400">
          {error}
        </p>
      )}
      {wb.compareWith && (
        <section className="rounded-md border border-neutral-200 p-2 dark:border-neutral-800" data-testid="comparison" aria-live="polite">
          <h3 className="mb-1 text-[11px] font-semibold uppercase tracking-wide text-neutral-500">Comparison</h3>
          {wb.comparison.isPending ? (
            <p className="animate-pulse text-neutral-500">projecting both versions…</p>
          ) : wb.comparison.isError ? (
            <p role="alert" className="text-red-700">
              {userMessage(wb.comparison.error)}
            </p>
          ) : cmp ? (
            <table className="w-full tabular-nums">
              <tbody>
                <tr>
                  <td className="flex items-center gap-1.5">
                    <span className="inline-block h-0 w-4 border-t-2 border-dashed border-neutral-900 dark:border-neutral-100" /> {cmp.a.name}
                  </td>
                  <td className="text-right">{formatTokens(cmp.a.total)}</td>
                  <td className="text-right text-neutral-500">{cmp.cost && formatUsd(cmp.cost.a)}</td>
                </tr>
                <tr>
                  <td className="flex items-center gap-1.5">
                    <span className="inline-block h-0 w-4 border-t-2 border-blue-600" /> {cmp.b.name}
                  </td>
                  <td className="text-right">{formatTokens(cmp.b.total)}</td>
                  <td className="text-right text-neutral-500">{cmp.cost && formatUsd(cmp.cost.b)}</td>
                </tr>
                <tr className="border-t border-neutral-200 font-semibold dark:border-neutral-800">
                  <td className="pt-1">Difference</td>
                  <td className="pt-1 text-right" data-testid="compare-delta">
                    {formatDelta(cmp.delta, cmp.a.total)}
                  </td>
                  <td className="pt-1 text-right">{cmp.cost && formatUsd(cmp.cost.delta)}</td>
                </tr>
              </tbody>
            </table>
          ) : null}
          {cmp?.cost && <p className="mt-1 text-[11px] text-neutral-500">Cost of sending each context once at {cmp.cost.model} input prices (cached reads: {formatUsd(cmp.cost.cachedA)} vs {formatUsd(cmp.cost.cachedB)}).</p>}
        </section>
      )}
    </div>
  );
}
