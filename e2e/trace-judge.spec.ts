import { judgeTrace } from '../scripts/trace-tasks.mjs';
import { test, expect } from './fixtures';
import { markPhase, readTaskWatch, startTaskWatch, startTrace } from './task-watch';

/** As in e2e/long.spec.ts: a task of 50 ms of the main thread's CPU is a long task. */
const LONG_TASK_MS = 50;

/**
 * The judge can fail: a click whose handler does a fixed amount of work (tens of millions of steps:
 * over 100 ms of CPU on any machine this runs on) is a long task however quiet the machine; a click
 * whose handler only waits (a synchronous request answered after 200 ms: a long task by wall time,
 * the Long Tasks API reports it) is not; neither is a short handler. A page of its own, with no app.
 */
test('the trace judge fails a task that works 50 ms and passes one that only waits', async ({ page }) => {
  await page.route('http://cs-trace.invalid/**', async (route) => {
    if (route.request().url().endsWith('/slow')) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      return route.fulfill({ body: 'ok' });
    }
    return route.fulfill({
      contentType: 'text/html',
      body: `<button id=work>work</button><button id=light>light</button><button id=wait>wait</button><script>
        const spin = (n) => { let x = 0; for (let i = 0; i < n; i++) x = (x * 31 + i) | 0; return x; };
        document.getElementById('work').onclick = () => { window.out = spin(6e7); };
        document.getElementById('light').onclick = () => { window.out = spin(2e5); };
        document.getElementById('wait').onclick = () => { const r = new XMLHttpRequest(); r.open('GET', '/slow', false); r.send(); window.out = r.responseText; };
      </script>`,
    });
  });
  await page.goto('http://cs-trace.invalid/');
  const cdp = await page.context().newCDPSession(page);
  const stopTrace = await startTrace(cdp);
  await startTaskWatch(page);
  // A first click warms up the handlers (compiling them is not what is judged).
  await markPhase(page, 'warm');
  await page.click('#light');
  await page.waitForTimeout(300);
  for (const phase of ['light', 'wait', 'work']) {
    await markPhase(page, phase);
    await page.click(`#${phase}`);
    await page.waitForTimeout(300);
  }
  await markPhase(page, 'end');
  const watched = await readTaskWatch(page);
  const judged = judgeTrace(await stopTrace(), { default: LONG_TASK_MS, before: Infinity, warm: Infinity });
  const worst = (phase: string) => judged.tasks.filter((t) => t.phase === phase).sort((a, b) => b.wallMs - a.wallMs)[0];
  console.log(`[long] judge: ${['light', 'wait', 'work'].map((p) => `${p} ${Math.round(worst(p).cpuMs)} ms CPU (${Math.round(worst(p).wallMs)} ms wall)`).join(', ')}; Long Tasks API entries: ${watched.longTasks.map((t) => Math.round(t.duration)).join(', ')}`);
  expect(judged.long.map((t) => t.phase)).toEqual(['work']);
  expect(worst('wait').wallMs, 'the waiting handler is a long task by wall time').toBeGreaterThanOrEqual(150);
  expect(watched.longTasks.length, 'the Long Tasks API reports the wait as well as the work').toBeGreaterThanOrEqual(2);
});
