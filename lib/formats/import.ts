/**
 * Bytes → Transcript: the one entry point used by the worker, the CLI and the tests.
 */
import { ImportError } from '../errors';
import type { ImportWarning, Transcript } from '../model/types';
import { firstInvalidUtf8, sourceFromBytes, type SourceFile } from '../read/source';
import { detect, type Detection } from './detect';
import { formatById } from './registry';
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
  const all = [...warnings, ...decodingWarning(file, [...transcript.warnings, ...warnings])];
  const merged = all.length ? { ...transcript, warnings: [...transcript.warnings, ...all] } : transcript;
  return { transcript: Object.freeze({ ...merged, id }) as Transcript, detection };
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

/** A short content hash (FNV-1a over the bytes) so the same file imported twice is recognised. */
export function contentId(file: SourceFile): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  const b = file.bytes;
  for (let i = 0; i < b.length; i++) {
    h1 = Math.imul(h1 ^ b[i], 0x01000193);
    h2 = Math.imul(h2 ^ b[i], 0x5bd1e995);
  }
  return 't' + (h1 >>> 0).toString(36) + (h2 >>> 0).toString(36) + b.length.toString(36);
}
