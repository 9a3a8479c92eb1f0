/**
 * DESIGN.md: "the main thread imports only the Engine type; the main thread never parses a
 * transcript". This walks the static import graph of the app's routes (value imports only: `import
 * type` is erased) and fails if it reaches a parser, the tokenizer, storage or the engine itself —
 * those belong in the worker, and in the main bundle they would cost megabytes and jank.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '..');

/** Modules that must only ever run in the worker. */
const WORKER_ONLY: Array<{ test: (spec: string, file?: string) => boolean; why: string }> = [
  { test: (_, f) => !!f && f.startsWith(path.join(ROOT, 'lib/formats') + path.sep) && !f.endsWith('types.ts'), why: 'format parsers' },
  { test: (_, f) => !!f && f.startsWith(path.join(ROOT, 'lib/read') + path.sep), why: 'file reading' },
  { test: (_, f) => !!f && f.startsWith(path.join(ROOT, 'lib/db') + path.sep), why: 'storage (Dexie lives in the worker)' },
  { test: (_, f) => f === path.join(ROOT, 'lib/tokens/count.ts'), why: 'the tokenizer' },
  { test: (_, f) => f === path.join(ROOT, 'lib/engine/api.ts'), why: 'the engine (import its type only)' },
  { test: (s) => s === 'dexie' || s.startsWith('gpt-tokenizer') || s === 'fflate', why: 'worker-only packages' },
];

/** Value imports of a module (`import type` and `export type` are erased by the compiler); `dynamic`: with `import()`s. */
function valueImports(source: string, dynamic = true): string[] {
  const specs: string[] = [];
  const re = /^\s*(import|export)\s+(?!type\s)([^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;
  for (let m = re.exec(source); m; m = re.exec(source)) {
    const clause = m[2] ?? '';
    // `import { type A, type B } from` is erased too.
    const names = /\{([^}]*)\}/.exec(clause);
    if (names && !/[*\w]\s*,?\s*\{/.test(clause.trim()) && names[1].split(',').every((n) => n.trim() === '' || n.trim().startsWith('type '))) continue;
    specs.push(m[3]);
  }
  // Dynamic imports are still loaded by the main thread.
  if (dynamic) for (const d of source.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)) specs.push(d[1]);
  return specs;
}

function resolveLocal(spec: string, from: string): string | undefined {
  let base: string;
  if (spec.startsWith('@/')) base = path.join(ROOT, spec.slice(2));
  else if (spec.startsWith('.')) base = path.resolve(path.dirname(from), spec);
  else return undefined;
  for (const c of [base, `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts'), path.join(base, 'index.tsx')]) {
    if (fs.existsSync(c) && fs.statSync(c).isFile()) return c;
  }
  return undefined;
}

function violations(entry: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  const stack: Array<{ file: string; chain: string[] }> = [{ file: entry, chain: [path.relative(ROOT, entry)] }];
  while (stack.length) {
    const { file, chain } = stack.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const spec of valueImports(fs.readFileSync(file, 'utf8'))) {
      const resolved = resolveLocal(spec, file);
      const bad = WORKER_ONLY.find((w) => w.test(spec, resolved));
      const here = [...chain, resolved ? path.relative(ROOT, resolved) : spec];
      if (bad) out.push(`${here.join(' → ')} (${bad.why})`);
      else if (resolved && /\.(ts|tsx)$/.test(resolved)) stack.push({ file: resolved, chain: here });
    }
  }
  return out;
}

describe('main-thread bundle', () => {
  for (const route of ['app/page.tsx', 'app/inspect/page.tsx', 'app/layout.tsx']) {
    it(`${route} never imports worker-only code`, () => {
      expect(violations(path.join(ROOT, route))).toEqual([]);
    });
  }

  it('the checker sees a violation when there is one', () => {
    expect(violations(path.join(ROOT, 'workers/engine.worker.ts')).some((v) => v.includes('lib/engine/api.ts'))).toBe(true);
  });
});

/** Every local module the entry reaches through static imports only (what lands in its route's own chunk). */
function staticGraph(entry: string): Set<string> {
  const seen = new Set<string>();
  const stack = [entry];
  while (stack.length) {
    const file = stack.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const spec of valueImports(fs.readFileSync(file, 'utf8'), false)) {
      const resolved = resolveLocal(spec, file);
      if (resolved && /\.(ts|tsx)$/.test(resolved)) stack.push(resolved);
    }
  }
  return seen;
}

describe("the inspector's chunks (issue 31)", () => {
  // In one chunk the inspector's code was one 295 KB module, compiled on the main thread at its first
  // call: a task of 55–64 ms CPU. These come through import() (components/ui/preloaded.tsx), a chunk each.
  const ownChunks = ['components/timeline/TimelineChart.tsx', 'components/messages/MessageList.tsx', 'components/inspector/InspectorTabs.tsx', 'components/export/ExportDialog.tsx', 'components/inspector/HelpOverlay.tsx'];
  it('the route reaches the chart, the message list, the side panel, the export dialog and the help only through import()', () => {
    const graph = staticGraph(path.join(ROOT, 'app/inspect/page.tsx'));
    expect(graph.has(path.join(ROOT, 'components/inspector/InspectorPage.tsx'))).toBe(true);
    expect(ownChunks.filter((f) => graph.has(path.join(ROOT, f)))).toEqual([]);
  });
});
