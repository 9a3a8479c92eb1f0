'use client';

/**
 * The app's side of the local sessions API (lib/sessions/contract.ts): the per-run secret, the
 * probe, the list, a session's bytes (whole, or appended from an offset) and the one write
 * (resume). Same origin: the server that serves the static app answers /api/. Without a secret
 * (the static build, `npm run serve`, a dropped file) nothing here is called and the page works
 * as before.
 */
import type { ResumeRequest, ResumeResult, SessionEntry, SessionList } from '@/lib/sessions/contract';

const TOKEN_KEY = 'contextscope.api-token';

/**
 * The secret `open` put in the URL's fragment (`#token=…`): kept for this tab in sessionStorage
 * and taken out of the address bar (a fragment is never sent to a server, but it would stay in
 * the history and in a copied link).
 */
export function apiToken(): string | null {
  if (typeof window === 'undefined') return null;
  const hash = window.location.hash;
  const m = /(?:^#|&)token=([^&]+)/.exec(hash);
  if (m) {
    const token = decodeURIComponent(m[1]);
    try {
      sessionStorage.setItem(TOKEN_KEY, token);
    } catch {
      /* storage off: the token lives in this page only */
      memoryToken = token;
    }
    const rest = hash.replace(/(?:^#|&)token=[^&]+/, '').replace(/^&/, '');
    window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search + (rest ? `#${rest}` : ''));
    return token;
  }
  try {
    return sessionStorage.getItem(TOKEN_KEY) ?? memoryToken;
  } catch {
    return memoryToken;
  }
}
let memoryToken: string | null = null;

/** An API answer that is not 2xx: the status and the server's `{error}` text. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

async function call(path: string, init: RequestInit & { signal?: AbortSignal } = {}): Promise<Response> {
  const token = apiToken();
  if (!token) throw new ApiError(0, 'No local API: this page was not opened by `contextscope open`.');
  const res = await fetch(path, { ...init, headers: { ...(init.headers ?? {}), Authorization: `Bearer ${token}` }, cache: 'no-store' });
  if (!res.ok) {
    let message = `${res.status} ${res.statusText}`;
    try {
      const body = (await res.json()) as { error?: unknown };
      if (typeof body.error === 'string') message = body.error;
    } catch {
      /* not JSON: the status says it */
    }
    throw new ApiError(res.status, message);
  }
  return res;
}

/** True when the local API answers with this tab's secret; false without a secret. Throws when a secret is held but the API refuses. */
export async function probeApi(signal?: AbortSignal): Promise<boolean> {
  if (!apiToken()) return false;
  const res = await call('/api/health', { signal });
  const body = (await res.json()) as { ok?: boolean };
  return body.ok === true;
}

export async function listSessions(signal?: AbortSignal): Promise<SessionList> {
  const res = await call('/api/sessions', { signal });
  return (await res.json()) as SessionList;
}

/** A session's bytes from `offset` (the appended part), and the file's size on disk now. */
export async function readSession(path: string, offset = 0, signal?: AbortSignal): Promise<{ bytes: Uint8Array; size: number }> {
  const res = await call(`/api/session?path=${encodeURIComponent(path)}&offset=${offset}`, { signal });
  const bytes = new Uint8Array(await res.arrayBuffer());
  const header = Number(res.headers.get('X-Session-Size'));
  return { bytes, size: Number.isFinite(header) && header > 0 ? header : offset + bytes.length };
}

export async function resumeSession(request: ResumeRequest, signal?: AbortSignal): Promise<ResumeResult> {
  const res = await call('/api/resume', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(request), signal });
  return (await res.json()) as ResumeResult;
}

/** The file name at the end of a path (either separator). */
export function baseName(path: string): string {
  return path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
}

export type { SessionEntry };
