/**
 * The hints table's semantics that decide what dedup-tools and retention may take out:
 * Claude Code `Read` ranges (a plain Read is lines 1–2000, not the file), shell commands
 * deduplicated only when read-only, default lifespans per tool family, and count mode.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusFiles } from '../../../tests/corpus';
import { parseCompactArgs, stepFromArgs } from '../../cli/compact';
import { importFile } from '../../formats/import';
import { sourceFromBytes } from '../../read/source';
import { parseJpToml } from '../config';
import { ReducerOptionError } from '../context';
import { DEFAULT_TOOL_HINTS, hintFor, isReadOnlyCommand, lineRangeOf } from '../hints';
import { autoStages } from '../pipeline';
import { blockFate, projectTranscript } from '../project';
import { filler, makeTranscript, type ToolStep } from '../testing/make';
import { step } from '../testing/steps';
import { planReducers, defaultPlan } from '../../../components/plan/plan';

const callIds = (p: ReturnType<typeof projectTranscript>) => p.messages.flatMap((m) => m.blocks).flatMap((b) => (b.kind === 'tool_call' ? [b.callId] : []));
/** One prompt, then the calls in order (an agent run), then an answer. */
const run = (tools: ToolStep[]) => makeTranscript([{ user: 'go', tools }, { user: 'next', answer: 'ok' }]);
const dedup = (tools: ToolStep[]) => projectTranscript(run(tools), [step(['dedup-tools'], { keepLast: 1 })]);

describe('Claude Code Read: range semantics from the hints table', () => {
  it('declares offset 1-based and 2,000 lines per call', () => {
    expect(hintFor('Read').lines).toEqual({ offsetBase: 1, defaultLimit: 2000 });
    expect(lineRangeOf('Read', { file_path: '/r/big.ts' })).toEqual({ path: '/r/big.ts', start: 1, end: 2000 });
    expect(lineRangeOf('Read', { file_path: '/r/big.ts', offset: 3000 })).toEqual({ path: '/r/big.ts', start: 3000, end: 4999 });
    expect(lineRangeOf('Read', { file_path: '/r/big.ts', offset: 3000, limit: 100 })).toEqual({ path: '/r/big.ts', start: 3000, end: 3099 });
    // Tools without a declared limit still read to the end of the file.
    expect(lineRangeOf('fs_read_file', { path: 'src/lib.rs' })).toEqual({ path: 'src/lib.rs', start: 1, end: Infinity });
  });

  it('a plain Read does not cover an earlier read past line 2000: lines 3000–3099 stay', () => {
    const p = dedup([
      { name: 'Read', input: { file_path: '/r/big.ts', offset: 3000, limit: 100 }, output: filler(300, 'l3000') },
      { name: 'Read', input: { file_path: '/r/big.ts' }, output: filler(3000, 'head') },
    ]);
    expect(callIds(p)).toEqual(['call_1', 'call_2']);
  });

  it('a plain Read covers an earlier read inside lines 1–2000', () => {
    const p = dedup([
      { name: 'Read', input: { file_path: '/r/big.ts', offset: 100, limit: 50 }, output: filler(150, 'l100') },
      { name: 'Read', input: { file_path: '/r/big.ts' }, output: filler(3000, 'head') },
    ]);
    expect(callIds(p)).toEqual(['call_2']);
  });

  it('offsets: an offset without limit reads 2,000 lines; a later read covers it only if it spans them', () => {
    const p = dedup([
      { name: 'Read', input: { file_path: '/r/big.ts', offset: 3000 }, output: filler(3000, 'a') }, // 3000–4999
      { name: 'Read', input: { file_path: '/r/big.ts', offset: 2500, limit: 1000 }, output: filler(1500, 'b') }, // 2500–3499: does not cover call_1
      { name: 'Read', input: { file_path: '/r/big.ts', offset: 2500, limit: 3000 }, output: filler(4000, 'c') }, // 2500–5499: covers both
    ]);
    expect(callIds(p)).toEqual(['call_3']);
    const q = dedup([
      { name: 'Read', input: { file_path: '/r/big.ts', offset: 3000 }, output: filler(3000, 'a') },
      { name: 'Read', input: { file_path: '/r/big.ts', offset: 2500, limit: 1000 }, output: filler(1500, 'b') },
    ]);
    expect(callIds(q)).toEqual(['call_1', 'call_2']);
  });
});

