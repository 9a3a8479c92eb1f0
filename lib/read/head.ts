/**
 * The first bytes of a file, decoded, without decoding the whole file: importers use it to decide
 * between JSONL and a single JSON document exactly the way detection does (FORMATS.md §8).
 */
import { looksLikeJsonl } from './jsonl';
import type { SourceFile } from './source';

export const HEAD_BYTES = 64 * 1024;

export function decodeHead(file: SourceFile, maxBytes = HEAD_BYTES): string {
  const bomLength = file.bom ? (file.encoding === 'utf-8' ? 3 : 2) : 0;
  return new TextDecoder(file.encoding, { fatal: false }).decode(file.bytes.subarray(bomLength, bomLength + maxBytes));
}

/**
 * True when the file is JSONL (one object per line) rather than one JSON document. A first line
 * longer than the head (a pasted image in a Claude Code session) is read through lines().
 */
export function isJsonlFile(file: SourceFile): boolean {
  const head = decodeHead(file);
  const firstNl = head.indexOf('\n');
  if (firstNl >= 0 || file.bytes.length <= HEAD_BYTES) return looksLikeJsonl(head);
  if (!head.trimStart().startsWith('{')) return false;
  const firstTwo: string[] = [];
  for (const line of file.lines()) {
    if (line.text.trim() === '') continue;
    firstTwo.push(line.text);
    if (firstTwo.length === 2) break;
  }
  return looksLikeJsonl(firstTwo.join('\n'));
}
