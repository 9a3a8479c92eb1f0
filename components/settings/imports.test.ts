/**
 * The Settings page must stay light: it is a static page that never runs the pipeline, so nothing
 * it imports (at runtime) may pull in the tokenizer or the compaction engine (lib/tokens/totals.ts,
 * the budget kinds' table, is no tokenizer). Follows the page's
 * runtime import graph (type-only imports are erased by the compiler and ignored here).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../..');

function resolveLocal(from: string, spec: string): string | undefined {
  const base = spec.startsWith('@/') ? path.join(ROOT, spec.slice(2)) : spec.startsWith('.') ? path.resolve(path.dirname(from), spec) : undefined;
  if (!base) return undefined;
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')]) if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  return undefined;
}

/** Runtime imports of a file: `import … from 'x'` and `export … from 'x'`, minus `import type` / `export type`. */
function runtimeImports(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const specs: string[] = [];
  const re = /^\s*(import|export)\s+(type\s+)?(?:[^'"]*?\s+from\s+)?['"]([^'"]+)['"]/gm;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) if (!m[2]) specs.push(m[3]);
  return specs;
}

function closure(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = [entry];
  while (queue.length) {
    const file = queue.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const spec of runtimeImports(file)) {
      const local = resolveLocal(file, spec);
      if (local) queue.push(local);
      else if (!spec.startsWith('.') && !spec.startsWith('@/')) packages.add(spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/'));
    }
  }
  return { files, packages };
}

describe('Settings page imports', () => {
  it('reach no tokenizer and no compaction engine', () => {
    const { files, packages } = closure(path.join(ROOT, 'app/settings/page.tsx'));
    expect(files.size).toBeGreaterThan(5);
    expect([...packages]).not.toContain('gpt-tokenizer');
    const rel = [...files].map((f) => path.relative(ROOT, f));
    expect(rel).toContain('components/settings/SettingsPage.tsx');
    expect(rel).toContain('lib/summarize/providers/anthropic.ts');
    // lib/tokens/totals.ts is the budget kinds' names and sums (the bridge unpacks timeline turns by
    // kind): allowed as long as it imports nothing at runtime itself.
    expect(runtimeImports(path.join(ROOT, 'lib/tokens/totals.ts'))).toEqual([]);
    expect(rel.filter((f) => f.startsWith('lib/compaction/') || (f.startsWith('lib/tokens/') && f !== 'lib/tokens/totals.ts') || f === 'lib/summarize/offline.ts')).toEqual([]);
  });
});
