import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';

export default defineConfig({
  resolve: { alias: { '@': fileURLToPath(new URL('.', import.meta.url)) } },
  test: {
    include: ['lib/**/*.test.ts', 'components/**/*.test.ts', 'components/**/*.test.tsx', 'tests/**/*.test.ts', 'scripts/**/*.test.ts'],
    environment: 'node',
    // Timeouts guard against hangs, not speed (speed is judged on thread CPU time, tests/cpu.ts):
    // on a machine whose cores are all busy with other work, a 10 s test can take a minute.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // The CLI bundle the tests run as a process (tests/cli-entry.ts), rebuilt once when stale.
    globalSetup: ['tests/build-cli.setup.ts'],
    pool: 'threads',
    maxWorkers: 2,
  },
});
