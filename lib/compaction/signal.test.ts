import { describe, expect, it } from 'vitest';
import { signalCacheEntries, errorLinesOf, formatRecordsErrors, MAY_SIGNAL_RE, patternKindOf, pickSignal, resultStatus, scanLines, scanText, signalLines, STUB_SIGNAL } from './signal';
import { importedCorpus } from '../../tests/corpus';
import { resultStub, withSignal } from './reducers/util';
import { truncateToCap } from './truncate-text';
import { makeTranscript } from './testing/make';
import { step } from './testing/steps';
import { projectTranscript } from './project';

const chars4 = (s: string) => Math.ceil(s.length / 4);
const kinds = (text: string, category: Parameters<typeof signalLines>[1] = 'head-tail') => signalLines(text, category).map((s) => `${s.kind}:${s.text}`);

describe('signal patterns (documented in signal.ts)', () => {
  it('finds failing tests, assertions, errors, exit codes and their locations in shell output', () => {
    const out = [
      '$ pytest -q',
      'tests/test_a.py::test_ok PASSED',
      'Traceback (most recent call last):',
      '  File "/app/src/calc.py", line 12, in total',
      'ZeroDivisionError: division by zero',
      'E       assert 3 == 4',
      'FAILED tests/test_a.py::test_sum - assert 3 == 4',
      '--- FAIL: TestParse (0.00s)',
      'test money::split ... FAILED',
      'not ok 3 - rounds cents',
      '✕ splits payments (4 ms)',
      'src/a.ts(3,5): error TS2322: Type string is not assignable to type number.',
      'error[E0308]: mismatched types',
      '  --> src/main.rs:3:5',
      'fatal: not a git repository',
      'npm ERR! code ELIFECYCLE',
      'bash: foo: command not found',
      '    at splitPayments (src/money.ts:57:11)',
      '==== 1 failed, 10 passed in 0.2s ====',
      'Exit code 1',
      'all good here',
    ].join('\n');
    expect(kinds(out)).toEqual([
      'location:File "/app/src/calc.py", line 12, in total',
      'error:ZeroDivisionError: division by zero',
      'assert:E       assert 3 == 4',
      'test:FAILED tests/test_a.py::test_sum - assert 3 == 4',
      'test:--- FAIL: TestParse (0.00s)',
      'test:test money::split ... FAILED',
      'test:not ok 3 - rounds cents',
      'test:✕ splits payments (4 ms)',
      'error:src/a.ts(3,5): error TS2322: Type string is not assignable to type number.',
      'error:error[E0308]: mismatched types',
      'location:--> src/main.rs:3:5',
      'error:fatal: not a git repository',
      'error:npm ERR! code ELIFECYCLE',
      'error:bash: foo: command not found',
      'location:at splitPayments (src/money.ts:57:11)',
      'test:==== 1 failed, 10 passed in 0.2s ====',
      'exit:Exit code 1',
    ]);
  });

  it('ignores clean runs, numbered file text and match lines; file reads yield only the tool’s own failure', () => {
    expect(kinds('==== 12 passed in 0.2s ====\nExit code 0\n0 failed')).toEqual([]);
    expect(kinds('  12→  throw new TypeError: bad\n13\traise ValueError: x')).toEqual([]);
    expect(kinds('src/a.ts:12: error: not a real error, a grep match', 'match-list')).toEqual([]);
    expect(kinds('rg: src: No such file or directory (os error 2)', 'match-list')).toEqual(['error:rg: src: No such file or directory (os error 2)']);
    expect(kinds('# Use exit code 1 on warnings\nraise ValueError: x\nerror: in a comment', 'file-content')).toEqual([]);
    expect(kinds('<tool_use_error>File does not exist.</tool_use_error>', 'file-content')).toEqual(['error:<tool_use_error>File does not exist.</tool_use_error>']);
    // A location alone is no signal (a stack frame printed by a passing run).
    expect(kinds('  at main (src/a.ts:1:1)')).toEqual([]);
  });

  it('reads its own stub and truncation marks: compacting twice keeps the same lines', () => {
    expect(errorLinesOf('[compacted] Bash: error — FAILED tests/a.py::t - boom\n[line 57] E   assert 1 == 2')).toEqual(['FAILED tests/a.py::t - boom', 'E   assert 1 == 2']);
  });

  it('picks the most telling lines under the cap, in source order', () => {
    const lines = signalLines(['ERROR one', 'ERROR two', 'FAILED t::a - x', 'Exit code 2', ...Array.from({ length: 20 }, (_, i) => `ERROR e${i}`)].join('\n'), 'head-tail');
    const picked = pickSignal(lines, STUB_SIGNAL);
    expect(picked.length).toBe(STUB_SIGNAL.maxLines);
    expect(picked.map((p) => p.text)).toContain('FAILED t::a - x');
    expect(picked.map((p) => p.line)).toEqual([...picked.map((p) => p.line)].sort((a, b) => a - b));
  });
});

