'use client';

import type { PreviewSummary } from '@/lib/engine/preview';
import { LOST_KINDS } from '@/lib/engine/preview-kinds';
import type { LostKind } from '@/lib/compaction/lost';
import { EmptyState } from './EmptyState';

const LABEL: Record<LostKind, string> = { instruction: 'User instructions', path: 'Paths', url: 'URLs', id: 'Ids and hashes', error: 'Error lines' };

/** Identifiers compacted out of the context, by kind; each jumps to the turn it came from. Lost errors come first, apart. */
export function LostTab({ preview, onJump }: { preview: PreviewSummary | null; onJump: (turn: number) => void }) {
  if (!preview) return <EmptyState title="Nothing compacted, nothing lost">The lost identifiers of a preview show here.</EmptyState>;
  if (preview.lostTotal === 0)
    return (
      <EmptyState title="Nothing lost" testId="lost-empty">
        Every path, URL, id, error line and user instruction of the compacted blocks is still somewhere in the context.
      </EmptyState>
    );
  const errors = preview.lostCounts.error;
  const others = preview.lostTotal - errors;
  return (
    <div className="space-y-4 text-xs" data-testid="lost">
      <section data-testid="lost-errors" className="space-y-1">
        <h2 className="text-[11px] font-semibold uppercase tracking-wide text-red-700 dark:text-red-400">Errors</h2>
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
