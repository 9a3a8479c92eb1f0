import { describe, expect, it } from 'vitest';
import { makeTranscript } from '../testing/make';
import { step } from '../testing/steps';
import { projectTranscript } from '../project';
import { truncateToCap } from '../truncate-text';

const lines = (n: number, p: string) => Array.from({ length: n }, (_, i) => `${p} ${i + 1} ${'x'.repeat(30)}`).join('\n');
const chars4 = (s: string) => Math.ceil(s.length / 4);

describe('truncateToCap', () => {
  it('head-tail keeps 60/40 of the lines that fit, with the omission notice', () => {
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
