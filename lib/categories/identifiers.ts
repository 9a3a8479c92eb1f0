/**
 * Identifiers in a text: file paths (with a directory part), URLs, ids and hashes, error-ish lines.
 * What the lost report (lib/compaction/lost.ts) tracks and the offline summarizer lists; here, below
 * both, so neither imports the other.
 */
export type LostKind = 'path' | 'url' | 'id' | 'error' | 'instruction';

export interface Identifier {
  kind: LostKind;
  value: string;
}

const URL_RE = /https?:\/\/[^\s"'<>`)\]}]+/g;
const PATH_RE = /(?:(?:~|\.{1,2})?\/)?(?:[\w@+-][\w.@+-]*\/)*[\w@+-][\w.@+-]*\.[A-Za-z0-9]{1,10}\b/g;
/** Characters that never occur inside a path we track: paths are searched token by token. */
const PATH_DELIMITERS = /[\s"'<>`()[\]{},;=|*]+/;
/** Longer tokens are not paths (PATH_MAX is 4096; real paths in transcripts are far shorter). */
const MAX_PATH_TOKEN = 1024;
const UUID_RE = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const HEX_RE = /\b[0-9a-f]{7,64}\b/g;
const ERROR_LINE_RE = /\b(error|exception|traceback|failed|failure|fatal|panic(?:ked)?)\b/i;

function trimUrl(u: string): string {
  return u.replace(/[.,;:!?'"]+$/, '');
}

/** Identifiers in a text (no instructions: those are whole user messages). */
export function extractIdentifiers(text: string): Identifier[] {
  const out: Identifier[] = [];
  const urls = new Set<string>();
  for (const m of text.matchAll(URL_RE)) {
    const u = trimUrl(m[0]);
    urls.add(u);
    out.push({ kind: 'url', value: u });
  }
  const withoutUrls = urls.size ? text.replace(URL_RE, ' ') : text;
  // A path has a directory part: bare names ("index.ts", "e.g.") are too ambiguous to track.
  // PATH_RE backtracks quadratically over long slash runs ("a/a/a/…", hostile or minified text),
  // so it only runs inside short whitespace/quote-delimited tokens that could hold a path.
  for (const token of withoutUrls.split(PATH_DELIMITERS)) {
    if (token.length < 3 || token.length > MAX_PATH_TOKEN || !token.includes('/') || !token.includes('.')) continue;
    for (const m of token.matchAll(PATH_RE)) if (m[0].includes('/')) out.push({ kind: 'path', value: m[0] });
  }
  for (const m of text.matchAll(UUID_RE)) out.push({ kind: 'id', value: m[0].toLowerCase() });
  for (const m of withoutUrls.replace(UUID_RE, ' ').matchAll(HEX_RE)) {
    // A hash mixes digits and letters; pure numbers and words are not ids.
    if (/\d/.test(m[0]) && /[a-f]/.test(m[0])) out.push({ kind: 'id', value: m[0] });
  }
  if (ERROR_LINE_RE.test(text)) {
    for (const line of text.split('\n')) {
      const l = line.trim();
      if (l.length >= 8 && ERROR_LINE_RE.test(l)) out.push({ kind: 'error', value: l.length > 200 ? l.slice(0, 200) : l });
    }
  }
  return out;
}

