/**
 * One HTTP request from a built-in function tool to an external service (Open-Meteo, Moodle, a web
 * search provider),
 * answered by JSON. It runs under the integration's own timeout and the tool call's abort signal,
 * reads at most INTEGRATION_RESPONSE_MAX_BYTES of answer, never follows a redirect (a token in the
 * request must reach only the configured server), and fails with an AppError of our own that
 * names the service and its host: never the URL's query (it can carry a token), the request body,
 * or what the service said.
 * The caller passes the fetch that reaches the URL: the outbound guard's for an organization's
 * Moodle, so it can never be pointed at an internal address (src/outbound/outbound-guard.ts).
 */
import { AppError } from '../errors/app-error.js';
import { answerPastBoundError, outboundRefusalIn, startDeadline, type OutboundFetch } from '../pipeline/plugin-api.js';

export interface IntegrationRequest {
  /** The service's name as people know it, used in error messages: `Open-Meteo`, `Moodle`. */
  service: string;
  url: URL;
  /** A form body is sent with POST; without one (or a JSON body) the request is a GET. */
  form?: URLSearchParams;
  /** A JSON body is sent with POST (Tavily's search). */
  json?: unknown;
  /** Headers of the service's own, such as a key (Brave's `X-Subscription-Token`): never shown in an error. */
  headers?: Record<string, string>;
  /** The whole exchange (connecting, waiting, reading) is abandoned after this. */
  timeoutMilliseconds: number;
  /** INTEGRATION_RESPONSE_MAX_BYTES: a larger answer is refused, so a misbehaving service cannot exhaust memory. */
  responseBytesMaximum: number;
  /** The tool call's signal: its timeout or the learner leaving. */
  signal: AbortSignal;
  /** How the URL is reached: the outbound guard's fetch when an organization set it, `serverFetch` when the server did. */
  fetch: OutboundFetch;
}

function statusError(service: string, host: string, status: number): AppError {
  if (status >= 300 && status < 400) {
    return new AppError(
      'upstream_error',
      `${service} at ${host} answered with a redirect (HTTP ${status}); configure the URL it points to.`,
    );
  }
  if (status === 429) return new AppError('upstream_rate_limited', `${service} at ${host} is rate limiting requests; try again later.`);
  if (status >= 400 && status < 500)
    return new AppError('upstream_rejected', `${service} at ${host} rejected the request (HTTP ${status}).`);
  return new AppError('upstream_error', `${service} at ${host} failed to answer (HTTP ${status}).`);
}

/**
 * Why the request stopped early: the tool call's own reason when it is one of our errors, its
 * deadline, the learner leaving, or else the integration's timeout.
 */
function abortError(request: IntegrationRequest, host: string, timeoutMilliseconds: number): AppError {
  if (request.signal.aborted) {
    const reason: unknown = request.signal.reason;
    if (reason instanceof AppError) return reason;
    if (reason instanceof DOMException && reason.name === 'TimeoutError') {
      return new AppError('upstream_timeout', `The tool call ran out of time before ${request.service} at ${host} answered.`);
    }
    return new AppError('upstream_error', `The request was cancelled before ${request.service} at ${host} answered.`);
  }
  return new AppError('upstream_timeout', `${request.service} at ${host} did not answer within ${timeoutMilliseconds} ms.`);
}

/**
 * Reads a body as text up to `maximumBytes`, failing with `tooLarge()` past it; the request's
 * signal bounds this too, so a stalled body cannot hang. Shared by every client of a service
 * outside Merino that must not let a misbehaving answer exhaust memory.
 */
export async function readBoundedText(response: Response, maximumBytes: number, tooLarge: () => AppError): Promise<string> {
  if (response.body === null) return '';
  const reader: ReadableStreamDefaultReader<Uint8Array> = response.body.getReader();
  const pieces: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.byteLength;
    if (received > maximumBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    pieces.push(value);
  }
  return Buffer.concat(pieces).toString('utf8');
}

function parseJson(text: string, service: string, host: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError('upstream_error', `${service} at ${host} sent an answer that is not JSON.`);
  }
}

async function exchange(request: IntegrationRequest, signal: AbortSignal, host: string): Promise<string> {
  const body = request.form?.toString() ?? (request.json === undefined ? undefined : JSON.stringify(request.json));
  const response = await request.fetch(request.url, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      accept: 'application/json',
      ...(request.form !== undefined && { 'content-type': 'application/x-www-form-urlencoded' }),
      ...(request.form === undefined && request.json !== undefined && { 'content-type': 'application/json' }),
      ...request.headers,
    },
    ...(body !== undefined && { body }),
    signal,
    redirect: 'manual',
  });
  if (!response.ok) {
    // Not read: it is shown nowhere, and a service's error text can quote the request.
    await response.body?.cancel().catch(() => undefined);
    throw statusError(request.service, host, response.status);
  }
  return readBoundedText(response, request.responseBytesMaximum, () =>
    answerPastBoundError(`${request.service} at ${host}`, 'INTEGRATION_RESPONSE_MAX_BYTES', request.responseBytesMaximum),
  );
}

/** Sends the request and returns the parsed JSON answer of a 2xx response. */
export async function requestIntegrationJson(request: IntegrationRequest): Promise<unknown> {
  // Only the host (and port) is ever named: the path and query of a configured URL can carry credentials.
  const host = request.url.host;
  const timeoutMilliseconds = Math.max(1, request.timeoutMilliseconds);
  const deadline = startDeadline(timeoutMilliseconds, request.signal);
  const signal = deadline.signal;
  if (signal.aborted) throw abortError(request, host, timeoutMilliseconds);
  let text: string;
  try {
    text = await exchange(request, signal, host);
  } catch (error) {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the exchange may have aborted it; the compiler still sees the check above
    if (signal.aborted) throw abortError(request, host, timeoutMilliseconds);
    if (error instanceof AppError) throw error;
    const refusal = outboundRefusalIn(error);
    if (refusal !== undefined) throw refusal;
    // fetch's own errors can quote the URL, and with it a token: none of their text is kept.
    throw new AppError('upstream_error', `${request.service} at ${host} could not be reached.`);
  } finally {
    deadline.clear();
  }
  return parseJson(text, request.service, host);
}
