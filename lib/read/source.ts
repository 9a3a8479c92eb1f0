/**
 * The file seam (STYLE.md §2): importers receive a SourceFile, never a browser `File`.
 * Gzip, BOM / UTF-16, and chunked decoding past V8's string limit are handled here, once.
 */
import { Gunzip } from 'fflate';
import { ImportError } from '../errors';

/** V8's maximum string length is ~2^29-24 chars on 64-bit; stay well below it. */
export const MAX_TEXT_BYTES = 480 * 1024 * 1024;

/**
 * Cap on what one gzip file may decompress to. Past it the file is refused while decompressing
 * (a bomb never gets to allocate its gigabytes). 2 GiB is more than any session we have seen
 * and what lines() can still walk through.
 */
export const MAX_GUNZIP_BYTES = 2 * 1024 * 1024 * 1024;
/**
 * Past this much output, a gzip file whose output/input ratio is above GUNZIP_BOMB_RATIO is
 * refused as a bomb: JSON logs compress 5–30×, deflate's ceiling is ~1030× (runs of one byte).
 */
export const GUNZIP_RATIO_CHECK_AFTER = 64 * 1024 * 1024;
export const GUNZIP_BOMB_RATIO = 300;

export interface ReadLimits {
  maxGunzipBytes: number;
  ratioCheckAfter: number;
  bombRatio: number;
}
let limitsForTests: Partial<ReadLimits> | null = null;
/** Test-only: small limits so the guards run on small fixtures (nobody allocates gigabytes in a test). */
export function withReadLimits<T>(limits: Partial<ReadLimits>, fn: () => T): T {
  const prev = limitsForTests;
  limitsForTests = { ...prev, ...limits };
  try {
    return fn();
  } finally {
    limitsForTests = prev;
  }
}
function readLimits(): ReadLimits {
  return { maxGunzipBytes: MAX_GUNZIP_BYTES, ratioCheckAfter: GUNZIP_RATIO_CHECK_AFTER, bombRatio: GUNZIP_BOMB_RATIO, ...limitsForTests };
}

let chunkSizeForTests: number | null = null;
/** Test-only: force a small decode chunk so the chunked paths run on small fixtures (speedscope's trick). */
export function withMockedChunkSize<T>(size: number, fn: () => T): T {
  const prev = chunkSizeForTests;
  chunkSizeForTests = size;
  try {
    return fn();
  } finally {
    chunkSizeForTests = prev;
  }
}
function chunkSize(): number {
  return chunkSizeForTests ?? 16 * 1024 * 1024;
}

export type Encoding = 'utf-8' | 'utf-16le' | 'utf-16be';

export interface Line {
  /** The line without its end-of-line characters. */
  text: string;
  /** '\n', '\r\n', or '' for a last line without one. */
  eol: '' | '\n' | '\r\n';
  /** 1-based line number. */
  line: number;
}

export interface SourceFile {
  name: string;
  /** Bytes after decompression. */
  bytes: Uint8Array;
  /** The file was gzip-compressed on disk. */
  gzip: boolean;
  /** The text started with a byte-order mark (stripped from `text()` and `lines()`). */
  bom: boolean;
  encoding: Encoding;
  /** The whole decoded text (cached). Throws ImportError past MAX_TEXT_BYTES: use lines(). */
  text(): string;
  /** Lines, decoded chunk by chunk: works for files larger than any one string can hold. */
  lines(): Iterable<Line>;
  /** True when the bytes start with a zip local-file header (Inspect .eval). */
  isZip: boolean;
  /**
   * True once the whole file has been decoded (text() or lines() to the end) without producing a
   * U+FFFD: then every byte was valid UTF-8, and no second, fatal decoding pass is needed to say so.
   */
  decodedClean?(): boolean;
}

function startsWith(bytes: Uint8Array, sig: number[]): boolean {
  if (bytes.length < sig.length) return false;
  for (let i = 0; i < sig.length; i++) if (bytes[i] !== sig[i]) return false;
  return true;
}

