/** Signed deltas and costs (UI.md "Numbers": −12,400 · −38 %, costs in $ with cents). */
import { formatTokens } from '../ui/format';

export function formatSigned(n: number): string {
  const r = Math.round(n);
  return r > 0 ? `+${formatTokens(r)}` : r < 0 ? `−${formatTokens(-r)}` : '0';
}

/**
 * A share in percent, rounded honestly: never to 0 or 100 unless it is exactly that (99.6 stays
 * 99.6, 0.04 reads "<0.1"), one decimal below 10 and wherever rounding to a whole number would
 * reach a boundary.
 */
export function formatPctMagnitude(pct: number): string {
  const a = Math.abs(pct);
  if (a === 0) return '0';
  if (a < 0.1) return '<0.1';
  if (a < 10) return a.toFixed(1);
  const whole = Math.round(a);
  if (whole === 100 && a !== 100) return a < 100 ? (a >= 99.95 ? '>99.9' : a.toFixed(1)) : a.toFixed(1);
  return String(whole);
}

/** "−12,400 · −38 %" (the percentage of `base`). The number and its % never break apart (non-breaking spaces). */
export function formatDelta(delta: number, base: number): string {
  if (base <= 0) return formatSigned(delta);
  const pct = (delta / base) * 100;
  return `${formatSigned(delta)}\u00a0·\u00a0${pct > 0 ? '+' : pct < 0 ? '−' : ''}${formatPctMagnitude(pct)}\u00a0%`;
}

/** Dollars with cents; fractions of a cent shown to 4 places so small contexts are not "$0.00". */
export function formatUsd(n: number): string {
  const sign = n < 0 ? '−' : '';
  const a = Math.abs(n);
  return `${sign}$${a >= 0.01 || a === 0 ? a.toFixed(2) : a.toFixed(4)}`;
}
