import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { PreviewSummary } from '@/lib/engine/preview';
import { LostTab, lostShownCount } from './LostTab';

const none = { kept: 0, of: 0, lost: [] };
function preview(lost: Partial<PreviewSummary['lost']>, byCategory: Partial<PreviewSummary['lostByCategory']> = {}): PreviewSummary {
  const full = { instruction: [], path: [], url: [], id: [], error: [], ...lost } as PreviewSummary['lost'];
  const lostCounts = Object.fromEntries(Object.entries(full).map(([k, l]) => [k, l.length]));
  const lostByCategory = { instructions: none, paths: none, commands: none, errors: none, figures: none, ...byCategory };
  return { lost: full, lostCounts, lostTotal: Object.values(full).reduce((n, l) => n + l.length, 0), lostByCategory } as unknown as PreviewSummary;
}

describe('LostTab', () => {
  it('lists the lost error lines apart, from the Error lines category (one list, one number), then the identifiers no category holds', () => {
    const err = { text: 'FAILED tests/test_a.py::test_x - assert 1 == 2', turn: 3, messageId: 'm3', tool: 'Bash' };
    const p = preview(
      {
        path: [{ value: 'src/a.ts', turn: 1, messageId: 'm1' }],
        // An identifier-kind error line or instruction is not listed again: their categories are the one list.
        error: [{ value: 'a line of a file that mentions an error', turn: 2, messageId: 'm2' }],
        instruction: [{ value: 'fix the tests', turn: 0, messageId: 'm0' }],
      },
      { errors: { kept: 2, of: 3, lost: [err] } },
    );
    const html = renderToStaticMarkup(<LostTab preview={p} onJump={() => {}} />);
    const errors = html.indexOf('data-testid="lost-errors"');
    const others = html.indexOf('data-testid="lost-identifiers"');
    expect(errors).toBeGreaterThanOrEqual(0);
    expect(others).toBeGreaterThan(errors);
    expect(html).toContain('data-testid="lost-errors" data-count="1"');
    expect(html.slice(errors, others)).toContain('FAILED tests/test_a.py::test_x');
    expect(html.slice(errors, others)).not.toContain('src/a.ts');
    // The error line is listed once in the tab (not again under the table).
    expect(html.split('FAILED tests/test_a.py::test_x').length - 1).toBe(1);
    expect(html.slice(others)).toContain('src/a.ts');
    expect(html.slice(others)).toContain('Paths named in the text');
    expect(html).not.toContain('a line of a file that mentions an error');
    expect(html).not.toContain('fix the tests');
    // The tab's count is what it lists: 1 error line + 1 path.
    expect(lostShownCount(p)).toBe(2);
  });

  it('says when no error line was lost', () => {
    const html = renderToStaticMarkup(<LostTab preview={preview({ url: [{ value: 'https://x.example', turn: 0, messageId: 'm0' }] })} onJump={() => {}} />);
    expect(html).toContain('data-testid="lost-errors-none"');
    expect(html).toContain('The compacted results held no error line.');
    expect(html).toContain('https://x.example');
    const kept = renderToStaticMarkup(<LostTab preview={preview({ url: [{ value: 'https://x.example', turn: 0, messageId: 'm0' }] }, { errors: { kept: 3, of: 3, lost: [] } })} onJump={() => {}} />);
    expect(kept).toContain('No error line lost: the 3 error lines of the compacted results are still in the context');
  });

  it('shows kept / of per category and lists the lost items of every category, each with its turn', () => {
    const html = renderToStaticMarkup(
      <LostTab
        preview={preview(
          {},
          {
            commands: { kept: 29, of: 35, lost: [{ text: 'pytest -q tests/test_a.py', turn: 4, messageId: 'm9', tool: 'Bash' }] },
            figures: { kept: 1, of: 2, lost: [{ text: '17 passed', turn: 5, messageId: 'm11', tool: 'Bash' }] },
            paths: { kept: 5, of: 5, lost: [] },
          },
        )}
        onJump={() => {}}
      />,
    );
    // Losses in a category alone are not "Nothing lost".
    expect(html).not.toContain('lost-empty');
    expect(html).toContain('data-category="commands" data-kept="29" data-of="35" data-lost="1"');
    expect(html).toContain('data-category="paths" data-kept="5" data-of="5" data-lost="0"');
    expect(html).toMatch(/data-testid="lost-category-item" data-turn="4"[^>]*>.*t5.*pytest -q tests\/test_a\.py/);
    expect(html).toMatch(/data-testid="lost-category-item" data-turn="5"[^>]*>.*t6.*17 passed/);
    expect(html.indexOf('lost-categories')).toBeLessThan(html.indexOf('lost-errors'));
  });

  it('with nothing lost, still shows what each category kept', () => {
    const html = renderToStaticMarkup(<LostTab preview={preview({}, { instructions: { kept: 4, of: 4, lost: [] } })} onJump={() => {}} />);
    expect(html).toContain('lost-empty');
    expect(html).toContain('data-category="instructions" data-kept="4" data-of="4" data-lost="0"');
  });
});
