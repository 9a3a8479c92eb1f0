'use client';

import type { PreviewSummary } from '@/lib/engine/preview';
import { LOST_KINDS, LOST_SHOWN as SHOWN } from '@/lib/engine/preview-kinds';
import type { LostKind } from '@/lib/compaction/lost';
import { EmptyState } from './EmptyState';
import { CATEGORY_LIST as CATEGORIES } from '@/lib/ledger/labels';
import type { Category } from '@/lib/categories';
import { LostItemButton } from '@/components/ledger/LostItemButton';

const CATEGORY_LABEL: Record<Category, string> = { instructions: 'User messages', paths: 'Paths', commands: 'Commands', errors: 'Error lines', figures: 'Figures' };

const LABEL: Record<LostKind, string> = { instruction: 'User instructions', path: 'Paths', url: 'URLs', id: 'Ids and hashes', error: 'Error lines' };

/** Identifiers compacted out of the context, by kind; each jumps to the turn it came from. Lost errors come first, apart. */
export function LostTab({ preview, onJump }: { preview: PreviewSummary | null; onJump: (turn: number) => void }) {
  if (!preview) return <EmptyState title="Nothing compacted, nothing lost">The lost identifiers of a preview show here.</EmptyState>;
  const byCategory = preview.lostByCategory;
  const categoryLost = CATEGORIES.reduce((n, c) => n + byCategory[c].lost.length, 0);
  if (preview.lostTotal === 0 && categoryLost === 0)
    return (
      <div className="space-y-4 text-xs">
        <EmptyState title="Nothing lost" testId="lost-empty">
          Every user message, path, command, error line and figure of the compacted messages, and every URL and id, is still in what the model is sent.
        </EmptyState>
        <ByCategory categories={byCategory} onJump={onJump} />
      </div>
    );
  const errors = preview.lostCounts.error;
  const others = preview.lostTotal - errors;
  return (
    <div className="space-y-4 text-xs" data-testid="lost">
      <ByCategory categories={byCategory} onJump={onJump} />
      <section data-testid="lost-errors" className="space-y-1">
        <h2 className="text-[11px] font-semibold uppercase tracking-wide text-red-700 dark:text-red-400">Error identifiers</h2>
        {errors > 0 ? (
          <>
            <p className="text-neutral-600 dark:text-neutral-400">
              {errors} error line{errors === 1 ? '' : 's'} of the compacted results appear nowhere in the compacted context: the agent may repeat what failed.
            </p>
            <LostGroup kind="error" preview={preview} onJump={onJump} />
          </>
        ) : (
          <p className="text-neutral-600 dark:text-neutral-400" data-testid="lost-errors-none">
            No error line lost: every one of the compacted results is still in the context (in a stub, a truncation or a summary).
          </p>
        )}
      </section>
      {others > 0 && (
        <section data-testid="lost-identifiers" className="space-y-3">
          <h2 className="text-[11px] font-semibold uppercase tracking-wide text-neutral-600 dark:text-neutral-300">Other identifiers</h2>
          <p className="text-neutral-600 dark:text-neutral-400">
            {others} identifier{others === 1 ? '' : 's'} appear in compacted blocks and nowhere in the compacted context.
          </p>
          {LOST_KINDS.filter((k) => k !== 'error' && preview.lostCounts[k] > 0).map((k) => (
            <LostGroup key={k} kind={k} preview={preview} onJump={onJump} />
          ))}
        </section>
      )}
    </div>
  );
}

/**
 * The five categories (lib/categories) of the compacted messages: per category, how many of their
 * items the model is still sent (kept / of), and the lost ones, each jumping to the turn it came
 * from. The same counts as `compact`'s "lost by category" line and `--report-json`'s lostByCategory
 * for the same plan (what the source's own compaction took out is left out here, as below).
 */
