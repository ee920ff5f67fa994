// A scriptable stand-in for LAMB's knowledge-base server (lamb-kb-server) that speaks its real query
// wire format on loopback, so Merino's client of that contract can be tested with no network:
//
//   POST /collections/{id}/query[?plugin_name=simple_query]     Authorization: Bearer <key>
//   {query_text, top_k?, threshold?, plugin_params?}
//   → {results: [{similarity, data, metadata}], count, timing: {total_seconds, total_ms}, query, embedding_info}
//
// Collections hold passages; a query ranks them by word overlap (the share of the query's words a
// passage contains), keeps `top_k`, then drops those below `threshold`, as LAMB's simple_query does.
// Errors use FastAPI's `{"detail": …}` shape and statuses: 401 for a wrong key, 403 without one,
// 404 for an unknown collection or query plugin, 422 for an invalid body.
import type http from 'node:http';
import {
  appendBounded,
  isRecord,
  listenOnLoopback,
  pause,
  sendJson,
  watchExchange,
  writeFlushed,
  type RecordedRequest,
  readAndRecord,
} from './fake-http.js';

export type { RecordedRequest } from './fake-http.js';

const DEFAULT_TOP_K = 5;
const DEFAULT_THRESHOLD = 0;
const QUERY_PLUGIN = 'simple_query';
const QUERY_PATH = /^\/collections\/([^/]+)\/query$/;

export interface FakeKnowledgePassage {
  text: string;
  metadata?: Record<string, unknown>;
}

export interface ScriptedKnowledgeReply {
  /** Wait before the response headers (the client's timeout or cancellation cuts it short). */
  delayMs?: number;
  /** Answer with this status and a FastAPI `{"detail"}` body instead of results. */
  status?: number;
  /** The `detail` text of a scripted error; LAMB's can quote the query, which clients must not repeat. */
  errorDetail?: string;
  /** With `status`: extra response headers, e.g. a redirect's `location`. */
  headers?: Record<string, string>;
  /**
   * With `status`: send the headers and the first bytes of the error body, then hold the rest back
   * this long (cut short when the client leaves), so a test can see whether the client drops the body.
   */
  errorBodyStallMs?: number;
  /** Answer 200 with exactly this text as a JSON body, for what JSON.stringify cannot write (`1e999` parses to Infinity). */
  rawJson?: string;
  /** Answer 200 with a JSON content type and a truncated, unparsable body. */
  malformedJson?: boolean;
  /** Answer 200 with exactly this JSON value instead of the ranked results (for shape tests). */
  body?: unknown;
}

/** One query as the fake understood it, for assertions. */
export interface RecordedKnowledgeQuery {
  /** Decoded from the path. */
  collectionId: string;
  pluginName: string;
  /** The bearer value sent, if any. */
  bearer: string | undefined;
  /** Parsed JSON; the raw text when it was not JSON; undefined when there was no body. */
  body: any;
}

export interface FakeLambKnowledgeServer {
  /** e.g. http://127.0.0.1:PORT, the organization's `kb_server.url`. */
  url: string;
  /** Every request, whatever its route. */
  requests: RecordedRequest[];
  /** Every request to the query route. */
  queries: RecordedKnowledgeQuery[];
  /** Creates or replaces a collection. */
  setCollection(collectionId: string, passages: FakeKnowledgePassage[]): void;
  deleteCollection(collectionId: string): void;
  /** FIFO, one reply per authorised query; when empty, queries are answered from the collections. */
  enqueue(...replies: ScriptedKnowledgeReply[]): void;
  /** How many queries the client closed before the response ended (timeouts, cancellations). */
  disconnectedRequests(): number;
  /** Clears the queue, the recordings and the disconnect count; the collections stay. */
  reset(): void;
  close(): Promise<void>;
}

