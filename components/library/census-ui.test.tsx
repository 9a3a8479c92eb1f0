/**
 * The library's census table and the list's pin toggle, rendered statically: the table shows the
 * figures runCensus computes on corpus files (the CLI's numbers), with the raw value on each cell;
 * the toggle says what it pins and whether it is pinned.
 */
import fs from 'node:fs';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import { runCensus } from '@/lib/ledger/census';
import { PinsContext } from '../messages/context';
import { PinToggle } from '../messages/PinToggle';
import { CensusProgressBar, CensusTable } from './CensusSection';

describe('the census table', () => {
  it('one row per agent with the census figures, as the CLI prints them', () => {
    const files = [...corpusFiles('claude-code').filter((f) => /slopometry|vibecodingtracker/.test(f)), ...corpusFiles('codex-cli').filter((f) => /schema_coverage/.test(f))];
    const census = runCensus(files.map((f) => ({ path: f, read: () => new Uint8Array(fs.readFileSync(f)) })));
    const html = renderToStaticMarkup(<CensusTable census={census} scope="sessions" />);
    const claude = census.rows.find((r) => r.agent === 'Claude Code')!;
    expect(claude.compactions).toBe(1);
    expect(html).toContain(`data-testid="census-table" data-files="${files.length}" data-parsed="${census.parsed}" data-scope="sessions"`);
    const row = html.slice(html.indexOf('data-agent="Claude Code"'));
    expect(row).toContain(`data-col="sessions" data-value="2">2</td>`);
    expect(row).toContain(`data-col="medianRatio" data-value="${claude.medianRatio}">${claude.medianRatio!.toFixed(2)}</td>`);
    expect(row).toContain(`data-col="commands" data-value="0"`);
    expect(row).toMatch(/data-col="cacheWriteTokens" data-value="16371" title="What the call after the compaction wrote to the cache">16,371 <span[^>]*>\(\$\d+\.\d\d\)/);
    // The Codex fixture's six compactions have no call after them: no cache write was recorded, and none is shown as a zero.
    const codex = census.rows.find((r) => r.agent === 'Codex')!;
    expect(codex).toMatchObject({ compactions: 6, cacheWriteRecorded: 0, cacheWriteTokens: 0 });
    const codexRow = html.slice(html.indexOf('data-agent="Codex"'));
    expect(codexRow).toMatch(/data-col="cacheWriteTokens" data-value="" title="No call after these 6 compactions[^"]*"><span[^>]*>not recorded<\/span><\/td>/);
    expect(codexRow.slice(0, codexRow.indexOf('</tr>'))).not.toContain('$0.00');
    expect(html.match(/data-testid="census-row"/g)).toHaveLength(census.rows.length);
    expect(html).toContain(`${files.length} session files`);
  });

  it('the progress bar: done of total, and Cancel while it runs', () => {
    const html = renderToStaticMarkup(<CensusProgressBar run={{ state: 'running', scope: 'sessions', progress: { done: 412, total: 1000, parsed: 3, path: '/x/s.jsonl' } }} onCancel={() => {}} />);
    expect(html).toContain('role="progressbar"');
    expect(html).toContain('aria-valuenow="412"');
    expect(html).toContain('aria-valuemax="1000"');
    expect(html).toContain('412 / 1,000 sessions · 3 with compactions parsed');
    expect(html).toContain('data-testid="census-cancel"');
    const cancelled = renderToStaticMarkup(<CensusProgressBar run={{ state: 'cancelled', scope: 'sessions', progress: { done: 412, total: 1000, parsed: 3, path: '/x/s.jsonl' } }} onCancel={() => {}} />);
    expect(cancelled).toContain('Cancelled');
    expect(cancelled).not.toContain('census-cancel');
  });
});

describe('the pin toggle', () => {
  const pin = { kind: 'block' as const, blockId: '23.0', label: 'Grep result' };
  it('nothing without pins; a labelled toggle button with its state', () => {
    expect(renderToStaticMarkup(<PinToggle pin={pin} what="Grep result" />)).toBe('');
    const off = renderToStaticMarkup(
      <PinsContext.Provider value={{ pinned: new Set(), toggle: () => {}, busy: false }}>
        <PinToggle pin={pin} what="Grep result" />
      </PinsContext.Provider>,
    );
    expect(off).toContain('aria-pressed="false"');
    expect(off).toContain('aria-label="Pin this Grep result"');
    const on = renderToStaticMarkup(
      <PinsContext.Provider value={{ pinned: new Set(['b:23.0']), toggle: () => {}, busy: false }}>
        <PinToggle pin={pin} what="Grep result" />
      </PinsContext.Provider>,
    );
    expect(on).toContain('aria-pressed="true"');
    expect(on).toContain('aria-label="Unpin this Grep result"');
    expect(on).toContain('Pinned</button>');
  });
});