function ByCategory({ categories, onJump }: { categories: PreviewSummary['lostByCategory']; onJump: (turn: number) => void }) {
  const lostTotal = CATEGORIES.reduce((n, c) => n + categories[c].lost.length, 0);
  return (
    <section data-testid="lost-categories" data-lost={lostTotal} className="space-y-2">
      <h2 className={`text-[11px] font-semibold uppercase tracking-wide ${lostTotal ? 'text-red-700 dark:text-red-400' : 'text-neutral-600 dark:text-neutral-300'}`}>By category</h2>
      <p className="text-neutral-600 dark:text-neutral-400">Of what the compacted messages held, what the model is still sent:</p>
      <table className="w-full tabular-nums">
        <thead>
          <tr className="text-left text-[11px] uppercase tracking-wide text-neutral-500">
            <th className="font-medium">Category</th>
            <th className="text-right font-medium">kept / of</th>
            <th className="text-right font-medium">lost</th>
          </tr>
        </thead>
        <tbody>
          {CATEGORIES.map((c) => (
            <tr key={c} data-testid="lost-category" data-category={c} data-kept={categories[c].kept} data-of={categories[c].of} data-lost={categories[c].lost.length}>
              <td>{CATEGORY_LABEL[c]}</td>
              <td className="text-right">
                {categories[c].kept.toLocaleString('en-US')} / {categories[c].of.toLocaleString('en-US')}
              </td>
              <td className={`text-right ${categories[c].lost.length ? 'text-red-700 dark:text-red-400' : 'text-neutral-500'}`}>{categories[c].lost.length.toLocaleString('en-US')}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {CATEGORIES.filter((c) => categories[c].lost.length > 0).map((c) => (
        <section key={c} data-testid="lost-category-items" data-category={c}>
          <h3 className="mb-1 text-[11px] font-semibold uppercase tracking-wide text-neutral-500">
            Lost {CATEGORY_LABEL[c].toLowerCase()} <span className="font-normal">({categories[c].lost.length})</span>
          </h3>
          <ul className="space-y-0.5">
            {categories[c].lost.slice(0, SHOWN).map((l, i) => (
              <li key={`${l.text}-${i}`}>
                <LostItemButton testId="lost-category-item" turn={l.turn} text={l.text} prose={c === 'instructions'} onJump={onJump} />
              </li>
            ))}
            {categories[c].lost.length > SHOWN && <li className="pl-1 text-neutral-500">… {categories[c].lost.length - SHOWN} more (in the audit record)</li>}
          </ul>
        </section>
      ))}
    </section>
  );
}

function LostGroup({ kind: k, preview, onJump }: { kind: LostKind; preview: PreviewSummary; onJump: (turn: number) => void }) {
  return (
    <section data-testid="lost-group" data-kind={k}>
      <h3 className="mb-1 text-[11px] font-semibold uppercase tracking-wide text-neutral-500">
        {LABEL[k]} <span className="font-normal">({preview.lostCounts[k]})</span>
      </h3>
      <ul className="space-y-0.5">
        {/* The preview sends the first LOST_SHOWN of each kind; the full list is in the audit record. */}
        {preview.lost[k].map((l, i) => (
          <li key={`${l.value}-${i}`}>
            <button
              type="button"
              onClick={() => onJump(l.turn)}
              className="flex w-full items-baseline gap-2 rounded px-1 py-0.5 text-left hover:bg-neutral-100 dark:hover:bg-neutral-800"
              title={`Show turn ${l.turn + 1}`}
            >
              <span className="shrink-0 tabular-nums text-neutral-500">t{l.turn + 1}</span>
              <span className={`min-w-0 ${k === 'instruction' ? 'line-clamp-2' : 'truncate font-mono'}`}>{l.value}</span>
            </button>
          </li>
        ))}
        {preview.lostCounts[k] > preview.lost[k].length && <li className="pl-1 text-neutral-500">… {preview.lostCounts[k] - preview.lost[k].length} more (in the audit record)</li>}
      </ul>
    </section>
  );
}
