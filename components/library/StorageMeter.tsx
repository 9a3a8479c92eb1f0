'use client';

import { useQuery } from '@tanstack/react-query';
import { getBridge } from '@/lib/engine/client';
import { formatBytes, formatPercent } from '../ui/format';

/** Storage used vs the origin's quota (navigator.storage.estimate, asked in the worker). */
export function StorageMeter() {
  const { data } = useQuery({ queryKey: ['storage'], queryFn: ({ signal }) => getBridge().storageEstimate(signal) });
  if (!data || data.quota === 0) return <span className="text-xs text-neutral-500" data-testid="storage-meter">Storage: —</span>;
  const frac = Math.min(1, data.usage / data.quota);
  return (
    <span className="flex items-center gap-2 text-xs text-neutral-500" data-testid="storage-meter" title={`${data.usage.toLocaleString('en-US')} of ${data.quota.toLocaleString('en-US')} bytes`}>
      <span>
        Storage {formatBytes(data.usage)} of {formatBytes(data.quota)} ({formatPercent(data.usage, data.quota)})
      </span>
      <span className="h-1.5 w-24 overflow-hidden rounded bg-neutral-200 dark:bg-neutral-800" aria-hidden="true">
        <span className={`block h-full ${frac > 0.8 ? 'bg-red-500' : 'bg-neutral-500'}`} style={{ width: `${Math.max(2, frac * 100)}%` }} />
      </span>
    </span>
  );
}
