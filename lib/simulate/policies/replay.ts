/**
 * The policies the call-by-call replay runs (lib/simulate/calls.ts), each with where our emulation
 * differs from the real thing. The peers' triggers and plans are the ones the inspector draws
 * (PEER_POLICIES); the replay adds the two baselines, our own Auto, seed 002's Summarize and
 * LangChain's trimMessages.
 */
import type { ReplayPolicy } from '../calls';
import { fromPeer } from '../calls';
import { planStep } from '../types';
import { modelCalls } from '../../compaction/calls';
import { WINDOW_FORCES_AT } from '../../compaction/cache-pays';
import { anthropicClearThinking, anthropicClearToolUses } from './anthropic-context-editing';
import { claudeCodeCompact, claudeCodeMicrocompact } from './claude-code';
import { codex } from './codex';
import { geminiCli } from './gemini-cli';
import { opencodePrune } from './opencode';
import { goose, openhands } from './others';
import { jp, seed002, seed002Limits, seed004, sven } from './seeds';

/**
 * Our Auto with its defaults: the window forces a compaction at 90 % of the input budget (to half
 * of it); below that Auto compacts only when it pays for the cache it breaks (issue #29: at 75 %
 * regardless, Auto cost 1.02× No policy on localpush, which fits the window uncompacted).
 */
export const AUTO_TRIGGER = WINDOW_FORCES_AT;
export const AUTO_TARGET = 0.5;

/** What Auto's early, cache-aware compaction runs: the free reducers to their floor, never the tool schemas (the cache's first tokens), no summary. */
export const AUTO_EARLY_OPTIONS = { summarize: false, emergency: false, skip: ['prune-tools'] } as const;

/**
 * Our Auto as a replay policy: fires at `trigger` × the input budget, compacts to `target` × it
 * (the window forces it); below that, compacts early when it pays for the cache it breaks
 * (lib/compaction/cache-pays.ts): the free reducers as far as they go, in one compaction.
 */
export function autoPolicy(trigger = AUTO_TRIGGER, target = AUTO_TARGET): ReplayPolicy {
  return {
    id: 'contextscope-auto',
    label: 'Contextscope Auto',
    kind: 'plan',
    note: `fires at ${Math.round(trigger * 100)} % of the input budget (window − max output) and runs Auto to ${Math.round(target * 100)} % of it with the library's defaults: free reducers first, summaries prefix-ward only for the overflow; below that, compacts early with the free reducers only when the savings over the calls estimated to come (as many as made so far) pay for the cache rewrite, clearing at least 5 % of the input budget`,
    triggerTokens: (m) => Math.floor((m.contextWindow - m.maxOutput) * trigger),
    plan: (_log, m) => [planStep('contextscope-auto', [{ id: 'auto' }], 1, Math.floor((m.contextWindow - m.maxOutput) * target))],
    early: {
      plan: () => [planStep('contextscope-auto-early', [{ id: 'auto', options: { ...AUTO_EARLY_OPTIONS } }], 1, 1)],
      tailPlan: (log, _m, fromMessage) => {
        const calls = modelCalls(log);
        const from = calls.findIndex((c) => c.first >= fromMessage);
        return from < 0 ? [] : [planStep('contextscope-auto-early', [{ id: 'auto', options: { ...AUTO_EARLY_OPTIONS } }], 1, 1, { kind: 'calls', from, to: calls.length - 1 })];
      },
    },
  };
}

export const contextscopeAuto: ReplayPolicy = autoPolicy();

export const seed002Summarize: ReplayPolicy = {
  id: 'seed-002-summarize',
  label: 'Seed 002 (Summarize)',
  kind: 'plan',
  note: 'our offline structured summary stands in for the LLM summary; target = threshold / 2',
  triggerTokens: (m) => seed002Limits(m).autoCompactThreshold,
  plan: (_log, m) => [planStep('seed-002-summarize', [{ id: 'summarize', options: { untilFits: true } }], 1, seed002Limits(m).compactTargetTokens)],
};

export const langchainTrim: ReplayPolicy = {
  id: 'langchain-trim',
  label: 'LangChain trimMessages',
  kind: 'plan',
  note: "trimMessages(strategy 'last', includeSystem, startOn 'human') run by the app on every call: our sliding window drops whole turns oldest first until the input budget holds, never half a tool pair",
  triggerTokens: (m) => m.contextWindow - m.maxOutput,
  plan: (_log, m) => [planStep('langchain-trim', [{ id: 'sliding-window', options: { untilFits: true } }], 1, m.contextWindow - m.maxOutput)],
};

const SUMMARY_NOTE = 'our offline structured summary stands in for the LLM summary (same size rule, never larger than the span)';

export const REPLAY_POLICIES: readonly ReplayPolicy[] = [
  { id: 'recorded', label: 'As recorded', kind: 'recorded', note: "the agent's own behaviour, its own compactions included: the recorded prompts, billed with the cache model" },
  { id: 'none', label: 'No policy', kind: 'none', note: "never compacts; a source's own compaction is undone (its summary left out, what it covered kept)" },
  contextscopeAuto,
  fromPeer(jp, 'trigger_ratio × window, checked between turns (after a turn completes), min_turns 5; the profile is our Auto'),
  fromPeer(sven, 'threshold − reserve on the input budget; the structured summary is our offline one'),
  fromPeer(seed002, 'keep N recent + system until the budget holds'),
  seed002Summarize,
  fromPeer(seed004, 'retention (5 turns) on every firing + Auto to the input budget − a 5 % injection reserve, less the calibration error as a safety margin; summaries offline'),
  fromPeer(claudeCodeCompact, SUMMARY_NOTE),
  fromPeer(claudeCodeMicrocompact, 'clears old results of the listed tools, newest 5 kept; the real one also fires on a time gap'),
  fromPeer(codex, `tool outputs capped at 2,560 tokens, then ${SUMMARY_NOTE}`),
  fromPeer(geminiCli, `oldest 70 % → ${SUMMARY_NOTE}`),
  fromPeer(opencodePrune, 'the prune only (outputs older than the newest 40k tool tokens); the summary that follows when it is not enough is left out'),
  fromPeer(goose, SUMMARY_NOTE),
  fromPeer(anthropicClearToolUses, 'server-side: the placeholder text is ours'),
  fromPeer(anthropicClearThinking, 'older thinking blocks removed'),
  fromPeer(openhands, 'observation masking beyond the newest 10 results at 120 events; the LLM summary past keep_first is left out'),
  langchainTrim,
];

export function replayPolicyById(id: string): ReplayPolicy | undefined {
  return REPLAY_POLICIES.find((p) => p.id === id);
}
