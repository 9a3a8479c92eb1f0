import { describe, expect, it } from 'vitest';
import { validatePairing } from '../model/pairing';
import { ContextEditor, emptyState, fates, flattenFates, indexPairs, pairingIssues, type CompactionContext } from './context';
import { counterFor } from './budget';
import { startingContext } from './project';
import { filler, makeTranscript } from './testing/make';
import { importedCorpus } from '../../tests/corpus';

function contextOf(log: ReturnType<typeof makeTranscript>): CompactionContext {
  const start = startingContext(log, 'log');
  return {
    log,
    messages: start.messages,
    tools: log.tools,
    fates: start.fates,
    step: { id: 's', range: { kind: 'after-last-compaction' }, reducers: [], keepLast: 0, createdAt: '' },
    window: { from: 0, to: log.turnCount - 1 },
    counter: counterFor(log),
  };
}

describe('ContextEditor.removeCallAndResult: a context without pairing issues stays without, known without a pass', () => {
  it('on every pair of every corpus transcript whose main line has no issue: the issues the child inherits are the ones a full pass finds', () => {
    let checked = 0;
    for (const { log } of importedCorpus()) {
      const ctx = contextOf(log);
      if (pairingIssues(ctx.messages).length > 0) continue;
      const pairs = indexPairs(ctx.messages);
      // Every other pair, so the child still holds pairs of every kind around the removed ones.
      const editor = new ContextEditor(ctx, 'dedup-tools');
      let k = 0;
      for (const [callId, call] of pairs.calls) {
        const result = pairs.results.get(callId);
        if (result && k++ % 2 === 0) expect(editor.removeCallAndResult(call, result, fates.removed('dedup-tools', 's'))).toBe(true);
      }
      if (k === 0) continue;
      const child = editor.finish(emptyState()).ctx.messages;
      expect(pairingIssues(child)).toEqual([]);
      expect(validatePairing(child.filter((m) => !m.sidechain))).toEqual([]);
      checked++;
    }
    expect(checked).toBeGreaterThan(10);
  });

  it('refuses what is not one pair, and a result before its call leaves the child to a full pass', () => {
    const log = makeTranscript([
      { user: 'a', tools: [{ name: 'grep', input: { p: 1 }, output: filler(20, 'a') }, { name: 'grep', input: { p: 2 }, output: filler(20, 'b') }] },
      { user: 'b', answer: 'done' },
    ]);
    const ctx = contextOf(log);
    const pairs = indexPairs(ctx.messages);
    const [c1, c2] = [...pairs.calls.values()];
    const [r1] = [...pairs.results.values()];
    const editor = new ContextEditor(ctx, 'dedup-tools');
    // A call with another call's result, or a result in the call's place: refused, nothing removed.
    expect(editor.removeCallAndResult(c2, r1, fates.removed('dedup-tools', 's'))).toBe(false);
    expect(editor.removeCallAndResult(r1, c1, fates.removed('dedup-tools', 's'))).toBe(false);
    expect(editor.events).toBe(0);
    // The one pair: removed, and the child's pairing is its parent's.
    expect(editor.removeCallAndResult(c1, r1, fates.removed('dedup-tools', 's'))).toBe(true);
    expect(editor.events).toBe(2);
    expect(pairingIssues(editor.finish(emptyState()).ctx.messages)).toEqual([]);
    // Removing one half alone (removeBlock) leaves the child to a full pass, which finds the orphan.
    const half = new ContextEditor(ctx, 'dedup-tools');
    half.removeBlock(c2.mi, c2.bi, fates.removed('dedup-tools', 's'));
    expect(pairingIssues(half.finish(emptyState()).ctx.messages).map((i) => i.kind)).toEqual(['orphan-result']);
  });
});

describe('fate layers', () => {
  it('flatten with the newest fate of a block winning, in the order blocks were first given one', () => {
    const base = { parent: null, own: new Map([['a', fates.truncated('truncate-tool-results', 's', 1, 1)], ['b', fates.removed('strip-reasoning', 's')]]) };
    const next = { parent: base, own: new Map([['c', fates.stubbed('strip-tool-results', 's')], ['a', fates.stubbed('strip-tool-results', 's')]]) };
    const flat = flattenFates(next);
    expect(Object.keys(flat)).toEqual(['a', 'b', 'c']);
    expect(flat.a.kind).toBe('stubbed');
    expect(flat.b.kind).toBe('removed');
    // The parent layer is not edited by its child.
    expect(base.own.get('a')!.kind).toBe('truncated');
  });

  it('a block stubbed by one reducer and removed by a later one is removed in the projection, and the starting context keeps no fate of it', () => {
    const log = makeTranscript([{ user: 'go', tools: [{ name: 'Bash', input: { command: 'ls' }, output: filler(400) }] }, { user: 'next' }]);
    const ctx = contextOf(log);
    const [call, result] = [...indexPairs(ctx.messages).calls].map(([id, c]) => [c, indexPairs(ctx.messages).results.get(id)!])[0];
    const first = new ContextEditor(ctx, 'strip-tool-results');
    expect(first.replaceBlock(result.mi, result.bi, { content: '[stub]' }, fates.stubbed('strip-tool-results', 's'))).toBe(true);
    const mid = first.finish(emptyState()).ctx;
    const second = new ContextEditor(mid, 'dedup-tools');
    expect(second.removeCallAndResult(call, result, fates.removed('dedup-tools', 's'))).toBe(true);
    const end = second.finish(emptyState()).ctx;
    const id = log.messages[result.mi].blocks[result.bi].id;
    expect(flattenFates(end.fates)[id].kind).toBe('removed');
    expect(flattenFates(mid.fates)[id].kind).toBe('stubbed');
    expect(flattenFates(ctx.fates)[id]).toBeUndefined();
  });
});