describe('issue 28: `dedup = false` in the user\'s table is honoured for line-range tools', () => {
  const reads = (name: string, path: 'path' | 'file_path'): ToolStep[] => [
    { name, input: { [path]: 'src/lib.rs', start_line: 10, end_line: 20, ...(path === 'file_path' && { offset: 10, limit: 10 }) }, output: filler(200, 'part') },
    { name, input: { [path]: 'src/lib.rs' }, output: filler(800, 'whole') },
    { name, input: { [path]: 'src/lib.rs' }, output: filler(800, 'whole again') },
  ];
  for (const [name, key] of [['fs_read_file', 'path'], ['read_file', 'path'], ['view', 'path'], ['Read', 'file_path']] as const) {
    it(`${name}: subsumed and identical reads are removed by default, all kept with dedup = false`, () => {
      const log = run(reads(name, key));
      expect(callIds(projectTranscript(log, [step(['dedup-tools'], { keepLast: 1 })]))).toEqual(['call_3']);
      const plan = parseJpToml(`[conversation.tools.${name}.compaction]\ndedup = false\n`);
      const p = projectTranscript(log, [step([{ id: 'dedup-tools', options: { hints: plan.hints } }], { keepLast: 1 })]);
      expect(callIds(p)).toEqual(['call_1', 'call_2', 'call_3']);
      expect(p.report.find((r) => r.reducer === 'dedup-tools')!.events).toBe(0);
    });
  }
  it('the editor family\'s own dedup: false (edits) still lets its view reads subsume', () => {
    const log = run([
      { name: 'str_replace_editor', input: { command: 'view', path: '/r/a.py', view_range: [1, 20] }, output: filler(100, 'head') },
      { name: 'str_replace_editor', input: { command: 'view', path: '/r/a.py' }, output: filler(400, 'all') },
    ]);
    expect(callIds(projectTranscript(log, [step(['dedup-tools'], { keepLast: 1 })]))).toEqual(['call_2']);
  });
});

