import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusFiles } from '@/tests/corpus';
import type { AttachmentBlock } from '../model/types';
import { importBytes } from './import';
import { THUMBNAIL_MAX_CHARS, thumbnailOf, thumbnailOfDataUrl } from './images';

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
