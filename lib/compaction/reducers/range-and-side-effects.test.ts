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

describe('shell commands are deduplicated only when known to be read-only', () => {
  it('classifies commands', () => {
    for (const c of ['cat src/a.ts', 'ls -la', 'grep -rn foo src | head -20', 'git status', 'git diff HEAD~1', 'cd /r && git log --oneline -5', 'sed -n 1,20p a.txt', 'find . -name "*.ts"', 'rg foo 2>/dev/null', 'pytest -x tests/', 'cd /r && cargo test', 'npm test'])
      expect(isReadOnlyCommand(c), c).toBe(true);
    for (const c of ['git push', 'git push origin main', 'npm install', 'rm -rf build', 'cat a > b', 'ls && npm install', 'sed -i s/a/b/ f', 'find . -delete', 'echo $(rm x)', 'make', 'git commit -m x', 'python reproduce.py', 'npm run build', 'pytest > out.txt'])
      expect(isReadOnlyCommand(c), c).toBe(false);
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
