/**
 * Config import: the peers' compaction settings → a plan over our reducers.
 *
 *  - JP TOML (RFD D17 / RFD 036): `[conversation.compaction]` strategy / keep_last /
 *    summarize_threshold, `[conversation.compaction.auto]` enabled / trigger_ratio / min_turns /
 *    profile, `[conversation.tools.NAME.compaction]` request / response / dedup.
 *  - sven YAML (seed 003): `agent.compaction_threshold`, `compaction_keep_recent`,
 *    `compaction_strategy`, `tool_result_token_cap`, `compaction_overhead_reserve`.
 *
 * Validated with zod (a wrong value is an error naming the key and what was expected); keys we do
 * not know are warnings, never silently dropped.
 */
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { EMERGENCY_AT } from './budget';
import type { ToolHints } from './hints';
import { svenNormalPath, type AutoOptions } from './pipeline';
import { isReducerId } from './reducers';
import { patternMatcher } from './pins';
import type { ReducerId, ReducerSpec, Step } from './types';

export class ConfigError extends Error {
  readonly code = 'invalid:config';
  constructor(
    message: string,
    readonly path: string,
    readonly expected?: string,
  ) {
    super(message);
    this.name = 'ConfigError';
  }
}

export interface CompactionPlan {
  source: 'jp-toml' | 'sven-yaml';
  /** Strategies in order; `auto` alone when the config says auto (the default). */
  strategies: ReducerSpec[];
  keepLast?: number;
  /** The finer tail for agent runs (Step.keepLastCalls / keepLastTokens / tail). */
  keepLastCalls?: number;
  keepLastTokens?: number;
  /** sven's compaction_keep_recent: the newest N messages untouched on every compaction (Step.keepLastMessages). */
  keepLastMessages?: number;
  tail?: 'auto' | 'turns';
  hints: ToolHints;
  auto: AutoOptions & { enabled?: boolean; profile?: string };
  /** RFD 036: fraction of the window above which auto summarizes. */
  summarizeThreshold?: number;
  /** Model named for LLM summaries (summarize_model / model): the summaries layer calls it instead of Settings' model. */
  summaryModel?: string;
  /** RFD 036 `fork`: applying creates a new version (true) or adds a step to the one shown (false). */
  fork?: boolean;
  /** `pin = […]`: text patterns no step may touch (lib/compaction/pins.ts; `/re/flags` for a regular expression). */
  pins?: string[];
  warnings: string[];
}

const mode2 = z.enum(['keep', 'strip']);
const mode3 = z.enum(['keep', 'strip', 'remove']);
const fraction = z.number().gt(0).lte(1);

// `retention` (seed 004; our extension of JP's table): "age" / "count" / "never", with turns / keep.
const jpToolCompaction = z.looseObject({
  request: mode2.optional(),
  response: mode3.optional(),
  dedup: z.boolean().optional(),
  retention: z.enum(['age', 'count', 'never']).optional(),
  turns: z.number().int().min(0).optional(),
  keep: z.number().int().min(0).optional(),
});
const jpAuto = z.looseObject({ enabled: z.boolean().optional(), trigger_ratio: fraction.optional(), profile: z.string().optional(), min_turns: z.number().int().min(0).optional() });
const jpCompaction = z.looseObject({
  strategy: z.union([z.string(), z.array(z.string())]).optional(),
  keep_last: z.number().int().min(0).optional(),
  keep_last_calls: z.number().int().min(1).optional(),
  keep_last_tokens: z.number().int().min(0).optional(),
  tail: z.enum(['auto', 'turns']).optional(),
  model: z.string().optional(),
  summarize_model: z.string().optional(),
  summarize_threshold: fraction.optional(),
  fork: z.boolean().optional(),
  auto: jpAuto.optional(),
  pin: z.array(z.string().min(1)).optional(),
});

const svenAgent = z.looseObject({
  compaction_threshold: fraction.optional(),
  compaction_keep_recent: z.number().int().min(0).optional(),
  compaction_strategy: z.enum(['structured', 'narrative']).optional(),
  tool_result_token_cap: z.number().int().positive().optional(),
  compaction_overhead_reserve: z.number().min(0).lt(1).optional(),
  pin: z.array(z.string().min(1)).optional(),
});

function check<T>(schema: z.ZodType<T>, value: unknown, path: string): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const where = [path, ...issue.path.map(String)].filter(Boolean).join('.');
  throw new ConfigError(`Invalid value at ${where}: ${issue.message}.`, where, issue.message);
}

