import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusFiles } from '@/tests/corpus';
import type { AttachmentBlock } from '../model/types';
import { importBytes } from './import';
import { IMAGE_TOKENS, imageTokens } from '../tokens/count';
import { imageFields, imageSize, THUMBNAIL_MAX_CHARS, thumbnailOf, thumbnailOfDataUrl } from './images';

// A 1×1 PNG.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script></svg>').toString('base64');

describe('thumbnailOf', () => {
  it('accepts inline PNG, JPEG, GIF and WebP as data: URLs', () => {
    for (const t of ['image/png', 'image/jpeg', 'image/gif', 'image/webp', ' IMAGE/PNG ']) expect(thumbnailOf(t, PNG)).toBe(`data:${t.trim().toLowerCase()};base64,${PNG}`);
    expect(thumbnailOf('image/png', `${PNG.slice(0, 20)}\n${PNG.slice(20)}`)).toBe(`data:image/png;base64,${PNG}`);
  });
  it('refuses SVG, non-base64 payloads, empty and oversized data, and anything not a string', () => {
    expect(thumbnailOf('image/svg+xml', SVG)).toBeUndefined();
    expect(thumbnailOf('image/png', '"><img src=x onerror=alert(1)>')).toBeUndefined();
    expect(thumbnailOf('image/png', '')).toBeUndefined();
    expect(thumbnailOf('image/png', 'A'.repeat(THUMBNAIL_MAX_CHARS + 4))).toBeUndefined();
    expect(thumbnailOf('application/pdf', PNG)).toBeUndefined();
    expect(thumbnailOf(undefined, PNG)).toBeUndefined();
    expect(thumbnailOf('image/png', 42)).toBeUndefined();
  });
  it('reads data: URLs (with parameters), never remote URLs', () => {
    expect(thumbnailOfDataUrl(`data:image/png;base64,${PNG}`)).toBe(`data:image/png;base64,${PNG}`);
    expect(thumbnailOfDataUrl(`data:image/jpeg;name=a.jpg;base64,${PNG}`)).toBe(`data:image/jpeg;base64,${PNG}`);
    expect(thumbnailOfDataUrl(`data:image/svg+xml;base64,${SVG}`)).toBeUndefined();
    expect(thumbnailOfDataUrl('https://example.com/a.png')).toBeUndefined();
    expect(thumbnailOfDataUrl('data:image/png,notbase64')).toBeUndefined();
  });
});

/** The attachments of a file after import. */
function attachments(name: string, text: string): AttachmentBlock[] {
  return importBytes(name, new TextEncoder().encode(text)).transcript.messages.flatMap((m) => m.blocks).filter((b): b is AttachmentBlock => b.kind === 'attachment');
}

/** A real corpus file, read as JSON, with an image spliced into its first user message. */
function withImage(family: string, match: string, splice: (doc: Record<string, unknown>, image: (type: string, data: string) => unknown) => void, image: (type: string, data: string) => unknown): string {
  const file = corpusFiles(family).find((f) => f.includes(match))!;
  const doc = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  splice(doc, image);
  return JSON.stringify(doc, null, 2);
}

const asParts = (content: unknown, text: (t: string) => unknown) => (Array.isArray(content) ? content : [text(String(content))]);

describe('importers keep inline images as thumbnails (real files with an image spliced in)', () => {
  const cases: Array<{ format: string; name: string; text: (type: string, data: string) => string }> = [
    {
      format: 'anthropic-messages',
      name: 'request.json',
      text: (type, data) =>
        withImage(
          'anthropic-messages',
          'reasoning-high',
          // The file is a response: it becomes the answer to a request whose user message holds the image.
          (doc, image) => {
            const answer = { role: 'assistant', content: doc.content };
            for (const k of Object.keys(doc)) if (k !== 'model') delete doc[k];
            doc.max_tokens = 1024;
            doc.messages = [{ role: 'user', content: [{ type: 'text', text: 'What is in this picture?' }, image(type, data)] }, answer];
          },
          (t, d) => ({ type: 'image', source: { type: 'base64', media_type: t, data: d } }),
        ),
    },
    {
      format: 'openai-chat',
      name: 'chat.json',
      text: (type, data) =>
        withImage(
          'openai-chat',
          'completion-text',
          // The file is a completion: its message becomes the answer to a request with the image.
          (doc, image) => {
            const answer = (doc.choices as Array<{ message: unknown }>)[0].message;
            for (const k of Object.keys(doc)) if (k !== 'model') delete doc[k];
            doc.messages = [{ role: 'user', content: [{ type: 'text', text: 'What is in this picture?' }, image(type, data)] }, answer];
          },
          (t, d) => ({ type: 'image_url', image_url: { url: `data:${t};base64,${d}` } }),
        ),
    },
    {
      format: 'gemini-api',
      name: 'contents.json',
      text: (type, data) =>
        withImage(
          'gemini-api',
          'inspect_live_gemini_request_contents',
          (doc, image) => {
            const contents = (doc.contents ?? doc) as Array<{ role: string; parts: unknown[] }>;
            contents.find((c) => c.role === 'user')!.parts.push(image(type, data));
          },
          (t, d) => ({ inlineData: { mimeType: t, data: d } }),
        ),
    },
  ];

  for (const c of cases) {
    it(`${c.format}: a PNG gets a thumbnail, an SVG does not`, () => {
      const png = attachments(c.name, c.text('image/png', PNG));
      expect(png.map((a) => a.thumbnail)).toContain(`data:image/png;base64,${PNG}`);
      const svg = attachments(c.name, c.text('image/svg+xml', SVG));
      expect(svg.length).toBeGreaterThan(0);
      expect(svg.every((a) => a.thumbnail === undefined)).toBe(true);
    });
  }

  it('claude-code: an image in a user line gets a thumbnail', () => {
    const file = corpusFiles('claude-code').find((f) => f.includes('simonw_sample_session.jsonl'))!;
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const at = lines.findIndex((l) => l.includes('"type":"user"') || l.includes('"type": "user"'));
    const rec = JSON.parse(lines[at]) as { message: { content: unknown } };
    rec.message.content = [...asParts(rec.message.content, (t) => ({ type: 'text', text: t })), { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }];
    lines[at] = JSON.stringify(rec);
    expect(attachments(path.basename(file), lines.join('\n')).map((a) => a.thumbnail)).toEqual([`data:image/png;base64,${PNG}`]);
  });
});

