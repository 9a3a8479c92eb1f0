/**
 * The app's start: the engine's query worker is started as the app's code loads, before React
 * hydrates the page (lib/engine/client.ts warmEngine, called by app/providers.tsx), so its start-up
 * (fetching and evaluating the engine's chunks: 1–1.5 s on a busy machine) overlaps the page's own
 * instead of following it. The library's first answer then comes from that same worker.
 *
 * How it is told: the page's `Worker` constructor is wrapped before any script runs, and records
 * whether the prerendered drop zone already carries React's fiber (hydrated) when a worker is made.
 */
import { corpusFile, expect, test } from './fixtures';
import { Workbench } from './pages/Workbench';

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

test('drop → open → preview runs on two engine workers: the preview lane takes the import worker once the import is done', async ({ page, library, inspector }) => {
  await page.addInitScript(() => {
    const Native = window.Worker;
    window.__workerStarts = [];
    window.Worker = class extends Native {
      constructor(url: string | URL, options?: WorkerOptions) {
        window.__workerStarts!.push({ zone: false, hydrated: false });
        super(url, options);
      }
    };
  });
  await library.openInInspector(corpusFile('claude-code', 'simonw_sample_session.jsonl'), inspector);
  const wb = new Workbench(page);
  await wb.autoHalf();
  const { before, after } = await wb.previewTokens();
  expect(after, 'the preview answered and saves something').toBeLessThan(before);
  const bridge = await page.evaluate(() => ({ started: window.__contextscope!.bridge.startedWorkers, handed: window.__contextscope!.bridge.handedOverWorkers }));
  expect(bridge, 'query + import workers; the preview lane took the idle import worker').toEqual({ started: 2, handed: 1 });
  expect(await page.evaluate(() => window.__workerStarts!.length), 'Workers the page constructed').toBe(2);
});

test('the app honours "reduce motion": no pulse or transition runs; without it the skeletons pulse', async ({ page, library }) => {
  await library.goto();
  // A loading skeleton and a transitioning control as the app draws them (the classes it uses).
  const styleOf = () =>
    page.evaluate(() => {
      const pulse = document.createElement('div');
      pulse.className = 'h-24 animate-pulse rounded-lg';
      const fade = document.createElement('button');
      fade.className = 'transition-colors';
      document.body.append(pulse, fade);
      const out = { animation: getComputedStyle(pulse).animationName, transition: getComputedStyle(fade).transitionDuration };
      pulse.remove();
      fade.remove();
      return out;
    });
  await page.emulateMedia({ reducedMotion: 'reduce' });
  expect(await styleOf()).toEqual({ animation: 'none', transition: '0s' });
  await page.emulateMedia({ reducedMotion: 'no-preference' });
  const moving = await styleOf();
  expect(moving.animation).toBe('pulse');
  expect(moving.transition).not.toBe('0s');
});

test('the suite runs with reduced motion (playwright.config.ts): nothing pulses while a test waits', async ({ page, library }) => {
  await library.goto();
  expect(await page.evaluate(() => matchMedia('(prefers-reduced-motion: reduce)').matches)).toBe(true);
});
