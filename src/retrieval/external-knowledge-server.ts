/**
 * The client of LAMB's knowledge-base server query contract (lamb-kb-server), for organizations
 * whose knowledge bases live there rather than in Merino:
 *
 *   POST {url}/collections/{collectionId}/query      Authorization: Bearer <api key>
 *   {query_text, top_k, threshold, plugin_params}
 *   → {results: [{similarity, data, metadata}], count, timing, query}
 *
 * The answer is read only up to KB_SERVER_RESPONSE_MAX_BYTES and checked before anything uses it:
 * similarities are clamped into [0, 1], results below the threshold are dropped and at most
 * `top_k` are kept, best first. Every failure is an AppError whose message names the server's
 * host and never the API key, the query text or what the server answered (a server's own error
 * text can quote both). The URL is an organization's, so it is reached only through the outbound
 * guard's fetch, which refuses internal addresses.
 */
import { AppError } from '../errors/app-error.js';
import { startDeadline } from '../pipeline/bounds/deadline.js';
import { readBoundedText } from '../integrations/integration-request.js';
import { outboundRefusalIn, type OutboundFetch } from '../pipeline/upstream/outbound-fetch.js';
import type { KnowledgeHit } from '../pipeline/plugin-contract/ports.js';
import { answerPastBoundError } from '../pipeline/upstream/upstream-errors.js';
import { trimCharactersEnd } from '../text-trimming/trim-characters.js';

/** Collection ids are shown in error messages; a longer one is cut there. */
const SHOWN_ID_CHARACTERS = 120;

export interface ExternalKnowledgeServer {
  /** The server's base URL, e.g. `http://lamb-kb:9090`; a trailing slash is ignored. */
  url: string;
  /** Sent as `Authorization: Bearer <apiKey>` when set. */
  apiKey?: string;
  /** How the URL is reached: the outbound guard's fetch, since an organization sets it. */
  fetch: OutboundFetch;
}

export interface ExternalKnowledgeQuery {
  queryText: string;
  /** At most this many hits come back (at least 1). */
  topK: number;
  /** Hits whose similarity (after clamping into [0, 1]) is below this are dropped. */
  threshold: number;
  /** Passed through as LAMB's `plugin_params`; `{}` when absent. */
  pluginParams?: Record<string, unknown>;
}

export interface ExternalKnowledgeQueryOptions {
  /** The whole call (connecting, waiting and reading the answer) is abandoned after this. */
  timeoutMilliseconds: number;
  /** KB_SERVER_RESPONSE_MAX_BYTES: a larger answer is refused, so a misbehaving server cannot exhaust memory. */
  responseBytesMaximum: number;
  /** The caller's cancellation: aborting it aborts the request and rejects with its reason. */
  signal?: AbortSignal;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The host (and port) only: never the path, query string or user info, which can carry credentials. */
function endpointOf(server: ExternalKnowledgeServer, collectionId: string): { url: string; host: string } {
  let base: URL;
  try {
    base = new URL(server.url);
  } catch {
    throw new AppError('upstream_error', "The organization's knowledge-base server URL is not a valid URL.");
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new AppError('upstream_error', "The organization's knowledge-base server URL is not an http(s) URL.");
  }
  const path = `${trimCharactersEnd(base.pathname, '/')}/collections/${encodeURIComponent(collectionId)}/query`;
  return { url: `${base.origin}${path}`, host: base.host };
}

function shownId(collectionId: string): string {
  return collectionId.length > SHOWN_ID_CHARACTERS ? `${collectionId.slice(0, SHOWN_ID_CHARACTERS)}…` : collectionId;
}

function statusError(status: number, host: string, collectionId: string, keySent: boolean): AppError {
  if (status >= 300 && status < 400) {
    return new AppError(
      'upstream_error',
      `The knowledge-base server at ${host} answered with a redirect (HTTP ${status}); set the organization's knowledge-base URL to where it points.`,
    );
  }
  if (status === 404) {
    return new AppError(
      'not_found',
      `Knowledge base ${shownId(collectionId)} not found on the organization's knowledge-base server (${host}).`,
    );
  }
  if (status === 401 || status === 403) {
    const message = keySent
      ? `The knowledge-base server at ${host} refused the organization's API key (HTTP ${status}).`
      : `The knowledge-base server at ${host} requires an API key, and the organization has none set (HTTP ${status}).`;
    return new AppError('upstream_error', message);
  }
  if (status === 429)
    return new AppError('upstream_rate_limited', `The knowledge-base server at ${host} is rate limiting requests; try again later.`);
  if (status >= 400 && status < 500)
    return new AppError('upstream_rejected', `The knowledge-base server at ${host} rejected the query (HTTP ${status}).`);
  return new AppError('upstream_error', `The knowledge-base server at ${host} failed to answer (HTTP ${status}).`);
}

function malformed(host: string, what: string): AppError {
  return new AppError('upstream_error', `The knowledge-base server at ${host} sent a malformed answer: ${what}.`);
}

/** Checks LAMB's answer shape; problems are described by field name only, never by value. */
function hitsOf(text: string, host: string): KnowledgeHit[] {
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    throw malformed(host, 'it is not JSON');
  }
  if (!isRecord(answer)) throw malformed(host, 'it is not a JSON object');
  if (!Array.isArray(answer.results)) throw malformed(host, '"results" is not a list');
  if (answer.count !== undefined && (typeof answer.count !== 'number' || !Number.isInteger(answer.count) || answer.count < 0)) {
    throw malformed(host, '"count" is not a count');
  }
  return answer.results.map((result: unknown, index): KnowledgeHit => {
    const where = `results[${index}]`;
    if (!isRecord(result)) throw malformed(host, `"${where}" is not an object`);
    if (typeof result.data !== 'string') throw malformed(host, `"${where}.data" is not text`);
    if (typeof result.similarity !== 'number' || !Number.isFinite(result.similarity))
      throw malformed(host, `"${where}.similarity" is not a number`);
    // ChromaDB gives chunks without metadata a null; anything else that is not an object is garbage.
    if (result.metadata !== undefined && result.metadata !== null && !isRecord(result.metadata))
      throw malformed(host, `"${where}.metadata" is not an object`);
    return {
      text: result.data,
      similarity: Math.min(1, Math.max(0, result.similarity)),
      metadata: isRecord(result.metadata) ? result.metadata : {},
    };
  });
}

