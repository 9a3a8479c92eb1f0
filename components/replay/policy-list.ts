/**
 * The replayed policies, ids and labels, for the inspector's Policies menu (the main thread must
 * not load lib/simulate: the replay runs in the worker). Kept equal to REPLAY_POLICIES by
 * components/replay/policy-list.test.ts.
 */
export const REPLAY_POLICY_LIST: ReadonlyArray<{ id: string; label: string }> = [
  { id: 'recorded', label: 'As recorded' },
  { id: 'none', label: 'No policy' },
  { id: 'contextscope-auto', label: 'Contextscope Auto' },
  { id: 'jp', label: 'JP (RFD D17)' },
  { id: 'sven', label: 'sven' },
  { id: 'seed-002', label: 'Seed 002 (Truncate)' },
  { id: 'seed-002-summarize', label: 'Seed 002 (Summarize)' },
  { id: 'seed-004', label: 'Seed 004 (projection)' },
  { id: 'claude-code', label: 'Claude Code auto-compact' },
  { id: 'claude-code-microcompact', label: 'Claude Code microcompact' },
  { id: 'codex', label: 'Codex CLI' },
  { id: 'gemini-cli', label: 'Gemini CLI' },
  { id: 'opencode-prune', label: 'OpenCode prune' },
  { id: 'goose', label: 'Goose' },
  { id: 'anthropic-clear-tool-uses', label: 'Anthropic clear_tool_uses' },
  { id: 'anthropic-clear-thinking', label: 'Anthropic clear_thinking' },
  { id: 'openhands', label: 'OpenHands condenser' },
  { id: 'langchain-trim', label: 'LangChain trimMessages' },
];

/**
 * The policies in the calls the page asks the worker, one after the other (issue 31): the
 * baselines and the agents first (cheap: their rows show within a second at 2,000 turns), then
 * Auto (the costliest), then the rest in two. Each call redoes the per-log part of the replay
 * (calls, calibration, cache fit: ~40 ms at 2,000 turns), so four calls, not eighteen.
 */
export const REPLAY_PARTS: ReadonlyArray<readonly string[]> = [
  ['recorded', 'none', 'claude-code', 'codex', 'gemini-cli'],
  ['contextscope-auto'],
  ['jp', 'sven', 'seed-002', 'seed-002-summarize', 'seed-004'],
  ['claude-code-microcompact', 'opencode-prune', 'goose', 'anthropic-clear-tool-uses', 'anthropic-clear-thinking', 'openhands', 'langchain-trim'],
];
