/**
 * Format detection (FORMATS.md §8): decide the container (zip / JSONL / JSON), parse a head, then ask
 * every registered format for a confidence. Content decides; the file extension only breaks ties
 * and must agree (a .jsonl whose content is a single JSON document is reported, not guessed).
 */
import { unzipSync } from 'fflate';
import { ImportError } from '../errors';
import { looksLikeJsonl, readJsonl } from '../read/jsonl';
import type { SourceFile } from '../read/source';
import { decodeHeadAfterBlanks } from '../read/head';
import { formats } from './registry';
import type { DetectInput, FormatModule } from './types';

export interface Detection {
  format: FormatModule;
  confidence: number;
  /** Other formats that also claimed the file (for "import as …" switching of ambiguous files). */
  alternatives: Array<{ id: string; label: string; confidence: number }>;
  input: DetectInput;
}

/**
 * Parsed JSON documents are cached per SourceFile so parse() does not parse twice. The cache lives
 * in lib/read/json-root.ts so format modules can import it without an import cycle through here.
 */
import { parsedRoot } from '../read/json-root';
export { parsedRoot };

export function makeDetectInput(file: SourceFile): DetectInput {
  if (file.isZip) {
    let entries: string[] = [];
    try {
      // Only the central directory is needed: filter returns false so nothing is inflated.
      unzipSync(file.bytes, { filter: (f) => (entries.push(f.name), false) });
    } catch (e) {
      throw new ImportError('malformed:zip', 'The file is a zip archive that cannot be read.', { file: file.name }, 'a valid zip archive (.eval)', { cause: e });
    }
    return { name: file.name, text: '', values: [], container: 'zip', zipEntries: entries };
  }
  if (file.bytes.length === 0) {
    throw new ImportError('empty:file', 'The file is empty.', { file: file.name }, 'a transcript in JSON or JSONL');
  }
  // Head only for the JSONL test; large JSONL files are never decoded whole here.
  // The head starts at the first byte that is not white space: 20 million blank lines before a
  // session are blank lines, not a file of only white space.
  const head = decodeHead(file);
  if (head.trim() === '') throw new ImportError('empty:file', 'The file holds only white space.', { file: file.name }, 'a transcript in JSON or JSONL');
  if (looksLikeJsonl(head) || firstLinesLookLikeJsonl(file, head)) {
    const { records } = readJsonl(file, { limit: 5 });
    return { name: file.name, text: head, values: records.map((r) => r.value), container: 'jsonl' };
  }
  const first = head.trimStart()[0];
  if (first !== '{' && first !== '[') {
    throw new ImportError('malformed:not-json', 'The file is not JSON or JSONL: it does not start with "{" or "[".', { file: file.name, line: 1 }, 'a transcript in JSON or JSONL');
  }
  const root = parsedRoot(file);
  return { name: file.name, text: head, values: [root], container: 'json' };
}

/**
 * A first line longer than the 64 KB head (OpenHands eval output: 200 KB per line) cannot be
 * judged from the head: read the first two lines through lines() instead.
 */
function firstLinesLookLikeJsonl(file: SourceFile, head: string): boolean {
  if (head.includes('\n') || file.bytes.length <= 64 * 1024 || !head.trimStart().startsWith('{')) return false;
  // Shape only, on the bytes (no decoding of a line that can be hundreds of MB; readJsonl parses it
  // right after): line 1 ends with "}", and line 2, if any, starts another object.
  if (file.encoding === 'utf-8') {
    const b = file.bytes;
    const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
    const nl = b.indexOf(0x0a);
    let end = (nl < 0 ? b.length : nl) - 1;
    while (end >= 0 && isSpace(b[end])) end--;
    if (end < 0 || b[end] !== 0x7d) return false;
    if (nl < 0) return true;
    let next = nl + 1;
    while (next < b.length && isSpace(b[next])) next++;
    return next >= b.length || b[next] === 0x7b;
  }
  const firstTwo: string[] = [];
  for (const line of file.lines()) {
    if (line.text.trim() === '') continue;
    firstTwo.push(line.text.trim());
    if (firstTwo.length === 2) break;
  }
  const [first, second] = firstTwo;
  return first.length > 1 && first.endsWith('}') && (second === undefined || second.startsWith('{'));
}

function decodeHead(file: SourceFile): string {
  return decodeHeadAfterBlanks(file);
}

export function detect(file: SourceFile): Detection {
  const input = makeDetectInput(file);
  const scored: Array<{ f: FormatModule; c: number }> = [];
  for (const f of formats) {
    let c: number | null = null;
    try {
      c = f.detect(input);
    } catch {
      c = null;
    }
    if (c !== null && c > 0) {
      // The extension breaks ties between formats that claim the same content.
      const ext = extensionOf(file.name);
      const bonus = ext && f.extensions.includes(ext) ? 0.01 : 0;
      scored.push({ f, c: Math.min(1, c) + bonus });
    }
  }
  if (scored.length === 0) {
    throw new ImportError(
      'unsupported:format',
      `No importer recognises this ${describeContainer(input)}.`,
      { file: file.name },
      'a Claude Code, Codex, OpenAI, Anthropic, Gemini, OpenHands, SWE-agent or Inspect transcript',
    );
  }
  // Stable: ties keep registry order.
  const best = scored.reduce((a, b) => (b.c > a.c ? b : a));
  return {
    format: best.f,
    confidence: best.c,
    alternatives: scored.filter((s) => s.f !== best.f).map((s) => ({ id: s.f.id, label: s.f.label, confidence: s.c })),
    input,
  };
}

/**
 * What the file is, in words, for "no importer recognises …": a single object on one line is a JSON
 * file (JSONL needs more than one line to be told apart), and the top-level keys say what it holds.
 */
function describeContainer(input: DetectInput): string {
  if (input.container === 'zip') return 'zip archive';
  const first = input.values[0];
  const keys = first && typeof first === 'object' && !Array.isArray(first) ? Object.keys(first) : [];
  const keyText = keys.length ? ` (keys: ${keys.slice(0, 8).join(', ')}${keys.length > 8 ? ', …' : ''})` : Array.isArray(first) ? ` (an array of ${first.length})` : '';
  if (input.container === 'jsonl' && input.values.length > 1) return `JSONL file${keys.length ? ` (first line's keys: ${keys.slice(0, 8).join(', ')}${keys.length > 8 ? ', …' : ''})` : ''}`;
  return `JSON ${Array.isArray(first) ? 'array' : 'object'}${keyText}`;
}

export function extensionOf(name: string): string | undefined {
  const m = /(\.[a-z0-9]+)(\.gz)?$/i.exec(name);
  return m ? m[1].toLowerCase() : undefined;
}
