/**
 * `contextscope sessions [--json] [DIR…]`: the sessions of the agents on this machine (Claude Code,
 * Codex, Gemini CLI, found where each keeps them; HOME, CLAUDE_CONFIG_DIR, CODEX_HOME and
 * GEMINI_CLI_HOME honoured) and of the folders named. Each file is described from its head and
 * tail (lib/sessions/list.ts). `--json` prints the SessionEntry array of lib/sessions/contract.ts.
 */
import { firstNonFolder } from './_files';
import fs from 'node:fs';
import path from 'node:path';
import { listSessions } from '../sessions/list';
import { resolveStores } from '../sessions/stores';
import type { SessionEntry } from '../sessions/contract';

export const summary = 'List the sessions of Claude Code, Codex and Gemini CLI on this machine (and of DIR…); --json for machine output';

const USAGE = 'Usage: contextscope sessions [--json] [DIR…]';

function size(n: number): string {
  return n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(0)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`;
}

function row(e: SessionEntry, indent: string): string {
  const when = e.updatedAt.slice(0, 16).replace('T', ' ');
  const bits = [e.agent === 'folder' ? `folder${e.format ? `/${e.format}` : ''}` : e.agent, when, size(e.bytes), e.model ?? '', e.tokens ? `${e.tokens} tokens` : '', e.compactions || e.scanned === 'head-tail' ? `${e.compactions}${e.scanned === 'head-tail' ? '+' : ''} compaction(s)` : '', e.derivedFrom ? `fork of ${e.derivedFrom.sourceSessionId ?? '?'}` : ''];
  return `${indent}${e.sessionId}  ${bits.filter(Boolean).join('  ')}\n${indent}  ${e.cwd ?? '(no project folder recorded)'}  ${JSON.stringify((e.firstPrompt ?? '').slice(0, 100))}\n${indent}  ${e.path}`;
}

export async function run(args: string[]): Promise<number> {
  let asJson = false;
  const dirs: string[] = [];
  for (const a of args) {
    if (a === '--help' || a === '-h') {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    if (a === '--json') asJson = true;
    else if (a.startsWith('--')) {
      process.stderr.write(`Unknown option ${a}.\n${USAGE}\n`);
      return 2;
    } else dirs.push(a);
  }
  const notFolder = firstNonFolder(dirs);
  if (notFolder !== undefined) {
    process.stderr.write(`sessions: "${notFolder}" is not a folder.
`);
    return 2;
  }
  const list = listSessions(resolveStores(process.env, dirs.map((d) => path.resolve(d))));
  if (asJson) {
    process.stdout.write(JSON.stringify(list.sessions, null, 2) + '\n');
    for (const s of list.skipped ?? []) process.stderr.write(`skipped ${s.path}: ${s.reason}\n`);
    return 0;
  }
  const children = new Map<string, SessionEntry[]>();
  const byPath = new Set(list.sessions.map((s) => s.path));
  for (const s of list.sessions) {
    const under = s.parent ?? (s.derivedFrom?.sourcePath && byPath.has(s.derivedFrom.sourcePath) ? s.derivedFrom.sourcePath : undefined);
    if (under && byPath.has(under)) children.set(under, [...(children.get(under) ?? []), s]);
  }
  const shown = new Set<string>();
  const print = (s: SessionEntry, depth: number) => {
    if (shown.has(s.path)) return;
    shown.add(s.path);
    process.stdout.write(row(s, '  '.repeat(depth) + (depth ? '└ ' : '')) + '\n');
    for (const c of children.get(s.path) ?? []) print(c, depth + 1);
  };
  for (const s of list.sessions) if (!(s.parent && byPath.has(s.parent)) && !(s.derivedFrom?.sourcePath && byPath.has(s.derivedFrom.sourcePath))) print(s, 0);
  for (const s of list.sessions) print(s, 0);
  for (const r of list.roots) process.stdout.write(`${r.exists ? 'searched' : 'absent  '} ${r.agent.padEnd(11)} ${r.dir}\n`);
  process.stdout.write(`${list.sessions.length} session(s)\n`);
  for (const s of list.skipped ?? []) process.stderr.write(`skipped ${s.path}: ${s.reason}\n`);
  return 0;
}
