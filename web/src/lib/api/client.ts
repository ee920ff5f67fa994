/**
 * How the web app calls Merino's API. The browser attaches the HttpOnly session cookie by itself
 * (same origin), so no script ever holds a token; state-changing calls carry the page's Origin,
 * which the server checks against CSRF. A 401 sends the user to the login page.
 */
import { goto } from '$app/navigation';
import { ApiError, apiErrorFromBody } from './api-error';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

interface RequestOptions {
  method?: Method;
  body?: unknown;
  /** Leave a 401 to the caller instead of going to the login page (the login page itself). */
  allowUnauthenticated?: boolean;
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function loginRedirect(): void {
  const here = `${location.pathname}${location.search}`;
  if (location.pathname !== '/login') void goto(`/login?next=${encodeURIComponent(here)}`);
}

/** Calls the API and answers with the parsed JSON body; throws ApiError on any status outside 2xx. */
export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const init: RequestInit = { method: options.method ?? 'GET', credentials: 'same-origin', headers: { accept: 'application/json' } };
  if (options.body !== undefined) {
    init.headers = { accept: 'application/json', 'content-type': 'application/json' };
    init.body = JSON.stringify(options.body);
  }
  let response: Response;
  try {
    response = await fetch(path, init);
  } catch {
    throw new ApiError({ status: 0, code: 'network_error', message: 'The server could not be reached.' });
  }
  const body = await readBody(response);
  if (response.ok) return body as T;
  if (response.status === 401 && !options.allowUnauthenticated) loginRedirect();
  throw apiErrorFromBody(response.status, body);
}

/**
 * Starts a streamed answer (server-sent events) under the same rules as `api`: the cookie, a JSON
 * body (the browser adds the Origin the CSRF check reads), a 401 to the login page, and any
 * status outside 2xx thrown as ApiError. `signal` aborts it (the Stop button).
 */
export async function apiStream(path: string, body: unknown, signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
  const response = await fetch(path, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { accept: 'text/event-stream', 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  });
  if (!response.ok) {
    if (response.status === 401) loginRedirect();
    throw apiErrorFromBody(response.status, await readBody(response));
  }
  if (!response.body) throw new ApiError({ status: response.status, code: 'unexpected_response', message: 'The answer had no body.' });
  return response.body;
}

/** Downloads an API answer as a file (export), keeping the name the server gives it. */
export async function downloadFromApi(path: string, fallbackName: string): Promise<void> {
  const response = await fetch(path, { credentials: 'same-origin' });
  if (!response.ok) throw apiErrorFromBody(response.status, await readBody(response));
  const disposition = response.headers.get('content-disposition') ?? '';
  const named = /filename="([^"]{1,200})"/.exec(disposition);
  const link = document.createElement('a');
  link.href = URL.createObjectURL(await response.blob());
  link.download = named?.[1] ?? fallbackName;
  document.body.append(link);
  link.click();
  link.remove();
  URL.revokeObjectURL(link.href);
}
