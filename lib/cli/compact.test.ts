import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { corpusFiles } from '../../tests/corpus';
import { importFile } from '../formats/import';
import { sourceFromBytes } from '../read/source';
import { transcriptTotals } from '../tokens/totals';
import { parseCompactionConfig } from '../compaction/config';
import { lookupModel } from '../tokens/catalog';
import { parseCompactArgs, run, stepFromArgs } from './compact';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'compact-cli-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function capture(): { out: () => string; err: () => string; restore: () => void } {
  let out = '';
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => ((out += String(s)), true));
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => ((err += String(s)), true));
  return { out: () => out, err: () => err, restore: () => (o.mockRestore(), e.mockRestore()) };
}

const reimport = (f: string) => importFile(sourceFromBytes(path.basename(f), new Uint8Array(fs.readFileSync(f)))).transcript;

describe('compact CLI', () => {
  it('parses its arguments and rejects bad ones', () => {
    expect(parseCompactArgs(['f.jsonl', '--budget', '100', '--strategy', 'strip-reasoning', '-s', 'dedup-tools', '--keep-last=2', '--out', 'o', '--dry-run'])).toMatchObject({
      file: 'f.jsonl',
      budget: 100,
      strategies: ['strip-reasoning', 'dedup-tools'],
      keepLast: 2,
      out: 'o',
      dryRun: true,
    });
    expect(() => parseCompactArgs(['--strategy', 'shred'])).toThrow(/Unknown strategy/);
    expect(() => parseCompactArgs(['--budget', '-3'])).toThrow(/needs a value|whole number/);
    expect(parseCompactArgs(['--tangents', '2,4']).tangents).toEqual([1, 3]);
    expect(parseCompactArgs(['--model', 'gpt-4o']).model).toBe('gpt-4o');
    expect(parseCompactArgs(['--keep-last-calls', '5', '--keep-last-tokens=2000', '--tail', 'turns'])).toMatchObject({ keepLastCalls: 5, keepLastTokens: 2000, tail: 'turns' });
    expect(() => parseCompactArgs(['--tail', 'calls'])).toThrow(/--tail takes auto or turns/);
    expect(() => parseCompactArgs(['--keep-last-calls', '0'])).toThrow(/whole number ≥ 1/);
    expect(stepFromArgs(parseCompactArgs(['f', '--keep-last-calls', '2', '--tail', 'auto']), undefined, 100)).toMatchObject({ keepLast: 1, keepLastCalls: 2, tail: 'auto' });
  });

  it('--help documents the agent tail', async () => {
    const io = capture();
    const code = await run(['--help']);
    io.restore();
    expect(code).toBe(0);
    expect(io.out()).toMatch(/--keep-last-calls C[\s\S]*default 3[\s\S]*--keep-last-tokens T[\s\S]*a quarter of the budget[\s\S]*--tail auto\|turns/);
  });

  it('compacts a real Claude Code session to the budget; inspect of the output agrees', async () => {
    const file = corpusFiles('claude-code').find((f) => f.includes('vibecodingtracker'))!;
    const total = transcriptTotals(reimport(file)).total;
    const budget = Math.floor(total / 2);
    const out = path.join(tmp, 'out.jsonl');
    const report = path.join(tmp, 'audit.json');
    const io = capture();
    const code = await run([file, '--budget', String(budget), '--out', out, '--report-json', report]);
    io.restore();
    expect(code, io.err()).toBe(0);
    expect(io.out()).toContain('wrote');
    const t = reimport(out);
    expect(t.format).toBe('claude-code');
    expect(transcriptTotals(t).total).toBeLessThanOrEqual(budget);
    const audit = JSON.parse(fs.readFileSync(report, 'utf8'));
    expect(audit.$schema).toBe('contextscope-compaction-audit');
    expect(audit.tokens.after).toBeLessThanOrEqual(budget);
    expect(audit.output.tokens).toBe(transcriptTotals(t).total);
  });

  it('dry run writes nothing and exits 1 when the budget cannot hold', async () => {
    const file = corpusFiles('claude-code').find((f) => f.includes('vibecodingtracker'))!;
    const out = path.join(tmp, 'never.jsonl');
    const io = capture();
    const ok = await run([file, '--budget', '100000000', '--dry-run', '--out', out]);
    const tooSmall = await run([file, '--budget', '10', '--keep-last', '3', '--dry-run']);
    io.restore();
    expect(ok).toBe(0);
    expect(tooSmall).toBe(1);
    expect(io.out()).toContain('does NOT fit');
    expect(fs.existsSync(out)).toBe(false);
  });

  it('runs named strategies in order and reads a sven config', async () => {
    const file = corpusFiles('codex-cli').find((f) => f.includes('codex-session-view'))!;
    const cfg = path.join(tmp, 'sven.yaml');
    fs.writeFileSync(cfg, 'agent:\n  tool_result_token_cap: 500\n  compaction_keep_recent: 4\n');
    const out = path.join(tmp, 'codex.jsonl');
    const io = capture();
    const code = await run([file, '--budget', '1000000', '--strategy', 'truncate-tool-results', '--strategy', 'strip-reasoning', '--config', cfg, '--out', out]);
    io.restore();
    expect(code, io.err()).toBe(0);
    expect(io.out()).toMatch(/truncate-tool-results[\s\S]*strip-reasoning/);
    expect(reimport(out).format).toBe('codex-cli');
  });

  it('takes the default budget from the model catalog (--model or the transcript\'s model)', async () => {
    const file = corpusFiles('claude-code').find((f) => f.includes('vibecodingtracker'))!;
    const io = capture();
    const code = await run([file, '--model', 'gpt-4o-mini', '--dry-run']);
    io.restore();
    expect(code).toBe(0);
    // The input budget as the file may hold it: minus the invisible overhead, ÷ the calibration factor.
    expect(io.err()).toMatch(new RegExp(`budget: \\d+ tokens in the file \\(GPT-4o mini input budget ${128_000 - 16_384} ÷ [\\d.]+ calibration − \\d+ invisible overhead \\(from 31 recorded call\\(s\\)\\)\\)`));
  });

  it('--config summarize_threshold gates auto\'s summarize; --model sets the window it is a fraction of', async () => {
    const file = corpusFiles('claude-code').find((f) => f.includes('slopometry'))!;
    const budget = Math.floor(transcriptTotals(reimport(file)).total * 0.05);
    const cfg = path.join(tmp, 'jp.toml');
    fs.writeFileSync(cfg, '[conversation.compaction]\nstrategy = "auto"\nsummarize_threshold = 0.5\n');
    const io = capture();
    // The transcript's model (Claude Opus 4.5, 200k): the context after the free reducers is far below half of it.
    const below = await run([file, '--budget', String(budget), '--config', cfg, '--dry-run']);
    const belowOut = io.out();
    // A plan for a small-window model: the same context is above half of its window, so summarize runs.
    const small = parseCompactArgs([file, '--budget', String(budget), '--config', cfg, '--model', 'gpt-4', '--dry-run']);
    const step = stepFromArgs(small, parseCompactionConfig(cfg, fs.readFileSync(cfg, 'utf8')), budget);
    const above = await run([file, '--budget', String(budget), '--config', cfg, '--model', 'gpt-4', '--dry-run']);
    io.restore();
    expect(below).toBe(1); // the budget is not reached: auto stopped below the threshold
    expect(belowOut).toMatch(/summarize skipped: context \d+ % of the window \([\d,]+ sent for [\d,]+ in the file, with [\d,]+ overhead, ×[\d.]+ calibration of 200,000 tokens, Claude Opus 4\.5\), below summarize_threshold 50 %/);
    expect(belowOut).toContain('does NOT fit');
    expect(step.reducers[0]).toMatchObject({ id: 'auto', options: { summarizeThreshold: 0.5, contextWindow: lookupModel('gpt-4')!.contextWindow } });
    expect(above).toBe(0);
    expect(io.out().slice(belowOut.length)).toMatch(/summarize runs: context \d+ % of the window \([\d,]+ sent for [\d,]+ in the file, with [\d,]+ overhead, ×[\d.]+ calibration of [\d,]+ tokens, the plan\), above summarize_threshold 50 %/);
  });

  it('an Inspect .eval is written as its zip archive and re-imports as inspect-ai', async () => {
    const file = corpusFiles('inspect-ai').find((f) => f.endsWith('.eval'))!;
    const total = transcriptTotals(reimport(file)).total;
    // The first .eval is one short sample (291 tokens): 80 % is what dedup alone can reach; at 50 %
    // the summary costs more than it saves.
    const budget = Math.floor(total * 0.8);
    const out = path.join(tmp, 'out.eval');
    const io = capture();
    const code = await run([file, '--budget', String(budget), '--keep-last', '0', '--out', out]);
    io.restore();
    expect(code, io.out() + io.err()).toBe(0);
    const written = new Uint8Array(fs.readFileSync(out));
    expect(String.fromCharCode(written[0], written[1])).toBe('PK');
    const t = reimport(out);
    expect(t.format).toBe('inspect-ai');
    expect(transcriptTotals(t).total).toBeLessThanOrEqual(budget);
    expect(io.out()).not.toContain('did not carry every edit');
  });

  it('usage errors exit 2', async () => {
    const io = capture();
    expect(await run([])).toBe(2);
    expect(await run(['x.jsonl'])).toBe(2);
    io.restore();
    expect(io.err()).toContain('Usage');
  });
});

