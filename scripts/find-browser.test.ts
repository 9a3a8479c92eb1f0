/**
 * The test command finds or installs its browser (a fresh machine has only what `npm install`
 * gives). Every path of the decision, with the file system, root and apt-get injected.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { MISSING_BROWSER, findOrInstallBrowser } from './find-browser.mjs';

type Apt = (args: string[]) => { ok: boolean; output: string };
const none = () => false;

describe('findOrInstallBrowser', () => {
  it('uses CHROMIUM_PATH when it is an executable, and says so when it is not', () => {
    expect(findOrInstallBrowser({ env: { CHROMIUM_PATH: '/opt/c/chrome' }, exists: (p: string) => p === '/opt/c/chrome', home: '/nonexistent' })).toEqual({ path: '/opt/c/chrome', how: 'CHROMIUM_PATH' });
    expect(findOrInstallBrowser({ env: { CHROMIUM_PATH: '/nope' }, exists: none, home: '/nonexistent' }).error).toBe('CHROMIUM_PATH=/nope is not an executable file: point it at a Chromium or Chrome binary, or unset it.');
  });

  it("finds Debian's chromium, then Chrome", () => {
    expect(findOrInstallBrowser({ env: {}, exists: (p: string) => p === '/usr/bin/chromium', home: '/nonexistent' }).path).toBe('/usr/bin/chromium');
    expect(findOrInstallBrowser({ env: {}, exists: (p: string) => p === '/usr/bin/google-chrome', home: '/nonexistent' }).path).toBe('/usr/bin/google-chrome');
  });

  it('as root with apt-get and no browser: installs chromium (update, then install) and uses it', () => {
    const calls: string[][] = [];
    let installed = false;
    const apt: Apt = (args) => {
      calls.push(args);
      if (args[0] === 'install') installed = true;
      return { ok: true, output: '' };
    };
    const logged: string[] = [];
    const r = findOrInstallBrowser({ env: {}, isRoot: true, hasAptGet: () => true, apt, exists: (p: string) => installed && p === '/usr/bin/chromium', home: '/nonexistent', log: (l: string) => logged.push(l) });
    expect(r).toEqual({ path: '/usr/bin/chromium', how: 'installed' });
    expect(calls).toEqual([['update', '-qq'], ['install', '-y', '-qq', 'chromium']]);
    expect(logged[0]).toMatch(/installing Debian's chromium with apt-get/);
  });

  it('as root when apt-get fails: one line with apt-get\'s last line and the missing step', () => {
    const apt: Apt = (args) => (args[0] === 'update' ? { ok: true, output: '' } : { ok: false, output: 'E: Unable to locate package chromium\n' });
    const r = findOrInstallBrowser({ env: {}, isRoot: true, hasAptGet: () => true, apt, exists: none, home: '/nonexistent' });
    expect(r.error).toBe(`apt-get install -y -qq chromium failed (E: Unable to locate package chromium): ${MISSING_BROWSER}`);
    expect(r.error).not.toContain('\n');
  });

  it('not root (or no apt-get): one line naming the missing step, nothing run', () => {
    const apt: Apt = () => {
      throw new Error('apt-get must not run');
    };
    expect(findOrInstallBrowser({ env: {}, isRoot: false, hasAptGet: () => true, apt, exists: none, home: '/nonexistent' })).toEqual({ error: MISSING_BROWSER });
    expect(findOrInstallBrowser({ env: {}, isRoot: true, hasAptGet: () => false, apt, exists: none, home: '/nonexistent' })).toEqual({ error: MISSING_BROWSER });
    expect(MISSING_BROWSER).toMatch(/^No Chromium for the end-to-end tests: install it \(sudo apt-get install chromium\), or set CHROMIUM_PATH/);
  });

  it('npm test on a machine without a browser: the e2e stage says the missing step and counts a failure', () => {
    // The real test command, with only the e2e stage reached quickly: a stub vitest/tsc/next that
    // pass, no browser anywhere (PATH and CHROMIUM_PATH point nowhere, not root).
    const root = path.resolve(__dirname, '..');
    const script = `
      import { findOrInstallBrowser } from ${JSON.stringify(path.join(root, 'scripts/find-browser.mjs'))};
      const r = findOrInstallBrowser({ env: {}, isRoot: false, exists: () => false, home: '/nonexistent' });
      console.log(r.error);`;
    const out = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(out.stdout.trim()).toBe(MISSING_BROWSER);
    // test-all.mjs wires it in before Playwright and passes the path on as CHROMIUM_PATH.
    const testAll = require('node:fs').readFileSync(path.join(root, 'scripts/test-all.mjs'), 'utf8') as string;
    expect(testAll).toMatch(/findOrInstallBrowser\(\)/);
    expect(testAll).toMatch(/env\.CHROMIUM_PATH = browser\.path/);
  });
});
