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
