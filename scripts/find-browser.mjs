/**
 * The browser for the end-to-end tests, found or installed by the test command itself (a fresh
 * machine runs `npm install && npm test`; Playwright cannot download its own browsers here,
 * TOOLCHAIN.md #8). In order: $CHROMIUM_PATH, Debian/Ubuntu's chromium, Google Chrome, a browser
 * `npx playwright install chromium` left in its cache; else, as root with apt-get, Debian's
 * `chromium` is installed; else one line names the missing step.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const SYSTEM_BROWSERS = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];

export const MISSING_BROWSER =
  'No Chromium for the end-to-end tests: install it (sudo apt-get install chromium), or set CHROMIUM_PATH=/path/to/chrome, or run npx playwright install chromium; then npm test again.';

function isExecutable(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Browsers `npx playwright install chromium` downloaded (~/.cache/ms-playwright/chromium-N/chrome-linux*\/chrome). */
function playwrightCached(home) {
  const root = process.env.PLAYWRIGHT_BROWSERS_PATH || path.join(home, '.cache', 'ms-playwright');
  let dirs = [];
  try {
    dirs = fs.readdirSync(root).filter((d) => /^chromium-\d+$/.test(d)).sort().reverse();
  } catch {
    return [];
  }
  return dirs.flatMap((d) => ['chrome-linux64', 'chrome-linux'].map((sub) => path.join(root, d, sub, 'chrome')));
}

function runApt(args) {
  const r = spawnSync('apt-get', args, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  return { ok: r.status === 0, output: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

/**
 * { path, how } when a browser is there (or was installed), else { error } with one line.
 * Everything it touches is injectable, so each path is tested without a browser or root.
 */
export function findOrInstallBrowser({
  env = process.env,
  isRoot = typeof process.getuid === 'function' && process.getuid() === 0,
  exists = isExecutable,
  hasAptGet = () => exists('/usr/bin/apt-get'),
  apt = runApt,
  home = os.homedir(),
  log = (line) => console.log(line),
} = {}) {
  if (env.CHROMIUM_PATH) {
    if (exists(env.CHROMIUM_PATH)) return { path: env.CHROMIUM_PATH, how: 'CHROMIUM_PATH' };
    return { error: `CHROMIUM_PATH=${env.CHROMIUM_PATH} is not an executable file: point it at a Chromium or Chrome binary, or unset it.` };
  }
  for (const p of [...SYSTEM_BROWSERS, ...playwrightCached(home)]) if (exists(p)) return { path: p, how: 'found' };
  if (isRoot && hasAptGet()) {
    log("No Chromium found: installing Debian's chromium with apt-get (about 30 s)…");
    const steps = [['update', '-qq'], ['install', '-y', '-qq', 'chromium']];
    for (const args of steps) {
      const r = apt(args);
      if (!r.ok) return { error: `apt-get ${args.join(' ')} failed (${r.output.trim().split('\n').pop() ?? 'no output'}): ${MISSING_BROWSER}` };
    }
    if (exists('/usr/bin/chromium')) return { path: '/usr/bin/chromium', how: 'installed' };
    return { error: `apt-get installed chromium but /usr/bin/chromium is not there: ${MISSING_BROWSER}` };
  }
  return { error: MISSING_BROWSER };
}
