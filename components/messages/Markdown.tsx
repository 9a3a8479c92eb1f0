'use client';

import { memo } from 'react';
import ReactMarkdown from 'react-markdown';

/**
 * The one markdown pipeline for transcript text, which is untrusted (STYLE.md §13): raw HTML is
 * skipped (react-markdown never renders it as HTML), images are not loaded (a remote image URL in a
 * transcript would leak that you opened it), links open without referrer.
 */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown text-sm leading-relaxed break-words">
      <ReactMarkdown
        skipHtml
        disallowedElements={['img']}
        unwrapDisallowed
        components={{
          a: ({ href, children }) => (
            <a href={href} target="_blank" rel="noopener noreferrer nofollow">
              {children}
            </a>
          ),
        }}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
});