function unknownKeys(obj: Record<string, unknown>, known: readonly string[], path: string, warnings: string[]): void {
  for (const k of Object.keys(obj)) if (!known.includes(k)) warnings.push(`unknown key ${path ? path + '.' : ''}${k} (ignored)`);
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function strategiesFrom(value: string | string[] | undefined, warnings: string[]): ReducerSpec[] {
  const names = value === undefined ? ['auto'] : Array.isArray(value) ? value : [value];
  const specs: ReducerSpec[] = [];
  for (const n of names) {
    if (isReducerId(n)) specs.push({ id: n as ReducerId });
    else warnings.push(`unknown strategy "${n}" (ignored)`);
  }
  return specs.length ? specs : [{ id: 'auto' }];
}

export function parseJpToml(text: string): CompactionPlan {
  let doc: unknown;
  try {
    doc = parseToml(text);
  } catch (e) {
    throw new ConfigError(`Not valid TOML: ${e instanceof Error ? e.message : String(e)}`, '$', 'a TOML document');
  }
  const warnings: string[] = [];
  const conv = isObj(doc) && isObj(doc.conversation) ? doc.conversation : {};
  if (isObj(doc)) unknownKeys(doc, ['conversation'], '', warnings);
  unknownKeys(conv, ['compaction', 'tools'], 'conversation', warnings);
  const c = check(jpCompaction, conv.compaction ?? {}, 'conversation.compaction');
  unknownKeys(c, ['strategy', 'keep_last', 'keep_last_calls', 'keep_last_tokens', 'tail', 'model', 'summarize_model', 'summarize_threshold', 'fork', 'auto', 'pin'], 'conversation.compaction', warnings);
  if (c.auto) unknownKeys(c.auto, ['enabled', 'trigger_ratio', 'profile', 'min_turns'], 'conversation.compaction.auto', warnings);
  const hints: ToolHints = {};
  const tools = isObj(conv.tools) ? conv.tools : {};
  for (const [name, cfg] of Object.entries(tools)) {
    if (!isObj(cfg)) continue;
    // Other tool settings (command, run, …) are JP's business: only `compaction` is ours.
    if (cfg.compaction === undefined) continue;
    const t = check(jpToolCompaction, cfg.compaction, `conversation.tools.${name}.compaction`);
    unknownKeys(t, ['request', 'response', 'dedup', 'retention', 'turns', 'keep'], `conversation.tools.${name}.compaction`, warnings);
    const retention =
      t.retention === 'never' ? { mode: 'age' as const, neverEvict: true } : t.retention === 'count' ? { mode: 'count' as const, neverEvict: false, ...(t.keep !== undefined && { keep: t.keep }) } : t.retention === 'age' ? { mode: 'age' as const, neverEvict: false, ...(t.turns !== undefined && { turns: t.turns }) } : undefined;
    if (!t.retention && (t.turns !== undefined || t.keep !== undefined)) warnings.push(`conversation.tools.${name}.compaction: turns/keep need retention = "age" or "count" (ignored)`);
    hints[name] = { ...(t.request && { request: t.request }), ...(t.response && { response: t.response }), ...(t.dedup !== undefined && { dedup: t.dedup }), ...(retention && { retention }) };
  }
  let strategies = strategiesFrom(c.strategy, warnings);
  // RFD D17 [conversation.compaction.auto]: off unless `enabled = true`. When on, it fires when the
  // context passes trigger_ratio (default 0.75) × the model's context window, and only after more
  // than min_turns (default 5) turns; `profile` picks what runs ("default": the `strategy` list).
  const autoOn = c.auto?.enabled === true;
  if (c.auto && !autoOn) {
    const ignored = (['trigger_ratio', 'min_turns', 'profile'] as const).filter((k) => c.auto![k] !== undefined);
    warnings.push(`conversation.compaction.auto.enabled is ${c.auto.enabled === false ? 'false' : 'not set (JP default: false)'}: the automatic trigger is off, the strategies run when applied${ignored.length ? ` (${ignored.join(', ')} not used)` : ''}`);
  }
  if (autoOn && c.auto?.profile !== undefined && c.auto.profile !== 'default') {
    if (isReducerId(c.auto.profile)) strategies = [{ id: c.auto.profile as ReducerId }];
    else warnings.push(`conversation.compaction.auto.profile "${c.auto.profile}" is not a profile we know ("default" = the strategy list, or a strategy name): the strategy list runs`);
  }
  if (autoOn && !strategies.some((s) => s.id === 'auto')) {
    // RFD D17: the profile runs only when the trigger fires (planToStep wraps it in auto's gate).
    warnings.push(`conversation.compaction.auto: the profile (${strategies.map((s) => s.id).join(', ')}) runs only when the trigger fires (context > trigger_ratio × the model's window and more than min_turns turns) in \`compact\` and the replay; in the app's Plan it runs when you click Apply`);
  }
  // RFD 036: summarize_threshold defaults to 0.5 ("threshold above which auto triggers summarize").
  const summarizeThreshold = c.summarize_threshold ?? (strategies.some((s) => s.id === 'auto') ? 0.5 : undefined);
  if (c.summarize_threshold === undefined && summarizeThreshold !== undefined) warnings.push('conversation.compaction.summarize_threshold not set: RFD 036\'s default 0.5 applies (auto summarizes only above half the model\'s window)');
  const summaryModel = c.summarize_model ?? c.model;
  if (summaryModel !== undefined) warnings.push(`conversation.compaction.${c.summarize_model !== undefined ? 'summarize_model' : 'model'} = "${summaryModel}": the CLI's compact summarizes with it when --provider is given (--summary-model overrides); the app uses the model in Settings`);
  if (c.fork !== undefined) {
    warnings.push(c.fork ? 'conversation.compaction.fork = true: applying forks a new version (the log itself is never modified)' : 'conversation.compaction.fork = false: applying adds the step to the version shown (the log itself is never modified)');
  }
  return {
    source: 'jp-toml',
    strategies,
    ...(c.keep_last !== undefined && { keepLast: c.keep_last }),
    ...(c.fork !== undefined && { fork: c.fork }),
    ...(c.keep_last_calls !== undefined && { keepLastCalls: c.keep_last_calls }),
    ...(c.keep_last_tokens !== undefined && { keepLastTokens: c.keep_last_tokens }),
    ...(c.tail !== undefined && { tail: c.tail }),
    hints,
    auto: {
      ...(c.auto?.enabled !== undefined && { enabled: c.auto.enabled }),
      ...(autoOn && { threshold: c.auto!.trigger_ratio ?? 0.75, triggerOfWindow: true, minTurns: c.auto!.min_turns ?? 5 }),
      ...(c.auto?.profile !== undefined && { profile: c.auto.profile }),
      // RFD 036: the gate on auto's summarize stage (pipeline.ts); also kept at the top level.
      ...(summarizeThreshold !== undefined && { summarizeThreshold }),
      hints,
    },
    ...(summarizeThreshold !== undefined && { summarizeThreshold }),
    ...((c.summarize_model ?? c.model) !== undefined && { summaryModel: c.summarize_model ?? c.model }),
    ...(c.pin && { pins: checkPins(c.pin, 'conversation.compaction.pin') }),
    warnings,
  };
}

export function parseSvenYaml(text: string): CompactionPlan {
  let doc: unknown;
  try {
    doc = parseYaml(text, { merge: true }); // YAML 1.1 merge keys (`<<: *base`), which sven configs use: ignored in silence before (issue 30)
  } catch (e) {
    throw new ConfigError(`Not valid YAML: ${e instanceof Error ? e.message : String(e)}`, '$', 'a YAML document');
  }
  const warnings: string[] = [];
  if (!isObj(doc) || !isObj(doc.agent)) throw new ConfigError('A sven config has an `agent` section.', 'agent', 'a mapping');
  const a = check(svenAgent, doc.agent, 'agent');
  // sven's agent section has many non-compaction keys (model, tools…): only warn about compaction_* we do not know.
  for (const k of Object.keys(a)) if (/^compaction_|^tool_result_/.test(k) && !(k in svenAgent.shape)) warnings.push(`unknown key agent.${k} (ignored)`);
  // sven's defaults (seed 003 configuration reference) apply to the keys a config leaves out: the
  // gate is max(threshold − reserve, 0.1) of the input budget, emergency directly at ≥ 0.95.
  return {
    source: 'sven-yaml',
    strategies: [{ id: 'auto' }],
    hints: {},
    auto: {
      threshold: a.compaction_threshold ?? 0.85,
      overheadReserve: a.compaction_overhead_reserve ?? 0.1,
      emergencyAt: EMERGENCY_AT,
      toolResultCap: a.tool_result_token_cap ?? 4000,
      // compaction_keep_recent counts messages: the newest keep_n survive emergency (keep_last counts turns).
      keepN: a.compaction_keep_recent ?? 6,
      ...(a.compaction_strategy !== undefined && { style: a.compaction_strategy }),
      // sven caps every result as it enters (layer 4), and its normal path is one summary of all
      // but the newest keep_n messages, the session rebuilt as [system, summary, recent].
      capOnEntry: true,
      onFire: svenNormalPath(a.compaction_strategy, a.compaction_keep_recent ?? 6),
    },
    // …and the normal path leaves them untouched too (seed 003: `recent_messages`, preserved verbatim).
    // sven counts messages, not turns: keep_last 0, so the protection is the newest keep_n messages.
    keepLast: 0,
    keepLastMessages: a.compaction_keep_recent ?? 6,
    ...(a.pin && { pins: checkPins(a.pin, 'agent.pin') }),
    warnings,
  };
}

/** Every pin pattern must compile: a bad regular expression is an error naming its key. */
function checkPins(pins: string[], path: string): string[] {
  pins.forEach((p, i) => {
    try {
      patternMatcher(p);
    } catch (e) {
      throw new ConfigError(`Invalid value at ${path}.${i}: ${(e as Error).message}.`, `${path}.${i}`, 'a text, or /regular expression/flags');
    }
  });
  return pins;
}

/** Pick the parser by file name (.toml / .yaml / .yml), else by content. */
export function parseCompactionConfig(fileName: string, text: string): CompactionPlan {
  if (/\.toml$/i.test(fileName)) return parseJpToml(text);
  if (/\.ya?ml$/i.test(fileName)) return parseSvenYaml(text);
  return /^\s*\[/m.test(text) ? parseJpToml(text) : parseSvenYaml(text);
}

/** The plan as one step over `after-last-compaction` (RFD D17: from the last compaction to keep_last). */
export function planToStep(
  plan: CompactionPlan,
  opts: { id?: string; budget?: number; keepLast?: number; keepLastCalls?: number; keepLastTokens?: number; keepLastMessages?: number; tail?: 'auto' | 'turns'; createdAt?: string; gate?: boolean } = {},
): Step {
  let reducers: ReducerSpec[] = plan.strategies.map((s) => {
    if (s.id === 'auto') return { id: 'auto', options: { ...plan.auto } as Record<string, unknown> };
    const withHints: ReducerId[] = ['tool-hints', 'strip-tool-results', 'dedup-tools', 'truncate-tool-results', 'tool-retention'];
    const options: Record<string, unknown> = { ...s.options };
    if (withHints.includes(s.id)) options.hints = plan.hints;
    if (s.id === 'truncate-tool-results' && plan.auto.toolResultCap) options.cap = plan.auto.toolResultCap;
    if (s.id === 'summarize' && plan.auto.style) options.style = plan.auto.style;
    return { id: s.id, options };
  });
  // RFD D17: with [conversation.compaction.auto] enabled, the profile runs only when the trigger
  // fires: auto's gate (trigger_ratio × window, min_turns) in front of the listed strategies.
  // `gate: false` = strategies the user named himself (the CLI's --strategy): they run as asked.
  if (plan.source === 'jp-toml' && plan.auto.enabled === true && opts.gate !== false && !reducers.some((r) => r.id === 'auto')) {
    const { enabled: _e, profile: _p, summarizeThreshold: _s, ...gate } = plan.auto;
    reducers = [{ id: 'auto', options: { ...gate, onFire: reducers } as Record<string, unknown> }];
  }
  return {
    id: opts.id ?? 'config',
    range: { kind: 'after-last-compaction' },
    reducers,
    keepLast: opts.keepLast ?? plan.keepLast ?? 1,
    ...((opts.keepLastCalls ?? plan.keepLastCalls) !== undefined && { keepLastCalls: opts.keepLastCalls ?? plan.keepLastCalls }),
    ...((opts.keepLastTokens ?? plan.keepLastTokens) !== undefined && { keepLastTokens: opts.keepLastTokens ?? plan.keepLastTokens }),
    ...((opts.tail ?? plan.tail) !== undefined && { tail: opts.tail ?? plan.tail }),
    ...((opts.keepLastMessages ?? plan.keepLastMessages) !== undefined && { keepLastMessages: opts.keepLastMessages ?? plan.keepLastMessages }),
    ...(opts.budget !== undefined && { budget: opts.budget }),
    ...(plan.pins?.length && { pins: plan.pins.map((pattern) => ({ kind: 'pattern' as const, pattern })) }),
    createdAt: opts.createdAt ?? new Date(0).toISOString(),
    label: `from ${plan.source}`,
  };
}
