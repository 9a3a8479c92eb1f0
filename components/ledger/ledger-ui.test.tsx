import fs from 'node:fs';
import path from 'node:path';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import { importBytes } from '@/lib/formats/import';
import { agentEvents } from '@/lib/ledger/agent';
import { ledgerChecks } from '@/lib/ledger/checks';
import { EventCard } from './CompactionsTab';
import { LedgerStrip } from './LedgerStrip';

const SLOP = corpusFiles('claude-code').find((f) => path.basename(f).startsWith('slopometry'))!;
const log = importBytes(path.basename(SLOP), new Uint8Array(fs.readFileSync(SLOP))).transcript;
const [event] = agentEvents(log, ledgerChecks([{ kind: 'pattern', pattern: 'Halstead' }]));

describe('the ledger in the inspector (static render of slopometry\'s event)', () => {
  it('the event card: its numbers, survival table, lost items linked to their turn, the summary as text, the lost pin', () => {
    const html = renderToStaticMarkup(<EventCard e={event} n={1} focused={false} onJump={() => {}} />);
    expect(html).toContain('data-by="agent"');
    expect(html).toMatch(/data-testid="tokens-before">155,317/);
    expect(html).toMatch(/data-testid="tokens-after">34,667/);
    expect(html).toMatch(/data-testid="cache-write">16,371 tokens/);
    expect(html).toContain('data-category="commands" data-kept="0" data-of="29"');
    expect(html).toContain('Lost pinned: pattern Halstead');
    const lost = event.survival!.commands.lost[0];
    expect(html).toContain(`data-testid="lost-item" data-turn="${lost.turn}"`);
    // The summary whole, escaped: transcript text is rendered as text.
    expect(html).toContain(`Summary (12,062 characters)`);
    expect(html).not.toContain('<script');
  });

  it('the strip: a marker at the event\'s bar, labelled with its numbers', () => {
    const html = renderToStaticMarkup(<LedgerStrip events={[event]} barOf={() => 5} bars={14} onOpen={() => {}} />);
    expect(html).toContain('data-testid="ledger-marker"');
    expect(html).toContain('Compaction 1 by Claude Code before turn 6: 155,317 → 34,667 tokens (lost a pin)');
    expect(html).toContain(`left:${((5.5 / 14) * 100).toString()}%`);
  });
});
