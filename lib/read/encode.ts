/**
 * The way back from text to bytes. An export of a file in its own format is written in the
 * encoding the source was read in (source.ts): a Windows tool's UTF-16 file comes back as UTF-16
 * with the same byte-order mark, a UTF-8 file with a BOM keeps its BOM. Conversions to another
 * format are new files and are written as plain UTF-8 (what every API and tool reads).
 */
import { Gunzip, gzipSync } from 'fflate';
import { detectTextEncoding, type Encoding, type SourceFile } from './source';

/** How a source's text was stored as bytes. */
export interface TextEncodingOf {
  encoding: Encoding;
  /** The text started with a byte-order mark. */
  bom: boolean;
  /** The file was gzip-compressed. */
  gzip: boolean;
}

/** Plain UTF-8 without a BOM: conversions and every new file. */
export const UTF8: TextEncodingOf = Object.freeze({ encoding: 'utf-8', bom: false, gzip: false });

export function textEncodingOf(file: Pick<SourceFile, 'encoding' | 'bom' | 'gzip'>): TextEncodingOf {
  return { encoding: file.encoding, bom: file.bom, gzip: file.gzip };
}

/** Enough decompressed bytes to see a BOM and the UTF-16 zero-byte pattern (source.ts looks at 64). */
const HEAD_BYTES = 64;

/**
 * The encoding of a stored original without decoding it: only the head of a gzip stream is
 * inflated, so asking costs microseconds even for a file of hundreds of MB.
 */
export function sniffTextEncoding(bytes: Uint8Array): TextEncodingOf {
  const gzip = bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
  let head = bytes;
  if (gzip) {
    const parts: Uint8Array[] = [];
    let have = 0;
    try {
      const inflater = new Gunzip({}, (data) => {
        parts.push(data);
        have += data.length;
      });
      const step = 4096;
      for (let off = 0; off < bytes.length && have < HEAD_BYTES; off += step) {
        const end = Math.min(off + step, bytes.length);
        inflater.push(bytes.subarray(off, end), end === bytes.length);
      }
    } catch {
      // A broken stream: the import would have refused it; what was inflated so far still tells.
    }
    head = new Uint8Array(have);
    let at = 0;
    for (const p of parts) {
      head.set(p.subarray(0, head.length - at), at);
      at += p.length;
      if (at >= head.length) break;
    }
  }
  const { encoding, bomLength } = detectTextEncoding(head.subarray(0, HEAD_BYTES));
  return { encoding, bom: bomLength > 0, gzip };
}

const BOM_BYTES: Record<Encoding, readonly number[]> = {
  'utf-8': [0xef, 0xbb, 0xbf],
  'utf-16le': [0xff, 0xfe],
  'utf-16be': [0xfe, 0xff],
};

/**
 * `text` as bytes in `target`'s encoding, with its BOM when it had one. Gzip is not applied here
 * (see `encodeExport`). UTF-16 is written code unit by code unit, so what was read comes back
 * exactly (the decoder never produced a lone surrogate; one from elsewhere is written as is).
 */
export function encodeText(text: string, target: Pick<TextEncodingOf, 'encoding' | 'bom'> = UTF8): Uint8Array {
  const bom = target.bom ? BOM_BYTES[target.encoding] : [];
  if (target.encoding === 'utf-8') {
    const body = new TextEncoder().encode(text);
    if (bom.length === 0) return body;
    const out = new Uint8Array(bom.length + body.length);
    out.set(bom, 0);
    out.set(body, bom.length);
    return out;
  }
  const out = new Uint8Array(bom.length + text.length * 2);
  out.set(bom, 0);
  const little = target.encoding === 'utf-16le';
  for (let i = 0, o = bom.length; i < text.length; i++, o += 2) {
    const unit = text.charCodeAt(i);
    out[little ? o : o + 1] = unit & 0xff;
    out[little ? o + 1 : o] = unit >>> 8;
  }
  return out;
}

/**
 * The bytes of an export: a binary format's own bytes (Inspect .eval zips) as they are, else the
 * text in the source's encoding and BOM. A file whose name keeps the source's `.gz` (an export
 * with no projection) is gzip-compressed again, so its bytes are what its name says; a compacted
 * export is named without `.gz` (serialize-util compactedFileName) and written uncompressed.
 */
export function encodeExport(out: { text: string; bytes?: Uint8Array; fileName: string }, source: TextEncodingOf = UTF8): Uint8Array {
  if (out.bytes) return out.bytes;
  const bytes = encodeText(out.text, source);
  return source.gzip && /\.gz$/i.test(out.fileName) ? gzipSync(bytes) : bytes;
}