describe('shell commands are deduplicated only when known to be read-only', () => {
  it('classifies commands', () => {
    for (const c of ['cat src/a.ts', 'ls -la', 'grep -rn foo src | head -20', 'git status', 'git diff HEAD~1', 'cd /r && git log --oneline -5', 'sed -n 1,20p a.txt', 'find . -name "*.ts"', 'rg foo 2>/dev/null', 'pytest -x tests/', 'cd /r && cargo test', 'npm test'])
      expect(isReadOnlyCommand(c), c).toBe(true);
    for (const c of ['git push', 'git push origin main', 'npm install', 'rm -rf build', 'cat a > b', 'ls && npm install', 'sed -i s/a/b/ f', 'find . -delete', 'echo $(rm x)', 'make', 'git commit -m x', 'python reproduce.py', 'npm run build', 'pytest > out.txt'])
      expect(isReadOnlyCommand(c), c).toBe(false);
  });

  it('issue 28: a command is read-only only if every part is — the command a wrapper runs, every pipeline stage, no output file', () => {
    for (const c of ['env', 'env | sort', 'printenv PATH', 'time cargo test', 'nice -n 10 grep -r foo src', 'timeout 30 cat big.log', 'timeout -s KILL 5s ls', 'sudo cat /etc/shadow', 'find . -name "*.ts" | xargs grep foo', 'ls | xargs', 'sort a.txt', 'sort -n a.txt | uniq -c', 'uniq a.txt', 'date', 'date +%s', 'env LANG=C ls -la', 'rg foo 2>&1 | head'])
      expect(isReadOnlyCommand(c), c).toBe(true);
    for (const c of ['env NODE_ENV=production npm run deploy', 'env FOO=1 rm -rf build', 'env -S "rm -rf x"', 'time rm -rf build', 'time -o t.txt ls', 'nice rm x', 'timeout 30 npm install', 'timeout 30', 'sudo rm -rf /', 'sudo -s', 'sudo -u root apt-get install x', 'find . -name "*.o" | xargs rm', 'cat list | xargs -I{} mv {} /tmp', 'sort -o sorted.txt a.txt', 'sort --output=s.txt a.txt', 'sort -no s.txt a.txt', 'uniq in.txt out.txt', 'uniq -c in.txt out.txt', 'date -s "2020-01-01"', 'date --set=tomorrow', 'date 010100002020', 'ls | tee out.txt', 'cat a | sort > b', 'cat a >> b', 'ls & rm x'])
      expect(isReadOnlyCommand(c), c).toBe(false);
  });

  it('issue 28: a repeated `env … rm -rf build` is not deduplicated; a repeated `env LANG=C ls` is', () => {
    const p = dedup([
      { name: 'Bash', input: { command: 'env CI=1 rm -rf build' }, output: '' },
      { name: 'Bash', input: { command: 'env LANG=C ls' }, output: 'a' },
      { name: 'Bash', input: { command: 'env CI=1 rm -rf build' }, output: '' },
      { name: 'Bash', input: { command: 'env LANG=C ls' }, output: 'a b' },
    ]);
    expect(callIds(p)).toEqual(['call_1', 'call_3', 'call_4']);
  });

  it('an identical earlier `git push` or `npm install` survives a later identical one; `git status` does not', () => {
    const p = dedup([
      { name: 'Bash', input: { command: 'git push origin main' }, output: 'rejected' },
      { name: 'Bash', input: { command: 'npm install' }, output: 'added 10 packages' },
      { name: 'Bash', input: { command: 'git status' }, output: 'modified: a.ts' },
      { name: 'Bash', input: { command: 'git push origin main' }, output: 'ok' },
      { name: 'Bash', input: { command: 'npm install' }, output: 'up to date' },
      { name: 'Bash', input: { command: 'git status' }, output: 'clean' },
    ]);
    expect(callIds(p)).toEqual(['call_1', 'call_2', 'call_4', 'call_5', 'call_6']);
  });

  it('Codex argv commands too', () => {
    const p = dedup([
      { name: 'shell', input: { command: ['bash', '-lc', 'cargo publish'] }, output: 'published' },
      { name: 'shell', input: { command: ['bash', '-lc', 'ls src'] }, output: 'a.rs' },
      { name: 'shell', input: { command: ['bash', '-lc', 'cargo publish'] }, output: 'already published' },
      { name: 'shell', input: { command: ['bash', '-lc', 'ls src'] }, output: 'a.rs b.rs' },
    ]);
    expect(callIds(p)).toEqual(['call_1', 'call_3', 'call_4']);
  });

  it('on a real SWE-agent run: the repeated `python reproduce.py` stays (it runs code), the repeated `ls -F` goes', () => {
    const f = corpusFiles('swe-agent').find((x) => x.includes('marshmallow-1867'))!;
    const t = importFile(sourceFromBytes(path.basename(f), new Uint8Array(fs.readFileSync(f)))).transcript;
    const p = projectTranscript(t, [step(['dedup-tools'], { keepLast: 0 })]);
    const calls = (cmd: string) => t.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_call' && JSON.stringify(b.input).includes(`"command":"${cmd}"`));
    const repro = calls('python reproduce.py');
    const ls = calls('ls -F');
    expect(repro).toHaveLength(2);
    expect(ls).toHaveLength(2);
    expect(repro.map((b) => blockFate(p, b.id).kind)).toEqual(['kept', 'kept']);
    expect(ls.map((b) => blockFate(p, b.id).kind)).toEqual(['deduped', 'kept']);
  });
});