describe('honest stubs (issue 10.6)', () => {
  it('says ok / error only where the format records it, or the output states an exit code', () => {
    expect(formatRecordsErrors('openai-chat')).toBe(false);
    expect(formatRecordsErrors('claude-code')).toBe(true);
    const typeError = { name: 'Read', isError: false, content: 'TypeError: cannot read x\n' + 'y'.repeat(500) };
    expect(resultStub(typeError, 'openai-chat', 'generic')).toBe('[compacted] Read — TypeError: cannot read x');
    expect(resultStub(typeError, 'claude-code', 'generic')).toBe('[compacted] Read: ok — TypeError: cannot read x');
    expect(resultStatus({ isError: false, content: 'done\nExit code 0' }, 'swe-agent')).toBe('ok');
    expect(resultStatus({ isError: false, content: 'boom\nexit status 2' }, 'swe-agent')).toBe('error');
    expect(resultStatus({ isError: false, content: 'plain' }, 'swe-agent')).toBeUndefined();
    expect(resultStatus({ isError: true, content: 'plain' }, 'swe-agent')).toBe('error');
  });

  it('a stub keeps the signal lines of a failure printed mid-output; without a signal, the first line and, for a shell run, its last line (how it ended, issue 27)', () => {
    const run = ['$ npm test', ...Array.from({ length: 50 }, (_, i) => `ok ${i} passes`), 'not ok 51 - splits payments', '  AssertionError: expected 33.33 to equal 33.34', ...Array.from({ length: 50 }, (_, i) => `ok ${i + 52} passes`), 'Exit code 1'].join('\n');
    expect(resultStub({ name: 'Bash', isError: true, content: run }, 'claude-code', 'head-tail')).toBe(
      '[compacted] Bash: error\nnot ok 51 - splits payments\nAssertionError: expected 33.33 to equal 33.34\nExit code 1',
    );
    expect(resultStub({ name: 'Bash', isError: false, content: 'build ok\nwrote dist/' }, 'claude-code', 'head-tail')).toBe('[compacted] Bash: ok — build ok\nwrote dist/');
    // A file's last line is not how anything ended.
    expect(resultStub({ name: 'Read', isError: false, content: 'line one\nline two' }, 'claude-code', 'file-content')).toBe('[compacted] Read: ok — line one');
    // An expired run that passed keeps its last line ("All checks passed!"), decoded from Codex's JSON.
    expect(withSignal('[result expired]', 'ruff check .\nAll checks passed!', 'head-tail')).toBe('[result expired]\nAll checks passed!');
    expect(withSignal('[result expired]', JSON.stringify({ output: 'Compiling app\nFinished release [optimized] target(s)\n', metadata: { exit_code: 0 } }), 'head-tail')).toBe('[result expired]\nFinished release [optimized] target(s)');
    expect(withSignal('[result expired]', run, 'head-tail')).toBe('[result expired]\nnot ok 51 - splits payments\nAssertionError: expected 33.33 to equal 33.34\nExit code 1');
    expect(withSignal('[result expired]', 'fine', 'head-tail')).toBe('[result expired]\nfine');
    expect(withSignal('[result expired]', 'fine', 'file-content')).toBe('[result expired]');
  });
});

