'use client';

import type { PreviewSummary } from '@/lib/engine/preview';
import { LOST_KINDS, LOST_SHOWN as SHOWN } from '@/lib/engine/preview-kinds';
import type { LostKind } from '@/lib/compaction/lost';
import { EmptyState } from './EmptyState';
import { CATEGORY_LIST as CATEGORIES } from '@/lib/ledger/labels';
import type { Category } from '@/lib/categories';
import { LostItemButton } from '@/components/ledger/LostItemButton';

const CATEGORY_LABEL: Record<Category, string> = { instructions: 'User messages', paths: 'Paths', commands: 'Commands', errors: 'Error lines', figures: 'Figures' };

/**
 * The identifier kinds listed apart from the five categories: what no category holds. User messages
 * and error lines are categories (one definition each, one number: the By category table's); a path
 * here is one a compacted block names in its text (the Paths row counts files a tool call touched).
 */
const OTHER_KINDS: readonly LostKind[] = ['path', 'url', 'id'];
const LABEL: Record<LostKind, string> = { instruction: 'User instructions', path: 'Paths named in the text', url: 'URLs', id: 'Ids and hashes', error: 'Error lines' };

/** What the Lost tab lists: the five categories' lost items and the other identifiers (its tab's count). */
export function lostShownCount(preview: PreviewSummary): number {
  return CATEGORIES.reduce((n, c) => n + preview.lostByCategory[c].lost.length, 0) + OTHER_KINDS.reduce((n, k) => n + preview.lostCounts[k], 0);
}

/** What left the context, by category (lost error lines first, apart), then the other identifiers; each jumps to the turn it came from. */
export function LostTab({ preview, onJump }: { preview: PreviewSummary | null; onJump: (turn: number) => void }) {
  if (!preview) return <EmptyState title="Nothing compacted, nothing lost">The lost identifiers of a preview show here.</EmptyState>;
  const byCategory = preview.lostByCategory;
  const others = OTHER_KINDS.reduce((n, k) => n + preview.lostCounts[k], 0);
  if (lostShownCount(preview) === 0)
    return (
      <div className="space-y-4 text-xs">
        <EmptyState title="Nothing lost" testId="lost-empty">
          Every user message, path, command, error line and figure of the compacted messages, and every URL and id, is still in what the model is sent.
        </EmptyState>
        <ByCategory categories={byCategory} onJump={onJump} />
      </div>
    );
  const errors = byCategory.errors.lost;
  return (
    <div className="space-y-4 text-xs" data-testid="lost">
      <ByCategory categories={byCategory} onJump={onJump} />
      <section data-testid="lost-errors" data-count={errors.length} className="space-y-1">
        <h2 className={`text-[11px] font-semibold uppercase tracking-wide ${errors.length ? 'text-red-700 dark:text-red-400' : 'text-neutral-600 dark:text-neutral-300'}`}>Lost error lines</h2>
        {errors.length > 0 ? (
          <>
            <p className="text-neutral-600 dark:text-neutral-400">
              {errors.length} error line{errors.length === 1 ? '' : 's'} of the compacted results {errors.length === 1 ? 'appears' : 'appear'} nowhere in what the model is sent: the agent may repeat what failed.
            </p>
            <CategoryItems category="errors" categories={byCategory} onJump={onJump} />
          </>
        ) : (
          <p className="text-neutral-600 dark:text-neutral-400" data-testid="lost-errors-none">
            {byCategory.errors.of === 0
              ? 'The compacted results held no error line.'
              : `No error line lost: ${byCategory.errors.of === 1 ? 'the error line' : `the ${byCategory.errors.of.toLocaleString('en-US')} error lines`} of the compacted results ${byCategory.errors.of === 1 ? 'is' : 'are'} still in the context (in a stub, a truncation or a summary).`}
          </p>
        )}
      </section>
      {others > 0 && (
        <section data-testid="lost-identifiers" className="space-y-3">
          <h2 className="text-[11px] font-semibold uppercase tracking-wide text-neutral-600 dark:text-neutral-300">Other identifiers</h2>
          <p className="text-neutral-600 dark:text-neutral-400">
            {others} identifier{others === 1 ? '' : 's'} that no category holds appear in compacted blocks and nowhere in the compacted context.
          </p>
          {OTHER_KINDS.filter((k) => preview.lostCounts[k] > 0).map((k) => (
            <LostGroup key={k} kind={k} preview={preview} onJump={onJump} />
          ))}
        </section>
      )}
    </div>
  );
}

function CategoryItems({ category: c, categories, onJump }: { category: Category; categories: PreviewSummary['lostByCategory']; onJump: (turn: number) => void }) {
  return (
    <ul className="space-y-0.5" data-testid="lost-category-items" data-category={c}>
      {categories[c].lost.slice(0, SHOWN).map((l, i) => (
        <li key={`${l.text}-${i}`}>
          <LostItemButton testId="lost-category-item" turn={l.turn} text={l.text} prose={c === 'instructions'} onJump={onJump} />
        </li>
      ))}
      {categories[c].lost.length > SHOWN && <li className="pl-1 text-neutral-500">… {categories[c].lost.length - SHOWN} more (in the audit record)</li>}
    </ul>
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
      {/* Lost error lines are listed in their own section below, once. */}
      {CATEGORIES.filter((c) => c !== 'errors' && categories[c].lost.length > 0).map((c) => (
        <section key={c} data-category={c}>
          <h3 className="mb-1 text-[11px] font-semibold uppercase tracking-wide text-neutral-500">
            Lost {CATEGORY_LABEL[c].toLowerCase()} <span className="font-normal">({categories[c].lost.length})</span>
          </h3>
          <CategoryItems category={c} categories={categories} onJump={onJump} />
        </section>
      ))}
    </section>
  );
}

function LostGroup({ kind: k, preview, onJump }: { kind: LostKind; preview: PreviewSummary; onJump: (turn: number) => void }) {
  return (
    <section data-testid="lost-group" data-kind={k} data-count={preview.lostCounts[k]}>
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
