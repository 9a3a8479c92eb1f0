import { describe, expect, it } from 'vitest';
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
