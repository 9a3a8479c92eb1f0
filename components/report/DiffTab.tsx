'use client';

import type { DiffBlock, PreviewSummary } from '@/lib/engine/preview';
import { formatTokens } from '../ui/format';
import { FATE_STYLE } from '../timeline/patterns';
import { EmptyState } from './EmptyState';

const FATE_TONE: Record<string, string> = {
  stubbed: 'bg-amber-50 dark:bg-amber-950/30',
  truncated: 'bg-orange-50 dark:bg-orange-950/30',
  removed: 'bg-red-50 dark:bg-red-950/30',
  deduped: 'bg-neutral-100 dark:bg-neutral-800/60',
  summarized: 'bg-teal-50 dark:bg-teal-950/30',
  kept: 'bg-teal-50 dark:bg-teal-950/30',
};

function Side({ label, text, tone }: { label: string; text: string | null; tone?: string }) {
  return (
    <div className={`min-w-0 rounded px-1.5 py-1 ${tone ?? ''}`}>
      <div className="mb-0.5 text-[10px] uppercase tracking-wide text-neutral-500">{label}</div>
      {text === null ? (
        <p className="italic text-neutral-500">(gone)</p>
      ) : (
        <pre className="max-h-40 overflow-auto whitespace-pre-wrap break-words font-mono text-[11px] leading-snug">{text || ' '}</pre>
      )}
    </div>
  );
}

function BlockDiff({ b }: { b: DiffBlock }) {
  return (
    <div className="mt-1">
      <div className="mb-0.5 flex items-center gap-2 text-[11px]">
        <span className="rounded bg-neutral-200 px-1 font-medium dark:bg-neutral-800">{b.fate === 'kept' ? 'summary' : FATE_STYLE[b.fate as keyof typeof FATE_STYLE]?.label ?? b.fate}</span>
        <span className="font-mono text-neutral-600 dark:text-neutral-400">{b.tool ?? b.kind}</span>
        {b.by && <span className="text-neutral-500">by {b.by}</span>}
        <span className="ml-auto tabular-nums text-neutral-500">
          {formatTokens(b.tokensBefore)} → {formatTokens(b.tokensAfter)}
        </span>
      </div>
      <div className="grid grid-cols-2 gap-1">
        <Side label="before" text={b.fate === 'kept' ? null : b.before} />
        <Side label="after" text={b.after} tone={FATE_TONE[b.fate]} />
      </div>
    </div>
  );
}

/** Side-by-side before/after of the affected messages; stubs and summaries highlighted. */
export function DiffTab({ preview, onJump }: { preview: PreviewSummary | null; onJump: (turn: number) => void }) {
  if (!preview || preview.diff.length === 0) return <EmptyState title="No changes to show">The messages a preview changes, and the summaries it writes, show here side by side.</EmptyState>;
  return (
    <div className="space-y-3 text-xs" data-testid="diff">
      <p className="text-neutral-600 dark:text-neutral-400">
        {preview.diffTotal} message{preview.diffTotal === 1 ? '' : 's'} affected{preview.diffTotal > preview.diff.length ? ` (first ${preview.diff.length} shown)` : ''}.
      </p>
      {preview.diff.map((m, i) => (
        <article key={m.messageId ?? `synthetic-${i}`} className={`rounded-md border p-2 ${m.synthetic ? 'border-teal-400 dark:border-teal-700' : 'border-neutral-200 dark:border-neutral-800'}`} data-testid="diff-message">
          <header className="flex items-center gap-2 text-[11px]">
            <button type="button" className="font-semibold hover:underline" onClick={() => onJump(m.turn)}>
              Turn {m.turn + 1}
            </button>
            <span className="text-neutral-500">{m.synthetic ? (m.synthetic === 'summary' ? `summary of turns ${m.span ? `${m.span[0] + 1}–${m.span[1] + 1}` : ''}` : 'notice') : `${m.role} #${(m.index ?? 0) + 1}`}</span>
          </header>
          {m.blocks.map((b) => (
            <BlockDiff key={b.blockId} b={b} />
          ))}
        </article>
      ))}
    </div>
  );
}
