/** The decoder lives in lib/categories (the summaries' command outcomes read through it too). */
export { decodeResult, type DecodedResult } from '@/lib/categories/decode-result';
