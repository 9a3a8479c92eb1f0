import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { Markdown } from './Markdown';
import { PlainText } from './Collapsible';

/** Transcript text is hostile (STYLE.md §13): none of these may become live HTML or fetch anything. */
const PAYLOADS = [
  '<script>alert(1)</script>',
  '<img src=x onerror="alert(1)">',
  '![tracker](https://evil.example/pixel.png)',
  '[click](javascript:alert(1))',
  '<a href="javascript:alert(1)">x</a>',
  '```html\n<script>alert(1)</script>\n```',
  '`<img src=x onerror=alert(1)>`',
  '<iframe src="https://evil.example"></iframe>',
  '<svg onload=alert(1)>',
  '$$<img src=x onerror=alert(1)>$$',
  '<details open ontoggle=alert(1)>',
];

describe('transcript text rendering', () => {
  for (const payload of PAYLOADS) {
    it(`renders ${JSON.stringify(payload).slice(0, 50)} inertly`, () => {
      for (const html of [renderToStaticMarkup(<Markdown text={payload} />), renderToStaticMarkup(<PlainText text={payload} />)]) {
        // Real tags only: escaped text (&lt;img …) is inert whatever it says.
        expect(html).not.toMatch(/<(script|img|iframe|svg|details)\b/i);
        expect(html).not.toMatch(/<[a-z][^>]*\son\w+=/i);
        expect(html).not.toMatch(/href="\s*javascript:/i);
      }
    });
  }

  it('a neutralised javascript: link is text, not an anchor (no href="" that reopens the page)', () => {
    for (const text of ['[click](javascript:alert(1))', '[x](data:text/html,hi) and [y](vbscript:z)', '[rel](../settings)']) {
      const html = renderToStaticMarkup(<Markdown text={text} />);
      expect(html).not.toMatch(/<a\b/);
    }
    expect(renderToStaticMarkup(<Markdown text="[click](javascript:alert(1))" />)).toContain('click');
  });

  it('still renders ordinary markdown', () => {
    const html = renderToStaticMarkup(<Markdown text={'**bold** and `code`\n\n- item\n\n[docs](https://example.com)'} />);
    expect(html).toContain('<strong>bold</strong>');
    expect(html).toContain('<code>code</code>');
    expect(html).toContain('<li>item</li>');
    expect(html).toContain('rel="noopener noreferrer nofollow"');
  });
});
