import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importBytes } from '../formats/import';
import { transcriptTotals } from '../tokens/totals';
import { corpusFiles } from '../../tests/corpus';
import { ConfigError, parseCompactionConfig, parseJpToml, parseSvenYaml, planToStep } from './config';
import { projectTranscript } from './project';
import { filler, makeTranscript } from './testing/make';

const JP = `
[conversation.compaction]
strategy = ["strip-reasoning", "tool-hints"]
keep_last = 2
summarize_threshold = 0.5
colour = "blue"

[conversation.compaction.auto]
enabled = true
trigger_ratio = 0.75
profile = "default"
min_turns = 5

[conversation.tools.fs_read_file.compaction]
request = "keep"
response = "strip"
dedup = true

[conversation.tools.fs_create_file]
run = "unattended"

[conversation.tools.fs_create_file.compaction]
request = "strip"
response = "keep"
`;

const SVEN = `
agent:
  model: anthropic/claude-sonnet-4-5
  compaction_threshold: 0.65
  compaction_keep_recent: 15
  compaction_strategy: narrative
  tool_result_token_cap: 2000
  compaction_overhead_reserve: 0.12
  compaction_colour: red
`;

describe('config import', () => {
  it('reads JP TOML: strategies, keep_last, auto, per-tool hints; unknown keys are warnings', () => {
    const plan = parseJpToml(JP);
    expect(plan.strategies.map((s) => s.id)).toEqual(['strip-reasoning', 'tool-hints']);
    expect(plan.keepLast).toBe(2);
    expect(plan.auto).toMatchObject({ enabled: true, threshold: 0.75, minTurns: 5, profile: 'default' });
    expect(plan.hints).toEqual({ fs_read_file: { request: 'keep', response: 'strip', dedup: true }, fs_create_file: { request: 'strip', response: 'keep' } });
    expect(plan.summarizeThreshold).toBe(0.5);
    expect(plan.warnings).toEqual(['unknown key conversation.compaction.colour (ignored)']);
  });
  it('reads sven YAML onto the auto knobs', () => {
    const plan = parseSvenYaml(SVEN);
    expect(plan.auto).toMatchObject({ threshold: 0.65, overheadReserve: 0.12, toolResultCap: 2000, keepN: 15, style: 'narrative' });
    expect(plan.warnings).toEqual(['unknown key agent.compaction_colour (ignored)']);
    expect(parseCompactionConfig('sven.yaml', SVEN).source).toBe('sven-yaml');
    expect(parseCompactionConfig('jp.toml', JP).source).toBe('jp-toml');
  });
  it('rejects wrong values with the key and what was expected', () => {
    expect(() => parseJpToml('[conversation.tools.x.compaction]\nresponse = "shred"')).toThrow(/conversation\.tools\.x\.compaction\.response/);
    expect(() => parseSvenYaml('agent:\n  compaction_threshold: 3')).toThrow(ConfigError);
    expect(() => parseJpToml('[[[')).toThrow(/Not valid TOML/);
    expect(() => parseSvenYaml('nothing: here')).toThrow(/agent/);
  });
  it('turns a plan into a step whose hints drive the reducers', () => {
    const plan = parseJpToml(JP);
    const log = makeTranscript([
      { user: 'a', tools: [{ name: 'fs_read_file', input: { path: 'x.rs' }, output: filler(200) }, { name: 'fs_create_file', input: { path: 'y.rs', content: filler(200) }, output: 'created y.rs' }] },
      { user: 'b', answer: 'c' },
      { user: 'd', answer: 'e' },
    ]);
    const step = planToStep(plan, { budget: 100 });
    expect(step.keepLast).toBe(2);
    const p = projectTranscript(log, [step]);
    const blocks = p.messages.flatMap((m) => m.blocks);
    expect(blocks.some((b) => b.kind === 'tool_result' && b.content.startsWith('[compacted] fs_read_file'))).toBe(true);
    expect(blocks.some((b) => b.kind === 'tool_result' && b.content === 'created y.rs')).toBe(true);
    expect(blocks.some((b) => b.kind === 'tool_call' && b.name === 'fs_create_file' && JSON.stringify(b.input).includes('[stripped'))).toBe(true);
  });
});

