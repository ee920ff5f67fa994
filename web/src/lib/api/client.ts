/**
 * How the web app calls Merino's API: one typed client (openapi-fetch) over the types generated
 * from the server's OpenAPI document (generated/openapi.ts, `npm run generate:api`), so every
 * path, parameter and body is checked against the routes. Only the area modules beside this file
 * call it; pages and components call their functions and never write a URL.
 *
 * The browser attaches the HttpOnly session cookie by itself (same origin), so no script ever
 * holds a token; state-changing calls carry the page's Origin, which the server checks against
 * CSRF. A 401 sends the user to the login page.
 */
import { goto } from '$app/navigation';
import createClient from 'openapi-fetch';
import { ApiError, apiErrorFromBody } from './api-error';
import type { paths } from './generated/openapi';

/** The typed client, for the area modules of this folder. */
export const apiClient = createClient<paths>({ credentials: 'same-origin', headers: { accept: 'application/json' } });

/** What every call of the typed client answers: the body on success, the error body otherwise. */
interface Outcome<Data> {
  data?: Data;
  error?: unknown;
  response: Response;
}

export interface AnswerOptions {
  /** Leave a 401 to the caller instead of going to the login page (the login page itself). */
  allowUnauthenticated?: boolean;
}

function loginRedirect(): void {
  const here = `${location.pathname}${location.search}`;
  if (location.pathname !== '/login') void goto(`/login?next=${encodeURIComponent(here)}`);
}

async function settled<Data>(pending: Promise<Outcome<Data>>): Promise<Outcome<Data>> {
  try {
    return await pending;
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError({ status: 0, code: 'network_error', message: 'The server could not be reached.' });
  }
}

/** The body of a typed call; throws ApiError on any status outside 2xx. */
export async function answerOf<Data>(pending: Promise<Outcome<Data>>, options: AnswerOptions = {}): Promise<Data> {
  const outcome = await settled(pending);
  if (outcome.response.ok) return outcome.data as Data;
  if (outcome.response.status === 401 && !options.allowUnauthenticated) loginRedirect();
  throw apiErrorFromBody(outcome.response.status, outcome.error);
}

/**
 * The body of a streamed answer (server-sent events, asked for with `parseAs: 'stream'`) under
 * the same rules as `answerOf`: a 401 to the login page, any status outside 2xx thrown as ApiError.
 */
export async function streamOf(pending: Promise<Outcome<ReadableStream<Uint8Array> | null>>): Promise<ReadableStream<Uint8Array>> {
  const body = await answerOf(pending);
  if (!body) throw new ApiError({ status: 200, code: 'unexpected_response', message: 'The answer had no body.' });
  return body;
}

/** Saves a file the API answers with (an export, asked for with `parseAs: 'blob'`), keeping the name the server gives it. */
export async function saveDownload(pending: Promise<Outcome<Blob>>, fallbackName: string): Promise<void> {
  const outcome = await settled(pending);
  if (!outcome.response.ok) throw apiErrorFromBody(outcome.response.status, outcome.error);
  const disposition = outcome.response.headers.get('content-disposition') ?? '';
  const named = /filename="([^"]{1,200})"/.exec(disposition);
  const link = document.createElement('a');
  link.href = URL.createObjectURL(outcome.data ?? new Blob());
  link.download = named?.[1] ?? fallbackName;
  document.body.append(link);
  link.click();
  link.remove();
  URL.revokeObjectURL(link.href);
}
