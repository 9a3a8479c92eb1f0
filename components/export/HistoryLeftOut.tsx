'use client';

import { useQuery } from '@tanstack/react-query';
import { getBridge } from '@/lib/engine/client';
import { formatTokens } from '../ui/format';

/**
 * A compacted export in the source's own format, said before the download: Claude Code and Codex
 * files keep what the compaction took out as history (the agent resumes from the compaction point);
 * other formats leave those messages out of the file, and this says how many, with their tokens
 * (the audit record's `output.leftOut` carries the same numbers).
 */
export function HistoryLeftOut({ id, versionId, formatLabel }: { id: string; versionId: string; formatLabel: string }) {
  const q = useQuery({
    queryKey: ['history-left-out', id, versionId],
    queryFn: ({ signal }) => getBridge().historyLeftOut(signal, id, versionId),
    staleTime: Infinity,
  });
  const checked = 'The file is imported back and its tool pairs checked before it downloads.';
  // Measured before Download is enabled (issue 30: on a 3,000-turn session the note came 3.3 s late, Download already on).
  if (!q.data)
    return (
      <p className="animate-pulse text-xs text-neutral-500" role="status" data-testid="history-left-out-pending">
        Checking what the {formatLabel} file will hold…
      </p>
    );
  const h = q.data;
  if (h.messages === 0)
    return (
      <p className="text-xs text-neutral-500" data-testid="history-left-out" data-count={0}>
        Untouched records are written verbatim; changed ones keep every other field.
        {h.keepsHistory && ` ${formatLabel} keeps what the compaction took out as history before its compaction point: the agent resumes from there, and nothing leaves the file.`} {checked}
      </p>
    );
  return (
    <div role="note" className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-xs text-amber-900 dark:border-amber-900 dark:bg-amber-950/40 dark:text-amber-200" data-testid="history-left-out" data-count={h.messages}>
      <p className="font-semibold">
        {h.keepsHistory ? '' : `${formatLabel} keeps no history: `}
        {h.messages.toLocaleString('en-US')} message{h.messages === 1 ? '' : 's'} ({formatTokens(h.tokens)} tokens) the compaction took out will not be in the file
        {h.summarized > 0 && `, ${h.summarized.toLocaleString('en-US')} of them summarized`}
        {h.keepsHistory && ' (removed without a summary after the last compaction point, where nothing else keeps them from the model)'}.
      </p>
      <p className="mt-1">Untouched records are written verbatim; changed ones keep every other field. Keep the original to have them. The audit record lists the same numbers. {checked}</p>
    </div>
  );
}
