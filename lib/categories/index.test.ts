import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CATEGORIES, commandOutcome, extractCategories, figuresOf, modelTextOf, survivalIndex, survivalOf } from './index';
import { defaultOutputCategory } from './tools';
import { DEFAULT_TOOL_HINTS, outputCategoryFor } from '../compaction/hints';
import { makeTranscript } from '../compaction/testing/make';
import { corpusFiles } from '../../tests/corpus';
import { importFile } from '../formats/import';
import { sourceFromBytes } from '../read/source';

const log = makeTranscript(
  [
    { user: 'Fix the parser in src/parse.ts. Never touch Cargo.toml.', tools: [{ name: 'Read', input: { file_path: '/repo/src/parse.ts' }, output: '  1→export class ParseError extends Error {}\n  2→throw new Error("bad")' }] },
    { user: '<system-reminder>harness text</system-reminder>', tools: [{ name: 'Bash', input: { command: 'npm test -- --run' }, output: 'FAIL src/parse.test.ts\nTypeError: x is undefined\nTests: 1 failed, 12 passed, 13 total\nDuration 1.42s\nExit code 1', isError: true }] },
    { user: 'Now run it again.', tools: [{ name: 'Bash', input: { command: 'npm test -- --run' }, output: 'Tests: 13 passed, 13 total\nDuration 1.38s' }] },
    { user: 'Read the missing file.', tools: [{ name: 'Read', input: { file_path: '/repo/gone.ts' }, output: 'File does not exist. Error: ENOENT', isError: true }] },
  ],
  { format: 'claude-code' },
);

describe('extractCategories', () => {
  const items = extractCategories(log.messages, { format: 'claude-code' });
  const of = (c: string) => items.filter((i) => i.category === c).map((i) => i.text);

  it('finds the five categories of a span, once each, where they first appeared', () => {
    expect(of('instructions')).toEqual(['Fix the parser in src/parse.ts. Never touch Cargo.toml.', 'Now run it again.', 'Read the missing file.']);
    expect(of('paths')).toEqual(['/repo/src/parse.ts', '/repo/gone.ts']);
    expect(of('commands')).toEqual(['npm test -- --run']);
    expect(of('errors')).toEqual(['FAIL src/parse.test.ts', 'TypeError: x is undefined', 'Tests: 1 failed, 12 passed, 13 total', 'Exit code 1', 'File does not exist. Error: ENOENT']);
    expect(of('figures')).toEqual(['1 failed', '12 passed', '13 total', '1.42s', '13 passed', '1.38s']);
    const command = items.find((i) => i.category === 'commands')!;
    // The latest run's outcome; the turns of every run.
    expect(command.outcome).toEqual({ status: 'ok', tally: '13 passed, 13 total', line: 'Tests: 13 passed, 13 total' });
    expect(command.turns).toEqual([1, 2]);
    const first = log.messages.find((m) => m.role === 'user')!;
    expect(items[0]).toMatchObject({ category: 'instructions', messageId: first.id, blockId: first.blocks[0].id, turn: 0 });
  });

  it('reads file text as file text: the word Error in a file is no error, a failed read is', () => {
    expect(of('errors')).not.toContain('1→export class ParseError extends Error {}');
    expect(items.find((i) => i.text === 'File does not exist. Error: ENOENT')).toMatchObject({ tool: 'Read', flagged: true });
  });

  it('skips side chains and the messages a projection made', () => {
    const synthetic = [{ role: 'user', turn: 0, synthetic: 'summary' as const, blocks: [{ kind: 'text' as const, id: 's', text: 'Summary: ran `rm -rf x`' }] }];
    expect(extractCategories(synthetic)).toEqual([]);
  });
});

describe('survivalOf', () => {
  const items = extractCategories(log.messages);
  it('counts per category what the text still holds, and names what it lost', () => {
    const text = 'user: Fix the parser in `src/parse.ts`.\n> Never touch Cargo.toml.\nRan `npm test -- --run` → Tests: 13 passed, 13 total (1.38s)\nparse.ts\nTypeError: x is undefined';
    const s = survivalOf(items, text);
    expect(Object.keys(s)).toEqual([...CATEGORIES]);
    expect(s.instructions).toMatchObject({ kept: 1, of: 3 });
    expect(s.instructions.lost.map((i) => i.text)).toEqual(['Now run it again.', 'Read the missing file.']);
    expect(s.paths).toMatchObject({ kept: 1, of: 2 });
    expect(s.commands).toMatchObject({ kept: 1, of: 1, lost: [] });
    expect(s.errors.lost.map((i) => i.text)).toEqual(['FAIL src/parse.test.ts', 'Tests: 1 failed, 12 passed, 13 total', 'Exit code 1', 'File does not exist. Error: ENOENT']);
    expect(s.figures.lost.map((i) => i.text)).toEqual(['1 failed', '12 passed', '1.42s']);
    // One index for several lists: the same answer.
    expect(survivalOf(items, survivalIndex(text))).toEqual(s);
  });

  it('keeps everything in the text of the log itself, and nothing in an empty text', () => {
    const all = survivalOf(items, modelTextOf(log.messages));
    for (const c of CATEGORIES) expect(all[c].kept, c).toBe(all[c].of);
    const none = survivalOf(items, '');
    for (const c of CATEGORIES) expect(none[c].kept, c).toBe(0);
  });
});

