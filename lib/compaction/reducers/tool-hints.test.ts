import { describe, expect, it } from 'vitest';
import { filler, makeTranscript } from '../testing/make';
import { step } from '../testing/steps';
import { projectTranscript } from '../project';
import { hintFor, DEFAULT_TOOL_HINTS, lineRangeOf } from '../hints';
import { stripArgs } from './tool-hints';

const big = filler(300, 'content');
const log = makeTranscript([
  {
    user: 'work',
    tools: [
      { name: 'Read', input: { file_path: '/r/a.ts' }, output: filler(200, 'a') },
      { name: 'Write', input: { file_path: '/r/b.ts', content: big }, output: 'File created successfully at /r/b.ts' },
      { name: 'Edit', input: { file_path: '/r/a.ts', old_string: big, new_string: big + '!' }, output: 'The file /r/a.ts has been updated.' + filler(40) },
      { name: 'mystery_tool', input: { x: big }, output: filler(100) },
    ],
  },
  { user: 'next', answer: 'done' },
]);

describe('tool hints', () => {
  it('map the RFD tables onto Claude Code, Codex, OpenHands, SWE-agent and generic names', () => {
    expect(hintFor('Read')).toMatchObject({ request: 'keep', response: 'strip', dedup: true, subsumes: 'line-range' });
    expect(hintFor('exec_command')).toMatchObject({ response: 'strip', category: 'head-tail' });
    expect(hintFor('execute_bash')).toMatchObject({ category: 'head-tail' });
    expect(hintFor('apply_patch')).toMatchObject({ request: 'strip', response: 'strip', dedup: false });
    expect(hintFor('find_file')).toMatchObject({ category: 'match-list' });
    expect(hintFor('mcp__fs__read_file')).toMatchObject({ subsumes: 'line-range' });
    expect(hintFor('Write', { write: { response: 'strip' } })).toMatchObject({ request: 'strip', response: 'strip' });
    expect(hintFor('unknown_tool')).toEqual({});
    expect(Object.keys(DEFAULT_TOOL_HINTS).length).toBeGreaterThan(60);
  });
  it('read line ranges across harnesses', () => {
    expect(lineRangeOf('Read', { file_path: 'a', offset: 10, limit: 5 })).toEqual({ path: 'a', start: 10, end: 14 });
    expect(lineRangeOf('str_replace_editor', { command: 'view', path: 'a', view_range: [3, -1] })).toEqual({ path: 'a', start: 3, end: Infinity });
    expect(lineRangeOf('str_replace_editor', { command: 'str_replace', path: 'a' })).toBeUndefined();
    expect(lineRangeOf('fs_read_file', { path: 'a', start_line: 2, end_line: 5 })).toEqual({ path: 'a', start: 2, end: 5 });
  });
  it('strip long argument values, keep short ones', () => {
    expect(stripArgs({ file_path: '/r/b.ts', content: big }, 200)).toEqual({ file_path: '/r/b.ts', content: `[stripped ${big.length} chars]` });
    expect(stripArgs({ file_path: '/r/b.ts' }, 200)).toBeUndefined();
    expect(stripArgs(JSON.stringify({ patch: big }), 200)).toEqual({ patch: `[stripped ${big.length} chars]` });
  });
  it('the reducer strips per tool: Read response, Write request, Edit both; unknown tools inherit the profile', () => {
    const p = projectTranscript(log, [step(['tool-hints'], { keepLast: 1 })]);
    const b = p.messages.flatMap((m) => m.blocks);
    const call = (name: string) => b.find((x) => x.kind === 'tool_call' && x.name === name)!;
    const result = (name: string) => b.find((x): x is Extract<typeof x, { kind: 'tool_result' }> => x.kind === 'tool_result' && x.name === name)!;
    expect(result('Read').content).toMatch(/^\[compacted\] Read: ok/);
    expect(call('Write').kind === 'tool_call' && (call('Write') as { input: { content: string } }).input.content).toMatch(/^\[stripped/);
    expect(result('Write').content).toBe('File created successfully at /r/b.ts');
    expect(result('Edit').content).toMatch(/^\[compacted\] Edit/);
    expect(call('mystery_tool')).toBe(log.messages[7].blocks[0]);
    const profile = projectTranscript(log, [step([{ id: 'tool-hints', options: { request: 'strip', response: 'remove' } }], { keepLast: 1 })]);
    expect(profile.messages.flatMap((m) => m.blocks).some((x) => x.kind === 'tool_call' && x.name === 'mystery_tool')).toBe(false);
  });
  it('user hints override the defaults (response = remove drops the pair whole)', () => {
    const p = projectTranscript(log, [step([{ id: 'tool-hints', options: { hints: { Read: { response: 'remove' } } } }], { keepLast: 1 })]);
    expect(p.messages.flatMap((m) => m.blocks).some((x) => (x.kind === 'tool_call' || x.kind === 'tool_result') && x.name === 'Read')).toBe(false);
  });
});