export function sourceFromBytes(name: string, input: Uint8Array): SourceFile {
  let bytes = input;
  let gzip = false;
  if (startsWith(bytes, [0x1f, 0x8b])) {
    bytes = gunzipAll(name, bytes);
    gzip = true;
  }
  const isZip = startsWith(bytes, [0x50, 0x4b, 0x03, 0x04]) || startsWith(bytes, [0x50, 0x4b, 0x05, 0x06]);
  const { encoding, bomLength } = detectTextEncoding(bytes);
  const bom = bomLength > 0;
  let cached: string | undefined;
  const body = bytes.subarray(bomLength);
  const seen: DecodeReport = { complete: false, replacement: false };

  return {
    name,
    bytes,
    gzip,
    bom,
    encoding,
    isZip,
    text() {
      if (cached !== undefined) return cached;
      if (body.length > MAX_TEXT_BYTES) {
        throw new ImportError(
          'too-large:text',
          `The file is ${(body.length / 1e6).toFixed(0)} MB, more than one JSON document can hold in memory here.`,
          { file: name },
          'JSONL (one record per line) for files this large',
        );
      }
      cached = decodeChunked(body, encoding, seen);
      return cached;
    },
    lines() {
      return iterateLines(body, encoding, seen);
    },
    decodedClean() {
      return seen.complete && !seen.replacement;
    },
  };
}

/** What decoding the whole body showed: whether it reached the end, and whether any U+FFFD came out. */
interface DecodeReport {
  complete: boolean;
  replacement: boolean;
}

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 * 1024) return `${(n / (1024 * 1024 * 1024)).toFixed(1).replace(/\.0$/, '')} GB`;
  if (n >= 1024 * 1024) return `${Math.round(n / (1024 * 1024))} MB`;
  return n >= 1024 ? `${Math.round(n / 1024)} KB` : `${n} bytes`;
}
const mb = formatBytes;

