/**
 * `npm run test:clients -- --help` prints the options and exits 0; a bad option names itself and
 * the options, without a stack trace, and counts one failure (the line CI reads).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '..');
const run = (...args: string[]) => spawnSync(path.join(root, 'node_modules', '.bin', 'tsx'), ['scripts/test-clients.ts', ...args], { cwd: root, encoding: 'utf8', timeout: 60_000 });

describe('test:clients options', () => {
  it('--help lists every option and exits 0 without installing or running a client', () => {
    const r = run('--help');
    expect(r.status).toBe(0);
    for (const o of ['--subset', '--cases', '--only', '--session', '--timeout', '--keep', '--json', '--install-only', '--help']) expect(r.stdout).toContain(o);
    expect(r.stdout).toContain('claude-code, codex, gemini-cli');
    expect(r.stdout).not.toContain('mock model server on http');
  });

  it('a bad option or client is named, with no stack trace, and counts as a failure', () => {
    const bad = run('--bogus');
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('Unknown option --bogus.');
    expect(bad.stderr).toContain('--subset');
    expect(bad.stderr).not.toMatch(/\n\s+at /);
    expect(bad.stdout).toContain('0 passed, 1 failed');
    const client = run('--only', 'foo');
    expect(client.stderr.trim()).toBe('Unknown client "foo" (one of claude-code, codex, gemini-cli).');
  });
});
