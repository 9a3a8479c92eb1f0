import { renderToStaticMarkup } from 'react-dom/server';
import ReactMarkdown from 'react-markdown';
import { describe, expect, it } from 'vitest';
import { isPlainProse, Markdown } from './Markdown';

/** The parser-free path must render exactly what react-markdown renders for the text it takes. */
const PROSE = ['Item 70022: the turn is fine.', 'Two paragraphs.\n\nThe second one, with a comma.', 'A soft\nline break stays in one paragraph.', 'Unicode: 幫我檢查 go.mod — ok?'];
const MARKDOWN = ['**bold**', '- item', '1. first', '# title', 'a `code` span', '<b>html</b>', '    indented code', 'see [docs](https://example.com)', 'a_b_c', 'x &amp; y'];

describe('markdown fast path for plain prose', () => {
  it('takes prose and renders it as react-markdown does', () => {
    for (const text of PROSE) {
      expect(isPlainProse(text), text).toBe(true);
      const reference = renderToStaticMarkup(<ReactMarkdown skipHtml>{text}</ReactMarkdown>);
      // Newlines between block elements are not rendered; inside a paragraph they are kept.
      expect(renderToStaticMarkup(<Markdown text={text} />)).toBe(`<div class="markdown text-sm leading-relaxed break-words">${reference.replace(/>\n</g, '><')}</div>`);
    }
  });
  it('leaves anything with markdown syntax to the parser', () => {
    for (const text of MARKDOWN) expect(isPlainProse(text), text).toBe(false);
  });
});