/** The caller's own cancellation keeps its reason; anything else that aborted the call was the timeout. */
function abortError(callerSignal: AbortSignal | undefined, host: string, timeoutMilliseconds: number): Error {
  if (callerSignal?.aborted) {
    return callerSignal.reason instanceof Error ? callerSignal.reason : new DOMException('The query was cancelled.', 'AbortError');
  }
  return new AppError('upstream_timeout', `The knowledge-base server at ${host} did not answer within ${timeoutMilliseconds} ms.`);
}

/**
 * Queries one collection of a LAMB knowledge-base server and returns its hits, best first, at
 * most `topK` of them and none below `threshold`.
 */
export async function queryExternalKnowledgeServer(
  server: ExternalKnowledgeServer,
  collectionId: string,
  input: ExternalKnowledgeQuery,
  options: ExternalKnowledgeQueryOptions,
): Promise<KnowledgeHit[]> {
  if (collectionId === '') throw new AppError('assistant_misconfigured', 'The knowledge base id is empty.');
  const { url, host } = endpointOf(server, collectionId);
  const topK = Math.max(1, Math.floor(Number.isFinite(input.topK) ? input.topK : 1));
  const threshold = Math.min(1, Math.max(0, Number.isFinite(input.threshold) ? input.threshold : 0));
  const timeoutMilliseconds = Math.max(1, options.timeoutMilliseconds);
  const deadline = startDeadline(timeoutMilliseconds, options.signal);
  const signal = deadline.signal;
  const keySent = server.apiKey !== undefined && server.apiKey !== '';

  let text: string;
  try {
    const response = await server.fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        ...(keySent && { authorization: `Bearer ${server.apiKey}` }),
      },
      body: JSON.stringify({ query_text: input.queryText, top_k: topK, threshold, plugin_params: input.pluginParams ?? {} }),
      signal,
      // A redirect is not followed: the bearer key must reach only the configured server.
      redirect: 'manual',
    });
    if (!response.ok) {
      // Not read: it is not shown anywhere, and a server's error text can quote the query or the key.
      await response.body?.cancel().catch(() => undefined);
      throw statusError(response.status, host, collectionId, keySent);
    }
    text = await readBoundedText(response, options.responseBytesMaximum, () =>
      answerPastBoundError(`The knowledge-base server at ${host}`, 'KB_SERVER_RESPONSE_MAX_BYTES', options.responseBytesMaximum),
    );
  } catch (error) {
    if (signal.aborted) throw abortError(options.signal, host, timeoutMilliseconds);
    if (error instanceof AppError) throw error;
    const refusal = outboundRefusalIn(error);
    if (refusal !== undefined) throw refusal;
    // fetch's own errors can quote the URL; none of their text is kept.
    throw new AppError('upstream_error', `The knowledge-base server at ${host} could not be reached.`);
  } finally {
    deadline.clear();
  }

  return hitsOf(text, host)
    .filter((hit) => hit.similarity >= threshold)
    .sort((left, right) => right.similarity - left.similarity)
    .slice(0, topK);
}
