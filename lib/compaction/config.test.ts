import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importBytes } from '../formats/import';
import { transcriptTotals } from '../tokens/totals';
import { corpusFiles } from '../../tests/corpus';
import { fileBudgetFor, modelTokensOf, modelViewOf } from './budget';
import { ConfigError, parseCompactionConfig, parseJpToml, parseSvenYaml, planToStep } from './config';
import { projectTranscript } from './project';
import { filler, makeTranscript } from './testing/make';
import { step } from './testing/steps';
import { summaryModelFromConfig } from '../cli/compact';
import { defaultPlan, MANUAL_REDUCERS, planFromConfig } from '../../components/plan/plan';

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
    expect(plan.auto).toMatchObject({ enabled: true, threshold: 0.75, triggerOfWindow: true, minTurns: 5, profile: 'default' });
    expect(plan.hints).toEqual({ fs_read_file: { request: 'keep', response: 'strip', dedup: true }, fs_create_file: { request: 'strip', response: 'keep' } });
    expect(plan.summarizeThreshold).toBe(0.5);
    expect(plan.warnings).toEqual([
      'unknown key conversation.compaction.colour (ignored)',
      "conversation.compaction.auto: the profile (strip-reasoning, tool-hints) runs only when the trigger fires (context > trigger_ratio × the model's window and more than min_turns turns) in `compact` and the replay; in the app's Plan it runs when you click Apply",
    ]);
  });
  it('reads sven YAML onto the auto knobs', () => {
    const plan = parseSvenYaml(SVEN);
    expect(plan.auto).toMatchObject({ threshold: 0.65, overheadReserve: 0.12, toolResultCap: 2000, keepN: 15, style: 'narrative' });
    expect(plan.warnings).toEqual(['unknown key agent.compaction_colour (ignored)']);
    expect(parseCompactionConfig('sven.yaml', SVEN).source).toBe('sven-yaml');
    expect(parseCompactionConfig('jp.toml', JP).source).toBe('jp-toml');
  });
  it('honours YAML merge keys (`<<: *base`, one or a list), the section\'s own keys winning (issue 30: ignored in silence)', () => {
    const plan = parseSvenYaml(`
defaults: &base
  compaction_threshold: 0.5
  compaction_keep_recent: 9
more: &more
  compaction_overhead_reserve: 0.2
agent:
  <<: [*base, *more]
  compaction_keep_recent: 4
`);
    expect(plan.auto).toMatchObject({ threshold: 0.5, keepN: 4, overheadReserve: 0.2 });
    expect(plan.warnings).toEqual([]);
    expect(parseSvenYaml('base: &b\n  compaction_threshold: 0.4\nagent:\n  <<: *b\n').auto).toMatchObject({ threshold: 0.4 });
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
    // As named strategies (gate: false): this 3-turn log is below the config's min_turns 5.
    const step = planToStep(plan, { budget: 100, gate: false });
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
    const plan = parseJpToml('[conversation.compaction]\nstrategy = "auto"\nkeep_last = 1\nkeep_last_calls = 5\nkeep_last_tokens = 900\ntail = "turns"\nsummarize_threshold = 0.01\n');
    expect(plan.warnings).toEqual([]);
    const step = planToStep(plan, { budget });
    expect(step).toMatchObject({ keepLast: 1, keepLastCalls: 5, keepLastTokens: 900, tail: 'turns' });
    expect(projectTranscript(run, [step]).tokens.after.total).toBeGreaterThan(budget);
    const narrowing = planToStep(parseJpToml('[conversation.compaction]\nkeep_last_calls = 5\nkeep_last_tokens = 900\nsummarize_threshold = 0.01\n'), { budget });
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
    expect(p.report.flatMap((r) => r.notes).join('\n')).toMatch(/summarize skipped: context \d+ % of the window \([\d,]+ sent for [\d,]+ in the file, with [\d,]+ overhead, ×[\d.]+ calibration of 200,000 tokens, Claude Opus 4\.5\), below summarize_threshold 50 %/);
  });

  it('without summarize_threshold RFD 036\'s 0.5 gates summarize (as 0.5 given); a low one lets it run', () => {
    const plan = parseJpToml(toml());
    expect(plan.summarizeThreshold).toBe(0.5);
    expect(plan.auto.summarizeThreshold).toBe(0.5);
    expect(projectTranscript(real, [planToStep(plan, { budget })]).report.some((r) => r.reducer === 'summarize')).toBe(false);
    const p = projectTranscript(real, [planToStep(parseJpToml(toml(0.1)), { budget })]);
    expect(p.report.some((r) => r.reducer === 'summarize' && r.events > 0)).toBe(true);
  });

  it('rejects a threshold outside (0, 1] with the key', () => {
    expect(() => parseJpToml(toml(1.5))).toThrow(/conversation\.compaction\.summarize_threshold/);
    expect(() => parseJpToml(toml(0))).toThrow(ConfigError);
  });
});

