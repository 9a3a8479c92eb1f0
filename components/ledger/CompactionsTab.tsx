'use client';

import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { getBridge } from '@/lib/engine/client';
import type { Pin } from '@/lib/compaction/pins';
import type { LedgerEvent } from '@/lib/ledger/types';
import { CATEGORY_LIST as CATEGORIES, breakEvenText } from '@/lib/ledger/labels';
import { formatTokens } from '../ui/format';
import { EmptyState } from '../report/EmptyState';
import { usePins } from './usePins';
import { LostItemButton } from '@/components/ledger/LostItemButton';

const usd = (n: number | null) => (n === null ? '–' : n > 0 && n < 0.01 ? `$${n.toFixed(4)}` : `$${n.toFixed(2)}`);
const from = (f: string | null) => (f ? <span className="text-neutral-500"> ({f})</span> : null);
/** Lost items listed per category before "n more". */
const SHOWN = 30;

/** The ledger of the shown version, shared by the tab and the timeline strip (one query). */
export function useLedger(id: string, versionId: string, stamp: string, enabled = true) {
  return useQuery({
    queryKey: ['ledger', id, versionId, stamp],
    queryFn: ({ signal }) => getBridge().compactionLedger(signal, id, versionId),
    enabled: id !== '' && enabled,
    staleTime: Infinity,
    retry: false,
  });
}

/**
 * Every compaction of the session (issue 26): the agent's own and the version's steps, each with
 * its trigger, tokens before and after, duration, model, cost, the cache write it caused and its
 * break-even, its summary, and what it kept by category with the lost items linked to their turn.
 * Pinned patterns are edited here; a compaction that lost one is flagged.
 */
