/**
 * Fetches one resource from the web for reading (a page, a caption track, YouTube's caption list):
 * under the outbound guard's fetch, so no connection reaches a private or internal address;
 * following redirects one by one, so their number is bounded and each hop's URL is checked (http
 * or https only); the whole read under one deadline; the body read up to a byte bound; and only the
 * content types the caller reads. Every failure is an AppError whose message says why in words a
 * model or a teacher can act on, naming the host, never the query (it can carry a token) or what
 * the site sent.
 */
import { AppError } from '../../errors/app-error.js';
import { outboundRefusalIn, startDeadline, type OutboundFetch } from '../../pipeline/plugin-api.js';
import { readBoundedText } from '../integration-request.js';

export interface FetchBounds {
  /** The outbound guard's fetch: connections only to public addresses. */
  fetch: OutboundFetch;
  /** WEB_PAGE_MAX_BYTES. */
  bytesMaximum: number;
  /** WEB_PAGE_TIMEOUT_MS: every redirect and the whole body. */
  timeoutMilliseconds: number;
  /** WEB_PAGE_REDIRECTS_MAX. */
  redirectsMaximum: number;
  /** The caller's signal: the tool call's timeout or the learner leaving. */
  signal: AbortSignal;
}

/** What is fetched, for the request's accept header and for the words of a failure. */
export interface FetchedKind {
  /** "the page", "the caption track". */
  noun: string;
  /** Media types read; anything else is refused. */
  types: ReadonlySet<string>;
  /** How a refusal names what was expected: "a web page (HTML or text)". */
  expected: string;
  accept: string;
}

export interface FetchedText {
  /** Where it was read, after redirects. */
  url: URL;
  /** Its media type, lower case, without parameters. */
  type: string;
  text: string;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export function parsedWebUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new AppError('invalid_parameter', 'The page address is not a valid URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new AppError('upstream_refused', `Refused: ${url.protocol.replace(':', '')} addresses are not read, only http and https.`);
  return url;
}

function mediaTypeOf(response: Response): string {
  return (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Follows redirects by hand: each hop is counted and its URL checked, and the guarded fetch checks where it connects. */
async function fetchFollowingRedirects(
  start: URL,
  bounds: FetchBounds,
  kind: FetchedKind,
  signal: AbortSignal,
): Promise<{ response: Response; url: URL }> {
  let url = start;
  for (let redirects = 0; ; redirects += 1) {
    const response = await bounds.fetch(url, {
      method: 'GET',
      redirect: 'manual',
      signal,
      headers: { accept: kind.accept, 'user-agent': 'Merino web reader' },
    });
    const location = response.headers.get('location');
    if (!REDIRECT_STATUSES.has(response.status) || location === null) return { response, url };
    await response.body?.cancel().catch(() => undefined);
    if (redirects >= bounds.redirectsMaximum)
      throw new AppError(
        'upstream_error',
        `${start.host} redirected more than ${bounds.redirectsMaximum} times (WEB_PAGE_REDIRECTS_MAX); ${kind.noun} was not read.`,
      );
    url = parsedWebUrl(new URL(location, url).toString());
  }
}

async function decodedBody(response: Response, url: URL, bounds: FetchBounds, kind: FetchedKind): Promise<FetchedText> {
  const type = mediaTypeOf(response);
  if (!kind.types.has(type)) {
    await response.body?.cancel().catch(() => undefined);
    throw new AppError('unreadable_document', `${url.host} sent ${type === '' ? 'no content type' : type}, not ${kind.expected}.`);
  }
  const declaredLength = Number(response.headers.get('content-length') ?? '0');
  const tooLarge = (): AppError =>
    new AppError(
      'upstream_error',
      `${url.host} is larger than WEB_PAGE_MAX_BYTES (${bounds.bytesMaximum} bytes); ${kind.noun} was not read.`,
    );
  if (declaredLength > bounds.bytesMaximum) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  // Read as UTF-8, which nearly every page is; a page in another charset reads with a few odd letters.
  return { url, type, text: await readBoundedText(response, bounds.bytesMaximum, tooLarge) };
}

interface Attempt {
  url: URL;
  bounds: FetchBounds;
  kind: FetchedKind;
  deadlineExpired: boolean;
}

function failureOf(error: unknown, { url, bounds, kind, deadlineExpired }: Attempt): AppError {
  if (deadlineExpired)
    return new AppError(
      'upstream_timeout',
      `${url.host} did not send ${kind.noun} within ${bounds.timeoutMilliseconds} ms (WEB_PAGE_TIMEOUT_MS).`,
    );
  if (bounds.signal.aborted) {
    const reason: unknown = bounds.signal.reason;
    return reason instanceof AppError
      ? reason
      : new AppError('upstream_timeout', `The tool call ended before ${url.host} sent ${kind.noun}.`);
  }
  const refusal = outboundRefusalIn(error);
  if (refusal !== undefined) {
    const host = (refusal.details as { host?: unknown } | undefined)?.host;
    return new AppError('upstream_refused', `Refused: ${typeof host === 'string' ? host : url.host} is a private or internal address.`);
  }
  if (error instanceof AppError) return error;
  // fetch's own errors can quote the URL, and with it a token: none of their text is kept.
  return new AppError('upstream_error', `${url.host} could not be reached.`);
}

/** Fetches `address` under the bounds and returns its text, or fails saying why. */
export async function fetchBoundedText(address: string, bounds: FetchBounds, kind: FetchedKind): Promise<FetchedText> {
  const start = parsedWebUrl(address);
  const deadline = startDeadline(Math.max(1, bounds.timeoutMilliseconds), bounds.signal);
  let url = start;
  try {
    const fetched = await fetchFollowingRedirects(start, bounds, kind, deadline.signal);
    url = fetched.url;
    if (!fetched.response.ok) {
      await fetched.response.body?.cancel().catch(() => undefined);
      throw new AppError('upstream_error', `${url.host} answered HTTP ${fetched.response.status}; ${kind.noun} was not read.`);
    }
    return await decodedBody(fetched.response, url, bounds, kind);
  } catch (error) {
    throw failureOf(error, { url, bounds, kind, deadlineExpired: deadline.expired });
  } finally {
    deadline.clear();
  }
}
