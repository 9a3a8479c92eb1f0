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
