/**
 * Watching the page's tasks (e2e/long.spec.ts, e2e/trace-judge.spec.ts): the Long Tasks API and
 * the longest gap between frames (wall time, reported), a DevTools trace of every task with its
 * thread time (judged, scripts/trace-tasks.mjs), and phase marks that name what each task belongs to.
 */
import type { CDPSession, Page } from '@playwright/test';
import { PHASE_MARK } from '../scripts/trace-tasks.mjs';

/** What the trace records: tasks with their thread time and what filled them, and the phase marks. */
const TRACE_CATEGORIES = 'devtools.timeline,disabled-by-default-devtools.timeline,blink.user_timing';

declare global {
  interface Window {
    __longTasks?: Array<{ start: number; duration: number }>;
    __frameGaps?: { max: number; stop: boolean };
    __taskObserver?: PerformanceObserver;
  }
}

/** Start recording long tasks (not buffered: only what happens from now on) and the longest gap between frames. */
export async function startTaskWatch(page: Page): Promise<void> {
  await page.evaluate(() => {
    window.__taskObserver?.disconnect();
    const tasks: Array<{ start: number; duration: number }> = (window.__longTasks = []);
    window.__taskObserver = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) tasks.push({ start: e.startTime, duration: e.duration });
    });
    window.__taskObserver.observe({ type: 'longtask', buffered: false });
    const gaps = (window.__frameGaps = { max: 0, stop: false });
    let last = performance.now();
    const tick = (now: number) => {
      gaps.max = Math.max(gaps.max, now - last);
      last = now;
      if (!gaps.stop) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
}

/** Start a phase: a performance mark the trace records on the page's main thread (and its time, for the Long Tasks API's report). */
export const markPhase = (page: Page, phase: string) => page.evaluate((name) => (performance.mark(name), performance.now()), PHASE_MARK + phase);

/** Record a DevTools trace of the page's renderer (and, with `extra`, more categories). */
export async function startTrace(cdp: CDPSession, extra = ''): Promise<() => Promise<unknown[]>> {
  const events: unknown[] = [];
  const collect = (e: { value: unknown[] }) => void events.push(...e.value);
  cdp.on('Tracing.dataCollected', collect);
  await cdp.send('Tracing.start', { categories: TRACE_CATEGORIES + extra, transferMode: 'ReportEvents' });
  return async () => {
    const done = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
    await cdp.send('Tracing.end');
    await done;
    cdp.off('Tracing.dataCollected', collect);
    return events;
  };
}

export async function readTaskWatch(page: Page): Promise<{ longTasks: Array<{ start: number; duration: number }>; maxFrameGap: number }> {
  return page.evaluate(() => {
    window.__frameGaps!.stop = true;
    window.__taskObserver?.disconnect();
    return { longTasks: [...window.__longTasks!], maxFrameGap: window.__frameGaps!.max };
  });
}

