// @vitest-environment happy-dom
/**
 * The Settings page in a DOM: the stored key is only ever shown masked, "Test connection" reaches a
 * real HTTP server speaking the Anthropic wire format (with CORS, as a browser needs) and words its
 * failures (a server without CORS is blocked by the DOM's fetch, as in a browser), validation blocks a bad base URL, and a replaced key is saved (to the settings store
 * the worker keeps in IndexedDB) and masked again.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, type ReactNode } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SUMMARY_SETTINGS_KEY, DEFAULT_SUMMARY_SETTINGS } from '@/lib/summarize/settings';
import { startWireServer, type WireServer } from '../../tests/providers/wire-server';

const KEY = 'sk-ant-api03-UI-SECRET-0123456789abcdef';
const NEW_KEY = 'sk-ant-api03-REPLACED-fedcba9876543210';

const stored = new Map<string, unknown>();
vi.mock('@/lib/engine/client', () => ({
  getBridge: () => ({
    getSetting: async (_signal: AbortSignal | undefined, key: string) => structuredClone(stored.get(key) ?? null),
    putSetting: async (_signal: AbortSignal | undefined, key: string, value: unknown) => void stored.set(key, structuredClone(value)),
  }),
}));
vi.mock('next/link', () => ({ default: ({ href, children, ...rest }: { href: string; children: ReactNode }) => <a href={href} {...rest}>{children}</a> }));

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

async function until<T>(probe: () => T | null | undefined | false, what: string, ms = 4000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() - started > ms) throw new Error(`timed out waiting for ${what}`);
    await act(async () => {
      await new Promise((r) => setTimeout(r, 20));
    });
  }
}

function typeInto(el: HTMLInputElement | HTMLTextAreaElement, value: string) {
  const setter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(el), 'value')!.set!;
  setter.call(el, value);
  el.dispatchEvent(new Event('input', { bubbles: true }));
}

const byTestId = <T extends Element = HTMLElement>(id: string) => document.querySelector<T & Element>(`[data-testid="${id}"]`) as unknown as T | null;
const button = (text: string) => [...document.querySelectorAll('button')].find((b) => b.textContent?.trim() === text) as HTMLButtonElement | undefined;

describe('Settings page', () => {
  let server: WireServer;
  let root: Root;

  beforeAll(async () => {
    server = await startWireServer('anthropic', [{ kind: 'ok', text: 'OK' }], { cors: true });
    stored.set(SUMMARY_SETTINGS_KEY, { ...DEFAULT_SUMMARY_SETTINGS, provider: 'anthropic', baseUrl: server.baseUrl, model: 'claude-ui', apiKey: KEY });
    const { SettingsPage } = await import('./SettingsPage');
    const host = document.createElement('div');
    document.body.appendChild(host);
    root = createRoot(host);
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    await act(async () => {
      root.render(
        <QueryClientProvider client={client}>
          <SettingsPage />
        </QueryClientProvider>,
      );
    });
  });
  afterAll(async () => {
    await act(async () => root.unmount());
    await server.close();
  });

  it('shows the stored key masked only', async () => {
    const masked = await until(() => byTestId('masked-key'), 'the masked key');
    expect(masked.textContent).toBe('sk-…cdef');
    expect(document.body.innerHTML).not.toContain(KEY);
    for (const input of document.querySelectorAll('input')) expect(input.value).not.toContain(KEY);
    expect(byTestId('settings-summary')!.textContent).toContain('anthropic:claude-ui');
  });

  it('"Test connection" calls the server from the page and reports success, then a bad key in words', async () => {
    await act(async () => byTestId<HTMLButtonElement>('test-connection')!.click());
    const ok = await until(() => byTestId('connection-result'), 'a connection result');
    expect(ok.textContent).toMatch(/^Connected: claude-ui answered in \d+ ms/);
    const req = server.requests.find((r) => r.method === 'POST')!;
    expect(req.headers['x-api-key']).toBe(KEY);
    expect(req.headers['anthropic-dangerous-direct-browser-access']).toBe('true');

    server.script = [{ kind: 'status', status: 401, body: { error: { type: 'authentication_error', message: 'invalid x-api-key' } } }];
    await act(async () => byTestId<HTMLButtonElement>('test-connection')!.click());
    await until(() => byTestId('connection-result')?.textContent?.includes('rejected the API key'), 'the auth error');
    expect(document.body.innerHTML).not.toContain(KEY);
  });

  it('blocks saving a bad base URL with a message next to the field', async () => {
    const url = document.querySelector<HTMLInputElement>('#summary-base-url')!;
    await act(async () => typeInto(url, 'localhost:11434'));
    await until(() => document.querySelector('#summary-base-url-problem'), 'the base URL problem');
    expect(byTestId<HTMLButtonElement>('save-settings')!.disabled).toBe(true);
    await act(async () => typeInto(url, server.baseUrl));
    await until(() => !document.querySelector('#summary-base-url-problem'), 'the problem to clear');
  });

  it('a server that does not allow this page (no CORS) gets the unreachable/CORS message', async () => {
    const noCors = await startWireServer('anthropic', [{ kind: 'ok', text: 'OK' }], { cors: false });
    try {
      const url = document.querySelector<HTMLInputElement>('#summary-base-url')!;
      await act(async () => typeInto(url, noCors.baseUrl));
      await act(async () => byTestId<HTMLButtonElement>('test-connection')!.click());
      const result = await until(() => byTestId('connection-result'), 'the network error');
      expect(result.textContent).toContain(`Could not reach the Anthropic server at ${noCors.baseUrl}`);
      expect(result.textContent).toMatch(/CORS/);
      expect(result.textContent).not.toContain(KEY);
      await act(async () => typeInto(url, server.baseUrl));
    } finally {
      await noCors.close();
    }
  });

  it('replaces the key: saved to the settings store, masked again on the page', async () => {
    await act(async () => button('Replace')!.click());
    const input = await until(() => document.querySelector<HTMLInputElement>('#summary-key'), 'the key input');
    expect(input.type).toBe('password');
    expect(input.value).toBe('');
    await act(async () => typeInto(input, NEW_KEY));
    await act(async () => byTestId<HTMLButtonElement>('save-settings')!.click());
    await until(() => (stored.get(SUMMARY_SETTINGS_KEY) as { apiKey?: string }).apiKey === NEW_KEY, 'the saved key');
    const masked = await until(() => byTestId('masked-key'), 'the key masked again');
    expect(masked.textContent).toBe('sk-…3210');
    expect(document.body.innerHTML).not.toContain(NEW_KEY);
    for (const el of document.querySelectorAll('input')) expect(el.value).not.toContain(NEW_KEY);
  });
});
