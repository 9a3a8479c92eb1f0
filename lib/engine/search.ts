/**
 * Search in the transcript, over the list's rows (so it works when the list is virtualized: the
 * text comes from rowSearchText, not from the DOM). `tool:NAME` matches calls and results of a
 * tool, `role:user|assistant|system|tool` a message role, anything else the text (case-insensitive).
 */
import { rowSearchText, type Row } from './rows';

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

/** Indexes of the rows that match, in list order (at most `limit`). */
export function searchRows(rows: readonly Row[], query: SearchQuery | null, limit = 10_000): number[] {
  if (!query) return [];
  const out: number[] = [];
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    if (row.kind !== 'message') continue;
    let hit = false;
    if (query.kind === 'role') hit = row.message.role === query.value;
    else if (query.kind === 'tool') hit = rowTools(row).some((n) => n === query.value || n.includes(query.value));
    else hit = rowSearchText(row).some((t) => t.toLowerCase().includes(query.value));
    if (hit) {
      out.push(i);
      if (out.length >= limit) break;
    }
  }
  return out;
}
