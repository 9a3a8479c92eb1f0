/**
 * Opening a 100k-turn transcript in the inspector, in headless Chromium: the time from the open
 * click to the first interactive timeline (canvas and first messages shown), measured by the
 * long-task spec (e2e/long.spec.ts, which also checks that no task runs over 50 ms while scrolling,
 * zooming, panning and selecting). It needs the built app (`out/`, from `npx next build`) and a
 * browser (Debian's chromium); without either it says so and measures nothing.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface OpenFigures {
  /** ms from the open click to the timeline and first messages; NaN when not measured. */
  openMs: number;
  /** ms from the open click to a timeline drawing every turn (the "interactive timeline"). */
  timelineMs: number;
  /** ms until no long task for 2 s, and the longest task meanwhile. */
  settleMs: number;
  maxTaskMs: number;
  /** The spec passed: no task of 50 ms or more while scrolling, zooming, panning, selecting. */
  specPassed?: boolean;
  note?: string;
}

export async function runOpenBench(): Promise<OpenFigures> {
  console.log('\n## Opening a 100k-turn transcript in Chromium (e2e/long.spec.ts)');
  if (!fs.existsSync(path.join(process.cwd(), 'out', 'index.html'))) {
    const note = 'not measured: the app is not built (run `npx next build` first)';
    console.log(`  ${note}`);
    return { openMs: NaN, timelineMs: NaN, settleMs: NaN, maxTaskMs: NaN, note };
  }
  const r = spawnSync(process.execPath, [path.join('node_modules', '@playwright', 'test', 'cli.js'), 'test', '--project', 'long-tasks', '--no-deps', '--reporter', 'list'], { encoding: 'utf8', timeout: 10 * 60_000, maxBuffer: 64 * 1024 * 1024 });
  const out = `${r.stdout ?? ''}\n${r.stderr ?? ''}`;
  const m = /open-ms: (\d+) ms to timeline and first messages \((\d+) ms to an interactive timeline\), then (\d+) ms until no long task for 2 s; long tasks meanwhile: \d+, max (-?\d+) ms/.exec(out);
  if (!m) {
    const note = /browser|chromium/i.test(out) && r.status !== 0 ? 'not measured: no browser (install Debian chromium)' : `not measured: the long-task spec did not report (exit ${r.status})`;
    console.log(`  ${note}`);
    return { openMs: NaN, timelineMs: NaN, settleMs: NaN, maxTaskMs: NaN, note };
  }
  const figures = { openMs: Number(m[1]), timelineMs: Number(m[2]), settleMs: Number(m[3]), maxTaskMs: Math.max(0, Number(m[4])), specPassed: r.status === 0 };
  console.log(`  ${figures.timelineMs} ms to an interactive timeline, ${figures.openMs} ms to it and the first messages (wall clock), then ${figures.settleMs} ms until quiet; the spec ${r.status === 0 ? 'passed' : 'FAILED'} (no task over 50 ms while interacting)`);
  return figures;
}