describe('truncation keeps the failure (sven head/tail + the omitted middle’s error lines)', () => {
  it('marks the error lines of the omitted middle with their line numbers, inside the cap', () => {
    const lines = ['$ cargo test', ...Array.from({ length: 300 }, (_, i) => `test t${i} ... ok ${'x'.repeat(30)}`)];
    lines.splice(150, 0, 'test money::split ... FAILED', "thread 'money::split' panicked at src/money.rs:57:11:", 'assertion `left == right` failed');
    const text = lines.join('\n');
    const cut = truncateToCap(text, 'head-tail', 400, chars4)!;
    expect(chars4(cut.text)).toBeLessThanOrEqual(400);
    expect(cut.text).toContain('[line 151] test money::split ... FAILED');
    expect(cut.text).toContain('[line 153] assertion `left == right` failed');
    expect(cut.text.startsWith('$ cargo test')).toBe(true);
    expect(cut.keptHead + cut.keptTail + cut.omittedLines).toBe(lines.length);
  });
});

describe('dedup keeps what a re-run no longer prints', () => {
  it('the same command before and after a fix: the failing run is stubbed with its signal, not removed', () => {
    const failing = ['$ pytest', ...Array.from({ length: 40 }, (_, i) => `t${i} PASSED`), 'FAILED tests/test_a.py::test_total - assert 305 == 255', '1 failed, 40 passed'].join('\n');
    const passing = ['$ pytest', ...Array.from({ length: 41 }, (_, i) => `t${i} PASSED`), '41 passed'].join('\n');
    const log = makeTranscript([
      { user: 'run the tests', tools: [{ name: 'Bash', input: { command: 'pytest' }, output: failing, isError: true }] },
      { user: 'fix it and rerun', tools: [{ name: 'Bash', input: { command: 'pytest' }, output: passing }] },
      { user: 'thanks', answer: 'done' },
    ]);
    const p = projectTranscript(log, [step(['dedup-tools'], { keepLast: 1 })]);
    const results = p.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_result');
    expect(results).toHaveLength(2);
    expect(results[0].kind === 'tool_result' && results[0].content).toBe('[compacted] Bash: error\nFAILED tests/test_a.py::test_total - assert 305 == 255\n1 failed, 40 passed');
  });
});

describe('the pre-test (MAY_SIGNAL_RE) rules out only lines no pattern matches', () => {
  const categories = ['generic', 'head-tail', 'match-list', 'file-content'] as const;
  it('on every line of every tool result of the corpus, and on the documented examples', () => {
    const lines = new Set<string>(DOCUMENTED_LINES);
    for (const { log } of importedCorpus())
      for (const m of log.messages) for (const b of m.blocks) if (b.kind === 'tool_result') for (const l of b.content.split('\n')) if (l.trim().length <= 2_000) lines.add(l.trim());
    let matched = 0;
    const missed: string[] = [];
    for (const l of lines) {
      if (!categories.some((c) => patternKindOf(l, c) !== undefined)) continue;
      matched++;
      if (!MAY_SIGNAL_RE.test(l)) missed.push(l);
    }
    expect(missed).toEqual([]);
    // The corpus and the examples hold over a hundred distinct signal lines of every kind, so a pre-test missing a word shows here.
    expect(matched).toBeGreaterThan(100);
    // And the pre-test rules out most lines (what it is for).
    let ruledOut = 0;
    for (const l of lines) if (!MAY_SIGNAL_RE.test(l)) ruledOut++;
    expect(ruledOut / lines.size).toBeGreaterThan(0.5);
  });
});

