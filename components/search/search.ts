/**
 * Search in the transcript, over the list's rows (so it works when the list is virtualized: the
 * text comes from rowSearchText, not from the DOM). `tool:NAME` matches calls and results of a
 * tool, `role:user|assistant|system|tool` a message role, anything else the text (case-insensitive).
 */
import { rowSearchText, type Row } from '../messages/rows';

export interface SearchQuery {
  kind: 'text' | 'tool' | 'role';
  /** Lower-cased needle. */
  value: string;
  /** What to highlight in text (the needle for text and tool searches). */
  highlight: string;
}

export function parseQuery(raw: string): SearchQuery | null {
  const q = raw.trim();
  if (!q) return null;
  const m = /^(tool|role):\s*(.+)$/i.exec(q);
  if (m) return { kind: m[1].toLowerCase() as 'tool' | 'role', value: m[2].trim().toLowerCase(), highlight: m[1].toLowerCase() === 'tool' ? m[2].trim() : '' };
  return { kind: 'text', value: q.toLowerCase(), highlight: q };
}

function rowTools(row: Extract<Row, { kind: 'message' }>): string[] {
  const names: string[] = [];
  for (const b of row.message.blocks) if (b.kind === 'tool_call' || (b.kind === 'tool_result' && b.name)) names.push((b.kind === 'tool_call' ? b.name : b.name!) .toLowerCase());
  for (const list of Object.values(row.results)) for (const r of list) if (r.block.name) names.push(r.block.name.toLowerCase());
  return names;
}

/** Keys of the rows that match, in list order. */
export function searchRows(rows: readonly Row[], query: SearchQuery | null, limit = 10_000): string[] {
  if (!query) return [];
  const out: string[] = [];
  for (const row of rows) {
    if (row.kind !== 'message') continue;
    let hit = false;
    if (query.kind === 'role') hit = row.message.role === query.value;
    else if (query.kind === 'tool') hit = rowTools(row).some((n) => n === query.value || n.includes(query.value));
    else hit = rowSearchText(row).some((t) => t.toLowerCase().includes(query.value));
    if (hit) {
      out.push(row.key);
      if (out.length >= limit) break;
    }
  }
  return out;
}

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
