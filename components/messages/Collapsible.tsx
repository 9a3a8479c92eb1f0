'use client';

import { useContext, useState, type ReactNode } from 'react';
import { splitHighlight } from '../search/search';
import { SearchContext } from './context';
import { formatTokens } from '../ui/format';

/** Characters shown before "show all": about 15 lines of a tool result. */
export const COLLAPSE_AT = 1600;

/** Long content collapsed with "show all (N tokens)" (UI.md). `render` draws the visible text. */
export function CollapsibleText({ text, tokens, render }: { text: string; tokens: number; render: (visible: string) => ReactNode }) {
  const [open, setOpen] = useState(false);
  /** The search text whose unfolding the user folded again ("show less" on a hit). */
  const [foldedFor, setFoldedFor] = useState<string | null>(null);
  const highlight = useContext(SearchContext).text.toLowerCase();
  const long = text.length > COLLAPSE_AT * 1.25;
  const cut = long ? cutAtLine(text, COLLAPSE_AT) : text;
  // A search hit in the folded part unfolds it: the highlighted hit must be on screen.
  const hitFolded = cut !== text && highlight !== '' && foldedFor !== highlight && !cut.toLowerCase().includes(highlight) && text.toLowerCase().includes(highlight);
  const shown = !long || open || hitFolded;
  const visible = shown ? text : cut;
  const toggle = () => {
    if (shown) {
      setOpen(false);
      if (hitFolded) setFoldedFor(highlight);
    } else setOpen(true);
  };
  return (
    <div>
      {render(visible)}
      {long && (
        <button
          type="button"
          data-testid="show-all"
          onClick={toggle}
          className="mt-1 text-xs font-medium text-blue-700 hover:underline dark:text-blue-400"
          aria-expanded={shown}
        >
          {shown ? 'show less' : `show all (${formatTokens(tokens)} tokens)`}
        </button>
      )}
    </div>
  );
}

function cutAtLine(text: string, at: number): string {
  const nl = text.lastIndexOf('\n', at);
  return (nl > at * 0.6 ? text.slice(0, nl) : text.slice(0, at)) + '\n…';
}

export function PlainText({ text, mono = false }: { text: string; mono?: boolean }) {
  const highlight = useContext(SearchContext).text;
  const cls = `whitespace-pre-wrap break-words ${mono ? 'font-mono text-xs leading-snug' : 'text-sm leading-relaxed'}`;
  if (!highlight || !text.toLowerCase().includes(highlight.toLowerCase())) return <div className={cls}>{text}</div>;
  // Search hits marked as text nodes: the transcript is never parsed as HTML.
  return (
    <div className={cls}>
      {splitHighlight(text, highlight).map((p, i) =>
        p.hit ? (
          <mark key={i} className="rounded-sm bg-yellow-200 text-inherit dark:bg-yellow-700/60" data-testid="search-mark">
            {p.text}
          </mark>
        ) : (
          p.text
        ),
      )}
    </div>
  );
}
