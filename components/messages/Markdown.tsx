'use client';

import { memo } from 'react';
import ReactMarkdown from 'react-markdown';

/**
 * The one markdown pipeline for transcript text, which is untrusted (STYLE.md §13): raw HTML is
 * skipped (react-markdown never renders it as HTML), images are not loaded (a remote image URL in a
 * transcript would leak that you opened it), links open without referrer.
 */
/**
 * Text in which markdown could change nothing: no syntax character, no URL (autolinks), no
 * indented code. Rendering it needs no parser: mounting react-markdown builds a unified pipeline
 * per block, which adds up to a long task when a 100k-turn list scrolls many rows into view.
 */
const MARKDOWN_SIGNIFICANT = /[\\`*_{}[\]()<>#+\-!|~&=]|^\s*\d+[.)]|^ {4}|^\t/m;

export function isPlainProse(text: string): boolean {
  return text.length < 4000 && !MARKDOWN_SIGNIFICANT.test(text);
}

/** Only absolute http(s) and mailto links stay links. */
export function isSafeHref(href: string | undefined): href is string {
  return typeof href === 'string' && /^(https?:\/\/|mailto:)/i.test(href.trim());
}

export const Markdown = memo(function Markdown({ text }: { text: string }) {
  if (isPlainProse(text))
    return (
      <div className="markdown text-sm leading-relaxed break-words">
        {text.split(/\n{2,}/).map((paragraph, i) => (
          <p key={i}>{paragraph}</p>
        ))}
      </div>
    );
  return (
    <div className="markdown text-sm leading-relaxed break-words">
      <ReactMarkdown
        skipHtml
        disallowedElements={['img']}
        unwrapDisallowed
        components={{
          a: ({ href, children }) =>
            isSafeHref(href) ? (
              <a href={href} target="_blank" rel="noopener noreferrer nofollow">
                {children}
              </a>
            ) : (
              // A neutralised (javascript:, data:…) or relative link is text: an empty href would
              // open this very page again in a new tab.
              <span className="markdown-dead-link">{children}</span>
            ),
        }}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
});