export function CompactionsTab({ id, versionId, stamp, focus, onJump }: { id: string; versionId: string; stamp: string; focus: string | null; onJump: (turn: number) => void }) {
  const ledger = useLedger(id, versionId, stamp);
  const refs = useRef(new Map<string, HTMLElement>());
  useEffect(() => {
    if (focus) refs.current.get(focus)?.scrollIntoView({ block: 'nearest' });
  }, [focus, ledger.data]);
  if (ledger.isPending) return <p className="text-xs text-neutral-500" aria-live="polite">Reading the compactions…</p>;
  if (ledger.error) return <p className="text-xs text-red-700" role="alert">The ledger failed: {String((ledger.error as Error).message)}</p>;
  const { events, pins } = ledger.data;
  return (
    <div className="space-y-4 text-xs" data-testid="compactions">
      <Pins id={id} pins={pins} />
      {events.length === 0 ? (
        <EmptyState title="No compaction" testId="compactions-empty">
          Neither the agent nor this version compacted the session. Apply a step and it is listed here with its numbers.
        </EmptyState>
      ) : (
        <ol className="space-y-3">
          {events.map((e, i) => (
            <li key={e.id} ref={(el) => void (el ? refs.current.set(e.id, el) : refs.current.delete(e.id))}>
              <EventCard e={e} n={i + 1} focused={focus === e.id} onJump={onJump} />
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

export function EventCard({ e, n, focused, onJump }: { e: LedgerEvent; n: number; focused: boolean; onJump: (turn: number) => void }) {
  const ratio = e.tokensBefore && e.tokensAfter !== null ? e.tokensAfter / e.tokensBefore : null;
  return (
    <article
      className={`rounded-md border p-2 ${focused ? 'border-teal-500 ring-1 ring-teal-500' : 'border-neutral-200 dark:border-neutral-800'}`}
      data-testid="ledger-event"
      data-by={e.by}
      data-event={e.id}
      aria-label={`Compaction ${n}`}
    >
      <header className="mb-1 flex items-baseline justify-between gap-2">
        <h3 className="font-semibold">
          #{n} {e.label} <span className="font-normal text-neutral-500">· {e.trigger}{e.triggerLevel?.ofWindow !== undefined ? ` at ${(e.triggerLevel.ofWindow * 100).toFixed(1)} % of the window` : ''}</span>
        </h3>
        <button type="button" className="shrink-0 text-blue-700 underline dark:text-blue-400" onClick={() => onJump(e.atTurn)}>
          turn {e.atTurn + 1}
        </button>
      </header>
      {e.pinsLost.length > 0 && (
        <p className="mb-1 rounded bg-red-50 px-1.5 py-0.5 text-red-800 dark:bg-red-950 dark:text-red-300" data-testid="pins-lost" role="status">
          Lost pinned: {e.pinsLost.join(' · ')}
        </p>
      )}
      <table className="w-full tabular-nums">
        <tbody>
          <Row label="Tokens before" testId="tokens-before" value={e.tokensBefore === null ? '–' : formatTokens(e.tokensBefore)} extra={from(e.tokensBeforeFrom)} />
          <Row
            label="Tokens after"
            testId="tokens-after"
            value={e.tokensAfter === null ? '–' : formatTokens(e.tokensAfter)}
            extra={
              <>
                {from(e.tokensAfterFrom === 'recorded' ? 'recorded, next call' : e.tokensAfterFrom)}
                {ratio !== null && <span className="text-neutral-500"> · ×{ratio.toFixed(2)}</span>}
              </>
            }
          />
          <Row label="Duration" value={e.durationMs === null ? 'not recorded' : `${formatTokens(e.durationMs)} ms`} />
          <Row label="Model" value={e.model ?? '–'} />
          <Row label="Compaction call" value={usd(e.costUsd)} extra={from(e.costFrom)} />
          <Row label="Cache write after" testId="cache-write" value={e.cacheWriteAfter === null ? '–' : `${formatTokens(e.cacheWriteAfter)} tokens`} extra={<span className="text-neutral-500"> · {usd(e.cacheWriteUsd)}</span>} />
          <Row label="Break-even" value={breakEvenText(e)} />
        </tbody>
      </table>
      {e.survival && (
        <table className="mt-2 w-full tabular-nums" data-testid="survival">
          <thead>
            <tr className="text-left text-[11px] uppercase tracking-wide text-neutral-500">
              <th className="font-medium">Kept</th>
              <th className="text-right font-medium">of</th>
              <th className="text-right font-medium">lost</th>
            </tr>
          </thead>
          <tbody>
            {CATEGORIES.map((c) => (
              <tr key={c} data-category={c} data-kept={e.survival![c].kept} data-of={e.survival![c].of}>
                <td>{c}</td>
                <td className="text-right">
                  {e.survival![c].kept} / {e.survival![c].of}
                </td>
                <td className={`text-right ${e.survival![c].lost.length ? 'text-red-700 dark:text-red-400' : 'text-neutral-500'}`}>{e.survival![c].lost.length}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {e.survival && CATEGORIES.some((c) => e.survival![c].lost.length > 0) && (
        <details className="mt-1" data-testid="lost-items">
          <summary className="cursor-pointer text-neutral-600 dark:text-neutral-400">Lost items ({CATEGORIES.reduce((t, c) => t + e.survival![c].lost.length, 0)})</summary>
          {CATEGORIES.filter((c) => e.survival![c].lost.length > 0).map((c) => (
            <section key={c} className="mt-1">
              <h4 className="text-[11px] font-semibold uppercase tracking-wide text-neutral-500">{c}</h4>
              <ul>
                {e.survival![c].lost.slice(0, SHOWN).map((l, i) => (
                  <li key={`${l.key}-${i}`}>
                    <LostItemButton testId="lost-item" turn={l.turn} text={l.text} prose={c === 'instructions'} onJump={onJump} />
                  </li>
                ))}
                {e.survival![c].lost.length > SHOWN && <li className="pl-1 text-neutral-500">… {e.survival![c].lost.length - SHOWN} more (inspect --compactions --json lists all)</li>}
              </ul>
            </section>
          ))}
        </details>
      )}
      {e.summary !== null && (
        <details className="mt-1" data-testid="ledger-summary">
          <summary className="cursor-pointer text-neutral-600 dark:text-neutral-400">Summary ({formatTokens(e.summary.length)} characters)</summary>
          <pre className="mt-1 max-h-96 overflow-auto whitespace-pre-wrap break-words rounded bg-neutral-50 p-1.5 font-mono text-[11px] dark:bg-neutral-900">{e.summary}</pre>
        </details>
      )}
    </article>
  );
}

function Row({ label, value, extra, testId }: { label: string; value: string; extra?: React.ReactNode; testId?: string }) {
  return (
    <tr>
      <td className="py-0.5 pr-2 text-neutral-600 dark:text-neutral-400">{label}</td>
      <td className="py-0.5" data-testid={testId}>
        {value}
        {extra}
      </td>
    </tr>
  );
}

/**
 * The transcript's pins: text patterns typed here, messages and tool results pinned with their
 * button in the list. No compaction step touches a pinned item; the ledger flags compactions that lost one.
 */
function Pins({ id, pins: fromLedger }: { id: string; pins: Pin[] }) {
  const [text, setText] = useState('');
  const { save, pins: stored, control } = usePins(id);
  const pins = control ? stored : fromLedger;
  useEffect(() => {
    if (save.data?.ok) setText('');
  }, [save.data]);
  const error = save.data && !save.data.ok ? save.data.error : null;
  return (
    <section data-testid="pins" aria-label="Pins">
      <h2 className="mb-1 text-[11px] font-semibold uppercase tracking-wide text-neutral-500">Pins</h2>
      <form
        className="flex gap-1"
        onSubmit={(ev) => {
          ev.preventDefault();
          if (text.trim()) save.mutate([...pins, { kind: 'pattern', pattern: text.trim() }]);
        }}
      >
        <input
          aria-label="Pin a text pattern"
          placeholder="Pin a text (a CLAUDE.md rule) or /regex/"
          value={text}
          onChange={(ev) => setText(ev.target.value)}
          className="min-w-0 flex-1 rounded border border-neutral-300 bg-transparent px-1.5 py-0.5 dark:border-neutral-700"
        />
        <button type="submit" className="rounded border border-neutral-300 px-2 py-0.5 dark:border-neutral-700" disabled={save.isPending}>
          Pin
        </button>
      </form>
      {error && (
        <p className="mt-1 text-red-700" role="alert">
          {error}
        </p>
      )}
      {pins.length > 0 ? (
        <ul className="mt-1 space-y-0.5">
          {pins.map((p, i) => (
            <li key={i} className="flex items-center justify-between gap-2" data-testid="pin" data-kind={p.kind}>
              <span className="truncate font-mono">{p.kind === 'pattern' ? p.pattern : (p.label ?? (p.kind === 'message' ? p.messageId : p.blockId))}</span>
              <button type="button" className="text-neutral-500 hover:text-red-700" aria-label={`Unpin ${p.kind === 'pattern' ? p.pattern : (p.label ?? p.kind)}`} onClick={() => save.mutate(pins.filter((_, j) => j !== i))}>
                ×
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p className="mt-1 text-neutral-500">Nothing pinned. Pin a text here, or a message or tool result with its Pin button in the list: a pinned item is never stubbed, summarized or dropped by a step.</p>
      )}
    </section>
  );
}
