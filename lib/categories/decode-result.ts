/**
 * Codex CLI writes a shell result as a JSON string: `{"output":"…\n…","metadata":{"exit_code":0,
 * "duration_seconds":0.1}}`. Shown as it is, a reader sees escapes (`\n`, `\"`) instead of the
 * output (issue 30). For display and for reading a command's outcome (the line it ended with, its
 * tally) only: the block's content, its tokens and every export keep the string the file holds.
 * Anything else is returned unchanged.
 */
export interface DecodedResult {
  text: string;
  /** "exit 0 · 0.1 s" from the metadata, when there is one. */
  meta?: string;
}

export function decodeResult(content: string): DecodedResult {
  const s = content.trimStart();
  if (!s.startsWith('{"output"') && !s.startsWith('{ "output"')) return { text: content };
  let v: unknown;
  try {
    v = JSON.parse(s);
  } catch {
    return { text: content };
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return { text: content };
  const o = v as Record<string, unknown>;
  if (typeof o.output !== 'string' || Object.keys(o).some((k) => k !== 'output' && k !== 'metadata')) return { text: content };
  const m = o.metadata && typeof o.metadata === 'object' ? (o.metadata as Record<string, unknown>) : undefined;
  const parts: string[] = [];
  if (typeof m?.exit_code === 'number') parts.push(`exit ${m.exit_code}`);
  if (typeof m?.duration_seconds === 'number') parts.push(`${m.duration_seconds} s`);
  return { text: o.output, ...(parts.length > 0 && { meta: parts.join(' · ') }) };
}

/**
 * The text a result's lines are read from (its error lines, figures, identifiers, a stub's signal
 * lines): a Codex shell result's output, then its exit code as the file writes it (`"exit_code":2`,
 * a line the signal patterns read, and one that a kept raw result still holds word for word);
 * anything else as it is. Read as the raw JSON string, a Codex result was one line: no error line
 * was found in it by the categories, and any "error" word in a file it printed made the whole string
 * one "error line" of the lost identifiers (session 15).
 */
export function resultLinesText(content: string): string {
  const d = decodeResult(content);
  if (d.text === content) return content;
  const exit = d.meta === undefined ? null : /"exit_code"\s*:\s*-?\d+/.exec(content.slice(content.lastIndexOf('"metadata"')));
  return exit ? `${d.text}\n${exit[0]}` : d.text;
}
