/**
 * Thumbnails of images a transcript carries inline (base64), so the message list can show them
 * with their token cost (UI.md "images as thumbnails"). Only raster types a browser decodes
 * without running anything (never SVG: it can carry script), only inline data (a remote URL is
 * never fetched: nothing leaves the browser), and only up to THUMBNAIL_MAX_CHARS (a larger image
 * is listed by type and size, not drawn, so one screenshot cannot bloat the stored messages).
 */
export const THUMBNAIL_TYPES: ReadonlySet<string> = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
export const THUMBNAIL_MAX_CHARS = 400_000;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** `data:` URL of an inline image fit for a thumbnail, or undefined. */
export function thumbnailOf(mediaType: unknown, base64: unknown): string | undefined {
  if (typeof mediaType !== 'string' || typeof base64 !== 'string') return undefined;
  const type = mediaType.trim().toLowerCase();
  if (!THUMBNAIL_TYPES.has(type)) return undefined;
  const data = base64.replace(/\s+/g, '');
  if (data.length === 0 || data.length > THUMBNAIL_MAX_CHARS || !BASE64.test(data)) return undefined;
  return `data:${type};base64,${data}`;
}

/** The same for an image given as a `data:` URL (OpenAI `image_url`, Responses `input_image`, Inspect). */
export function thumbnailOfDataUrl(url: unknown): string | undefined {
  if (typeof url !== 'string' || !url.startsWith('data:')) return undefined;
  const m = /^data:([^;,]+)(?:;[^;,=]+=[^;,]*)*;base64,([\s\S]*)$/.exec(url);
  return m ? thumbnailOf(m[1], m[2]) : undefined;
}

/** Pixel size of an image from its header (PNG, GIF, JPEG, WebP), or undefined when unreadable. */
export function imageSize(bytes: Uint8Array): { width: number; height: number } | undefined {
  const at = (i: number) => bytes[i] ?? 0;
  const be16 = (i: number) => (at(i) << 8) | at(i + 1);
  const le16 = (i: number) => at(i) | (at(i + 1) << 8);
  const be32 = (i: number) => ((at(i) << 24) >>> 0) + (at(i + 1) << 16) + (at(i + 2) << 8) + at(i + 3);
  const ascii = (i: number, n: number) => String.fromCharCode(...bytes.subarray(i, i + n));
  const ok = (width: number, height: number) => (width > 0 && height > 0 ? { width, height } : undefined);
  if (at(0) === 0x89 && ascii(1, 3) === 'PNG' && ascii(12, 4) === 'IHDR') return ok(be32(16), be32(20));
  if (ascii(0, 4) === 'GIF8') return ok(le16(6), le16(8));
  if (ascii(0, 4) === 'RIFF' && ascii(8, 4) === 'WEBP') {
    const chunk = ascii(12, 4);
    if (chunk === 'VP8X') return ok(1 + (at(24) | (at(25) << 8) | (at(26) << 16)), 1 + (at(27) | (at(28) << 8) | (at(29) << 16)));
    if (chunk === 'VP8 ') return ok(le16(26) & 0x3fff, le16(28) & 0x3fff);
    if (chunk === 'VP8L') {
      // After the 0x2f signature at 20: 14 bits width − 1, then 14 bits height − 1, little-endian.
      const b = (at(21) | (at(22) << 8) | (at(23) << 16) | (at(24) << 24)) >>> 0;
      return ok((b & 0x3fff) + 1, ((b >>> 14) & 0x3fff) + 1);
    }
    return undefined;
  }
  if (at(0) === 0xff && at(1) === 0xd8) {
    // JPEG: walk the segments to the first start-of-frame marker.
    let i = 2;
    while (i + 9 < bytes.length) {
      if (at(i) !== 0xff) return undefined;
      const marker = at(i + 1);
      if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
        i += 2;
        continue;
      }
      const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
      if (isFrame) return ok(be16(i + 7), be16(i + 5));
      i += 2 + be16(i + 2);
    }
  }
  return undefined;
}

/** The fields an importer adds to an attachment for an inline image: its thumbnail and, when its header says, its size. */
export function imageFields(thumbnail: string | undefined): { thumbnail?: string; width?: number; height?: number } {
  if (!thumbnail) return {};
  const comma = thumbnail.indexOf(',');
  let size: { width: number; height: number } | undefined;
  try {
    // The header is in the first bytes (a JPEG's frame marker may follow its EXIF block: decode it all; it is size-capped).
    const raw = atob(thumbnail.slice(comma + 1));
    const bytes = new Uint8Array(raw.length);
    for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
    size = imageSize(bytes);
  } catch {
    size = undefined;
  }
  return { thumbnail, ...size };
}
