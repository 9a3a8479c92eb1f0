/**
 * vitest.config.ts (session 20): the unit files run in two projects. A file that changes state
 * another file would see in a shared module graph (mocks, spies, stubbed globals or environment,
 * fake timers, the fake IndexedDB, a module's test-only limits, another environment, or reading
 * which modules are loaded) runs isolated, as every file did before; the rest share their worker's
 * module graph (`isolate: false`). Every test file is in exactly one of the two.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import config, { NEEDS_ISOLATION } from '../vitest.config';

const root = path.resolve(__dirname, '..');

function testFiles(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = path.posix.join(dir, e.name);
    if (e.isDirectory()) testFiles(rel, out);
    else if (/\.test\.tsx?$/.test(e.name)) out.push(rel);
  }
  return out;
}

type Project = { test: { name: string; include: string[]; exclude?: string[]; isolate: boolean } };
const projects = (config as { test: { projects: Project[] } }).test.projects;
const byName = (name: string) => projects.find((p) => p.test.name === name)!.test;

describe('vitest.config.ts: isolated where a file changes shared state, one module graph per worker elsewhere', () => {
  it('two projects: "isolated" isolates, "shared" does not; every test file is in exactly one', () => {
    expect(projects.map((p) => [p.test.name, p.test.isolate])).toEqual([
      ['isolated', true],
      ['shared', false],
    ]);
    const all = ['lib', 'components', 'tests', 'scripts'].flatMap((d) => testFiles(d)).sort();
    const isolated = byName('isolated').include;
    const shared = byName('shared');
    // The shared project takes the patterns and leaves out the isolated files by name.
    expect(shared.exclude).toEqual(expect.arrayContaining(isolated));
    const sharedFiles = all.filter((f) => !isolated.includes(f));
    expect(isolated.length + sharedFiles.length).toBe(all.length);
    expect(isolated.every((f) => all.includes(f))).toBe(true);
    expect(sharedFiles.length).toBeGreaterThan(100);
    // This file is read with the rest: it names the patterns, so it is isolated itself.
    expect(isolated).toContain('scripts/vitest-config.test.ts');
  });

  it('files that mock, fake timers or IndexedDB, or read the module cache are isolated; a plain one is not', () => {
    const isolated = byName('isolated').include;
    for (const f of ['lib/engine/legacy-ids.test.ts', 'components/library/census-run.test.tsx', 'lib/tokens/bpe.test.ts', 'lib/engine/client.test.ts', 'lib/engine/api.test.ts'])
      expect(isolated, f).toContain(f);
    for (const f of ['lib/formats/same-json.test.ts', 'tests/compaction/properties.test.ts']) expect(isolated, f).not.toContain(f);
  });

  it('the patterns: what needs isolation and what does not', () => {
    const needs = [
      "vi.mock('@/lib/engine/client', () => ({}));",
      'vi.doMock("x")',
      'vi.useFakeTimers();',
      "const spy = vi.spyOn(console, 'warn');",
      "vi.stubGlobal('fetch', f);",
      "vi.stubEnv('HOME', dir);",
      'vi.resetModules();',
      "import 'fake-indexeddb/auto';",
      "process.env.HOME = '/tmp/x';",
      "process.env.CONTEXTSCOPE_X ??= '1';",
      "process.env['HOME'] = dir;",
      'delete process.env.HOME;',
      'globalThis.indexedDB = new IDBFactory();',
      '(globalThis as { x?: number }).x = 1;',
      "Object.defineProperty(globalThis, 'navigator', {});",
      'process.chdir(dir);',
      'setLimitsForTests({ maxInputBytes: 10 });',
      // (split: vitest reads the environment from such a comment anywhere in a test file)
      '// @vitest-' + 'environment jsdom',
      'Object.keys(require.cache)',
    ];
    for (const text of needs) expect(NEEDS_ISOLATION.test(text), text).toBe(true);
    const plain = [
      "expect(process.env.HOME === '/x').toBe(false);",
      "const home = process.env.HOME ?? '/';",
      "import { importBytes } from '@/lib/formats/import';",
      "it('counts', () => expect(vi).toBeDefined());",
      'globalThis.structuredClone(x) === y',
    ];
    for (const text of plain) expect(NEEDS_ISOLATION.test(text), text).toBe(false);
  });
});