describe('figures and outcomes', () => {
  it('reads counts, durations, sizes and coverage from report lines only', () => {
    expect(figuresOf('==== 17 passed in 0.67s ====')).toEqual(['17 passed', '0.67s']);
    expect(figuresOf('TOTAL    1234    56    95%')).toEqual(['95%']);
    expect(figuresOf('dist/app.js  1.2 MB  built in 340ms')).toEqual(['1.2 MB', '340ms']);
    expect(figuresOf('sleep 5s\n2024-01-01 12:00:00 started\n  12→const t = 1.5s')).toEqual([]);
  });
  it('says how a command ended: exit code, tally, the line', () => {
    expect(commandOutcome('collected 3 items\nE  assert 1 == 2\n1 failed, 2 passed in 0.1s\nExit code 1', false)).toEqual({ status: 'error', exitCode: 1, tally: '1 failed, 2 passed', line: '1 failed, 2 passed in 0.1s' });
    expect(commandOutcome('ok', false)).toEqual({ status: 'unknown', line: 'ok' });
    expect(commandOutcome('ok', false, true).status).toBe('ok');
  });
});

describe('the module sits below compaction and summarize', () => {
  it('imports neither', () => {
    const dir = path.dirname(new URL(import.meta.url).pathname);
    for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.ts') && !x.endsWith('.test.ts'))) {
      const src = fs.readFileSync(path.join(dir, f), 'utf8');
      expect(src, f).not.toMatch(/from '\.\.\/(compaction|summarize)/);
    }
  });
  it('gives every tool of the default hints the category the hints give it', () => {
    for (const name of Object.keys(DEFAULT_TOOL_HINTS)) expect(defaultOutputCategory(name), name).toBe(outputCategoryFor(name));
    expect(defaultOutputCategory('mcp__fs__read_file')).toBe(outputCategoryFor('mcp__fs__read_file'));
    expect(defaultOutputCategory('SomethingElse')).toBe('generic');
  });
});

describe('on a real session', () => {
  it('slopometry before its compaction: every command run, every typed message', () => {
    const f = corpusFiles('claude-code').find((x) => x.includes('slopometry'))!;
    const t = importFile(sourceFromBytes(path.basename(f), new Uint8Array(fs.readFileSync(f)))).transcript;
    const marker = t.markers.find((m) => m.atMessage > 0)!;
    const items = extractCategories(t.messages.slice(0, marker.atMessage), { format: t.format });
    const count = (c: string) => items.filter((i) => i.category === c).length;
    expect(count('commands')).toBe(29);
    expect(count('instructions')).toBe(5);
    expect(items.filter((i) => i.category === 'figures').map((i) => i.text)).toEqual(expect.arrayContaining(['17 passed', '173 passed', '0.67s']));
    // Claude Code records failures: a command's outcome is known.
    expect(items.filter((i) => i.category === 'commands').every((i) => i.outcome && i.outcome.status !== 'unknown')).toBe(true);
  });
});

describe('errors are errors whatever the tool (issue 27, item 1)', () => {
  it('a failed Read keeps its error line in a stub and in an expiry placeholder', async () => {
    const { resultStub, withSignal } = await import('../compaction/reducers/util');
    const { resultCategory } = await import('./signal');
    const r = { name: 'Read', isError: true, content: "TypeError: handler_3 is not a function\n     1→const a = 1;\n     2→const b = 2;" };
    expect(resultStub(r, 'claude-code', outputCategoryFor('Read'))).toBe('[compacted] Read: error — TypeError: handler_3 is not a function');
    expect(withSignal('[result expired]', r.content, resultCategory(r, outputCategoryFor('Read')))).toBe('[result expired]\nTypeError: handler_3 is not a function');
  });

  it('file text is no error; the lines a viewer adds to it, and a short failure message, are', async () => {
    const { errorLinesOf } = await import('./signal');
    const numbered = '     1→class ParseError extends Error {}\n     2→throw new Error("bad"): never\n     3→// error: not here';
    expect(errorLinesOf(numbered, 'file-content')).toEqual([]);
    expect(errorLinesOf(numbered.replace('\n     2', '\nTypeError: x is not a function\n     2'), 'file-content')).toEqual(['TypeError: x is not a function']);
    expect(errorLinesOf('Error: cannot read src/a.ts: is a directory', 'file-content')).toEqual(['Error: cannot read src/a.ts: is a directory']);
    // A raw (unnumbered) file of several lines: its text, whatever it says.
    expect(errorLinesOf('Error: the first line of a log file\nline 2', 'file-content')).toEqual([]);
  });
});

describe('a stubbed or expired shell result keeps how it ended (issue 27 item 2)', () => {
  it('a passing run keeps its tally line beside its first line', async () => {
    const { resultStub, withSignal } = await import('../compaction/reducers/util');
    const r = { name: 'Bash', isError: false, content: '============ test session starts ============\ncollected 17 items\n...\n============ 17 passed in 0.67s ============' };
    expect(resultStub(r, 'claude-code', 'head-tail')).toBe('[compacted] Bash: ok — ============ test session starts ============\n============ 17 passed in 0.67s ============');
    expect(withSignal('[result expired]', r.content, 'head-tail')).toBe('[result expired]\n============ 17 passed in 0.67s ============');
    // File text is not a run.
    expect(withSignal('[result expired]', '  1→17 passed in 0.67s', 'file-content')).toBe('[result expired]');
  });
});
