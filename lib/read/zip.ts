/**
 * Zip archives (Inspect `.eval` logs are zips: header.json, samples/<id>_epoch_<n>.json, …),
 * read with fflate. A zip is untrusted input: the sizes its central directory declares are summed
 * BEFORE anything is inflated and capped (a zip bomb declares, or inflates to, gigabytes), and the
 * inflated sizes are checked against the declared ones afterwards.
 */
import { unzipSync, type UnzipFileInfo } from 'fflate';
import { ImportError } from '../errors';

/** Default cap on the total uncompressed size of the entries read: well below the browser's memory. */
export const MAX_ZIP_UNCOMPRESSED_BYTES = 512 * 1024 * 1024;
export const MAX_ZIP_ENTRIES = 100_000;

export interface ZipEntryInfo {
  name: string;
  /** Compressed size in bytes. */
  compressedSize: number;
  /** Uncompressed size as the archive declares it. */
  size: number;
  /** PKZIP compression method (0 = stored, 8 = deflate). */
  compression: number;
}

export interface ReadZipOptions {
  /** File name for error messages. */
  fileName?: string;
  /** Only these entries are inflated (default: all). */
  filter?: (entry: ZipEntryInfo) => boolean;
  /** Cap on the summed uncompressed size of the inflated entries. */
  maxTotalBytes?: number;
}

function toInfo(f: UnzipFileInfo): ZipEntryInfo {
  return { name: f.name, compressedSize: f.size, size: f.originalSize, compression: f.compression };
}

function unreadable(fileName: string, cause: unknown): ImportError {
  return new ImportError('malformed:zip', 'The file is a zip archive that cannot be read.', { file: fileName }, 'a valid zip archive (.eval)', { cause });
}

/** The entries of a zip archive, from its central directory only (nothing is inflated). */
export function listZipEntries(bytes: Uint8Array, fileName = 'archive.zip'): ZipEntryInfo[] {
  const entries: ZipEntryInfo[] = [];
  try {
    unzipSync(bytes, {
      filter: (f) => {
        entries.push(toInfo(f));
        return false;
      },
    });
  } catch (e) {
    throw unreadable(fileName, e);
  }
  return entries;
}

/**
 * Inflate the entries of a zip archive (all, or those `filter` accepts), refusing archives whose
 * entries would exceed `maxTotalBytes` uncompressed. Returns entry name → bytes, in archive order.
 */
export function readZipEntries(bytes: Uint8Array, options: ReadZipOptions = {}): Map<string, Uint8Array> {
  const fileName = options.fileName ?? 'archive.zip';
  const cap = options.maxTotalBytes ?? MAX_ZIP_UNCOMPRESSED_BYTES;
  const wanted = listZipEntries(bytes, fileName).filter((e) => !e.name.endsWith('/') && (options.filter ? options.filter(e) : true));
  if (wanted.length > MAX_ZIP_ENTRIES) {
    throw new ImportError('too-large:zip', `The zip archive holds ${wanted.length} entries.`, { file: fileName }, `at most ${MAX_ZIP_ENTRIES} entries`);
  }
  let declared = 0;
  for (const e of wanted) {
    declared += e.size;
    if (declared > cap) {
      throw new ImportError(
        'too-large:zip',
        `The zip archive would expand to more than ${formatBytes(cap)} (at entry "${e.name}"); it is refused as a possible zip bomb.`,
        { file: fileName, path: e.name },
        `an archive under ${formatBytes(cap)} uncompressed`,
      );
    }
  }
  const names = new Set(wanted.map((e) => e.name));
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(bytes, { filter: (f) => names.has(f.name) && !f.name.endsWith('/') });
  } catch (e) {
    throw unreadable(fileName, e);
  }
  const out = new Map<string, Uint8Array>();
  let actual = 0;
  for (const e of wanted) {
    const data = Object.prototype.hasOwnProperty.call(files, e.name) ? files[e.name] : undefined;
    if (!data) continue;
    // An entry that inflates to other than its declared size is corrupt (or lying about its size).
    if (data.length !== e.size) {
      throw new ImportError('malformed:zip', `Entry "${e.name}" inflates to ${data.length} bytes but declares ${e.size}.`, { file: fileName, path: e.name }, 'a valid zip archive (.eval)');
    }
    actual += data.length;
    if (actual > cap) throw new ImportError('too-large:zip', `The zip archive expands to more than ${formatBytes(cap)}.`, { file: fileName }, `an archive under ${formatBytes(cap)} uncompressed`);
    out.set(e.name, data);
  }
  return out;
}

function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${Math.round(n / (1024 * 1024))} MB` : n >= 1024 ? `${Math.round(n / 1024)} KB` : `${n} bytes`;
}
