/** Number formatting used everywhere (UI.md "Numbers"): thousands separators, signed deltas. */
const intFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

export function formatTokens(n: number): string {
  return intFormat.format(Math.round(n));
}

/** 12.3k / 1.2M for axis labels where space is short. */
export function formatCompact(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(n >= 10_000_000 ? 0 : 1)}M`;
  if (n >= 1_000) return `${(n / 1_000).toFixed(n >= 10_000 ? 0 : 1)}k`;
  return String(Math.round(n));
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 * 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 / 1024 / 1024).toFixed(2)} GB`;
}

export function formatDate(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

export function formatPercent(part: number, whole: number): string {
  if (whole <= 0) return '—';
  return `${((part / whole) * 100).toFixed(part / whole < 0.1 ? 1 : 0)} %`;
}

/** "Nov 21, 08:35" — the library column; the full timestamp is in the cell's title. */
export function formatShortDate(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

/** "−15 %" / "+3 %": the change from `before` to `after`, signed (UI.md "deltas signed"). */
export function signedPercent(after: number, before: number): string {
  if (before <= 0) return '—';
  const p = ((after - before) / before) * 100;
  const r = Math.abs(p) < 10 ? Math.round(p * 10) / 10 : Math.round(p);
  return `${r > 0 ? '+' : r < 0 ? '−' : '±'}${Math.abs(r)} %`;
}
