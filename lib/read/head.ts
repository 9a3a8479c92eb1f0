/**
 * The first bytes of a file, decoded, without decoding the whole file: importers use it to decide
 * between JSONL and a single JSON document exactly the way detection does (FORMATS.md §8).
 */
import { isRecord } from './json-doc';
import { looksLikeJsonl, readJsonl } from './jsonl';
import type { SourceFile } from './source';

export const HEAD_BYTES = 64 * 1024;

export function decodeHead(file: SourceFile, maxBytes = HEAD_BYTES): string {
  return decodeHeadAfterBlanks(file, maxBytes);
}

/** Bytes of white space (space, tab, CR, LF) at the start of a UTF-8 file, after its BOM. */
export function leadingBlankBytes(file: SourceFile): number {
  if (file.encoding !== 'utf-8') return 0;
  const b = file.bytes;
  let i = file.bom ? 3 : 0;
  while (i < b.length && (b[i] === 0x20 || b[i] === 0x0a || b[i] === 0x0d || b[i] === 0x09)) i++;
  return i - (file.bom ? 3 : 0);
}

/** The head from the first byte that is not white space (leading blank lines say nothing about the format). */
export function decodeHeadAfterBlanks(file: SourceFile, maxBytes = HEAD_BYTES): string {
  const start = (file.bom ? (file.encoding === 'utf-8' ? 3 : 2) : 0) + leadingBlankBytes(file);
  return new TextDecoder(file.encoding, { fatal: false }).decode(file.bytes.subarray(start, start + maxBytes));
}

/**
 * True when the file is JSONL (one object per line) rather than one JSON document. A first line
 * longer than the head (a pasted image in a Claude Code session) is read through lines().
 */
export function isJsonlFile(file: SourceFile): boolean {
  const head = decodeHead(file);
  const firstNl = head.indexOf('\n');
  if (firstNl >= 0 || file.bytes.length - leadingBlankBytes(file) <= HEAD_BYTES) return looksLikeJsonl(head);
  if (!head.trimStart().startsWith('{')) return false;
  const firstTwo: string[] = [];
  for (const line of file.lines()) {
    if (line.text.trim() === '') continue;
    firstTwo.push(line.text);
    if (firstTwo.length === 2) break;
  }
  if (firstTwo.length === 1) {
    // One line, longer than the head (a whole request on one line): JSONL when it is one object.
    // Read as JSONL (remembered per file), so the importer and the document's root take that parse
    // instead of parsing the line again.
    try {
      const set = readJsonl(file);
      return set.records.length === 1 && set.warnings.length === 0 && isRecord(set.records[0].value);
    } catch {
      return looksLikeJsonl(firstTwo[0]);
    }
  }
  return looksLikeJsonl(firstTwo.join('\n'));
}
