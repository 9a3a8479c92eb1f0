/**
 * The summary of `npm test` names what failed (CI keeps only the tail of the log): real Vitest and
 * Playwright JSON reports of a run with a failing test, a passing one and a file that does not load.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { failedSpecs, failedUnitTests, flakySpecs } from './test-summary.mjs';

const root = path.resolve(__dirname, '..');
const bin = (name: string) => path.join(root, 'node_modules', '.bin', name);

function scratch(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(root, '.scratch-summary-'));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

describe('test summary', () => {
  it("names each failed Vitest test with its file and the message's first line, and a file that does not load", () => {
    const dir = scratch({
      'vitest.config.mjs': "export default { test: { include: ['*.t.ts'] } };",
      'good.t.ts': "import { it, expect } from 'vitest'; it('passes', () => expect(1).toBe(1));",
      'bad.t.ts': "import { describe, it, expect } from 'vitest'; describe('growth', () => { it('is linear', () => expect(17, 'ratio').toBeLessThan(16)); });",
      'broken.t.ts': "import { it } from 'vitest'; throw new Error('cannot load this'); it('never', () => {});",
    });
    try {
      spawnSync(bin('vitest'), ['run', '--root', dir, '--reporter=json', `--outputFile.json=${path.join(dir, 'out.json')}`], { cwd: dir, encoding: 'utf8' });
      const lines = failedUnitTests(JSON.parse(fs.readFileSync(path.join(dir, 'out.json'), 'utf8')), dir);
      expect(lines).toHaveLength(2);
      expect(lines).toContainEqual(expect.stringMatching(/^bad\.t\.ts › growth is linear: .*ratio.*expected 17 to be less than 16/));
      expect(lines).toContainEqual(expect.stringMatching(/^broken\.t\.ts: did not load: .*cannot load this/));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('names each unexpected Playwright spec with its file and message, and each that passed on a retry (no browser needed)', () => {
    const dir = scratch({
      'pw.config.mjs': "export default { testDir: '.', testMatch: '*.pw.ts', retries: 1 };",
      'a.pw.ts':
        "import { test, expect } from '@playwright/test'; test('passes', () => expect(1).toBe(1)); test.describe('inspector', () => { test('shows the total', () => expect('12k', 'total').toBe('13k')); });" +
        " test('passes on its retry', () => expect(test.info().retry, 'first run').toBe(1));",
    });
    try {
      const out = path.join(dir, 'out.json');
      spawnSync(bin('playwright'), ['test', '--config', path.join(dir, 'pw.config.mjs'), '--reporter=json'], { cwd: dir, encoding: 'utf8', env: { ...process.env, PLAYWRIGHT_JSON_OUTPUT_NAME: out } });
      const report = JSON.parse(fs.readFileSync(out, 'utf8'));
      expect(failedSpecs(report.suites)).toEqual([expect.stringMatching(/^a\.pw\.ts › shows the total: .*total/)]);
      expect(flakySpecs(report.suites)).toEqual(['a.pw.ts › passes on its retry']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
