import { describe, expect, it } from 'vitest';
import type { SessionEntry } from '@/lib/sessions/contract';
import { projectsOf, sessionRows } from './tree';

const NONE = { agent: '', project: '', text: '' } as const;

function entry(path: string, over: Partial<SessionEntry> = {}): SessionEntry {
  return { agent: 'claude-code', path, sessionId: path.replace(/\W/g, ''), updatedAt: '2026-01-01T00:00:00Z', bytes: 10, compactions: 0, ...over };
}

describe('sessionRows', () => {
  const parent = entry('/c/p.jsonl', { updatedAt: '2026-01-02T00:00:00Z', cwd: '/work/a', firstPrompt: 'fix the parser' });
  const sub = entry('/c/p/subagents/s.jsonl', { parent: '/c/p.jsonl', firstPrompt: 'search for tests' });
  const fork = entry('/c/f.jsonl', { derivedFrom: { sourcePath: '/c/p.jsonl', version: 'Auto', steps: ['auto'], budget: 1000, createdAt: 'x', tool: 'contextscope' } });
  const codex = entry('/x/rollout.jsonl', { agent: 'codex-cli', updatedAt: '2026-01-03T00:00:00Z', cwd: '/work/b', firstPrompt: 'write docs' });
  const all = [sub, fork, parent, codex];

  it('lists top-level sessions newest first, children collapsed under their parent', () => {
    const rows = sessionRows(all, NONE, new Set());
    expect(rows.map((r) => r.entry.path)).toEqual(['/x/rollout.jsonl', '/c/p.jsonl']);
    expect(rows[1].children).toBe(2);
    expect(rows[1].expanded).toBe(false);
  });

  it('shows sub-agents and forks under their parent when expanded', () => {
    const rows = sessionRows(all, NONE, new Set(['/c/p.jsonl']));
    expect(rows.map((r) => [r.entry.path, r.depth, r.kind])).toEqual([
      ['/x/rollout.jsonl', 0, 'session'],
      ['/c/p.jsonl', 0, 'session'],
      ['/c/p/subagents/s.jsonl', 1, 'subagent'],
      ['/c/f.jsonl', 1, 'fork'],
    ]);
  });

  it('filters by agent, project and text; a matching child shows under its parent', () => {
    expect(sessionRows(all, { ...NONE, agent: 'codex-cli' }, new Set()).map((r) => r.entry.path)).toEqual(['/x/rollout.jsonl']);
    expect(sessionRows(all, { ...NONE, project: '/work/a' }, new Set()).map((r) => r.entry.path)).toEqual(['/c/p.jsonl']);
    const rows = sessionRows(all, { ...NONE, text: 'SEARCH for' }, new Set());
    expect(rows.map((r) => r.entry.path)).toEqual(['/c/p.jsonl', '/c/p/subagents/s.jsonl']);
    expect(sessionRows(all, { ...NONE, text: 'nothing like this' }, new Set())).toEqual([]);
  });

  it('a fork whose source is not listed stands on its own; a cycle does not loop', () => {
    const orphan = entry('/c/o.jsonl', { derivedFrom: { sourcePath: '/gone.jsonl', createdAt: 'x', tool: 'contextscope' } });
    const a = entry('/a', { parent: '/b' });
    const b = entry('/b', { parent: '/a' });
    expect(sessionRows([orphan], NONE, new Set()).map((r) => r.entry.path)).toEqual(['/c/o.jsonl']);
    expect(sessionRows([a, b], NONE, new Set(['/a', '/b'])).length).toBeLessThanOrEqual(2);
  });

  it('20,000 sessions: a text filter finds its matches, newest first', () => {
    const many = Array.from({ length: 20_000 }, (_, i) => entry(`/s/${i}.jsonl`, { firstPrompt: `prompt ${i}`, cwd: `/p/${i % 30}`, updatedAt: new Date(1e12 + i * 1000).toISOString() }));
    const rows = sessionRows(many, { ...NONE, text: 'prompt 1999' }, new Set());
    expect(rows.map((r) => r.entry.firstPrompt)).toEqual(['prompt 19999', 'prompt 19998', 'prompt 19997', 'prompt 19996', 'prompt 19995', 'prompt 19994', 'prompt 19993', 'prompt 19992', 'prompt 19991', 'prompt 19990', 'prompt 1999']);
    expect(projectsOf(many)).toHaveLength(30);
  });
});
