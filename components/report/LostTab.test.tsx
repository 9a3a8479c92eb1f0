import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { PreviewSummary } from '@/lib/engine/preview';
import { LostTab } from './LostTab';

function preview(lost: Partial<PreviewSummary['lost']>): PreviewSummary {
  const full = { instruction: [], path: [], url: [], id: [], error: [], ...lost } as PreviewSummary['lost'];
  const lostCounts = Object.fromEntries(Object.entries(full).map(([k, l]) => [k, l.length]));
  return { lost: full, lostCounts, lostTotal: Object.values(full).reduce((n, l) => n + l.length, 0) } as unknown as PreviewSummary;
}

describe('LostTab', () => {
  it('lists lost errors first, apart from the other identifiers', () => {
    const html = renderToStaticMarkup(
      <LostTab
        preview={preview({
          path: [{ value: 'src/a.ts', turn: 1, messageId: 'm1' }],
          error: [{ value: 'FAILED tests/test_a.py::test_x - assert 1 == 2', turn: 3, messageId: 'm3' }],
        })}
        onJump={() => {}}
      />,
    );
    const errors = html.indexOf('data-testid="lost-errors"');
    const others = html.indexOf('data-testid="lost-identifiers"');
    expect(errors).toBeGreaterThanOrEqual(0);
    expect(others).toBeGreaterThan(errors);
    expect(html.slice(errors, others)).toContain('FAILED tests/test_a.py::test_x');
    expect(html.slice(errors, others)).not.toContain('src/a.ts');
    expect(html.slice(others)).toContain('src/a.ts');
    expect(html.slice(others)).not.toContain('FAILED');
  });

  it('says when no error line was lost', () => {
    const html = renderToStaticMarkup(<LostTab preview={preview({ url: [{ value: 'https://x.example', turn: 0, messageId: 'm0' }] })} onJump={() => {}} />);
    expect(html).toContain('data-testid="lost-errors-none"');
    expect(html).toContain('https://x.example');
  });
});