describe('sven config: the knobs take effect in the projection', () => {
  // One prompt, then many distinct shell runs with long outputs (an agent session).
  // A tool with no family in the hints table (no count lifespan), so retention leaves it to truncation.
  const log = makeTranscript([{ user: 'fix the build', tools: Array.from({ length: 30 }, (_, i) => ({ name: 'make', input: { target: `test-${i}` }, output: filler(3000, `out${i}`) })), answer: 'done' }]);
  const total = transcriptTotals(log).total;

  it('tool_result_token_cap: every result the normal path truncates is cut to the cap (2,000, not the default 4,000)', () => {
    const plan = parseSvenYaml('agent:\n  compaction_threshold: 0.65\n  compaction_overhead_reserve: 0.12\n  tool_result_token_cap: 2000\n');
    // Budget so the trigger (0.53 × budget) sits at 80 % of the context: truncation to 2,000 reaches it.
    const budget = Math.floor((total * 0.8) / 0.53);
    const p = projectTranscript(log, [planToStep(plan, { budget, keepLast: 0 })]);
    expect(p.report.map((r) => r.reducer)).toContain('truncate-tool-results');
    const results = p.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'tool_result');
    const cut = results.filter((b) => b.tokens < 3000);
    expect(cut.length).toBeGreaterThan(0);
    for (const b of cut) expect(b.tokens).toBeLessThanOrEqual(2000 + 60);
    expect(cut.some((b) => b.tokens > 1500)).toBe(true); // cut to 2,000, not to the default 4,000 (which would leave 3,000 whole)
  });

  it('compaction_keep_recent: at ≥ 0.95 of the budget emergency runs directly and keeps the newest keep_n (15) messages', () => {
    const plan = parseSvenYaml('agent:\n  compaction_keep_recent: 15\n');
    const p = projectTranscript(log, [planToStep(plan, { budget: Math.floor(total / 0.96), keepLast: 0 })]);
    expect(p.report.map((r) => r.reducer)).toEqual(['auto', 'emergency']);
    expect(p.report[0].notes[0]).toMatch(/≥ 95 % of the budget .*: emergency directly$/);
    const kept = p.messages.filter((m) => !m.synthetic && m.role !== 'system');
    const lastIds = log.messages.slice(-15).map((m) => m.id);
    expect(kept.map((m) => m.sourceId)).toEqual(expect.arrayContaining(lastIds));
    expect(kept.length).toBe(15);
  });
});

