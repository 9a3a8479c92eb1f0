import { describe, expect, it } from 'vitest';
import { makeTranscript, filler } from './testing/make';
import { step } from './testing/steps';
import { CompactionInvariantError, assertPairingPreserved, cacheStablePrefix, projectTranscript, resolveWindow } from './project';
import { transcriptTotals } from '../tokens/totals';
import type { ProjectedMessage } from './types';

const log = makeTranscript(
  [
    { user: 'read the config', tools: [{ name: 'Read', input: { file_path: '/repo/a.ts' }, output: filler(300, 'a') }], answer: 'done' },
    { user: 'now run tests', reasoning: 'thinking about tests', tools: [{ name: 'Bash', input: { command: 'npm test' }, output: filler(500, 'test') }], answer: 'tests pass' },
    { user: 'last question', answer: 'ok' },
  ],
  { system: 'You are helpful.', tools: [{ name: 'Read' }, { name: 'Bash' }, { name: 'NeverUsed', description: filler(50) }] },
);

describe('projectTranscript', () => {
  it('with zero steps is the log itself: same blocks, all kept, tokens as inspect counts them', () => {
    const p = projectTranscript(log, []);
    expect(p.baseline).toBe('log');
    expect(p.messages.map((m) => m.blocks)).toEqual(log.messages.map((m) => m.blocks));
    p.messages.forEach((m, i) => expect(m.blocks).toBe(log.messages[i].blocks));
    expect(Object.values(p.fates).every((f) => f.kind === 'kept')).toBe(true);
    expect(p.tokens.before.total).toBe(transcriptTotals(log).total);
    expect(p.tokens.after.total).toBe(p.tokens.before.total);
    expect(p.cacheStablePrefix).toBe(p.tokens.after.total);
  });

  it('never mutates the (deep-frozen) log and keeps untouched messages as the same objects', () => {
    const snapshot = structuredClone(log);
    expect(Object.isFrozen(log.messages[2].blocks[0])).toBe(true);
    const p = projectTranscript(log, [step(['strip-tool-results', 'strip-reasoning', 'prune-tools'], { keepLast: 1 })]);
    expect(log).toEqual(snapshot);
    const lastTurn = log.turnCount - 1;
    for (const m of p.messages.filter((x) => x.turn === lastTurn)) {
      const src = log.messages.find((s) => s.id === m.sourceId)!;
      expect(m.blocks).toBe(src.blocks);
    }
    expect(p.tokens.after.total).toBeLessThan(p.tokens.before.total);
    expect(p.tools.map((t) => t.name)).toEqual(['Read', 'Bash']);
  });

  it('resolves ranges: keep_last protects the tail, turns ranges clamp', () => {
    // The system preamble is turn 0 of its own (lib/model/turns.ts), so 3 prompts make 4 turns.
    expect(log.turnCount).toBe(4);
    expect(resolveWindow(log, [], step([], { keepLast: 1 }))).toEqual({ from: 0, to: 2 });
    expect(resolveWindow(log, [], step([], { keepLast: 4 }))).toBeNull();
    expect(resolveWindow(log, [], step([], { keepLast: 0, range: { kind: 'turns', from: 1, to: 9 } }))).toEqual({ from: 1, to: 3 });
    expect(resolveWindow(log, [], step([], { keepLast: 0, range: { kind: 'all-but-last', n: 2 } }))).toEqual({ from: 0, to: 1 });
  });

  it('reports fates per log block and savings per reducer', () => {
    const p = projectTranscript(log, [step(['strip-tool-results'], { keepLast: 1 })]);
    const results = log.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_result');
    for (const r of results) expect(p.fates[r.id]).toMatchObject({ kind: 'stubbed', by: 'strip-tool-results' });
    const rep = p.report.find((r) => r.reducer === 'strip-tool-results')!;
    expect(rep.events).toBe(2);
    expect(rep.tokensBefore - rep.tokensAfter).toBe(p.tokens.start!.total - p.tokens.after.total);
  });

  it('throws CompactionInvariantError when a context gains an orphan', () => {
    const before = projectTranscript(log, []).messages;
    const broken: ProjectedMessage[] = before.filter((m) => !m.blocks.some((b) => b.kind === 'tool_call'));
    expect(() => assertPairingPreserved(before, broken, 'test')).toThrow(CompactionInvariantError);
    expect(() => assertPairingPreserved(before, before, 'test')).not.toThrow();
  });

  it('measures the cache-stable prefix: tools first, then identical leading messages', () => {
    const base = projectTranscript(log, []);
    const stripped = projectTranscript(log, [step(['strip-tool-results'], { keepLast: 1 })]);
    const pruned = projectTranscript(log, [step(['prune-tools'], { keepLast: 1 })]);
    expect(pruned.cacheStablePrefix).toBe(0);
    // The first change is the first tool result (message 3): system, user, assistant call still match.
    const expected = log.tools.reduce((n, t) => n + t.tokens, 0) + log.messages.slice(0, 3).reduce((n, m) => n + m.blocks.reduce((s, b) => s + b.tokens, 0), 0);
    expect(stripped.cacheStablePrefix).toBe(expected);
    expect(cacheStablePrefix(base, base)).toBe(base.tokens.after.total);
  });

  it('treats source markers: zero steps keep covered messages, steps start after the marker', () => {
    const marked = makeTranscript(
      [
        { user: 'old work', tools: [{ name: 'Read', input: { path: 'x' }, output: filler(200) }], answer: 'old' },
        { user: 'summary of earlier conversation', answer: 'resumed' },
        { user: 'new work', answer: 'new' },
      ],
      { markers: [{ source: 'claude-code-compact', atMessage: 4, covers: [0, 4], trigger: 'auto' }] },
    );
    const zero = projectTranscript(marked, []);
    expect(zero.messages).toHaveLength(marked.messages.length);
    const p = projectTranscript(marked, [step(['strip-tool-results'], { keepLast: 1 })]);
    expect(p.baseline).toBe('model-view');
    expect(p.messages.map((m) => m.sourceId)).toEqual(['m4', 'm5', 'm6', 'm7']);
    expect(p.fates['0.0']).toMatchObject({ kind: 'summarized', stepId: 'source-marker:k0', summaryId: 'k0' });
    expect(p.tokens.start!.total).toBeLessThan(p.tokens.before.total);
    // after-last-compaction starts at the marker's summary turn.
    expect(resolveWindow(marked, p.messages, step([], { keepLast: 0 }))).toEqual({ from: 1, to: 2 });
  });
});