describe('the agent tail in JP TOML (keep_last_calls, keep_last_tokens, tail)', () => {
  const file = corpusFiles('codex-cli').find((f) => f.includes('vibecodingtracker'))!;
  const run = importBytes(path.basename(file), new Uint8Array(fs.readFileSync(file))).transcript;
  const budget = Math.floor(transcriptTotals(run).total / 2);
  it('reaches the step, and tail = "turns" keeps whole turns on a Codex run', () => {
    const plan = parseJpToml('[conversation.compaction]\nstrategy = "auto"\nkeep_last = 1\nkeep_last_calls = 5\nkeep_last_tokens = 900\ntail = "turns"\n');
    expect(plan.warnings).toEqual([]);
    const step = planToStep(plan, { budget });
    expect(step).toMatchObject({ keepLast: 1, keepLastCalls: 5, keepLastTokens: 900, tail: 'turns' });
    expect(projectTranscript(run, [step]).tokens.after.total).toBeGreaterThan(budget);
    const narrowing = planToStep(parseJpToml('[conversation.compaction]\nkeep_last_calls = 5\nkeep_last_tokens = 900\n'), { budget });
    const p = projectTranscript(run, [narrowing]);
    expect(p.tokens.after.total).toBeLessThanOrEqual(budget);
    expect(p.report.flatMap((r) => r.notes).join('\n')).toMatch(/protected the last [1-5] model call\(s\)/);
  });
  it('rejects a tail that is neither auto nor turns, with the key', () => {
    expect(() => parseJpToml('[conversation.compaction]\ntail = "calls"')).toThrow(/conversation\.compaction\.tail/);
    expect(() => parseJpToml('[conversation.compaction]\nkeep_last_calls = 0')).toThrow(/conversation\.compaction\.keep_last_calls/);
  });
});

describe('summarize_threshold round trip (JP TOML → plan → step → auto)', () => {
  const file = corpusFiles('claude-code').find((f) => f.includes('slopometry'))!;
  const real = importBytes(path.basename(file), new Uint8Array(fs.readFileSync(file))).transcript;
  const budget = Math.floor(transcriptTotals(real).total * 0.05);
  const toml = (threshold?: number) => `[conversation.compaction]\nstrategy = "auto"\nkeep_last = 1\n${threshold !== undefined ? `summarize_threshold = ${threshold}\n` : ''}`;

  it('reaches the auto options and gates summarize on a real session', () => {
    const plan = parseJpToml(toml(0.5));
    expect(plan.summarizeThreshold).toBe(0.5);
    expect(plan.auto.summarizeThreshold).toBe(0.5);
    const step = planToStep(plan, { budget });
    expect(step.reducers).toEqual([{ id: 'auto', options: expect.objectContaining({ summarizeThreshold: 0.5 }) }]);
    const p = projectTranscript(real, [step]);
    expect(p.report.some((r) => r.reducer === 'summarize')).toBe(false);
    expect(p.report.flatMap((r) => r.notes).join('\n')).toMatch(/summarize skipped: context \d+ % of the window \([\d,]+ of 200,000 tokens, Claude Opus 4\.5\), below summarize_threshold 50 %/);
  });

  it('without summarize_threshold the plan and the projection are as before', () => {
    const plan = parseJpToml(toml());
    expect(plan.summarizeThreshold).toBeUndefined();
    expect('summarizeThreshold' in plan.auto).toBe(false);
    const p = projectTranscript(real, [planToStep(plan, { budget })]);
    expect(p.report.some((r) => r.reducer === 'summarize' && r.events > 0)).toBe(true);
  });

  it('rejects a threshold outside (0, 1] with the key', () => {
    expect(() => parseJpToml(toml(1.5))).toThrow(/conversation\.compaction\.summarize_threshold/);
    expect(() => parseJpToml(toml(0))).toThrow(ConfigError);
  });
});