export interface FakeLambKnowledgeServerOptions {
  /** When set, queries must carry `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  collections?: Record<string, FakeKnowledgePassage[]>;
}

function wordsOf(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
}

/** The share of the query's distinct words that the passage contains, in [0, 1]. */
export function wordOverlap(queryText: string, passage: string): number {
  const queryWords = wordsOf(queryText);
  if (queryWords.size === 0) return 0;
  const passageWords = wordsOf(passage);
  let shared = 0;
  for (const word of queryWords) if (passageWords.has(word)) shared += 1;
  return shared / queryWords.size;
}

function detail(message: unknown): { detail: unknown } {
  return { detail: message };
}

/** FastAPI's 422 body for one invalid field. */
function validationError(field: string, message: string, type: string): { detail: unknown } {
  return detail([{ type, loc: ['body', field], msg: message, input: null }]);
}

export async function startFakeLambKnowledgeServer(options: FakeLambKnowledgeServerOptions = {}): Promise<FakeLambKnowledgeServer> {
  const collections = new Map<string, FakeKnowledgePassage[]>(Object.entries(options.collections ?? {}));
  const requests: RecordedRequest[] = [];
  const queries: RecordedKnowledgeQuery[] = [];
  const queue: ScriptedKnowledgeReply[] = [];
  let disconnectedCount = 0;

  function bearerOf(request: http.IncomingMessage): string | undefined {
    const header = request.headers.authorization;
    if (header === undefined) return undefined;
    return header.startsWith('Bearer ') ? header.slice('Bearer '.length) : '';
  }

  /** LAMB's verify_token: no credentials is 403 (FastAPI's HTTPBearer), a wrong token 401. */
  function authorised(bearer: string | undefined, response: http.ServerResponse): boolean {
    if (options.apiKey === undefined) return true;
    if (bearer === undefined || bearer === '') {
      sendJson(response, 403, detail('Not authenticated'));
      return false;
    }
    if (bearer !== options.apiKey) {
      sendJson(response, 401, detail('Invalid authentication credentials'), { 'www-authenticate': 'Bearer' });
      return false;
    }
    return true;
  }

  function answer(collectionId: string, body: Record<string, unknown>, response: http.ServerResponse): void {
    const started = process.hrtime.bigint();
    const passages = collections.get(collectionId);
    if (passages === undefined) {
      sendJson(response, 404, detail(`Collection with ID ${collectionId} not found`));
      return;
    }
    // As LAMB does, plugin_params win over the top-level top_k and threshold.
    const params = isRecord(body.plugin_params) ? body.plugin_params : {};
    const topK = typeof params.top_k === 'number' ? params.top_k : typeof body.top_k === 'number' ? body.top_k : DEFAULT_TOP_K;
    const threshold =
      typeof params.threshold === 'number' ? params.threshold : typeof body.threshold === 'number' ? body.threshold : DEFAULT_THRESHOLD;
    const queryText = body.query_text as string;
    const results = passages
      .map((passage, index) => ({ index, similarity: wordOverlap(queryText, passage.text), passage }))
      .sort((left, right) => right.similarity - left.similarity || left.index - right.index)
      .slice(0, Math.max(0, topK))
      .filter((ranked) => ranked.similarity >= threshold)
      .map((ranked) => ({ similarity: ranked.similarity, data: ranked.passage.text, metadata: ranked.passage.metadata ?? {} }));
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    sendJson(response, 200, {
      results,
      count: results.length,
      timing: { total_seconds: seconds, total_ms: seconds * 1000 },
      query: queryText,
      embedding_info: { vendor: 'fake', model: 'word-overlap' },
    });
  }

  async function handle(request: http.IncomingMessage, response: http.ServerResponse, shutdownSignal: AbortSignal): Promise<void> {
    const method = request.method ?? 'GET';
    const { url: parsed, bodyResult, recorded } = await readAndRecord(request, requests);
    if (bodyResult.kind === 'aborted') return;

    const match = QUERY_PATH.exec(parsed.pathname);
    if (match === null) {
      sendJson(response, 404, detail('Not Found'));
      return;
    }
    if (method !== 'POST') {
      sendJson(response, 405, detail('Method Not Allowed'), { allow: 'POST' });
      return;
    }
    let collectionId: string;
    try {
      collectionId = decodeURIComponent(match[1]!);
    } catch {
      sendJson(response, 404, detail('Not Found'));
      return;
    }
    const bearer = bearerOf(request);
    const pluginName = parsed.searchParams.get('plugin_name') ?? QUERY_PLUGIN;
    appendBounded(queries, { collectionId, pluginName, bearer, body: recorded.body });
    if (!authorised(bearer, response)) return;

    const exchange = watchExchange(response, shutdownSignal, () => {
      disconnectedCount += 1;
    });
    const reply = queue.shift();
    if (reply !== undefined && !(await pause(reply.delayMs, exchange.signal))) return;

    if (reply?.status !== undefined) {
      const errorBody = detail(
        reply.errorDetail ?? (reply.status >= 500 ? 'Internal Server Error' : `Request failed with status ${reply.status}`),
      );
      if (reply.errorBodyStallMs === undefined) {
        sendJson(response, reply.status, errorBody, reply.headers);
        return;
      }
      const text = JSON.stringify(errorBody);
      response.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8', ...reply.headers });
      await writeFlushed(response, text.slice(0, 10));
      if (await pause(reply.errorBodyStallMs, exchange.signal)) response.end(text.slice(10));
      return;
    }
    if (reply?.rawJson !== undefined) {
      response.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': String(Buffer.byteLength(reply.rawJson)),
      });
      response.end(reply.rawJson);
      return;
    }
    if (reply?.malformedJson === true) {
      response.writeHead(200, { 'content-type': 'application/json' });
      await writeFlushed(response, '{"results": [{"similarity": 0.9, "data": "trunc');
      response.end();
      return;
    }
    if (reply?.body !== undefined) {
      sendJson(response, 200, reply.body);
      return;
    }

