/**
 * Bytes → Transcript: the one entry point used by the worker, the CLI and the tests.
 */
import { ImportError } from '../errors';
import type { ImportWarning, Transcript } from '../model/types';
import { firstInvalidUtf8, sourceFromBytes, type SourceFile } from '../read/source';
import { detect, type Detection } from './detect';
import { formatById } from './registry';
import { IMPLAUSIBLE_USAGE, implausibleUsageMessage, usagePlausibility } from '../tokens/usage-sanity';
import type { ParseOptions } from './types';

export interface ImportOptions extends ParseOptions {
  /** Force a format instead of detecting (the user's "import as …" choice). */
  format?: string;
  /** Id to give the transcript (default: derived from content). */
  id?: string;
}

export interface ImportResult {
  transcript: Transcript;
  detection?: Detection;
}

export function importFile(file: SourceFile, options: ImportOptions = {}): ImportResult {
  let detection: Detection | undefined;
  let format = options.format ? formatById(options.format) : undefined;
  if (options.format && !format) throw new ImportError('unsupported:format', `Unknown format "${options.format}".`, { file: file.name });
  if (!format) {
    detection = detect(file);
    format = detection.format;
  }
  const { transcript, warnings } = format.parse(file, options);
  if (transcript.messages.length === 0) {
    throw new ImportError('empty:transcript', 'The file holds no messages: there is nothing to inspect.', { file: file.name }, 'at least one message');
  }
  const id = options.id ?? contentId(file);
  const all = [...warnings, ...decodingWarning(file, [...transcript.warnings, ...warnings]), ...usageWarning(transcript)];
  const merged = all.length ? { ...transcript, warnings: [...transcript.warnings, ...all] } : transcript;
  return { transcript: Object.freeze({ ...merged, id }) as Transcript, detection };
}

/** Recorded usage implausible next to the content (issue 31): replay and simulate use our counts instead. */
function usageWarning(t: Pick<Transcript, 'messages' | 'markers' | 'tools' | 'usage'>): ImportWarning[] {
  if (t.usage.length === 0) return [];
  const message = implausibleUsageMessage(usagePlausibility(t));
  return message ? [{ code: IMPLAUSIBLE_USAGE, message }] : [];
}

/**
 * Invalid UTF-8 is decoded as U+FFFD, so an export writes U+FFFD where the file had other bytes:
 * said once for every format (the trajectory formats already say it their own way).
 */
function decodingWarning(file: SourceFile, have: readonly ImportWarning[]): ImportWarning[] {
  if (file.encoding !== 'utf-8' || file.isZip || have.some((w) => w.code === 'decoding:invalid-utf8')) return [];
  // The parse decoded every byte and no U+FFFD came out: all valid (no second, fatal pass).
  if (file.decodedClean?.()) return [];
  const at = firstInvalidUtf8(file.bytes);
  if (at < 0) return [];
  let line = 1;
  for (let i = 0; i < at; i++) if (file.bytes[i] === 10) line++;
  return [{ code: 'decoding:invalid-utf8', message: `The file holds bytes that are not valid UTF-8 (first at byte ${at}, line ${line}); they are shown as \uFFFD and an export writes \uFFFD there.`, line }];
}

export function importBytes(name: string, bytes: Uint8Array, options: ImportOptions = {}): ImportResult {
  return importFile(sourceFromBytes(name, bytes), options);
}

/**
 * A short content hash so the same file imported twice is recognised: two 32-bit MurmurHash3
 * lanes (different seeds) over the bytes read four at a time, and the length. The byte-at-a-time
 * FNV-1a it replaces (`legacyContentId`, ids starting with "t") took 8–11 % of a large import.
 */
export function contentId(file: SourceFile): string {
  const b = file.bytes;
  const words = b.length >>> 2;
  // Four bytes at a time, little-endian; an unaligned view is copied once (a subarray of a file).
  const aligned = b.byteOffset % 4 === 0 ? b : b.slice(0, words * 4);
  const w = new Int32Array(aligned.buffer, aligned.byteOffset, words);
  let h1 = 0x9747b28c;
  let h2 = 0x5bd1e995;
  for (let i = 0; i < words; i++) {
    let k = Math.imul(w[i], 0xcc9e2d51);
    k = Math.imul((k << 15) | (k >>> 17), 0x1b873593);
    h1 ^= k;
    h1 = (h1 << 13) | (h1 >>> 19);
    h1 = (Math.imul(h1, 5) + 0xe6546b64) | 0;
    h2 ^= k;
    h2 = (h2 << 11) | (h2 >>> 21);
    h2 = (Math.imul(h2, 9) + 0x52dce729) | 0;
  }
  let tail = 0;
  for (let i = b.length - 1; i >= words * 4; i--) tail = (tail << 8) | b[i];
  const fmix = (h: number) => {
    h ^= b.length;
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    return (h ^ (h >>> 16)) >>> 0;
  };
  const k = Math.imul(Math.imul(tail, 0xcc9e2d51), 0x1b873593);
  return 'u' + fmix(h1 ^ k).toString(36) + fmix(h2 ^ k).toString(36) + b.length.toString(36);
}

/** The content hash of earlier versions (FNV-1a, a byte at a time; ids starting with "t"): a library imported by them still recognises its files. */
export function legacyContentId(file: SourceFile): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  const b = file.bytes;
  for (let i = 0; i < b.length; i++) {
    h1 = Math.imul(h1 ^ b[i], 0x01000193);
    h2 = Math.imul(h2 ^ b[i], 0x5bd1e995);
  }
  return 't' + (h1 >>> 0).toString(36) + (h2 >>> 0).toString(36) + b.length.toString(36);
}
