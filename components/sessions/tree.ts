/**
 * The library's "Your sessions" list as rows: newest first, each sub-agent session under its
 * parent and each fork we wrote (derivedFrom) under its source, filtered by agent, project and
 * text. Pure and linear in the number of sessions: thousands of sessions re-filter per keystroke.
 */
import type { AgentId, SessionEntry } from '@/lib/sessions/contract';

export type RowKind = 'session' | 'subagent' | 'fork';

export interface SessionRow {
  entry: SessionEntry;
  kind: RowKind;
  /** 0 = top level; 1 = under its parent or source; deeper for a fork of a fork. */
  depth: number;
  /** Sub-agent sessions and forks under this one (all of them, whether shown or not). */
  children: number;
  /** Its children are shown. */
  expanded: boolean;
}

export interface SessionFilter {
  agent: AgentId | '';
  project: string;
  text: string;
}

export const AGENT_LABEL: Record<AgentId, string> = {
  'claude-code': 'Claude Code',
  'codex-cli': 'Codex',
  'gemini-cli': 'Gemini CLI',
  folder: 'Folder',
};

/** The key a child points at: a sub-agent names its parent's path; a fork names its source's path (or id). */
function parentKey(e: SessionEntry): string | undefined {
  if (e.parent) return e.parent;
  if (e.derivedFrom?.sourcePath) return e.derivedFrom.sourcePath;
  if (e.derivedFrom?.sourceSessionId) return `id:${e.derivedFrom.sourceSessionId}`;
  return undefined;
}

function matchesText(e: SessionEntry, needle: string): boolean {
  if (!needle) return true;
  for (const s of [e.firstPrompt, e.cwd, e.sessionId, e.model, e.path]) if (s && s.toLowerCase().includes(needle)) return true;
  return false;
}

/** updatedAt as a number, parsed once per entry (a sort compares each many times). */
const times = new WeakMap<SessionEntry, number>();
function time(e: SessionEntry): number {
  let t = times.get(e);
  if (t === undefined) {
    t = Date.parse(e.updatedAt);
    if (Number.isNaN(t)) t = 0;
    times.set(e, t);
  }
  return t;
}

/**
 * `expanded`: paths whose children are open. A filter that matches a child shows it under its
 * parent (the parent is shown for context, whatever the filter says of it).
 */
export function sessionRows(sessions: readonly SessionEntry[], filter: SessionFilter, expanded: ReadonlySet<string>): SessionRow[] {
  const byPath = new Map<string, SessionEntry>();
  const byId = new Map<string, SessionEntry>();
  for (const e of sessions) {
    byPath.set(e.path, e);
    if (e.sessionId && !byId.has(e.sessionId)) byId.set(e.sessionId, e);
  }
  const children = new Map<string, SessionEntry[]>();
  const roots: SessionEntry[] = [];
  for (const e of sessions) {
    const key = parentKey(e);
    const parent = key === undefined ? undefined : key.startsWith('id:') ? byId.get(key.slice(3)) : (byPath.get(key) ?? (e.derivedFrom?.sourceSessionId ? byId.get(e.derivedFrom.sourceSessionId) : undefined));
    if (parent && parent !== e) {
      const list = children.get(parent.path);
      if (list) list.push(e);
      else children.set(parent.path, [e]);
    } else roots.push(e);
  }
  const newest = (a: SessionEntry, b: SessionEntry) => time(b) - time(a);
  roots.sort(newest);
  for (const list of children.values()) list.sort(newest);

  const needle = filter.text.trim().toLowerCase();
  const own = (e: SessionEntry) => (!filter.agent || e.agent === filter.agent) && (!filter.project || e.cwd === filter.project) && matchesText(e, needle);
  const filtering = filter.agent !== '' || filter.project !== '' || needle !== '';

  // Whether a subtree holds a match (memoized: a fork chain is walked once).
  const hit = new Map<string, boolean>();
  const subtreeMatches = (e: SessionEntry, seen: Set<string>): boolean => {
    const known = hit.get(e.path);
    if (known !== undefined) return known;
    if (seen.has(e.path)) return false;
    seen.add(e.path);
    let m = own(e);
    for (const c of children.get(e.path) ?? []) if (subtreeMatches(c, seen)) m = true;
    hit.set(e.path, m);
    return m;
  };

  const rows: SessionRow[] = [];
  const emit = (e: SessionEntry, depth: number, seen: Set<string>) => {
    if (seen.has(e.path)) return;
    seen.add(e.path);
    const kids = children.get(e.path) ?? [];
    const kind: RowKind = depth === 0 ? 'session' : e.parent ? 'subagent' : 'fork';
    // A filter opens the subtrees it matched inside; else the user's toggle decides.
    const open = kids.length > 0 && (expanded.has(e.path) || (filtering && kids.some((c) => subtreeMatches(c, new Set()))));
    rows.push({ entry: e, kind, depth, children: kids.length, expanded: open });
    if (!open) return;
    for (const c of kids) if (!filtering || subtreeMatches(c, new Set())) emit(c, depth + 1, seen);
  };
  const seen = new Set<string>();
  for (const r of roots) if (!filtering || subtreeMatches(r, new Set())) emit(r, 0, seen);
  return rows;
}

/** The project folders the sessions ran in, most sessions first (the project filter's options). */
export function projectsOf(sessions: readonly SessionEntry[]): Array<{ cwd: string; count: number }> {
  const counts = new Map<string, number>();
  for (const e of sessions) if (e.cwd) counts.set(e.cwd, (counts.get(e.cwd) ?? 0) + 1);
  return [...counts].map(([cwd, count]) => ({ cwd, count })).sort((a, b) => b.count - a.count || a.cwd.localeCompare(b.cwd));
}
