import { describe, expect, it } from 'vitest';
import { filler, makeTranscript } from '../testing/make';
import { step } from '../testing/steps';
import { projectTranscript } from '../project';

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