describe('image size from the header, and its tokens', () => {
  const bytes = (...parts: Array<number[] | string>) => Uint8Array.from(parts.flatMap((p) => (typeof p === 'string' ? [...p].map((c) => c.charCodeAt(0)) : p)));
  const be32 = (n: number) => [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
  const le16 = (n: number) => [n & 255, (n >>> 8) & 255];

  it('reads PNG, GIF, JPEG and WebP headers', () => {
    expect(imageSize(Uint8Array.from(Buffer.from(PNG, 'base64')))).toEqual({ width: 1, height: 1 });
    expect(imageSize(bytes([0x89], 'PNG', [13, 10, 26, 10], be32(13), 'IHDR', be32(1568), be32(1000)))).toEqual({ width: 1568, height: 1000 });
    expect(imageSize(bytes('GIF89a', le16(320), le16(200)))).toEqual({ width: 320, height: 200 });
    // JPEG: SOI, an APP0 segment to skip, then SOF0 (height before width).
    const app0 = [0xff, 0xe0, 0, 16, ...'JFIF'.split('').map((c) => c.charCodeAt(0)), 0, 1, 1, 0, 0, 1, 0, 1, 0, 0];
    expect(imageSize(bytes([0xff, 0xd8], app0, [0xff, 0xc0, 0, 17, 8], [3, 0x20], [5, 0x00], [3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]))).toEqual({ width: 1280, height: 800 });
    expect(imageSize(bytes('RIFF', be32(0), 'WEBP', 'VP8X', be32(10), [0, 0, 0, 0], [0xff, 0x04, 0], [0x1f, 0x03, 0]))).toEqual({ width: 1280, height: 800 });
    // VP8L: 14 bits width − 1, 14 bits height − 1 after the 0x2f signature.
    const bits = (1280 - 1) | ((800 - 1) << 14);
    expect(imageSize(bytes('RIFF', be32(0), 'WEBP', 'VP8L', be32(5), [0x2f, bits & 255, (bits >>> 8) & 255, (bits >>> 16) & 255, (bits >>> 24) & 255]))).toEqual({ width: 1280, height: 800 });
    expect(imageSize(bytes('not an image at all'))).toBeUndefined();
  });

  it("prices images like the providers' documentation", () => {
    // OpenAI high detail: 1024×1024 → 765, 2048×4096 → 1105 (platform docs' own examples).
    expect(imageTokens(1024, 1024, 'o200k')).toBe(765);
    expect(imageTokens(2048, 4096, 'o200k')).toBe(1105);
    // Anthropic: 200×200 ≈ 54, 1000×1000 ≈ 1334, a large screenshot capped near 1,600.
    expect(imageTokens(200, 200, 'chars4')).toBe(54);
    expect(imageTokens(1000, 1000, 'chars4')).toBe(1334);
    expect(imageTokens(3840, 2160, 'chars4')).toBe(IMAGE_TOKENS);
  });

  it('an imported inline image carries its size and is counted from it', () => {
    const request = { model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }] }] };
    const [image] = attachments('request.json', JSON.stringify(request, null, 2));
    expect(image).toMatchObject({ width: 1, height: 1, tokens: 1 });
    // Without a readable size the flat estimate stands.
    expect(imageFields(`data:image/png;base64,${Buffer.from('no header').toString('base64')}`)).toEqual({ thumbnail: `data:image/png;base64,${Buffer.from('no header').toString('base64')}` });
  });
});
