'use client';

import { useQuery } from '@tanstack/react-query';
import { getBridge } from '@/lib/engine/client';
import { userMessage } from '@/lib/errors';
import { formatTokens } from '../ui/format';

/**
 * What a conversion cannot carry, listed before anything is downloaded: the engine converts and
 * validates the version, and answers each kind of content the target leaves out or writes as text,
 * with its tokens (the same list goes into the audit record's `output.notCarried`).
 */
export function ConversionLosses({ id, versionId, format, formatLabel }: { id: string; versionId: string; format: string; formatLabel: string }) {
  const q = useQuery({
    queryKey: ['conversion-losses', id, versionId, format],
    queryFn: ({ signal }) => getBridge().conversionLosses(signal, id, versionId, format),
    staleTime: Infinity,
  });
  if (q.isPending) return <p className="text-xs text-neutral-500 animate-pulse" data-testid="conversion-losses-pending">Checking what {formatLabel} can carry…</p>;
  if (q.isError) return <p className="text-xs text-red-700 dark:text-red-400">Could not check the conversion: {userMessage(q.error)}</p>;
  const out = q.data;
  if (out.kind === 'error') return <p className="text-xs text-red-700 dark:text-red-400" data-testid="conversion-losses-error">This conversion fails: {userMessage(out.error)}</p>;
  if (out.losses.length === 0)
    return (
      <p className="text-xs text-neutral-500" data-testid="conversion-losses" data-count={0}>
        {formatLabel} carries every block of this version ({formatTokens(out.tokens.before)} → {formatTokens(out.tokens.after)} tokens as {formatLabel} counts them). The file is imported back and its tool pairs checked before it downloads.
      </p>
    );
  return (
    <div role="note" className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-xs text-amber-900 dark:border-amber-900 dark:bg-amber-950/40 dark:text-amber-200" data-testid="conversion-losses" data-count={out.losses.length}>
      <p className="font-semibold">
        {formatLabel} cannot carry all of this version: {formatTokens(out.tokens.before)} → {formatTokens(out.tokens.after)} tokens.
      </p>
      <ul className="mt-1 list-disc pl-4">
        {out.losses.map((l) => (
          <li key={l.what} data-testid="conversion-loss">
            {l.blocks.toLocaleString('en-US')} {l.what}, {formatTokens(l.tokens)} tokens: {l.becomes === 'dropped' ? 'left out' : 'written as plain text'}
          </li>
        ))}
      </ul>
      <p className="mt-1">A conversion writes every message anew; the audit record lists these too.</p>
    </div>
  );
}
