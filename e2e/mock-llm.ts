/**
 * LLM servers for the browser tests: real node:http servers on 127.0.0.1 (random port), started in
 * the Playwright test process, speaking the OpenAI chat completions and Anthropic Messages wire
 * formats with CORS (the app calls them from the page). The wire shapes and the scripted failure
 * modes are the providers' own test server (tests/providers/wire-server.ts), reused so the browser
 * and the unit tests exercise the same replies.
 */
import type { ConsoleMessage, Page } from '@playwright/test';
import { startWireServer, type Behaviour, type Wire, type WireServer } from '../tests/providers/wire-server';

export type { Behaviour, WireServer };

export function startMockLlm(wire: Extract<Wire, 'openai' | 'anthropic'>, script: Behaviour[]): Promise<WireServer> {
  return startWireServer(wire, script, { cors: true });
}

/** The requests that reached the model endpoint (CORS preflights are answered before recording). */
export function completionRequests(server: WireServer) {
  return server.requests.filter((r) => r.method === 'POST');
}

/**
 * Everything the page and its workers print or throw, as text: the key must never be in it.
 * Collected from the first navigation so a leak during Settings counts too.
 */
export function collectConsole(page: Page): string[] {
  const lines: string[] = [];
  const onConsole = (m: ConsoleMessage) => lines.push(`${m.type()}: ${m.text()}`);
  page.on('console', onConsole);
  page.on('pageerror', (e) => lines.push(`pageerror: ${e.message}\n${e.stack ?? ''}`));
  page.on('worker', (w) => w.on('console', onConsole));
  page.on('requestfailed', (r) => lines.push(`requestfailed: ${r.url()} ${r.failure()?.errorText ?? ''}`));
  return lines;
}

/**
 * Every IndexedDB record of the app, as JSON text per `database/table`, except the settings table (the one place the key is meant to
 * be), as JSON text: summaries, versions, transcripts, chunks. Binary values are decoded as UTF-8
 * so a key written into a stored export or original would show.
 */
export async function indexedDbTextOutsideSettings(page: Page): Promise<Record<string, string>> {
  return page.evaluate(async () => {
    const out: Record<string, string> = {};
    const dbs = await indexedDB.databases();
    for (const info of dbs) {
      if (!info.name) continue;
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const req = indexedDB.open(info.name!);
        req.onsuccess = () => resolve(req.result);
        req.onerror = () => reject(req.error);
      });
      const stores = [...db.objectStoreNames].filter((s) => s !== 'settings');
      for (const store of stores) {
        const values = await new Promise<unknown[]>((resolve, reject) => {
          const req = db.transaction(store, 'readonly').objectStore(store).getAll();
          req.onsuccess = () => resolve(req.result);
          req.onerror = () => reject(req.error);
        });
        const decoder = new TextDecoder();
        out[`${info.name}/${store}`] = JSON.stringify(values, (_k, v: unknown) =>
          v instanceof Uint8Array ? decoder.decode(v) : v instanceof ArrayBuffer ? decoder.decode(new Uint8Array(v)) : v instanceof Blob ? `[blob ${v.size}]` : v,
        );
      }
      db.close();
    }
    return out;
  });
}