describe('retention: default lifespans per tool family, on in auto, count mode everywhere', () => {
  it('every family declares a lifespan; memory-like tools and sub-agents never expire', () => {
    for (const name of ['read', 'grep', 'glob', 'bash', 'edit', 'write', 'webfetch', 'todowrite', 'cargo_test']) expect(DEFAULT_TOOL_HINTS[name].retention, name).toBeDefined();
    for (const name of ['memory', 'save_memory', 'task', 'agent']) expect(DEFAULT_TOOL_HINTS[name].retention?.neverEvict, name).toBe(true);
    expect(hintFor('Read').retention).toMatchObject({ mode: 'count' });
  });

  it('auto expires the oldest Read results beyond the newest 8 of an agent run (one turn) and never a memory result', () => {
    const tools: ToolStep[] = [{ name: 'save_memory', input: { fact: 'the API key lives in .env' }, output: filler(400, 'mem') }];
    for (let i = 0; i < 20; i++) tools.push({ name: 'Read', input: { file_path: `/r/f${i}.ts` }, output: filler(500, `f${i}`) });
    const log = makeTranscript([{ user: 'go', tools }]);
    const total = projectTranscript(log, []).tokens.after.total;
    const p = projectTranscript(log, [step([{ id: 'auto', options: { summarize: false, emergency: false, skip: ['truncate-tool-results', 'tool-hints', 'strip-tool-results'] } }], { keepLast: 0, budget: Math.floor(total * 0.6) })]);
    const retention = p.report.find((r) => r.reducer === 'tool-retention')!;
    expect(retention.events).toBeGreaterThan(0);
    expect(retention.notes[0]).toMatch(/beyond the newest 8 Read results/);
    const results = p.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_result');
    expect(results.find((b) => b.kind === 'tool_result' && b.name === 'save_memory')!.content).toContain('mem');
    const reads = results.filter((b) => b.kind === 'tool_result' && b.name === 'Read');
    expect(reads.slice(-8).every((b) => b.kind === 'tool_result' && !b.content.startsWith('[result expired]'))).toBe(true);
    expect(reads.slice(0, 12).some((b) => b.kind === 'tool_result' && b.content.startsWith('[result expired]'))).toBe(true);
  });

  it('count mode from the UI knob, the CLI and a config', () => {
    const plan = defaultPlan(1000);
    const ui = planReducers({ ...plan, mode: 'manual', manual: { 'tool-retention': { enabled: true, knobs: { keep: 3 } } } });
    expect(ui).toEqual([{ id: 'tool-retention', options: { turns: 5, keep: 3, mode: 'count' } }]);
    expect(planReducers({ ...plan, mode: 'manual', manual: { 'tool-retention': { enabled: true, knobs: {} } } })[0].options).toEqual({ turns: 5 });
    const cli = stepFromArgs(parseCompactArgs(['f.jsonl', '--strategy', 'tool-retention', '--retention', 'count:2']), undefined, 1000);
    expect(cli.reducers[0].options).toMatchObject({ mode: 'count', keep: 2 });
    const cliAuto = stepFromArgs(parseCompactArgs(['f.jsonl', '--retention', 'count:4']), undefined, 1000);
    expect(autoStages(cliAuto.reducers[0].options as never).find((s) => s.id === 'tool-retention')!.options).toMatchObject({ mode: 'count', keep: 4 });
    expect(() => parseCompactArgs(['f.jsonl', '--retention', 'forever'])).toThrow(/--retention takes age:N or count:N/);
    const jp = parseJpToml('[conversation.tools.fs_grep_files.compaction]\nretention = "count"\nkeep = 2\n[conversation.tools.notes.compaction]\nretention = "never"\n');
    expect(jp.hints).toEqual({ fs_grep_files: { retention: { mode: 'count', neverEvict: false, keep: 2 } }, notes: { retention: { mode: 'age', neverEvict: true } } });
  });
});

describe('a mistyped reducer option is an error naming the option and its allowed values', () => {
  const log = run([{ name: 'Read', input: { file_path: '/r/a.ts' }, output: 'x' }]);
  it('names reducer, option, allowed values and the value given', () => {
    expect(() => projectTranscript(log, [step([{ id: 'dedup-tools', options: { mode: 'stubs' } }])])).toThrow(new ReducerOptionError('mode', 'one of "remove", "stub"', 'stubs', 'dedup-tools'));
    expect(() => projectTranscript(log, [step([{ id: 'tool-retention', options: { mode: 'counts' } }])])).toThrow(/tool-retention: option "mode" must be one of "age", "count", "tokens" \(got "counts"\)/);
    expect(() => projectTranscript(log, [step([{ id: 'truncate-tool-results', options: { cap: '2000' } }])])).toThrow(/option "cap" must be a number \(got "2000"\)/);
    expect(() => projectTranscript(log, [step([{ id: 'auto', options: { keepN: 'six' } }], { budget: 10 })])).toThrow(/auto: option "keepN" must be a number/);
  });
});
