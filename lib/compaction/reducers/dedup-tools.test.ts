import { describe, expect, it } from 'vitest';
import { filler, makeTranscript } from '../testing/make';
import { step } from '../testing/steps';
import { projectTranscript } from '../project';
import { importedCorpus } from '../../../tests/corpus';

const log = makeTranscript([
  { user: 'a', tools: [{ name: 'read_file', input: { path: 'src/main.rs' }, output: filler(100, 'main') }] },
  { user: 'b', tools: [{ name: 'Read', input: { file_path: '/r/x.ts', offset: 10, limit: 5 }, output: filler(50, 'x') }] },
  { user: 'c', tools: [{ name: 'Write', input: { file_path: '/r/y.ts', content: 'hi' }, output: 'written' }] },
  { user: 'd', tools: [{ name: 'grep', input: { pattern: 'foo', path: '.' }, output: filler(80, 'g') }] },
  { user: 'e', tools: [{ name: 'read_file', input: { path: 'src/main.rs' }, output: filler(100, 'main2') }, { name: 'Read', input: { file_path: '/r/x.ts' }, output: filler(300, 'xall') }] },
  { user: 'f', tools: [{ name: 'Write', input: { content: 'hi', file_path: '/r/y.ts' }, output: 'written' }, { name: 'grep', input: { path: '.', pattern: 'foo' }, output: 'error: bad', isError: true }] },
  { user: 'g', answer: 'end' },
]);

describe('dedup-tools', () => {
  it('removes older pairs with identical args or a covering later read; keeps create/modify and error-superseded calls', () => {
    const p = projectTranscript(log, [step(['dedup-tools'], { keepLast: 1 })]);
    const calls = p.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_call').map((b) => (b.kind === 'tool_call' ? b.callId : ''));
    // call_1 (read main.rs, exact dup of call_5) and call_2 (Read x.ts 10..14 ⊆ whole file call_6) go.
    // call_3 (Write: dedup = false) stays; call_4 (grep) stays because the later identical grep failed.
    expect(calls).toEqual(['call_3', 'call_4', 'call_5', 'call_6', 'call_7', 'call_8']);
    const c1 = log.messages[1].blocks[0];
    expect(p.fates[c1.id]).toMatchObject({ kind: 'deduped', keptBlock: log.messages[13].blocks[0].id });
    expect(p.report[0].notes[0]).toBe('removed 1 duplicate and 1 subsumed call(s)');
  });
  it('stub mode keeps the pair and replaces the result', () => {
    const p = projectTranscript(log, [step([{ id: 'dedup-tools', options: { mode: 'stub' } }], { keepLast: 1 })]);
    const r = p.messages[2].blocks[0];
    expect(r.kind === 'tool_result' && r.content).toMatch(/^\[deduplicated\] read_file: superseded/);
    expect(p.messages).toHaveLength(log.messages.length);
  });
  it('does not touch a duplicate whose older call is inside keep_last', () => {
    const p = projectTranscript(log, [step(['dedup-tools'], { keepLast: 7 })]);
    expect(p.report[0].events).toBe(0);
  });
});

describe('dedup-tools with multi-command editors', () => {
  it('dedups and subsumes str_replace_editor views but never its edits', () => {
    const ed = makeTranscript([
      { user: 'a', tools: [{ name: 'str_replace_editor', input: { command: 'view', path: '/r/a.py', view_range: [10, 20] }, output: filler(80, 'v1') }] },
      { user: 'b', tools: [{ name: 'str_replace_editor', input: { command: 'str_replace', path: '/r/a.py', old_str: 'x', new_str: 'y' }, output: 'edited' }] },
      { user: 'c', tools: [{ name: 'str_replace_editor', input: { command: 'str_replace', path: '/r/a.py', old_str: 'x', new_str: 'y' }, output: 'edited' }] },
      { user: 'd', tools: [{ name: 'str_replace_editor', input: { command: 'view', path: '/r/a.py' }, output: filler(200, 'v2') }] },
      { user: 'e', answer: 'done' },
    ]);
    const p = projectTranscript(ed, [step(['dedup-tools'], { keepLast: 1 })]);
    const calls = p.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_call').map((b) => (b.kind === 'tool_call' ? b.callId : ''));
    expect(calls).toEqual(['call_2', 'call_3', 'call_4']);
    expect(p.report[0].notes[0]).toBe('removed 0 duplicate and 1 subsumed call(s)');
  });
});

describe("dedup-tools reads only the calls with a partner in the log, with the same result as reading every call", () => {
  const run = (log: Parameters<typeof projectTranscript>[0], fullScan: boolean, before: Parameters<typeof step>[0] = [], opts: Record<string, unknown> = {}) =>
    projectTranscript(log, [step([...before, { id: 'dedup-tools', options: { fullScan, ...opts } }], { keepLast: 0, id: 's' })]);
  const same = (a: ReturnType<typeof projectTranscript>, b: ReturnType<typeof projectTranscript>) => {
    expect(a.messages).toEqual(b.messages);
    expect(a.fates).toEqual(b.fates);
    expect(a.report).toEqual(b.report);
  };

  it('on every corpus transcript, in remove and stub mode, with and without subsumption', () => {
    let deduped = 0;
    for (const { log } of importedCorpus()) {
      for (const opts of [{}, { mode: 'stub' }, { subsumption: false }]) {
        const fast = run(log, false, [], opts);
        same(fast, run(log, true, [], opts));
        deduped += fast.report[0].events;
      }
    }
    // The corpus has duplicates and covered reads to find (else the comparison would be empty).
    expect(deduped).toBeGreaterThan(20);
  });

  it('with arguments in another key order, and after a reducer rewrote calls (every call read again)', () => {
    const big = makeTranscript([
      { user: 'a', tools: [{ name: 'grep', input: { pattern: 'x', path: '.' }, output: filler(200, 'g1') }] },
      { user: 'b', tools: [{ name: 'lookup', input: { query: 'x'.repeat(4000) }, output: filler(100, 'l1') }] },
      { user: 'c', tools: [{ name: 'grep', input: { path: '.', pattern: 'x' }, output: filler(200, 'g2') }] },
      { user: 'd', tools: [{ name: 'lookup', input: { query: 'y'.repeat(4000) }, output: filler(100, 'l2') }] },
      { user: 'e', answer: 'done' },
    ]);
    const fast = run(big, false);
    same(fast, run(big, true));
    expect(fast.report[0].notes[0]).toBe('removed 1 duplicate and 0 subsumed call(s)');
    // tool-hints strips both lookups' queries first: the two calls, different in the log, are now
    // new blocks with the same arguments, so dedup must read every call to find them.
    const strip = { id: 'tool-hints' as const, options: { request: 'strip' } };
    const hinted = run(big, false, [strip]);
    same(hinted, run(big, true, [strip]));
    // (tool-hints also stubbed the newer grep's result, so the greps are no pair now.)
    expect(hinted.report[1].notes[0]).toBe('removed 1 duplicate and 0 subsumed call(s)');
    const calls = hinted.messages.flatMap((m) => m.blocks).flatMap((b) => (b.kind === 'tool_call' ? [b.callId] : []));
    expect(calls).toEqual(['call_1', 'call_3', 'call_4']);
  });
});