describe('config keys act, or say why they cannot', () => {
  it('fork: kept on the plan (the app forks a version on Apply) and said', () => {
    const plan = parseJpToml('[conversation.compaction]\nfork = true\n');
    expect(plan.fork).toBe(true);
    expect(plan.warnings.join('\n')).toMatch(/fork = true: applying forks a new version/);
    expect(planFromConfig(defaultPlan(100), plan).fork).toBe(true);
    expect(planFromConfig(defaultPlan(100), parseJpToml('[conversation.compaction]\nfork = false\n')).fork).toBe(false);
  });
  it('summarize_model / model: the CLI uses it with a provider of the same vendor; the app says it does not', () => {
    const plan = parseJpToml('[conversation.compaction]\nsummarize_model = "anthropic/claude-haiku"\n');
    expect(plan.summaryModel).toBe('anthropic/claude-haiku');
    expect(plan.warnings.join('\n')).toMatch(/summarize_model = "anthropic\/claude-haiku": the CLI's compact summarizes with it .* the app uses the model in Settings/);
    expect(parseJpToml('[conversation.compaction]\nmodel = "openai/gpt-4o-mini"\n').summaryModel).toBe('openai/gpt-4o-mini');
    expect(summaryModelFromConfig('anthropic/claude-haiku', 'anthropic', [], {})).toMatchObject({ model: 'claude-haiku' });
    expect(summaryModelFromConfig('anthropic/claude-haiku', 'openai', [], {}).model).toBeUndefined();
    expect(summaryModelFromConfig('anthropic/claude-haiku', 'anthropic', ['--summary-model', 'x'], {})).toEqual({});
    expect(summaryModelFromConfig('google/gemini-2.5-flash', 'gemini', [], {})).toMatchObject({ model: 'gemini-2.5-flash' });
  });
  it('enabled = false and an unknown profile are said, not dropped', () => {
    expect(parseJpToml('[conversation.compaction.auto]\nenabled = false\nmin_turns = 3\n').warnings.join('\n')).toMatch(/enabled is false: the automatic trigger is off, the strategies run when applied \(min_turns not used\)/);
    const odd = parseJpToml('[conversation.compaction.auto]\nenabled = true\nprofile = "aggressive"\n');
    expect(odd.warnings.join('\n')).toMatch(/profile "aggressive" is not a profile we know/);
    const named = parseJpToml('[conversation.compaction.auto]\nenabled = true\nprofile = "strip-tool-results"\n');
    expect(named.strategies).toEqual([{ id: 'strip-tool-results' }]);
  });
});

describe('help texts say what the code does', () => {
  it('dedup removes pairs; prune-tools judges the whole log; the CLI states its retry count', async () => {
    const dedupHelp = MANUAL_REDUCERS.find((r) => r.id === 'dedup-tools')!.help;
    expect(dedupHelp).toMatch(/^Removes older call\/result pairs/);
    const log = makeTranscript([
      { user: 'a', tools: [{ name: 'Read', input: { file_path: '/r/a.ts' }, output: filler(100) }] },
      { user: 'b', tools: [{ name: 'Read', input: { file_path: '/r/a.ts' }, output: filler(100) }] },
      { user: 'c', tools: [{ name: 'Grep', input: { pattern: 'x' }, output: 'none' }] },
    ], { tools: [{ name: 'Read' }, { name: 'Grep' }, { name: 'Unused' }] });
    const p = projectTranscript(log, [step(['dedup-tools', 'prune-tools'], { keepLast: 1 })]);
    expect(p.messages).toHaveLength(log.messages.length - 2); // the older pair removed, not stubbed
    expect(MANUAL_REDUCERS.find((r) => r.id === 'prune-tools')!.help).toMatch(/anywhere in the log/);
    expect(p.tools.map((t) => t.name)).toEqual(['Read', 'Grep']); // Grep is used only in the protected last turn: kept
    const { run } = await import('../cli/compact');
    let out = '';
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((s: string) => ((out += s), true)) as typeof process.stdout.write;
    try {
      await run(['--help']);
    } finally {
      process.stdout.write = write;
    }
    expect(out).toMatch(/is retried once/);
    const { produceSummary } = await import('../summarize/run');
    let calls = 0;
    const provider = { kind: 'openai', id: 'fake', complete: async () => { calls++; throw new (await import('../summarize/providers/errors')).ProviderError('server', { provider: 'openai', retryAfterSeconds: 0 }); } };
    await expect(produceSummary({ messages: [], span: [0, 0] }, provider as never, { template: { system: '', user: '{{conversation}}' } } as never)).rejects.toThrow();
    expect(calls).toBe(2); // one attempt + one retry, as the help says
  });
});

describe('sven compaction_keep_recent on the normal path (real agent sessions)', () => {
  // The normal path: the context sits between sven's trigger (0.85 − 0.1 of the budget) and its
  // emergency line (0.95), so the reducers run, not emergency.
  const files = ['swe-agent/swe-agent_marshmallow-1867_function_calling.traj', 'claude-code/claude-code-viewer_fe5e1c67.jsonl', 'codex-cli/codex-session-view_rollout-2025-11-17_cli0.58.0.jsonl', 'gemini-cli/vibecodingtracker_gemini_session.jsonl'];
  const N = 8;
  const plan = parseSvenYaml(`agent:\n  compaction_keep_recent: ${N}\n`);
  for (const f of files) {
    it(`${f}: the newest ${N} messages are untouched, the rest compacted`, () => {
      const file = path.join(path.dirname(corpusFiles('swe-agent')[0]), '..', f);
      const log = importBytes(path.basename(f), new Uint8Array(fs.readFileSync(file))).transcript;
      const total = transcriptTotals(log).total;
      const budget = Math.floor(total / 0.8);
      const s = planToStep(plan, { budget });
      expect(s).toMatchObject({ keepLast: 0, keepLastMessages: N });
      const p = projectTranscript(log, [s]);
      // sven's normal path (not its direct emergency at ≥ 0.95)
      expect(p.report[0].notes.join(' ')).not.toMatch(/emergency directly/);
      const touched = Object.values(p.fates).filter((x) => x.kind !== 'kept').length;
      expect(touched).toBeGreaterThan(0);
      // The newest N main-line non-system messages (moved back past tool results): no block has a fate.
      const recent = log.messages.filter((m) => m.role !== 'system' && !m.sidechain).slice(-N);
      for (const m of recent) for (const b of m.blocks) expect(p.fates[b.id]?.kind ?? 'kept', `${m.id} ${b.kind}`).toBe('kept');
      const out = new Set(p.messages.map((m) => m.sourceId));
      for (const m of recent) expect(out.has(m.id)).toBe(true);
    });
  }
  it('without it (keep_last 1 turn, as before), the same compaction edits some of those messages', () => {
    const f = 'claude-code/claude-code-viewer_fe5e1c67.jsonl';
    const file = path.join(path.dirname(corpusFiles('swe-agent')[0]), '..', f);
    const log = importBytes(path.basename(f), new Uint8Array(fs.readFileSync(file))).transcript;
    const budget = Math.floor(transcriptTotals(log).total / 0.8);
    const { keepLastMessages: _k, ...before } = planToStep(plan, { budget, keepLast: 1 });
    const p = projectTranscript(log, [before]);
    const recent = log.messages.filter((m) => m.role !== 'system' && !m.sidechain).slice(-N);
    expect(recent.some((m) => m.blocks.some((b) => (p.fates[b.id]?.kind ?? 'kept') !== 'kept'))).toBe(true);
  });
});

describe('issue 28: an imported JP config acts as RFD D17 / RFD 036 say', () => {
  const file = corpusFiles('claude-code').find((f) => f.includes('slopometry'))!;
  const real = importBytes(path.basename(file), new Uint8Array(fs.readFileSync(file))).transcript;
  const total = transcriptTotals(real).total;
  const reasoning = (p: ReturnType<typeof projectTranscript>) => p.messages.flatMap((m) => m.blocks).filter((b) => b.kind === 'reasoning').length;
  // What the model sees after the session's own compaction, untouched by any reducer.
  const untouched = () => reasoning(projectTranscript(real, [step([], { keepLast: 1 })]));
  const gated = (minTurns: number) => `[conversation.compaction.auto]\nenabled = true\ntrigger_ratio = 0.3\nmin_turns = ${minTurns}\nprofile = "strip-reasoning"\n`;

  it('a profile that names a strategy runs only when the trigger fires: min_turns = 50 leaves a 14-turn session alone', () => {
    expect(real.turnCount).toBe(14);
    const before = untouched();
    expect(before).toBeGreaterThan(50);
    const p = projectTranscript(real, [planToStep(parseJpToml(gated(50)), { budget: total })]);
    expect(reasoning(p)).toBe(before);
    expect(p.report.flatMap((r) => r.notes).join('\n')).toMatch(/14 turn\(s\) ≤ min_turns 50: left alone/);
    // min_turns 5: the trigger fires (the context is past 30 % of the 200k window as the model sees it) and the profile runs in full.
    const q = projectTranscript(real, [planToStep(parseJpToml(gated(5)), { budget: total })]);
    expect(reasoning(q)).toBeLessThan(before / 10);
    expect(q.report.flatMap((r) => r.notes).join('\n')).toMatch(/14 turns > min_turns 5: the profile runs \(strip-reasoning\)/);
  });

  it('trigger_ratio: the profile (the strategy list, profile = "default") waits below trigger_ratio × the window', () => {
    const toml = (ratio: number) => `[conversation.compaction]\nstrategy = ["strip-reasoning"]\n[conversation.compaction.auto]\nenabled = true\ntrigger_ratio = ${ratio}\nmin_turns = 1\n`;
    const before = untouched();
    const p = projectTranscript(real, [planToStep(parseJpToml(toml(0.95)), { budget: total })]);
    expect(reasoning(p)).toBe(before);
    expect(p.report.flatMap((r) => r.notes).join('\n')).toMatch(/≤ trigger [\d,]+ = 95 % of the 200,000-token window .*nothing to do/);
    expect(reasoning(projectTranscript(real, [planToStep(parseJpToml(toml(0.5)), { budget: total })]))).toBeLessThan(before / 10);
    // --strategy named on the command line: run as asked (RFD 036 explicit compaction), no gate.
    const explicit = planToStep(parseJpToml(toml(0.95)), { budget: total, gate: false });
    expect(explicit.reducers.map((r) => r.id)).toEqual(['strip-reasoning']);
  });

  it('summarize_threshold compares what the model is sent (overhead + calibration) with the window, like every other gate', () => {
    const budget = Math.floor(total * 0.05);
    // After the free reducers the file holds about 8 % of the 200k window; the model would be sent
    // (file + 22k overhead) × 1.37 ≈ 26 %: a threshold of 20 % lets summarize run.
    const p = projectTranscript(real, [planToStep(parseJpToml('[conversation.compaction]\nstrategy = "auto"\nkeep_last = 1\nsummarize_threshold = 0.2\n'), { budget })]);
    const notes = p.report.flatMap((r) => r.notes).join('\n');
    const m = /summarize runs: context (\d+) % of the window \(([\d,]+) sent for ([\d,]+) in the file, with ([\d,]+) overhead, ×([\d.]+) calibration of 200,000 tokens/.exec(notes);
    expect(m, notes).not.toBeNull();
    const [, pct, sent, file, overhead, factor] = m!;
    const num = (s: string) => Number(s.replace(/,/g, ''));
    expect(Math.abs(num(sent) / ((num(file) + num(overhead)) * Number(factor)) - 1)).toBeLessThan(0.005);
    expect(Number(pct)).toBeGreaterThanOrEqual(20);
    expect(num(file) / 200_000).toBeLessThan(0.2);
    expect(p.report.some((r) => r.reducer === 'summarize' && r.events > 0)).toBe(true);
  });

  it('summarize_threshold missing: RFD 036\'s default 0.5 applies, and is said', () => {
    const plan = parseJpToml('[conversation.compaction]\nstrategy = "auto"\n');
    expect(plan.summarizeThreshold).toBe(0.5);
    expect(plan.auto.summarizeThreshold).toBe(0.5);
    expect(plan.warnings.join('\n')).toMatch(/summarize_threshold not set: RFD 036's default 0.5 applies/);
    expect(planFromConfig(defaultPlan(100), plan).summarizeAbovePct).toBe(50);
  });
});

describe("issue 28: a sven config takes sven's normal path", () => {
  const file = corpusFiles('claude-code').find((f) => f.includes('slopometry'))!;
  const real = importBytes(path.basename(file), new Uint8Array(fs.readFileSync(file))).transcript;
  it('with its defaults on slopometry: everything but the newest 6 messages in ONE summary call, rebuilt as [system, summary, recent]', () => {
    const plan = parseSvenYaml('agent:\n  model: anthropic/claude-opus-4-5\n');
    const start = projectTranscript(real, [step([], { keepLast: 1 })]).tokens.after.total;
    // The context between sven's trigger (0.85 − 0.10 of the budget, as the model sees it) and its emergency line (0.95).
    const view = modelViewOf(real);
    const budget = fileBudgetFor(Math.floor(modelTokensOf(start, view) / 0.85), view);
    const p = projectTranscript(real, [planToStep(plan, { budget })]);
    const notes = p.report.flatMap((r) => r.notes);
    expect(notes.join('\n')).toMatch(/: fires\n/);
    expect(notes.join('\n')).not.toMatch(/emergency directly/);
    // Not our ladder: no strip-reasoning, no retention, no dedup; one summary.
    // (truncate-tool-results: the results over 4,000 tokens, capped as they entered.)
    expect(p.report.map((r) => r.reducer).filter((r) => r !== 'auto')).toEqual(['truncate-tool-results', 'summarize']);
    expect(notes.find((x) => x.startsWith('summarized'))).toMatch(/\(\d+ turn\(s\), 1 chunk\(s\) by the offline summarizer\)/);
    const out = p.messages.filter((m) => !m.sidechain);
    const sys = out.filter((m) => m.role === 'system').length;
    expect(out.slice(0, sys).every((m) => m.role === 'system')).toBe(true);
    expect(out[sys].synthetic).toBe('summary');
    const recent = out.slice(sys + 1);
    expect(recent.every((m) => !m.synthetic)).toBe(true);
    // sven's keep_n = 6 messages (the split moved back past tool pairs may add a few).
    expect(recent.length).toBeGreaterThanOrEqual(6);
    expect(recent.length).toBeLessThanOrEqual(12);
    const lastIds = real.messages.filter((m) => m.role !== 'system' && !m.sidechain).slice(-6).map((m) => m.id);
    expect(recent.map((m) => m.sourceId)).toEqual(expect.arrayContaining(lastIds));
  });
});