/** CRC-32 (IEEE, as gzip's trailer), table-driven. */
let crcTable: Uint32Array | undefined;
function crc32(crc: number, bytes: Uint8Array): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  const t = crcTable;
  let c = ~crc;
  for (let i = 0; i < bytes.length; i++) c = t[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

/**
 * Every member of a gzip file (`cat a.gz b.gz` is one valid .gz), decompressed in a stream:
 * the ISIZE trailer is never trusted to size the output (a wrong one used to cut the text short),
 * and the output is capped as it grows, so a bomb is refused after a few MB of input. Each
 * member's trailer is checked once it is decompressed: its CRC-32 and its size (mod 2^32) must be
 * those of what came out. A file cut short (a copy interrupted, a download stopped) ends inside a
 * member, where the last 8 bytes are not its trailer: the check refuses it, as `gzip -t` does
 * ("unexpected end of file"), where the part that decompressed used to be imported in silence
 * (issue 30: 50 of 112 lines, no warning when the cut fell on a line boundary).
 */
function gunzipAll(name: string, input: Uint8Array): Uint8Array {
  const limits = readLimits();
  // 10 bytes of header + an empty deflate block + 8 bytes of trailer.
  if (input.length < 18) throw new ImportError('malformed:gzip', `The file looks gzip-compressed but does not decompress: it is only ${input.length} bytes long.`, { file: name }, 'a valid .gz file');
  const parts: Uint8Array[] = [];
  let total = 0;
  let consumed = 0;
  let refused: ImportError | undefined;
  // Each member: where it starts in the input, and the CRC and size of its output so far.
  const members: Array<{ start: number; crc: number; size: number }> = [{ start: 0, crc: 0, size: 0 }];
  const stream = new Gunzip((chunk) => {
    if (refused) return;
    const m = members[members.length - 1];
    m.crc = crc32(m.crc, chunk);
    m.size += chunk.length;
    total += chunk.length;
    if (total > limits.maxGunzipBytes) {
      refused = new ImportError(
        'too-large:gzip',
        `The gzip file decompresses to more than ${mb(limits.maxGunzipBytes)} (the limit for one file); it was refused after ${mb(consumed)} of its ${mb(input.length)}.`,
        { file: name },
        `a file under ${mb(limits.maxGunzipBytes)} uncompressed`,
      );
      return;
    }
    if (total > limits.ratioCheckAfter && total / Math.max(1, consumed) > limits.bombRatio) {
      refused = new ImportError(
        'malformed:gzip-bomb',
        `The gzip file expands more than ${limits.bombRatio}× (${mb(total)} from ${mb(consumed)} so far), which no transcript does; it is refused as a possible gzip bomb.`,
        { file: name },
        'a gzip file of a transcript (JSON compresses 5–30×)',
      );
      return;
    }
    parts.push(chunk);
  });
  stream.onmember = (offset) => void members.push({ start: offset, crc: 0, size: 0 });
  // Small input steps: the checks above run after every step, before the output gets large.
  const step = 64 * 1024;
  try {
    for (let off = 0; off < input.length && !refused; off += step) {
      const end = Math.min(off + step, input.length);
      consumed = end;
      stream.push(input.subarray(off, end), end === input.length);
    }
  } catch (e) {
    if (refused) throw refused;
    throw new ImportError('malformed:gzip', `The file looks gzip-compressed but does not decompress (${(e as Error).message} after ${consumed} of ${input.length} bytes).`, { file: name }, 'a valid .gz file', { cause: e });
  }
  if (refused) throw refused;
  members.forEach((m, k) => {
    const end = k + 1 < members.length ? members[k + 1].start : input.length;
    const where = members.length > 1 ? ` (member ${k + 1} of ${members.length})` : '';
    const trailer = end - m.start >= 18 ? new DataView(input.buffer, input.byteOffset + end - 8, 8) : undefined;
    const crc = trailer?.getUint32(0, true);
    const size = trailer?.getUint32(4, true);
    if (crc !== m.crc)
      throw new ImportError(
        'malformed:gzip-truncated',
        `The gzip file is cut short or damaged${where}: its trailer's checksum does not match the ${m.size.toLocaleString('en-US')} bytes it decompresses to (\`gzip -t\` says the same). Nothing was imported: a part of a transcript would read as the whole.`,
        { file: name },
        'a complete .gz file (copy or download it again)',
      );
    if (size !== m.size % 2 ** 32)
      throw new ImportError(
        'malformed:gzip-truncated',
        `The gzip file is damaged${where}: its trailer says ${size!.toLocaleString('en-US')} bytes, it decompresses to ${m.size.toLocaleString('en-US')} (the checksum matches).`,
        { file: name },
        'a complete .gz file (copy or download it again)',
      );
  });
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(total);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/**
 * The text encoding of (decompressed) bytes, from their start: a byte-order mark, else the
 * UTF-16 zero-byte pattern, else UTF-8. Only the first 64 bytes are looked at.
 */
export function detectTextEncoding(bytes: Uint8Array): { encoding: Encoding; bomLength: number } {
  if (startsWith(bytes, [0xef, 0xbb, 0xbf])) return { encoding: 'utf-8', bomLength: 3 };
  if (startsWith(bytes, [0xff, 0xfe])) return { encoding: 'utf-16le', bomLength: 2 };
  if (startsWith(bytes, [0xfe, 0xff])) return { encoding: 'utf-16be', bomLength: 2 };
  return { encoding: sniffUtf16WithoutBom(bytes) ?? 'utf-8', bomLength: 0 };
}

/**
 * UTF-16 without a byte-order mark (Windows tools, PowerShell `Out-File`): JSON starts with an
 * ASCII character, so one of every two of the first bytes is zero. UTF-8 JSON never has NUL there.
 */
function sniffUtf16WithoutBom(bytes: Uint8Array): Encoding | undefined {
  const n = Math.min(bytes.length, 64) & ~1;
  if (n < 4) return undefined;
  let evenZeros = 0;
  let oddZeros = 0;
  for (let i = 0; i < n; i += 2) {
    if (bytes[i] === 0) evenZeros++;
    if (bytes[i + 1] === 0) oddZeros++;
  }
  const pairs = n / 2;
  if (oddZeros === pairs && evenZeros === 0) return 'utf-16le';
  if (evenZeros === pairs && oddZeros === 0) return 'utf-16be';
  return undefined;
}

export function sourceFromText(name: string, text: string): SourceFile {
  return sourceFromBytes(name, new TextEncoder().encode(text));
}

/**
 * Chunks of `body` as text, each decoded on its own. UTF-8 chunks end on a character boundary
 * (never inside a multi-byte sequence), so each is decoded without stream mode — V8's fast path,
 * several times faster than a streaming decoder, which re-enters the converter per call.
 * UTF-16 goes through a streaming decoder (stream mode keeps a pair split across chunks intact).
 */
function* decodedChunks(body: Uint8Array, encoding: Encoding, report?: DecodeReport): Generator<string> {
  for (const chunk of decodedChunksRaw(body, encoding)) {
    if (report && !report.replacement && chunk.indexOf('\uFFFD') >= 0) report.replacement = true;
    yield chunk;
  }
  if (report) report.complete = true;
}

function* decodedChunksRaw(body: Uint8Array, encoding: Encoding): Generator<string> {
  const size = chunkSize();
  // fatal: false → invalid UTF-8 becomes U+FFFD; the importer reports it as a warning.
  const first = new TextDecoder(encoding, { fatal: false });
  if (encoding !== 'utf-8') {
    if (body.length <= size) {
      yield first.decode(body);
      return;
    }
    for (let off = 0; off < body.length; off += size) yield first.decode(body.subarray(off, Math.min(off + size, body.length)), { stream: off + size < body.length });
    return;
  }
  // Only the very start may hold a byte-order mark to drop (as one streaming decoder would).
  const rest = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
  // The first chunk is small: detection reads 5 lines (readJsonl limit) and stops; decoding
  // 16 MB for them was a third of a big import's decoding.
  let step = Math.min(size, 256 * 1024);
  for (let off = 0; off < body.length; step = size) {
    let end = Math.min(off + step, body.length);
    // Back off over continuation bytes (10xxxxxx) so the next chunk starts a character.
    for (let k = 0; k < 3 && end < body.length && end > off + 1 && (body[end] & 0xc0) === 0x80; k++) end--;
    yield (off === 0 ? first : rest).decode(body.subarray(off, end));
    off = end;
  }
}

function decodeChunked(body: Uint8Array, encoding: Encoding, report?: DecodeReport): string {
  const parts = [...decodedChunks(body, encoding, report)];
  return parts.length === 1 ? parts[0] : parts.join('');
}

function* iterateLines(body: Uint8Array, encoding: Encoding, report?: DecodeReport): Generator<Line> {
  // Pieces of the unfinished line, joined once when its newline arrives: a single line of
  // hundreds of MB is copied once, not once per chunk (prepending a growing carry was quadratic).
  let parts: string[] = [];
  let lineNo = 1;
  for (const chunk of decodedChunks(body, encoding, report)) {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf('\n', start);
      if (nl < 0) break;
      let text = parts.length > 0 ? parts.join('') + chunk.slice(start, nl) : chunk.slice(start, nl);
      parts = [];
      const crlf = text.length > 0 && text.charCodeAt(text.length - 1) === 13;
      if (crlf) text = text.slice(0, -1);
      yield { text, eol: crlf ? '\r\n' : '\n', line: lineNo++ };
      start = nl + 1;
    }
    if (start < chunk.length) parts.push(start === 0 ? chunk : chunk.slice(start));
  }
  const rest = parts.join('');
  if (rest.length > 0) yield { text: rest, eol: '', line: lineNo };
}

/** Count of U+FFFD replacement characters: invalid bytes in the source. */
export function countReplacementChars(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\uFFFD'); i >= 0; i = text.indexOf('\uFFFD', i + 1)) n++;
  return n;
}

/**
 * Byte offset of the first byte sequence that is not valid UTF-8, or -1. Decoding replaces such
 * bytes with U+FFFD (a literal U+FFFD in the file is valid and not counted): the native decoder in
 * fatal mode answers the common case; the offset is looked for only when it fails.
 */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  const size = chunkSize();
  const fatal = new TextDecoder('utf-8', { fatal: true });
  try {
    for (let off = 0; off < bytes.length; off += size) fatal.decode(bytes.subarray(off, Math.min(off + size, bytes.length)), { stream: off + size < bytes.length });
    return -1;
  } catch {
    // Find the first bad sequence: a lead byte with the wrong number of continuation bytes.
    for (let i = 0; i < bytes.length; ) {
      const b = bytes[i];
      const need = b < 0x80 ? 0 : b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : -1;
      if (need < 0) return i;
      for (let k = 1; k <= need; k++) if (i + k >= bytes.length || (bytes[i + k] & 0xc0) !== 0x80) return i;
      i += need + 1;
    }
    return 0;
  }
}
