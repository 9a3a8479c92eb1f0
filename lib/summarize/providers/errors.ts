/**
 * Typed provider errors and the one place that words them for the user. Every message is built
 * from the code, the HTTP status and a short, key-redacted server detail: never from the request.
 */
import { PROVIDER_LABELS, type ProviderKind } from './types';

export type ProviderErrorCode =
  /** fetch threw: the server is unreachable, or (in the browser) CORS blocked the call. */
  | 'network'
  /** 401 / 403: missing or wrong key, or no access to the model. */
  | 'auth'
  /** 429: rate limited or out of quota. */
  | 'rate-limit'
  /** 5xx (and Anthropic's 529 overloaded). */
  | 'server'
  /** 400 / 404 / 413 / 422: the request was refused (unknown model, prompt too long). */
  | 'bad-request'
  | 'timeout'
  /** The caller aborted (the user pressed Cancel). */
  | 'aborted'
  /** The reply is not the wire format we asked for. */
  | 'malformed'
  /** The reply parsed but holds no text (filtered, refused, or the model returned nothing). */
  | 'empty'
  /** The configuration itself is unusable (no model, bad base URL). */
  | 'config'
  /** The summary is not smaller than the turns it replaces (it would grow the context): not used. */
  | 'too-long';

export interface ProviderErrorInit {
  provider: ProviderKind;
  status?: number;
  retryAfterSeconds?: number;
  /** Short server-side detail (already redacted). */
  detail?: string;
  /** Origin of the base URL (scheme://host:port), for "could not reach …". */
  origin?: string;
  cause?: unknown;
}

export class ProviderError extends Error {
  readonly code: ProviderErrorCode;
  readonly provider: ProviderKind;
  readonly status?: number;
  readonly retryAfterSeconds?: number;
  readonly detail?: string;

  constructor(code: ProviderErrorCode, init: ProviderErrorInit) {
    super(providerErrorMessage(code, init), { cause: init.cause });
    this.name = 'ProviderError';
    this.code = code;
    this.provider = init.provider;
    this.status = init.status;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.detail = init.detail;
  }

  /** Plain data for the worker boundary and for reports. */
  toJSON(): { name: string; code: ProviderErrorCode; message: string; status?: number; retryAfterSeconds?: number } {
    return { name: this.name, code: this.code, message: this.message, status: this.status, retryAfterSeconds: this.retryAfterSeconds };
  }
}

/** Retryable failures: the same request may succeed later. */
export function isTransient(e: unknown): boolean {
  return e instanceof ProviderError && (e.code === 'rate-limit' || e.code === 'server' || e.code === 'timeout' || e.code === 'network');
}

function seconds(n: number): string {
  return `${n} second${n === 1 ? '' : 's'}`;
}

export function providerErrorMessage(code: ProviderErrorCode, init: ProviderErrorInit): string {
  const who = PROVIDER_LABELS[init.provider];
  const where = init.origin ? ` at ${init.origin}` : '';
  const detail = init.detail ? ` Server said: “${init.detail}”` : '';
  switch (code) {
    case 'network':
      return (
        `Could not reach the ${who} server${where}. Check the base URL and that the server is running. ` +
        `In the browser this also happens when the server does not allow requests from this page (CORS): ` +
        `Ollama needs OLLAMA_ORIGINS set to this page's origin, LM Studio and llama.cpp need CORS enabled, ` +
        `and Anthropic needs the direct-browser-access header (sent automatically).`
      );
    case 'auth':
      return `${who} rejected the API key (HTTP ${init.status ?? 401}). Check the key in Settings and that it may use this model.${detail}`;
    case 'rate-limit':
      return `${who} is rate limiting requests (HTTP 429)${init.retryAfterSeconds !== undefined ? `; retry after ${seconds(init.retryAfterSeconds)}` : ''}. Wait, or check the account's quota.${detail}`;
    case 'server':
      return `${who} had a server error (HTTP ${init.status ?? 500}). Try again later.${detail}`;
    case 'bad-request': {
      const status = init.status ?? 400;
      const hint =
        status === 404
          ? `check the base URL${where ? ` (${init.origin})` : ''} and the model name`
          : status === 413
            ? 'the span is too large for this server: summarize fewer turns at a time'
            : "check the model name and that the span fits the model's context";
      return `${who} refused the request (HTTP ${status}): ${hint}.${detail}`;
    }
    case 'timeout':
      return `${who} did not answer in time. Try a smaller span, a faster model, or a longer timeout.`;
    case 'aborted':
      return 'The summary was cancelled.';
    case 'malformed':
      return `${who} sent a reply that is not in the expected format${where}: is the base URL pointing at the right API?${detail}`;
    case 'empty':
      return `${who} returned an empty summary.${detail}`;
    case 'config':
      return `The ${who} provider is not configured correctly.${detail}`;
    case 'too-long':
      // The detail here is ours (token counts), not the server's.
      return `${who} wrote a summary that is not shorter than the turns it replaces${init.detail ? ` (${init.detail})` : ''}, so it is not used. Try a model that follows length instructions, or summarize more turns at a time.`;
  }
}

/** Remove the key (and any Bearer token) from a string that may come back from a server. */
export function redactSecret(text: string, secret: string | undefined): string {
  let out = text;
  if (secret && secret.length >= 4) out = out.split(secret).join('[key]');
  return out.replace(/\b(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/g, '$1[key]').replace(/\b(sk-|sk-ant-|AIza)[A-Za-z0-9_-]{8,}/g, '$1[key]');
}

/** The key as the UI shows it: enough to recognise which key, never enough to use it. */
export function maskKey(key: string | undefined): string {
  if (!key) return '';
  if (key.length < 12) return '•'.repeat(Math.max(4, key.length));
  return `${key.slice(0, 3)}…${key.slice(-4)}`;
}