describe('the one-pass scan reads the same signal lines as a test of every line', () => {
  const categories = ['generic', 'head-tail', 'match-list', 'file-content'] as const;
  it('on every tool result of the corpus, in every category', () => {
    let texts = 0;
    let withSignal = 0;
    for (const { log } of importedCorpus())
      for (const m of log.messages)
        for (const b of m.blocks) {
          if (b.kind !== 'tool_result' || !b.content) continue;
          texts++;
          for (const c of categories) {
            const want = scanLines(b.content, c);
            if (want.length) withSignal++;
            expect(scanText(b.content, c)).toEqual(want);
          }
        }
    expect(texts).toBeGreaterThan(1_000);
    expect(withSignal).toBeGreaterThan(100);
  });

  it('on lines that start with a signal word after blanks, a stub mark, a line mark, a carriage return or at the very start', () => {
    const lines = [
      ...DOCUMENTED_LINES,
      'E', 'E\tx', '  E   assert 1 == 2', '\tat f (src/a.ts:3:5)', '[line 12] E   assert 3 == 4', '[compacted] Bash: error — E   assert 3 == 4',
      '[compacted] Bash — npm ERR! code 1', '   --> src/main.rs:3:5', 'File "a.py", line 3, in f\r', '\u00a0at g (b.js:1:1)', 'plain text', '',
      '12\tnot a failure', 'data: at least', 'xE assert', 'Xat f (a.js:1:1)', '[x] at f (a.js:1:1)', '— at f (a.js:1:1)',
    ];
    // Every pair of lines in both orders, and each line as the whole text: line starts, ends and neighbours all count.
    for (const c of categories) {
      for (const a of lines) {
        expect(scanText(a, c)).toEqual(scanLines(a, c));
        for (const b of ['', 'Error: boom', '  E   x', 'ok']) {
          const t = `${a}\n${b}\n${a}`;
          expect(scanText(t, c)).toEqual(scanLines(t, c));
        }
      }
    }
    // A line the pre-test passes only by its start: found with an empty line before it and at a blank line's end.
    expect(scanText('ok\n\n  at f (a.js:1:1)\nError: x', 'generic').map((s) => s.line)).toEqual([2, 3]);
  });
});

// One line of each pattern of signal.ts's table (the corpus may lack some).
const DOCUMENTED_LINES = [
  'FAILED tests/a.py::test_x - assert 1 == 2', 'FAIL src/a.test.ts', '--- FAIL: TestX (0.00s)', 'test x ... FAILED', 'test y ... ERROR',
  'not ok 3 - rounds cents', '1) splits payments: fail', '✗ name', '✕ name', '× name', '✖ name', '❌ name', '2 failed, 10 passed', 'Tests: 1 failed',
  'test result: FAILED. 1 passed; 1 failed', 'ERROR tests/test_a.py::test_b', 'E       assert 3 == 4', 'AssertionError: boom', 'assertion `left == right` failed',
  'Expected: 3', 'Received: 4', 'Actual value: 5', 'expected 1 to equal 2', 'TypeError: x is not a function', 'java.lang.IllegalStateException: bad',
  'SegFault', 'error: could not compile', 'error[E0308]: mismatched types', 'src/a.ts(3,5): error TS2322: Type', 'a.c:3:5: error: expected', 'fatal: not a git repository',
  'panic: runtime error', 'npm ERR! code ELIFECYCLE', '[ERROR] build failed', 'CRITICAL disk full', 'FATAL boom', 'cat: x: No such file or directory', 'bash: y: Permission denied',
  'zsh: command not found: foo', 'Segmentation fault (core dumped)', "Error: Cannot find module 'x'", "ModuleNotFoundError: No module named 'x'", 'ENOENT: open', 'EACCES', 'connect ECONNREFUSED',
  'listen EADDRINUSE', '<tool_use_error>File does not exist.</tool_use_error>', 'Error executing tool bash', 'InputValidationError: bad', 'Exit code: 1', 'exit status 2',
  'exited with code 1', '"exit_code": 1', 'returncode=1', 'Command failed with exit code 2', 'File "a.py", line 3, in f', '--> src/main.rs:3:5', 'at f (src/a.ts:3:5)', 'at src/a.ts:3:5',
];

describe('the signal cache lives with its log', () => {
  it('what a projection scans is remembered in its log\'s cache, not in the shared one (a closed log takes its results\' texts with it)', () => {
    const tools = Array.from({ length: 40 }, (_, i) => ({ name: 'Bash', input: { command: `npm test ${i}` }, output: `FAIL src/t${i}.test.ts\nError: expected ${i} to be ${i + 1}\n${'ok\n'.repeat(200)}` }));
    const log = makeTranscript([{ user: 'fix the tests', tools }, { user: 'thanks' }]);
    const shared = signalCacheEntries();
    expect(signalCacheEntries(log)).toBe(0);
    const p = projectTranscript(log, [step(['strip-tool-results'], { keepLast: 1 })]);
    expect(Object.values(p.fates).filter((f) => f.kind === 'stubbed').length).toBeGreaterThan(0);
    expect(signalCacheEntries(log)).toBeGreaterThanOrEqual(40);
    expect(signalCacheEntries()).toBe(shared);
  });
});
