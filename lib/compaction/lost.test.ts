import { describe, expect, it } from 'vitest';
import { filler, makeTranscript } from './testing/make';
import { step } from './testing/steps';
import { projectTranscript } from './project';
import { extractIdentifiers, lostIdentifiers, retainedShare } from './lost';
import { buildAudit } from './audit';
import { formatReport } from './report';
import { withThreadCpu } from '../../tests/cpu';

describe('lost identifiers', () => {
  it('extracts paths, urls, ids/hashes, error lines', () => {
    const ids = extractIdentifiers('see https://example.com/a/b. and src/lib/x.ts at 3f9a2c1d\nError: cannot find module ./util.js\nuuid 123e4567-e89b-12d3-a456-426614174000 ok');
    const by = (k: string) => ids.filter((i) => i.kind === k).map((i) => i.value);
    expect(by('url')).toEqual(['https://example.com/a/b']);
    expect(by('path')).toEqual(expect.arrayContaining(['src/lib/x.ts', './util.js']));
    expect(by('id')).toEqual(expect.arrayContaining(['3f9a2c1d', '123e4567-e89b-12d3-a456-426614174000']));
    expect(by('error')).toEqual(['Error: cannot find module ./util.js']);
    expect(extractIdentifiers('plain words 1234567 and deadbeef')).toEqual([]);
  });

  const log = makeTranscript([
    { user: 'Refactor src/core/engine.ts and keep the API stable', tools: [{ name: 'Bash', input: { command: 'npm test' }, output: 'FAIL src/core/engine.test.ts\nError: expected 3 got 4\ncommit a1b2c3d4e5\n' + filler(60) }], answer: 'see https://docs.example.com/api' },
    { user: 'now fix it', tools: [{ name: 'Read', input: { file_path: 'src/core/engine.ts' }, output: filler(100) }], answer: 'fixed' },
    { user: 'thanks', answer: 'bye' },
  ]);

  it('lists what the projection dropped, with turn and kind, and nothing that is still there', () => {
    const p = projectTranscript(log, [step(['strip-tool-results'], { keepLast: 1 })]);
    const lost = lostIdentifiers(log, p);
    // The stub keeps the signal lines (FAIL src/core/engine.test.ts, Error: expected 3 got 4): neither the path nor the error is lost.
    expect(lost.map((l) => `${l.turn}:${l.kind}:${l.value}`)).toEqual(['0:id:a1b2c3d4e5']);
    // src/core/engine.ts survives in the user instruction and the Read call: not lost.
    expect(lostIdentifiers(log, projectTranscript(log, []))).toEqual([]);
  });

  it('every user instruction that leaves the context is lost unless a summary carries it', () => {
    const dropped = projectTranscript(log, [step([{ id: 'emergency', options: { keepN: 0, dropUserMessages: true } }], { keepLast: 1 })]);
    const lost = lostIdentifiers(log, dropped);
    expect(lost.filter((l) => l.kind === 'instruction').map((l) => l.value)).toEqual(['Refactor src/core/engine.ts and keep the API stable', 'now fix it']);
    const summarized = projectTranscript(log, [step(['summarize'], { keepLast: 1 })]);
    expect(lostIdentifiers(log, summarized).filter((l) => l.kind === 'instruction')).toEqual([]);
  });

  it('feeds the report and the audit record', () => {
    const steps = [step(['strip-tool-results'], { keepLast: 1 })];
    const p = projectTranscript(log, steps);
    const lost = lostIdentifiers(log, p);
    const audit = buildAudit({ log, steps, projection: p, lost, budget: 1000 });
    expect(audit.tokens.after).toBe(p.tokens.after.total);
    expect(audit.fates.stubbed).toBe(2);
    expect(Object.keys(audit.changedBlocks)).toHaveLength(2);
    expect(JSON.parse(JSON.stringify(audit))).toEqual(audit);
    const text = formatReport(log, steps, p, lost);
    expect(text).toContain('lost identifiers: 1 (id 1)');
    expect(text).toContain('strip-tool-results');
  });

  it('finds an instruction a summary quotes (case, quotes, markdown aside) and misses a paraphrase', () => {
    const msgs = (text: string) => [{ role: 'user' as const, turn: 0, blocks: [{ kind: 'summary' as const, id: 's', tokens: 1, text }] }];
    const fates = Object.fromEntries(log.messages.flatMap((m) => m.blocks.map((b) => [b.id, { kind: 'removed' as const, by: 'emergency' as const, stepId: 'x' }])));
    const quoted = lostIdentifiers(log, { messages: msgs('## Active Task\n- "**Refactor src/core/engine.ts and keep the API stable**"'), fates });
    expect(quoted.filter((l) => l.kind === 'instruction').map((l) => l.value)).toEqual(['now fix it', 'thanks']);
    const paraphrased = lostIdentifiers(log, { messages: msgs('The user wants engine.ts refactored.'), fates });
    expect(paraphrased.filter((l) => l.kind === 'instruction')).toHaveLength(3);
  });
});

describe('extractIdentifiers on hostile text', () => {
  it('stays linear on long slash runs (no regex backtracking blow-up)', () => {
    const hostile = 'a/'.repeat(100_000) + ' and ' + 'x.'.repeat(50_000) + '/' + 'b/'.repeat(50_000);
    const { value: ids, ms } = withThreadCpu(() => extractIdentifiers(hostile + ' see src/lib/money.ts:12 and ./README.md'));
    expect(ms).toBeLessThan(2_000);
    expect(ids.filter((i) => i.kind === 'path').map((i) => i.value)).toEqual(expect.arrayContaining(['src/lib/money.ts', './README.md']));
  });
});

describe("the benchmark's identifiers retained", () => {
  it('does not count an identifier present only because a summary lists it', () => {
    const log = makeTranscript([
      { user: 'look at the config', tools: [{ name: 'Read', input: { file_path: '/repo/src/config/loader.ts' }, output: filler(400, 'cfg') }], answer: 'read /repo/src/config/loader.ts' },
      { user: 'now the tests', tools: [{ name: 'Read', input: { file_path: '/repo/test/loader.test.ts' }, output: filler(400, 't') }], answer: 'ok' },
      { user: 'wrap up', answer: 'done' },
    ]);
    const p = projectTranscript(log, [step(['summarize'], { keepLast: 1 })]);
    const summaryText = p.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'summary').map((b) => (b.kind === 'summary' ? b.text : '')).join('\n');
    expect(summaryText).toContain('/repo/src/config/loader.ts'); // the offline summarizer lists every path
    const all = Object.fromEntries(log.messages.flatMap((m) => m.blocks.map((b) => [b.id, { kind: 'removed' as const, by: 'emergency' as const, stepId: 'x' }])));
    const totalIds = lostIdentifiers(log, { messages: [], fates: all }).length;
    const withSummaries = 1 - lostIdentifiers(log, { messages: p.messages, fates: all }).length / totalIds;
    const retained = retainedShare(log, { messages: p.messages, fates: all }, totalIds);
    expect(lostIdentifiers(log, { messages: p.messages, fates: all }, { summaries: false }).map((l) => l.value)).toContain('/repo/src/config/loader.ts');
    expect(retained).toBeLessThan(withSummaries);
  });
});