describe('issue 28: when compact stops above its budget because of a config gate, it names the gate', () => {
  const slop = corpusFiles('claude-code').find((f) => f.includes('slopometry'))!;
  const budget = Math.floor(transcriptTotals(reimport(slop)).total * 0.05);
  const dry = async (file: string, toml: string, extra: string[] = []) => {
    const cfg = path.join(tmp, `gate-${Math.random().toString(36).slice(2)}.toml`);
    fs.writeFileSync(cfg, toml);
    const io = capture();
    const code = await run([file, '--budget', String(budget), '--config', cfg, '--dry-run', ...extra]);
    io.restore();
    return { code, err: io.err() };
  };
  const wrongBlame = /lower --keep-last|--tail auto/;

  it('a JP trigger that does not fire (trigger_ratio)', async () => {
    const r = await dry(slop, '[conversation.compaction]\nstrategy = "auto"\n[conversation.compaction.auto]\nenabled = true\ntrigger_ratio = 0.9\n');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/does not fit: .*auto did not fire: the context \([\d,]+\) is below the config's trigger [\d,]+ = 90 % of the 200,000-token window .*: lower trigger_ratio/);
    expect(r.err).not.toMatch(wrongBlame);
  });

  it('min_turns', async () => {
    const r = await dry(slop, '[conversation.compaction]\nstrategy = "auto"\n[conversation.compaction.auto]\nenabled = true\ntrigger_ratio = 0.1\nmin_turns = 40\n');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/auto did not fire: the session has 14 turn\(s\), not more than the config's min_turns 40: lower min_turns/);
    expect(r.err).not.toMatch(wrongBlame);
  });

  it('an unknown context window', async () => {
    // The same session from a model the catalog does not know (a copy; the corpus file is not touched).
    const unknown = path.join(tmp, 'in-house.jsonl');
    fs.writeFileSync(unknown, fs.readFileSync(slop, 'utf8').replaceAll('claude-opus-4-5-20251101', 'in-house-model'));
    const r = await dry(unknown, '[conversation.compaction]\nstrategy = "auto"\n[conversation.compaction.auto]\nenabled = true\n');
    expect(r.err).toMatch(/auto did not fire: the context window of .* is unknown.*pass --model M/);
    expect(r.err).not.toMatch(wrongBlame);
  });

  it('summarize_threshold', async () => {
    const r = await dry(slop, '[conversation.compaction]\nstrategy = "auto"\nsummarize_threshold = 0.5\n');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/auto stopped after the free reducers: context \d+ % of the window .*, not above the config's summarize_threshold 50 %: lower summarize_threshold/);
    expect(r.err).not.toMatch(wrongBlame);
  });

  it('without a gate the tail is blamed, and --tail auto is offered only when --tail turns was given', async () => {
    const cfg = '[conversation.compaction]\nstrategy = "strip-reasoning"\n';
    const plain = await dry(slop, cfg);
    expect(plain.err).toMatch(/lower --keep-last \/ --keep-last-calls/);
    expect(plain.err).not.toMatch(/--tail auto/);
    expect((await dry(slop, cfg, ['--tail', 'turns'])).err).toMatch(/or use --tail auto/);
  });
});
