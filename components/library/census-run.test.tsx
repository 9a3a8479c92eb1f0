// @vitest-environment happy-dom
/**
 * The census section in a DOM, its bridge a fake that delivers the worker's messages in the orders
 * a browser can deliver them. The worker's answer comes on the worker's own port, its progress
 * reports on the Comlink proxy's MessagePort: Chromium does not keep the order between the two
 * (a worker posting 1,000 reports and then its answer: the answer came before the last report in
 * 29 of 30 runs, and the old once-a-frame redraw ended back at 'running' in 5: scripts/port-order.mjs). A report that
 * comes after the answer must not turn the table back into a running bar (CI: "1,000 / 1,000
 * (100 %)" and no table for 180 s); a cancelled run's late messages must not touch the next run;
 * a census that stops answering ends in an error with Count again, never an endless bar.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Census, CensusProgress } from '@/lib/ledger/census';

interface FakeCall {
  signal: AbortSignal;
  onProgress: (p: CensusProgress) => void;
  resolve: (c: Census) => void;
  reject: (e: unknown) => void;
}
const calls: FakeCall[] = [];
/** The next calls never answer their abort (a bridge that lost them). */
let deaf = false;

vi.mock('@/lib/engine/client', () => ({
  getBridge: () => ({
    libraryCensus: (signal: AbortSignal, onProgress: (p: CensusProgress) => void) =>
      new Promise<Census>((resolve, reject) => {
        calls.push({ signal, onProgress, resolve, reject });
        // As the bridge does: an abort rejects the call at once.
        if (!deaf) signal.addEventListener('abort', () => reject(Object.assign(new Error('The operation was aborted.'), { name: 'AbortError' })), { once: true });
      }),
  }),
}));

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const byTestId = (id: string) => document.querySelector<HTMLElement>(`[data-testid="${id}"]`);
const progress = (done: number, total = 3): CensusProgress => ({ done, total, parsed: 0, path: `/t/${done}.jsonl` });
const census = (files: number): Census => ({ rows: [], files, parsed: 0, skipped: [] });

/** Let the page run: timers, animation frames (happy-dom runs them on timers) and React's updates. */
async function frames(n = 3): Promise<void> {
  for (let i = 0; i < n; i++)
    await act(async () => {
      await new Promise((r) => setTimeout(r, 20));
    });
}

describe('the census section: a run and its messages', () => {
  let root: Root;
  beforeEach(async () => {
    calls.length = 0;
    deaf = false;
    const { CensusSection } = await import('./CensusSection');
    const host = document.createElement('div');
    document.body.appendChild(host);
    root = createRoot(host);
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    await act(async () => {
      root.render(
        <QueryClientProvider client={client}>
          <CensusSection transcripts={3} />
        </QueryClientProvider>,
      );
    });
    await frames(1);
  });
  afterEach(async () => {
    await act(async () => root.unmount());
    document.body.innerHTML = '';
  });

  const run = async () => {
    await act(async () => byTestId('census-run')!.click());
    return calls[calls.length - 1];
  };

  it('a progress report that arrives after the answer leaves the table on screen', async () => {
    const call = await run();
    await act(async () => call.onProgress(progress(2)));
    await frames();
    expect(byTestId('census-progress')?.getAttribute('data-done')).toBe('2');
    // The answer first (the worker's port), with the bar's last frame drawn already…
    await act(async () => call.resolve(census(3)));
    await frames();
    expect(byTestId('census-table')).not.toBeNull();
    // …then the last report, from the proxy's port.
    await act(async () => call.onProgress(progress(3)));
    await frames();
    expect(byTestId('census-progress')).toBeNull();
    expect(byTestId('census-table')?.getAttribute('data-files')).toBe('3');
    expect(byTestId('census-run')?.hasAttribute('disabled')).toBe(false);
  });

  it('Cancel, then a second run: the first run\'s late report and rejection do not touch it', async () => {
    const first = await run();
    await act(async () => first.onProgress(progress(1)));
    await frames();
    await act(async () => byTestId('census-cancel')!.click());
    expect(byTestId('census-progress')?.getAttribute('data-state')).toBe('cancelled');
    const second = await run();
    expect(second).not.toBe(first);
    expect(second.signal.aborted).toBe(false);
    // The cancelled run's worker had posted a report before it was stopped.
    await act(async () => first.onProgress(progress(2)));
    await act(async () => first.reject(new Error('late failure of the cancelled run')));
    await frames();
    expect(byTestId('census-progress')?.getAttribute('data-state')).toBe('running');
    expect(byTestId('census-error')).toBeNull();
    await act(async () => second.onProgress(progress(3)));
    await act(async () => second.resolve(census(3)));
    await act(async () => first.onProgress(progress(3)));
    await frames();
    expect(byTestId('census-table')?.getAttribute('data-files')).toBe('3');
    expect(byTestId('census-progress')).toBeNull();
  });

  it('Cancel ends the bar even when the call never answers its abort', async () => {
    deaf = true;
    const call = await run();
    await act(async () => call.onProgress(progress(1)));
    await frames();
    await act(async () => byTestId('census-cancel')!.click());
    await frames();
    expect(byTestId('census-progress')?.getAttribute('data-state')).toBe('cancelled');
    expect(byTestId('census-run')?.hasAttribute('disabled')).toBe(false);
  });

  it('a census that fails (the bridge gave up on a silent worker) shows why, and can run again', async () => {
    const call = await run();
    await act(async () => call.onProgress(progress(3)));
    await act(async () => call.reject(new Error('The census stopped: the engine worker reported nothing for 60 s.')));
    await frames();
    expect(byTestId('census-error')?.textContent).toContain('The census stopped');
    expect(byTestId('census-progress')).toBeNull();
    expect(byTestId('census-run')?.textContent).toBe('Count again');
    expect(byTestId('census-run')?.hasAttribute('disabled')).toBe(false);
  });
});
