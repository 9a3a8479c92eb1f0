/** Signed deltas and costs (UI.md "Numbers": −12,400 · −38 %, costs in $ with cents). */
import { formatTokens } from '../ui/format';

export function formatSigned(n: number): string {
  const r = Math.round(n);
  return r > 0 ? `+${formatTokens(r)}` : r < 0 ? `−${formatTokens(-r)}` : '0';
}

/** "−12,400 · −38 %" (the percentage of `base`). */
export function formatDelta(delta: number, base: number): string {
  if (base <= 0) return formatSigned(delta);
  const pct = (delta / base) * 100;
  const p = Math.abs(pct) < 10 && Math.abs(pct) > 0 ? Math.abs(pct).toFixed(1) : Math.abs(Math.round(pct)).toString();
  return `${formatSigned(delta)} · ${pct > 0 ? '+' : pct < 0 ? '−' : ''}${p} %`;
}

/** Dollars with cents; fractions of a cent shown to 4 places so small contexts are not "$0.00". */
export function formatUsd(n: number): string {
  const sign = n < 0 ? '−' : '';
  const a = Math.abs(n);
  return `${sign}$${a >= 0.01 || a === 0 ? a.toFixed(2) : a.toFixed(4)}`;
}
