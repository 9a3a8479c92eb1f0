/**
 * The HTTP layer the three providers share: one POST with a timeout and the caller's AbortSignal,
 * HTTP failures mapped to typed ProviderErrors, and an SSE reader for streamed replies.
 */
import { ProviderError, redactSecret } from './errors';
import type { ProviderKind } from './types';

export interface PostOptions {
  provider: ProviderKind;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  timeoutMs: number;
  signal?: AbortSignal;
  /** The secret, only so that it can be scrubbed from anything a server echoes back. */
  secret?: string;
}

export function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/** Join a base URL and a path without doubling or dropping the slash. */
export function joinUrl(base: string, path: string): string {
  return base.replace(/\/+$/, '') + '/' + path.replace(/^\/+/, '');
}

/** Retry-After is seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const n = Number(value.trim());
  if (Number.isFinite(n) && n >= 0) return Math.ceil(n);
  const date = Date.parse(value);
  if (Number.isFinite(date)) return Math.max(0, Math.ceil((date - now) / 1000));
  return undefined;
}

/** The server's own error message from a JSON error body (OpenAI, Anthropic and Gemini shapes), short. */
function serverDetail(text: string, secret: string | undefined): string | undefined {
  let message: string | undefined;
  try {
    const body = JSON.parse(text) as { error?: unknown; message?: unknown };
    const err = body.error;
    if (typeof err === 'string') message = err;
    else if (err && typeof err === 'object' && typeof (err as { message?: unknown }).message === 'string') message = (err as { message: string }).message;
    else if (typeof body.message === 'string') message = body.message;
  } catch {
    message = text.trim() ? text.trim() : undefined;
  }
  if (!message) return undefined;
  const oneLine = message.replace(/\s+/g, ' ').trim();
  return redactSecret(oneLine.length > 200 ? oneLine.slice(0, 200) + '…' : oneLine, secret);
}

/** fetch with the timeout and the caller's signal combined; fetch failures become typed errors. */
export async function post(options: PostOptions): Promise<Response> {
  const { provider, url, signal } = options;
  const origin = originOf(url);
  if (!origin) throw new ProviderError('config', { provider, detail: 'The base URL is not a valid http(s) URL.' });
  if (signal?.aborted) throw new ProviderError('aborted', { provider });
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), options.timeoutMs);
  const onAbort = () => timeout.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...options.headers },
      body: JSON.stringify(options.body),
      signal: timeout.signal,
    });
  } catch (cause) {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
    if (signal?.aborted) throw new ProviderError('aborted', { provider });
    if (timeout.signal.aborted) throw new ProviderError('timeout', { provider, origin });
    // The cause is kept for debugging but never its text in our message (it may quote the URL).
    throw new ProviderError('network', { provider, origin, cause: scrubCause(cause, options.secret) });
  }
  // The body may still be streaming: the timer keeps running until the caller is done (finish()).
  (response as ResponseWithCleanup).__finish = () => {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  };
  (response as ResponseWithCleanup).__timedOut = () => timeout.signal.aborted && !signal?.aborted;
  if (!response.ok) {
    const text = await safeText(response, options, origin);
    finish(response);
    const detail = serverDetail(text, options.secret);
    const status = response.status;
    if (status === 401 || status === 403) throw new ProviderError('auth', { provider, status, detail, origin });
    if (status === 429) throw new ProviderError('rate-limit', { provider, status, detail, origin, retryAfterSeconds: parseRetryAfter(response.headers.get('retry-after')) });
    if (status >= 500) throw new ProviderError('server', { provider, status, detail, origin, retryAfterSeconds: parseRetryAfter(response.headers.get('retry-after')) });
    throw new ProviderError('bad-request', { provider, status, detail, origin });
  }
  return response;
}

interface ResponseWithCleanup extends Response {
  __finish?: () => void;
  __timedOut?: () => boolean;
}

export function finish(response: Response): void {
  (response as ResponseWithCleanup).__finish?.();
}

function scrubCause(cause: unknown, secret: string | undefined): unknown {
  if (cause instanceof Error) {
    const copy = new Error(redactSecret(cause.message, secret));
    copy.name = cause.name;
    return copy;
  }
  return undefined;
}

/** Read the body; a stall or abort while reading is a timeout / abort, not a crash. */
async function safeText(response: Response, options: PostOptions, origin: string | undefined): Promise<string> {
  try {
    return await response.text();
  } catch {
    throw readFailure(response, options, origin);
  }
}

function readFailure(response: Response, options: PostOptions, origin: string | undefined): ProviderError {
  finish(response);
  if (options.signal?.aborted) return new ProviderError('aborted', { provider: options.provider });
  if ((response as ResponseWithCleanup).__timedOut?.()) return new ProviderError('timeout', { provider: options.provider, origin });
  return new ProviderError('network', { provider: options.provider, origin, detail: 'The connection closed while the reply was being read.' });
}

/** POST and parse a JSON reply. */
export async function postJson(options: PostOptions): Promise<unknown> {
  const origin = originOf(options.url);
  const response = await post(options);
  const text = await safeText(response, options, origin);
  finish(response);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ProviderError('malformed', { provider: options.provider, origin, detail: `not JSON: ${redactSecret(text.slice(0, 80), options.secret)}` });
  }
}

/**
 * POST and read a Server-Sent Events reply, yielding each event's parsed JSON `data`. `[DONE]`
 * (OpenAI's end marker) ends the stream. A data line that is not JSON is a malformed reply.
 */
export async function* postSse(options: PostOptions): AsyncGenerator<{ event?: string; data: unknown }> {
  const origin = originOf(options.url);
  const response = await post(options);
  const type = response.headers.get('content-type') ?? '';
  if (!type.includes('text/event-stream')) {
    // Some servers ignore `stream: true` and answer with plain JSON: read it as one event.
    const text = await safeText(response, options, origin);
    finish(response);
    try {
      yield { data: JSON.parse(text) as unknown };
      return;
    } catch {
      throw new ProviderError('malformed', { provider: options.provider, origin, detail: 'expected an event stream' });
    }
  }
  if (!response.body) throw new ProviderError('malformed', { provider: options.provider, origin, detail: 'no response body' });
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let event: string | undefined;
  let data: string[] = [];
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch {
        throw readFailure(response, options, origin);
      }
      if (chunk.done) break;
      buffer += decoder.decode(chunk.value, { stream: true });
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl).replace(/\r$/, '');
        buffer = buffer.slice(nl + 1);
        if (line === '') {
          if (data.length) {
            const payload = data.join('\n');
            data = [];
            const name = event;
            event = undefined;
            if (payload === '[DONE]') return;
            let parsed: unknown;
            try {
              parsed = JSON.parse(payload);
            } catch {
              throw new ProviderError('malformed', { provider: options.provider, origin, detail: `event data is not JSON: ${redactSecret(payload.slice(0, 80), options.secret)}` });
            }
            yield { event: name, data: parsed };
          }
          event = undefined;
        } else if (line.startsWith(':')) continue;
        else if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
    }
    if (data.length) {
      const payload = data.join('\n');
      if (payload !== '[DONE]') {
        try {
          yield { event, data: JSON.parse(payload) as unknown };
        } catch {
          throw new ProviderError('malformed', { provider: options.provider, origin, detail: 'the event stream ended mid-event' });
        }
      }
    }
  } finally {
    finish(response);
    // Early exit (abort, error, consumer stopped): close the connection instead of leaving it open.
    reader.cancel().catch(() => undefined);
  }
}
