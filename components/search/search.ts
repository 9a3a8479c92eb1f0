/** Split text for highlighting search hits (the search itself runs in the worker: lib/engine/search.ts). */
/** Split text around case-insensitive occurrences of `needle` (for <mark>). */
export function splitHighlight(text: string, needle: string): Array<{ text: string; hit: boolean }> {
  if (!needle) return [{ text, hit: false }];
  const lower = text.toLowerCase();
  const n = needle.toLowerCase();
  const parts: Array<{ text: string; hit: boolean }> = [];
  let at = 0;
  for (let i = lower.indexOf(n); i >= 0 && parts.length < 2000; i = lower.indexOf(n, i + n.length)) {
    if (i > at) parts.push({ text: text.slice(at, i), hit: false });
    parts.push({ text: text.slice(i, i + n.length), hit: true });
    at = i + n.length;
  }
  if (at < text.length) parts.push({ text: text.slice(at), hit: false });
  return parts;
}
