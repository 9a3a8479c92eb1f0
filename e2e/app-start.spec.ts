/**
 * The app's start: the engine's query worker is started as the app's code loads, before React
 * hydrates the page (lib/engine/client.ts warmEngine, called by app/providers.tsx), so its start-up
 * (fetching and evaluating the engine's chunks: 1–1.5 s on a busy machine) overlaps the page's own
 * instead of following it. The library's first answer then comes from that same worker.
 *
 * How it is told: the page's `Worker` constructor is wrapped before any script runs, and records
 * whether the prerendered drop zone already carries React's fiber (hydrated) when a worker is made.
 */
import { expect, test } from './fixtures';

declare global {
  interface Window {
    __workerStarts?: { zone: boolean; hydrated: boolean }[];
  }
}

test('the engine worker starts before React hydrates the library; its first answer comes from that worker', async ({ page, library }) => {
  await page.addInitScript(() => {
    const Native = window.Worker;
    window.__workerStarts = [];
    window.Worker = class extends Native {
      constructor(url: string | URL, options?: WorkerOptions) {
        const zone = document.querySelector('[data-testid=drop-zone]');
        const hydrated = !!zone && Object.keys(zone).some((k) => k.startsWith('__reactFiber'));
        window.__workerStarts!.push({ zone: !!zone, hydrated });
        super(url, options);
      }
    };
  });
  await library.goto();
  const starts = await page.evaluate(() => window.__workerStarts!);
  expect(starts.length, 'a worker was started').toBeGreaterThanOrEqual(1);
  expect(starts[0], 'the first worker starts when the prerendered page is there, before hydration').toEqual({ zone: true, hydrated: false });
  // The library's queries went to that worker: no second query worker was needed.
  expect(await page.evaluate(() => window.__contextscope!.bridge.startedWorkers)).toBe(1);
});
