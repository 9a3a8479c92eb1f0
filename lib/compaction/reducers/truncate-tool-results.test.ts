import { describe, expect, it } from 'vitest';
import { makeTranscript } from '../testing/make';
import { step } from '../testing/steps';
import { projectTranscript } from '../project';
import { truncateToCap } from '../truncate-text';
import { outputCategoryFor } from '../hints';
import { parseSvenYaml, planToStep } from '../config';

const lines = (n: number, p: string) => Array.from({ length: n }, (_, i) => `${p} ${i + 1} ${'x'.repeat(30)}`).join('\n');
const chars4 = (s: string) => Math.ceil(s.length / 4);

describe('truncateToCap', () => {
  it('head-tail keeps 60/40 of the lines that fit when 60 + 40 lines exceed the cap, with the omission notice', () => {
    const text = lines(1000, 'L');
    const r = truncateToCap(text, 'head-tail', 400, chars4)!;
    expect(chars4(r.text)).toBeLessThanOrEqual(400);
    expect(r.keptHead / (r.keptHead + r.keptTail)).toBeCloseTo(0.6, 1);
    expect(r.text.startsWith('L 1 ')).toBe(true);
    expect(r.text.endsWith(`L 1000 ${'x'.repeat(30)}`)).toBe(true);
    expect(r.text).toContain(`[... ${r.omittedLines} lines / ${r.omittedBytes} bytes omitted ...]`);
    expect(r.keptHead + r.keptTail + r.omittedLines).toBe(1000);
  });
  it('match-list keeps leading matches only; file-content is balanced and hints to re-read; generic cuts at a line', () => {
    const text = lines(500, 'M');
    const m = truncateToCap(text, 'match-list', 300, chars4)!;
    expect(m.keptTail).toBe(0);
    const f = truncateToCap(text, 'file-content', 300, chars4)!;
    expect(Math.abs(f.keptHead - f.keptTail)).toBeLessThanOrEqual(1);
    expect(f.text).toContain('[... use read_file with offset/limit to see more ...]');
    const g = truncateToCap(text, 'generic', 300, chars4)!;
    expect(g.text.split('\n').slice(0, -1).every((l) => l.endsWith('x'.repeat(30)))).toBe(true);
  });
  it('cuts a single huge line at a character boundary and returns undefined when it fits', () => {
    const r = truncateToCap('y'.repeat(100_000), 'generic', 100, chars4)!;
    expect(chars4(r.text)).toBeLessThanOrEqual(100);
    expect(truncateToCap('short', 'generic', 100, chars4)).toBeUndefined();
  });
});

describe('truncate-tool-results', () => {
  it('caps results at tool_result_token_cap by the tool category and records kept head/tail', () => {
    const log = makeTranscript([
      { user: 'run', tools: [{ name: 'Bash', input: { command: 'npm test' }, output: lines(2000, 'out') }, { name: 'Grep', input: { pattern: 'x' }, output: lines(2000, 'match') }] },
      { user: 'next', answer: 'ok' },
    ]);
    const p = projectTranscript(log, [step([{ id: 'truncate-tool-results', options: { cap: 500 } }], { keepLast: 1 })]);
    const [bash, grep] = p.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_result');
    expect(bash.tokens).toBeLessThanOrEqual(500);
    expect(grep.tokens).toBeLessThanOrEqual(500);
    const fb = p.fates[log.messages[2].blocks[0].id];
    const fg = p.fates[log.messages[4].blocks[0].id];
    expect(fb.kind === 'truncated' && fb.keptTail).toBeGreaterThan(0);
    expect(fg.kind === 'truncated' && fg.keptTail).toBe(0);
  });
});

describe('issue 28: sven smart truncation as seed 003 says', () => {
  it('HeadTail keeps the first 60 and the last 40 LINES (not 60/40 of as many lines as fit)', () => {
    const text = lines(5000, 'L');
    const r = truncateToCap(text, 'head-tail', 4000, chars4)!;
    expect([r.keptHead, r.keptTail]).toEqual([60, 40]);
    expect(r.omittedLines).toBe(4900);
    const kept = r.text.split('\n');
    expect(kept[59]).toMatch(/^L 60 /);
    expect(kept.at(-40)).toMatch(/^L 4961 /);
    // When even 100 lines exceed the cap: fewer, in the same ratio, inside the cap.
    const tight = truncateToCap(text, 'head-tail', 300, chars4)!;
    expect(chars4(tight.text)).toBeLessThanOrEqual(300);
    expect(tight.keptHead + tight.keptTail).toBeLessThan(100);
  });

  it('the read_file hint is written for file reads only: not for an editor\'s edit, not for fs writing', () => {
    const big = lines(3000, 'src');
    const log = makeTranscript([
      {
        user: 'go',
        tools: [
          { name: 'read_file', input: { path: 'a.rs' }, output: big },
          { name: 'str_replace_editor', input: { command: 'str_replace', path: 'a.rs', old_str: 'x', new_str: 'y' }, output: big },
          { name: 'str_replace_editor', input: { command: 'view', path: 'a.rs' }, output: big },
          { name: 'fs', input: { operation: 'write', path: 'b.rs', text: 'z' }, output: big },
          { name: 'fs', input: { operation: 'read', path: 'b.rs', text: '' }, output: big },
        ],
      },
      { user: 'next', answer: 'ok' },
    ]);
    const p = projectTranscript(log, [step([{ id: 'truncate-tool-results', options: { cap: 500 } }], { keepLast: 1 })]);
    const results = p.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_result');
    const hint = results.map((b) => b.kind === 'tool_result' && b.content.includes('use read_file with offset/limit'));
    expect(hint).toEqual([true, false, true, false, true]);
    expect(results.every((b) => b.tokens <= 500)).toBe(true);
  });

  it("sven's `fs` tool is file content (balanced head + tail), not generic", () => {
    expect(outputCategoryFor('fs')).toBe('file-content');
    const log = makeTranscript([{ user: 'go', tools: [{ name: 'fs', input: { operation: 'read', path: 'b.rs', text: '' }, output: lines(3000, 'b') }] }, { user: 'next', answer: 'ok' }]);
    const p = projectTranscript(log, [step([{ id: 'truncate-tool-results', options: { cap: 500 } }], { keepLast: 1 })]);
    const f = p.fates[log.messages[2].blocks[0].id];
    expect(f.kind === 'truncated' && Math.abs(f.keptHead - f.keptTail)).toBeLessThanOrEqual(1);
  });

  it('a sven config caps every result as it enters, even when the budget gate does not fire', () => {
    const log = makeTranscript([{ user: 'go', tools: [{ name: 'shell', input: { command: 'make' }, output: lines(3000, 'build') }, { name: 'shell', input: { command: 'ls' }, output: 'a b' }] }, { user: 'next', answer: 'ok' }]);
    const total = projectTranscript(log, []).tokens.after.total;
    // A budget ten times the context: sven's gate (0.75 of it) is far away.
    const p = projectTranscript(log, [planToStep(parseSvenYaml('agent:\n  tool_result_token_cap: 1000\n'), { budget: total * 10 })]);
    const notes = p.report.flatMap((r) => r.notes).join('\n');
    expect(notes).toMatch(/truncated 1 result\(s\) to 1000 tokens/);
    expect(notes).toMatch(/≤ trigger .*: nothing to do/);
    const [build] = p.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_result');
    expect(build.tokens).toBeLessThanOrEqual(1000);
  });
});
