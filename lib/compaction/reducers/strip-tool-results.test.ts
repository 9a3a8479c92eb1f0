import { describe, expect, it } from 'vitest';
import { filler, makeTranscript } from '../testing/make';
import { step } from '../testing/steps';
import { projectTranscript } from '../project';

describe('strip-tool-results', () => {
  const log = makeTranscript([
    { user: 'look', tools: [{ name: 'read_file', input: { path: 'src/a.ts' }, output: 'export const a = 1;\n' + filler(200) }, { name: 'bash', input: { command: 'make' }, output: 'make: *** [all] Error 2\n' + filler(100), isError: true }] },
    { user: 'commit', tools: [{ name: 'git_commit', input: { message: 'x' }, output: 'abc1234 committed ' + filler(50) }] },
    { user: 'again', tools: [{ name: 'read_file', input: { path: 'src/a.ts' }, output: filler(200) }] },
  ]);
  it('stubs results as "[compacted] <tool>: ok|error — <first line>" and keeps the calls', () => {
    const p = projectTranscript(log, [step(['strip-tool-results'], { keepLast: 1 })]);
    const results = p.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_result');
    expect(results.map((r) => (r.kind === 'tool_result' ? r.content : ''))).toEqual([
      '[compacted] read_file: ok — export const a = 1;',
      '[compacted] bash: error — make: *** [all] Error 2',
      log.messages[7].blocks[0].kind === 'tool_result' ? log.messages[7].blocks[0].content : '', // git_commit: response = keep (RFD D17)
      log.messages[10].blocks[0].kind === 'tool_result' ? log.messages[10].blocks[0].content : '', // keep_last
    ]);
    expect(p.report[0].notes.join(' ')).toContain('kept by response = "keep"');
    expect(p.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_call')).toHaveLength(4);
  });
  it('is idempotent: stubbing twice changes nothing more', () => {
    const once = projectTranscript(log, [step(['strip-tool-results'], { keepLast: 1 })]);
    const twice = projectTranscript(log, [step(['strip-tool-results'], { keepLast: 1 }), step(['strip-tool-results'], { keepLast: 1 })]);
    expect(twice.tokens.after.total).toBe(once.tokens.after.total);
    expect(twice.report[1].events).toBe(0);
  });
  it('ignores hints when respectHints is false', () => {
    const p = projectTranscript(log, [step([{ id: 'strip-tool-results', options: { respectHints: false } }], { keepLast: 1 })]);
    expect(p.report[0].events).toBe(3);
  });
});
