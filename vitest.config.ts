import { defineConfig } from 'vitest/config';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));
const include = ['lib/**/*.test.ts', 'components/**/*.test.ts', 'components/**/*.test.tsx', 'tests/**/*.test.ts', 'scripts/**/*.test.ts'];

/**
 * What makes a test file change state another file would see if both ran in one module graph:
 * module mocks, spies, stubbed globals or environment, fake timers, the fake IndexedDB, a module's
 * test-only limits (`…ForTests`), the working directory, another test environment, or a file that
 * reads which modules are loaded (`require.cache`). Such a file
 * runs isolated (its own module graph, as every file did before session 20); every other file
 * runs in its worker's shared graph (`isolate: false`), so the engine's modules are imported once
 * per worker instead of once per file (vitest's summed import time was ~87 s of the stage's ~480 s).
 * Decided from each file's text when the config loads, so a new file that mocks is isolated too.
 */
export const NEEDS_ISOLATION = new RegExp(
  [
    String.raw`\bvi\.(mock|doMock|unmock|doUnmock|resetModules|stubGlobal|stubEnv|useFakeTimers|spyOn|hoisted)\b`,
    String.raw`fake-indexeddb`,
    String.raw`process\.env\.[A-Za-z_]+\s*(=[^=]|\?\?=|\|\|=)`,
    String.raw`process\.env\[[^\]]+\]\s*=[^=]`,
    String.raw`delete process\.env`,
    String.raw`globalThis\.[A-Za-z_$]+\s*=[^=]`,
    String.raw`globalThis as`,
    String.raw`defineProperty\(globalThis`,
    String.raw`process\.chdir`,
    String.raw`ForTests\b`,
    String.raw`@vitest-environment`,
    // A file that reads which modules are loaded (lib/tokens/bpe.test.ts: an encoding loads on its first count).
    String.raw`require\.cache`,
  ].join('|'),
);

function testFiles(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = path.posix.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'node_modules') testFiles(rel, out);
    } else if (/\.test\.tsx?$/.test(e.name)) out.push(rel);
  }
  return out;
}

const isolated = ['lib', 'components', 'tests', 'scripts']
  .filter((d) => fs.existsSync(path.join(root, d)))
  .flatMap((d) => testFiles(d))
  .filter((f) => NEEDS_ISOLATION.test(fs.readFileSync(path.join(root, f), 'utf8')));

export default defineConfig({
  resolve: { alias: { '@': root } },
  test: {
    // The files are the two projects' (below): a root `include` would be merged into both.
    environment: 'node',
    // Timeouts guard against hangs, not speed (speed is judged on thread CPU time, tests/cpu.ts):
    // on a machine whose cores are all busy with other work, a 10 s test can take a minute.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // The CLI bundle the tests run as a process (tests/cli-entry.ts), rebuilt once when stale.
    globalSetup: ['tests/build-cli.setup.ts'],
    pool: 'threads',
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'isolated', include: isolated, isolate: true } },
      { extends: true, test: { name: 'shared', include, exclude: [...isolated, 'node_modules/**'], isolate: false } },
    ],
  },
});
