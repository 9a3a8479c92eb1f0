/** One colour per replayed policy, stable across the chart and the table. */
const PALETTE: Record<string, string> = {
  recorded: '#525252',
  none: '#a3a3a3',
  'contextscope-auto': '#2563eb',
  jp: '#7c3aed',
  sven: '#db2777',
  'seed-002': '#0891b2',
  'seed-002-summarize': '#0e7490',
  'seed-004': '#4f46e5',
  'claude-code': '#d97706',
  'claude-code-microcompact': '#f59e0b',
  codex: '#059669',
  // Not the context window's red (#dc2626, components/timeline/draw.ts): two lines, two colours (issue 30).
  'gemini-cli': '#a21caf',
  'opencode-prune': '#65a30d',
  goose: '#9333ea',
  'anthropic-clear-tool-uses': '#c2410c',
  'anthropic-clear-thinking': '#ea580c',
  openhands: '#0284c7',
  'langchain-trim': '#16a34a',
};

export function policyColor(id: string): string {
  return PALETTE[id] ?? '#737373';
}