    if (bodyResult.kind === 'too-large') {
      sendJson(response, 413, detail('Request Entity Too Large'));
      return;
    }
    if (bodyResult.kind !== 'json' || !isRecord(bodyResult.value)) {
      sendJson(
        response,
        422,
        validationError('query_text', 'Input should be a valid dictionary or object to extract fields from', 'model_attributes_type'),
      );
      return;
    }
    const body = bodyResult.value;
    if (typeof body.query_text !== 'string') {
      sendJson(response, 422, validationError('query_text', 'Field required', 'missing'));
      return;
    }
    if (body.top_k !== undefined && body.top_k !== null && !Number.isInteger(body.top_k)) {
      sendJson(response, 422, validationError('top_k', 'Input should be a valid integer', 'int_type'));
      return;
    }
    if (body.threshold !== undefined && body.threshold !== null && typeof body.threshold !== 'number') {
      sendJson(response, 422, validationError('threshold', 'Input should be a valid number', 'float_type'));
      return;
    }
    if (body.plugin_params !== undefined && body.plugin_params !== null && !isRecord(body.plugin_params)) {
      sendJson(response, 422, validationError('plugin_params', 'Input should be a valid dictionary', 'dict_type'));
      return;
    }
    if (pluginName !== QUERY_PLUGIN) {
      sendJson(response, 404, detail(`Query plugin '${pluginName}' not found`));
      return;
    }
    answer(collectionId, body, response);
  }

  const server = await listenOnLoopback(handle);
  return {
    url: server.origin,
    requests,
    queries,
    setCollection: (collectionId, passages) => {
      collections.set(collectionId, passages);
    },
    deleteCollection: (collectionId) => {
      collections.delete(collectionId);
    },
    enqueue: (...replies) => {
      queue.push(...replies);
    },
    disconnectedRequests: () => disconnectedCount,
    reset: () => {
      queue.length = 0;
      requests.length = 0;
      queries.length = 0;
      disconnectedCount = 0;
    },
    close: () => server.close(),
  };
}
