/**
 * `npm run bench -- app` (issue 31): its options, its judgement of the targets, and the
 * engine column's work on a real generated session. (The browser part runs in the bench itself.)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { APP_ACTIONS, appOptions, engineInChild, engineTimes, overlayEngineCold, formatPreviewSplit, judgeApp, type AppCase, type AppFigure, type AppFigures } from '../bench/app';
import { makeClaudeCodeSession } from '../bench/generate';

const f = (ms: number, taskMs = 20): AppFigure => ({ ms, taskMs, engineMs: ms / 4 });
const at = (size: number, ms: Partial<Record<(typeof APP_ACTIONS)[number], number>>, noteFirst = true): AppCase => ({
  name: `cc ${size}`,
  size,
  turns: size,
  mb: size / 300,
  figures: Object.fromEntries(APP_ACTIONS.map((a) => [a, f(ms[a] ?? 100)])),
  noteFirst,
  errors: [],
});
const row = (fig: AppFigures, what: string) => judgeApp(fig).find((r) => r.what.startsWith(what))!;

describe('bench app', () => {
  it("splits the preview's wait by the page's marks: to the request, the worker's projection and summary, the rest of the hop, the commit", () => {
    expect(formatPreviewSplit({ up: 1000, requests: 1, request: 1040, answer: 1700, shown: 1790, worker: { projectMs: 420.4, summarizeMs: 150 } })).toBe(
      "to the request 40 ms (1 sent); request → answer 660 ms, of it the worker's projection 420 ms + summary 150 ms, the rest (queue, clone, hops) 90 ms; answer → commit 90 ms",
    );
    // A mark not seen (no answer yet, an old build without marks): a dash, not NaN.
    expect(formatPreviewSplit({ up: 1000, requests: 0, request: NaN, answer: NaN, shown: NaN, worker: null })).toBe("to the request — (0 sent); request → answer —, of it the worker's projection — + summary —, the rest (queue, clone, hops) —; answer → commit —");
  });

  it('options: sizes (with k), the cap in seconds, corpus on by default', () => {
    expect(appOptions(['app'])).toEqual({ sizes: [1000, 3000, 10_000], timeoutMs: 60_000, corpus: true });
    expect(appOptions(['app', '--app-sizes', '1000,3k', '--app-timeout', '20', '--no-app-corpus'])).toEqual({ sizes: [1000, 3000], timeoutMs: 20_000, corpus: false });
    expect(appOptions(['app', '--app-sizes=2000'])).toMatchObject({ sizes: [2000] });
  });

  it("judges each of the issue's targets, MET or NOT MET, and says what it did not measure", () => {
    const fig: AppFigures = { timeoutMs: 60_000, cases: [at(1000, { preview: 200, replay: 1000 }), at(3000, { preview: 900, overlay: 3100, replay: 2000, export: 2500 }), at(10_000, { preview: Infinity, replay: 20_000 })] };
    expect(row(fig, 'mouse-up → preview settled, 3k')).toMatchObject({ now: '900 ms', ok: true });
    expect(row(fig, 'mouse-up → preview settled, 10k')).toMatchObject({ now: '> 60 s', ok: false });
    // No 2k run: judged at 3k, and said so.
    expect(row(fig, 'Policies overlay')).toMatchObject({ what: 'Policies overlay, 3k turns (target at 2k)', ok: false });
    expect(row(fig, 'Replay page')).toMatchObject({ ok: true });
    expect(row(fig, 'export of 3k')).toMatchObject({ now: '2.5 s, note first', ok: true });
    expect(row(fig, 'growth 1k → 10k, replay')).toMatchObject({ now: '20.0×', ok: false });
    expect(row(fig, 'growth 1k → 10k, open')).toMatchObject({ now: '1.0×', ok: true });
    expect(row(fig, 'growth 1k → 10k, preview')).toMatchObject({ now: '> 300×', ok: false });
    expect(row(fig, 'longest main-thread task')).toMatchObject({ ok: true });
    // The note after Download was enabled fails the export's target however fast.
    const late: AppFigures = { timeoutMs: 60_000, cases: [at(3000, { export: 500 }, false)] };
    expect(row(late, 'export of 3k')).toMatchObject({ now: '500 ms, note NOT first', ok: false });
    // A long task anywhere fails it; nothing run: not measured.
    late.cases[0].figures.apply = f(100, 80);
    expect(row(late, 'longest main-thread task')).toMatchObject({ ok: false });
    expect(row({ timeoutMs: 60_000, cases: [] }, 'Replay page').ok).toBeUndefined();
  });

  it('the engine column: every action, in order, on a generated session and its selection', () => {
    const got: Array<[string, number]> = [];
    engineTimes('cc-100.jsonl', new TextEncoder().encode(makeClaudeCodeSession(100)), { selection: [30, 60], axis: 'turns', budget: 20_000 }, (a, ms) => got.push([a, ms]));
    expect(got.map(([a]) => a)).toEqual(['open', 'preview', 'apply', 'export', 'replay', 'overlay']);
    for (const [, ms] of got) expect(ms).toBeGreaterThanOrEqual(0);
    // Without a selection (the preview did not settle) only the import and the replay are timed.
    const some: string[] = [];
    engineTimes('cc-50.jsonl', new TextEncoder().encode(makeClaudeCodeSession(50)), { axis: 'turns' }, (a) => some.push(a));
    expect(some).toEqual(['open', 'replay', 'overlay']);
  });

  it("the overlay's engine figure is cold, in a process of its own: only the overlay, after the import and the preview's warm-up", async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-app-')), 'cc-60.jsonl');
    fs.writeFileSync(file, makeClaudeCodeSession(60));
    try {
      const cold = await engineInChild(file, { selection: [20, 40], axis: 'turns', budget: 5_000 }, 60_000, true);
      expect(Object.keys(cold)).toEqual(['overlay']);
      expect(cold.overlay).toBeGreaterThan(0);
    } finally {
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    }
    expect(overlayEngineCold('cc-40.jsonl', new TextEncoder().encode(makeClaudeCodeSession(40)))).toBeGreaterThanOrEqual(0);
  }, 120_000);

  it('the engine column is capped: a child process killed at the cap, that action "> T", none after it', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-app-')), 'cc-60.jsonl');
    fs.writeFileSync(file, makeClaudeCodeSession(60));
    try {
      const full = await engineInChild(file, { selection: [20, 40], axis: 'turns', budget: 5_000 }, 60_000);
      expect(Object.keys(full)).toEqual(['open', 'preview', 'apply', 'export', 'replay', 'overlay']);
      expect(Object.values(full).every((ms) => Number.isFinite(ms))).toBe(true);
      // The child stalls after opening: the cap kills it, the next action reads "> T", none after it.
      process.env.CONTEXTSCOPE_BENCH_STALL_AFTER = 'open';
      let cut: Awaited<ReturnType<typeof engineInChild>>;
      try {
        cut = await engineInChild(file, { selection: [20, 40], axis: 'turns', budget: 5_000 }, 3_000);
      } finally {
        delete process.env.CONTEXTSCOPE_BENCH_STALL_AFTER;
      }
      const values = APP_ACTIONS.map((a) => cut[a]);
      expect(Number.isFinite(cut.open)).toBe(true);
      const at = values.indexOf(Infinity);
      expect(at).toBe(APP_ACTIONS.indexOf('open') + 1);
      expect(values.slice(at + 1).every((v) => v === undefined)).toBe(true);
    } finally {
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    }
  }, 180_000); // two tsx start-ups of the engine: seconds each on a busy machine
});
