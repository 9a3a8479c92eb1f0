/**
 * Bytes → Transcript: the one entry point used by the worker, the CLI and the tests.
 */
import { ImportError } from '../errors';
import type { Transcript } from '../model/types';
import { sourceFromBytes, type SourceFile } from '../read/source';
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
  const merged = warnings.length ? { ...transcript, warnings: [...transcript.warnings, ...warnings] } : transcript;
  return { transcript: Object.freeze({ ...merged, id }) as Transcript, detection };
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
