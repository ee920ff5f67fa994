/**
 * Proves Merino's client of LAMB's knowledge-base server query contract against a fake that speaks
 * the real wire format on loopback: hits come back mapped with their metadata, best first, within
 * top_k and above the threshold; the bearer key and the query travel as LAMB expects; and every
 * failure (unknown collection, refused key, server error, malformed answer, timeout, unreachable
 * server, redirect, refused destination) is a clear AppError naming the server's host, never the
 * key, the query or the answer; an error answer's body is cancelled, not read. The caller's abort
 * signal cancels the request at once, and the call lets go of that signal when it ends.
 */
import { getEventListeners } from 'node:events';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../src/errors/app-error.js';
import { queryExternalKnowledgeServer, type ExternalKnowledgeQuery } from '../src/retrieval/external-knowledge-server.js';
import { OutboundGuard } from '../src/outbound/outbound-guard.js';
import { startFakeLambKnowledgeServer, wordOverlap, type FakeLambKnowledgeServer } from './fakes/fake-lamb-knowledge-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const KB_KEY = 'kb-secret-key-9f8e7d6c5b4a';
const QUERY_TEXT = 'how does photosynthesis turn light into sugar';
/** KB_SERVER_TIMEOUT_MS and KB_SERVER_RESPONSE_MAX_BYTES as a server would pass them (the bound at its default). */
const BOUNDS = { timeoutMilliseconds: 5_000, responseBytesMaximum: 8_388_608 };
/** Reached as Merino reaches an organization's server: through the outbound guard, which allows the fakes' loopback address. */
const KB_FETCH = new OutboundGuard({ allowedHosts: ['127.0.0.1'] }).fetchFor('kb_server.url');

const PASSAGES = [
  { text: 'Mitochondria release energy from sugar.', metadata: { source: 'cells.pdf', page: 4 } },
  {
    text: 'Photosynthesis uses light to turn water and carbon dioxide into sugar.',
    metadata: { source: 'plants.pdf', page: 12, chunk_index: 3 },
  },
  { text: 'Light travels at about 300,000 km per second.', metadata: { source: 'physics.md' } },
  { text: 'The French Revolution began in 1789.', metadata: { source: 'history.md' } },
];

function query(overrides: Partial<ExternalKnowledgeQuery> = {}): ExternalKnowledgeQuery {
  return { queryText: QUERY_TEXT, topK: 5, threshold: 0, ...overrides };
}

/** Runs the call expecting an AppError, and checks its message leaks neither the key nor the query. */
async function failure(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(AppError);
  const appError = error as AppError;
  const cause: unknown = appError.cause ?? '';
  const shown = `${appError.message} ${JSON.stringify(appError.details ?? {})} ${String(cause)}`;
  expect(shown).not.toContain(KB_KEY);
  expect(shown).not.toContain(QUERY_TEXT);
  expect(shown).not.toContain('photosynthesis');
  return appError;
}

describe('the client of LAMB knowledge-base servers', () => {
  let knowledgeBase: FakeLambKnowledgeServer;
  let host: string;
  const server = () => ({ url: knowledgeBase.url, apiKey: KB_KEY, fetch: KB_FETCH });

  beforeAll(async () => {
    knowledgeBase = await startFakeLambKnowledgeServer({ apiKey: KB_KEY, collections: { '7': PASSAGES } });
    host = new URL(knowledgeBase.url).host;
  });

  afterEach(() => {
    knowledgeBase.reset();
  });

  afterAll(async () => {
    await possiblyUnset(knowledgeBase)?.close();
  });

  it('maps the results to hits, best first, keeping their metadata', async () => {
    const hits = await queryExternalKnowledgeServer(server(), '7', query(), BOUNDS);
    expect(hits[0]).toEqual({
      text: 'Photosynthesis uses light to turn water and carbon dioxide into sugar.',
      similarity: wordOverlap(QUERY_TEXT, PASSAGES[1]!.text),
      metadata: { source: 'plants.pdf', page: 12, chunk_index: 3 },
    });
    expect(hits.map((hit) => hit.metadata.source)).toEqual(['plants.pdf', 'cells.pdf', 'physics.md', 'history.md']);
    for (const hit of hits) expect(hit.similarity).toBeGreaterThanOrEqual(0);
    const similarities = hits.map((hit) => hit.similarity);
    expect([...similarities].sort((left, right) => right - left)).toEqual(similarities);
  });

  it("sends LAMB's wire format: the bearer key, the path and {query_text, top_k, threshold, plugin_params}", async () => {
    await queryExternalKnowledgeServer(
      server(),
      '7',
      query({ topK: 3, threshold: 0.25, pluginParams: { return_parent_context: true } }),
      BOUNDS,
    );
    const sent = knowledgeBase.requests.at(-1)!;
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe('/collections/7/query');
    expect(sent.headers.authorization).toBe(`Bearer ${KB_KEY}`);
    expect(sent.headers['content-type']).toBe('application/json');
    expect(sent.headers.accept).toBe('application/json');
    expect(sent.body).toEqual({ query_text: QUERY_TEXT, top_k: 3, threshold: 0.25, plugin_params: { return_parent_context: true } });

    await queryExternalKnowledgeServer(server(), '7', query(), BOUNDS);
    expect(knowledgeBase.requests.at(-1)!.body.plugin_params).toEqual({});
  });

  it('passes top_k and the threshold, and the server honours them', async () => {
    const topTwo = await queryExternalKnowledgeServer(server(), '7', query({ topK: 2 }), BOUNDS);
    expect(topTwo.map((hit) => hit.metadata.source)).toEqual(['plants.pdf', 'cells.pdf']);
    const aboveHalf = await queryExternalKnowledgeServer(server(), '7', query({ threshold: 0.5 }), BOUNDS);
    expect(aboveHalf.map((hit) => hit.metadata.source)).toEqual(['plants.pdf']);
    expect(knowledgeBase.queries.map((recorded) => recorded.body.top_k)).toEqual([2, 5]);
    expect(knowledgeBase.queries.map((recorded) => recorded.body.threshold)).toEqual([0, 0.5]);
  });

  it('honours top_k and the threshold itself, and clamps similarities into [0, 1], whatever the server sends', async () => {
    knowledgeBase.enqueue({
      body: {
        results: [
          { similarity: 0.2, data: 'weak', metadata: { n: 1 } },
          { similarity: 1.7, data: 'over one', metadata: { n: 2 } },
          { similarity: -0.4, data: 'negative', metadata: { n: 3 } },
          { similarity: 0.9, data: 'strong', metadata: null },
          { similarity: 0.6, data: 'fair' },
        ],
        count: 5,
        timing: { total_ms: 3 },
        query: QUERY_TEXT,
      },
    });
    const hits = await queryExternalKnowledgeServer(server(), '7', query({ topK: 2, threshold: 0.5 }), BOUNDS);
    expect(hits).toEqual([
      { text: 'over one', similarity: 1, metadata: { n: 2 } },
      { text: 'strong', similarity: 0.9, metadata: {} },
    ]);

    knowledgeBase.enqueue({ body: { results: [{ similarity: -0.4, data: 'negative', metadata: {} }], count: 1 } });
    expect(await queryExternalKnowledgeServer(server(), '7', query(), BOUNDS)).toEqual([{ text: 'negative', similarity: 0, metadata: {} }]);
  });

  it('encodes the collection id in the path', async () => {
    const awkwardId = 'unit 3/week?2#a%b';
    knowledgeBase.setCollection(awkwardId, [{ text: 'Light and sugar.', metadata: { source: 'awkward.md' } }]);
    const hits = await queryExternalKnowledgeServer(server(), awkwardId, query(), BOUNDS);
    expect(hits.map((hit) => hit.metadata.source)).toEqual(['awkward.md']);
    expect(knowledgeBase.requests.at(-1)!.path).toBe(`/collections/${encodeURIComponent(awkwardId)}/query`);
    expect(knowledgeBase.queries.at(-1)!.collectionId).toBe(awkwardId);
    knowledgeBase.deleteCollection(awkwardId);
  });

  it('keeps a base path of the server URL and ignores a trailing slash', async () => {
    await queryExternalKnowledgeServer({ fetch: KB_FETCH, url: `${knowledgeBase.url}/`, apiKey: KB_KEY }, '7', query(), BOUNDS);
    expect(knowledgeBase.requests.at(-1)!.path).toBe('/collections/7/query');
    await failure(queryExternalKnowledgeServer({ fetch: KB_FETCH, url: `${knowledgeBase.url}/kb/`, apiKey: KB_KEY }, '7', query(), BOUNDS));
    expect(knowledgeBase.requests.at(-1)!.path).toBe('/kb/collections/7/query');
  });

  it('says which knowledge base the server does not have (404)', async () => {
    const error = await failure(queryExternalKnowledgeServer(server(), '99', query(), BOUNDS));
    expect(error.code).toBe('not_found');
    expect(error.status).toBe(404);
    expect(error.message).toContain("Knowledge base 99 not found on the organization's knowledge-base server");
    expect(error.message).toContain(host);
  });

  it('says the server refused the key (401), and that a key is missing (403)', async () => {
    const wrongKey = 'kb-wrong-key-0000000000';
    const refused = await failure(
      queryExternalKnowledgeServer({ fetch: KB_FETCH, url: knowledgeBase.url, apiKey: wrongKey }, '7', query(), BOUNDS),
    );
    expect(refused.code).toBe('upstream_error');
    expect(refused.message).toContain("refused the organization's API key");
    expect(refused.message).toContain(host);
    expect(refused.message).not.toContain(wrongKey);
    expect(knowledgeBase.queries.at(-1)!.bearer).toBe(wrongKey);

    const keyless = await failure(queryExternalKnowledgeServer({ fetch: KB_FETCH, url: knowledgeBase.url }, '7', query(), BOUNDS));
    expect(keyless.code).toBe('upstream_error');
    expect(keyless.message).toMatch(/requires an API key/);
    expect(knowledgeBase.requests.at(-1)!.headers.authorization).toBeUndefined();
  });

  it("reports a server error (500) without repeating the server's error text", async () => {
    knowledgeBase.enqueue({ status: 500, errorDetail: `Failed to query collection: '${QUERY_TEXT}' with key ${KB_KEY}` });
    const error = await failure(queryExternalKnowledgeServer(server(), '7', query(), BOUNDS));
    expect(error.code).toBe('upstream_error');
    expect(error.status).toBe(502);
    expect(error.message).toContain(host);
    expect(error.message).toContain('HTTP 500');
    expect(error.message).not.toContain('Failed to query');
  });

  it('reports a rejected query (422) and rate limiting (429) with their own codes', async () => {
    knowledgeBase.enqueue({ status: 422 }, { status: 429 });
    expect((await failure(queryExternalKnowledgeServer(server(), '7', query(), BOUNDS))).code).toBe('upstream_rejected');
    expect((await failure(queryExternalKnowledgeServer(server(), '7', query(), BOUNDS))).code).toBe('upstream_rate_limited');
  });

  it('refuses a malformed answer: broken JSON', async () => {
    knowledgeBase.enqueue({ malformedJson: true });
    const error = await failure(queryExternalKnowledgeServer(server(), '7', query(), BOUNDS));
    expect(error.code).toBe('upstream_error');
    expect(error.message).toContain(host);
    expect(error.message).toMatch(/malformed answer: it is not JSON/);
  });

  it('refuses a malformed answer: missing or garbage fields, named without their values', async () => {
    const garbage: Array<[unknown, string]> = [
      [[{ similarity: 1, data: QUERY_TEXT }], 'not a JSON object'],
      [{ count: 0, query: QUERY_TEXT }, '"results" is not a list'],
      [{ results: 'none', query: QUERY_TEXT }, '"results" is not a list'],
      [{ results: [], count: 'zero' }, '"count" is not a count'],
      [{ results: [QUERY_TEXT] }, '"results[0]" is not an object'],
      [{ results: [{ similarity: 0.9, metadata: {} }] }, '"results[0].data" is not text'],
      [
        {
          results: [
            { similarity: 0.9, data: 'ok' },
            { similarity: 'high', data: QUERY_TEXT },
          ],
        },
        '"results[1].similarity" is not a number',
      ],
      [{ results: [{ data: QUERY_TEXT, metadata: {} }] }, '"results[0].similarity" is not a number'],
      [{ results: [{ similarity: 0.9, data: 'ok', metadata: QUERY_TEXT }] }, '"results[0].metadata" is not an object'],
      [{ results: [{ similarity: 0.9, data: 'ok', metadata: [KB_KEY] }] }, '"results[0].metadata" is not an object'],
    ];
    for (const [body, problem] of garbage) {
      knowledgeBase.enqueue({ body });
      const error = await failure(queryExternalKnowledgeServer(server(), '7', query(), BOUNDS));
      expect(error.code, JSON.stringify(body)).toBe('upstream_error');
      expect(error.message, JSON.stringify(body)).toContain(problem);
    }
  });

  it('reads an answer of exactly responseBytesMaximum bytes, and refuses one byte more naming the host and the setting', async () => {
    const body = { results: [{ similarity: 0.9, data: `fits ${'x'.repeat(2_000)}`, metadata: {} }], count: 1 };
    const answerBytes = Buffer.byteLength(JSON.stringify(body));
    knowledgeBase.enqueue({ body }, { body });
    const hits = await queryExternalKnowledgeServer(server(), '7', query(), { ...BOUNDS, responseBytesMaximum: answerBytes });
    expect(hits).toHaveLength(1);
    const error = await failure(queryExternalKnowledgeServer(server(), '7', query(), { ...BOUNDS, responseBytesMaximum: answerBytes - 1 }));
    expect(error.code).toBe('upstream_error');
    expect(error.message).toBe(
      `The knowledge-base server at ${host} sent an answer larger than KB_SERVER_RESPONSE_MAX_BYTES (${answerBytes - 1} bytes) allows.`,
    );
  });

  it('gives up after the timeout with a clear error, abandoning the request', async () => {
    knowledgeBase.enqueue({ delayMs: 10_000 });
    const started = Date.now();
    const error = await failure(queryExternalKnowledgeServer(server(), '7', query(), { ...BOUNDS, timeoutMilliseconds: 200 }));
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(error.code).toBe('upstream_timeout');
    expect(error.status).toBe(504);
    expect(error.message).toContain(host);
    expect(error.message).toContain('200 ms');
    await expect.poll(() => knowledgeBase.disconnectedRequests()).toBe(1);
  });

  it("cancels the request when the caller's signal aborts, with the caller's reason", async () => {
    knowledgeBase.enqueue({ delayMs: 10_000 });
    const controller = new AbortController();
    const reason = new Error('the learner went away');
    setTimeout(() => controller.abort(reason), 100);
    const started = Date.now();
    await expect(
      queryExternalKnowledgeServer(server(), '7', query(), { ...BOUNDS, timeoutMilliseconds: 10_000, signal: controller.signal }),
    ).rejects.toBe(reason);
    expect(Date.now() - started).toBeLessThan(3_000);
    await expect.poll(() => knowledgeBase.disconnectedRequests()).toBe(1);

    // An already-aborted signal sends nothing at all.
    const before = knowledgeBase.requests.length;
    await expect(
      queryExternalKnowledgeServer(server(), '7', query(), { ...BOUNDS, timeoutMilliseconds: 10_000, signal: AbortSignal.abort() }),
    ).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(knowledgeBase.requests.length).toBe(before);
  });

  it('says when the server cannot be reached', async () => {
    const gone = await startFakeLambKnowledgeServer();
    const goneUrl = gone.url;
    await gone.close();
    const error = await failure(queryExternalKnowledgeServer({ fetch: KB_FETCH, url: goneUrl, apiKey: KB_KEY }, '7', query(), BOUNDS));
    expect(error.code).toBe('upstream_error');
    expect(error.message).toContain(`${new URL(goneUrl).host} could not be reached`);
  });

  it('names only the host of a URL, never credentials or a query string in it', async () => {
    const url = new URL(knowledgeBase.url);
    url.username = 'lamb';
    url.password = KB_KEY;
    url.search = `?token=${KB_KEY}`;
    const error = await failure(queryExternalKnowledgeServer({ fetch: KB_FETCH, url: url.toString() }, '404', query(), BOUNDS));
    expect(error.message).toContain(host);
  });

  it('refuses a URL that is not http(s)', async () => {
    const error = await failure(
      queryExternalKnowledgeServer({ fetch: KB_FETCH, url: 'file:///etc/passwd', apiKey: KB_KEY }, '7', query(), BOUNDS),
    );
    expect(error.code).toBe('upstream_error');
    expect(error.message).toMatch(/not an http\(s\) URL/);
  });

  it('refuses a URL that does not parse, sending nothing', async () => {
    const error = await failure(
      queryExternalKnowledgeServer({ fetch: KB_FETCH, url: 'lamb kb server', apiKey: KB_KEY }, '7', query(), BOUNDS),
    );
    expect(error.code).toBe('upstream_error');
    expect(error.message).toBe("The organization's knowledge-base server URL is not a valid URL.");
    expect(knowledgeBase.requests).toEqual([]);
  });

  it('takes an https URL: a server that does not speak TLS there is unreachable, not a refused scheme', async () => {
    const error = await failure(
      queryExternalKnowledgeServer(
        { fetch: KB_FETCH, url: knowledgeBase.url.replace(/^http:/, 'https:'), apiKey: KB_KEY },
        '7',
        query(),
        BOUNDS,
      ),
    );
    expect(error.code).toBe('upstream_error');
    expect(error.message).toBe(`The knowledge-base server at ${host} could not be reached.`);
  });

  it("passes on the outbound guard's refusal of an internal address, also when the fetch wrapped it, and sends nothing", async () => {
    const guard = new OutboundGuard({ allowedHosts: [] });
    const guardedFetch = guard.fetchFor('kb_server.url');
    // As fetch itself does with a connector's error: a TypeError whose cause is the refusal.
    const wrappingFetch: typeof guardedFetch = (input, init) =>
      guardedFetch(input, init).catch((error: unknown) => {
        throw new TypeError('fetch failed', { cause: error });
      });
    try {
      for (const fetch of [guardedFetch, wrappingFetch]) {
        const error = await failure(queryExternalKnowledgeServer({ fetch, url: knowledgeBase.url, apiKey: KB_KEY }, '7', query(), BOUNDS));
        expect(error.code).toBe('upstream_refused');
        expect(error.status).toBe(502);
        expect(error.message).toMatch(/^The organization's kb_server\.url points to 127\.0\.0\.1, which is not a public address;/);
      }
      expect(knowledgeBase.requests).toEqual([]);
    } finally {
      await guard.close();
    }
  });

  it('refuses an empty collection id before sending anything', async () => {
    const error = await failure(queryExternalKnowledgeServer(server(), '', query(), BOUNDS));
    expect(error.code).toBe('assistant_misconfigured');
    expect(error.message).toBe('The knowledge base id is empty.');
    expect(knowledgeBase.requests).toEqual([]);
  });

  it('treats an empty API key as none: no authorization header, and the error says a key is missing', async () => {
    const error = await failure(
      queryExternalKnowledgeServer({ fetch: KB_FETCH, url: knowledgeBase.url, apiKey: '' }, '7', query(), BOUNDS),
    );
    expect(knowledgeBase.requests.at(-1)!.headers.authorization).toBeUndefined();
    expect(error.code).toBe('upstream_error');
    expect(error.message).toBe(`The knowledge-base server at ${host} requires an API key, and the organization has none set (HTTP 403).`);
  });

  it('refuses a redirect status (300 to 399) without following it, naming the host and never the key', async () => {
    const elsewhere = await startFakeLambKnowledgeServer({ collections: { '7': PASSAGES } });
    try {
      for (const status of [300, 301, 302, 303, 307, 308, 399]) {
        knowledgeBase.enqueue({ status, headers: { location: `${elsewhere.url}/collections/7/query` } });
        const error = await failure(queryExternalKnowledgeServer(server(), '7', query(), BOUNDS));
        expect(error.code, String(status)).toBe('upstream_error');
        expect(error.status).toBe(502);
        expect(error.message).toBe(
          `The knowledge-base server at ${host} answered with a redirect (HTTP ${status}); set the organization's knowledge-base URL to where it points.`,
        );
      }
      expect(elsewhere.requests).toEqual([]);
    } finally {
      await elsewhere.close();
    }
  });

  it('refuses a 304, which comes without a body, as a redirect too', async () => {
    knowledgeBase.enqueue({ status: 304 });
    const error = await failure(queryExternalKnowledgeServer(server(), '7', query(), BOUNDS));
    expect(error.code).toBe('upstream_error');
    expect(error.message).toBe(
      `The knowledge-base server at ${host} answered with a redirect (HTTP 304); set the organization's knowledge-base URL to where it points.`,
    );
  });

  it('cancels the body of an error answer instead of reading it', async () => {
    knowledgeBase.enqueue({ status: 500, errorBodyStallMs: 10_000, errorDetail: `Failed on '${QUERY_TEXT}'` });
    const started = Date.now();
    const error = await failure(queryExternalKnowledgeServer(server(), '7', query(), BOUNDS));
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(error.message).toBe(`The knowledge-base server at ${host} failed to answer (HTTP 500).`);
    await expect.poll(() => knowledgeBase.disconnectedRequests()).toBe(1);
  });

  it('names a rejected query (400 to 499) and rate limiting (429) in full', async () => {
    for (const status of [400, 422, 499]) {
      knowledgeBase.enqueue({ status });
      const error = await failure(queryExternalKnowledgeServer(server(), '7', query(), BOUNDS));
      expect(error.code, String(status)).toBe('upstream_rejected');
      expect(error.message).toBe(`The knowledge-base server at ${host} rejected the query (HTTP ${status}).`);
    }
    knowledgeBase.enqueue({ status: 429 });
    const limited = await failure(queryExternalKnowledgeServer(server(), '7', query(), BOUNDS));
    expect(limited.code).toBe('upstream_rate_limited');
    expect(limited.message).toBe(`The knowledge-base server at ${host} is rate limiting requests; try again later.`);
  });

  it('shows a collection id of up to 120 characters in full in a 404, and cuts a longer one there', async () => {
    const fits = 'k'.repeat(120);
    const notFound = (shown: string) => `Knowledge base ${shown} not found on the organization's knowledge-base server (${host}).`;
    expect((await failure(queryExternalKnowledgeServer(server(), fits, query(), BOUNDS))).message).toBe(notFound(fits));
    const long = `${fits}XYZ`;
    const error = await failure(queryExternalKnowledgeServer(server(), long, query(), BOUNDS));
    expect(error.code).toBe('not_found');
    expect(error.message).toBe(notFound(`${fits}…`));
  });

  it('refuses a count that is negative or not whole, and takes a count of zero or none', async () => {
    for (const count of [-1, 1.5]) {
      knowledgeBase.enqueue({ body: { results: [], count } });
      const error = await failure(queryExternalKnowledgeServer(server(), '7', query(), BOUNDS));
      expect(error.message, String(count)).toBe(`The knowledge-base server at ${host} sent a malformed answer: "count" is not a count.`);
    }
    knowledgeBase.enqueue({ body: { results: [], count: 0 } }, { body: { results: [{ similarity: 0.5, data: 'no count' }] } });
    expect(await queryExternalKnowledgeServer(server(), '7', query(), BOUNDS)).toEqual([]);
    expect(await queryExternalKnowledgeServer(server(), '7', query(), BOUNDS)).toEqual([
      { text: 'no count', similarity: 0.5, metadata: {} },
    ]);
  });

  it('refuses a similarity that is not finite (1e999 and -1e999 parse to infinities)', async () => {
    for (const similarity of ['1e999', '-1e999']) {
      knowledgeBase.enqueue({
        rawJson: `{"results": [{"similarity": 0.9, "data": "ok"}, {"similarity": ${similarity}, "data": "huge"}], "count": 2}`,
      });
      const error = await failure(queryExternalKnowledgeServer(server(), '7', query(), BOUNDS));
      expect(error.message, similarity).toBe(
        `The knowledge-base server at ${host} sent a malformed answer: "results[1].similarity" is not a number.`,
      );
    }
  });

  it('rejects with an AbortError of its own when the caller aborts with a reason that is not an Error', async () => {
    knowledgeBase.enqueue({ delayMs: 10_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort('the learner went away'), 100);
    const error: unknown = await queryExternalKnowledgeServer(server(), '7', query(), {
      ...BOUNDS,
      timeoutMilliseconds: 10_000,
      signal: controller.signal,
    }).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(DOMException);
    expect(error).toMatchObject({ name: 'AbortError', message: 'The query was cancelled.' });
    await expect.poll(() => knowledgeBase.disconnectedRequests()).toBe(1);
  });

  it("lets go of the caller's signal when the call ends, answered or failed", async () => {
    const controller = new AbortController();
    const options = { ...BOUNDS, signal: controller.signal };
    expect(await queryExternalKnowledgeServer(server(), '7', query({ topK: 1 }), options)).toHaveLength(1);
    expect(getEventListeners(controller.signal, 'abort')).toEqual([]);
    knowledgeBase.enqueue({ status: 500 });
    await failure(queryExternalKnowledgeServer(server(), '7', query(), options));
    expect(getEventListeners(controller.signal, 'abort')).toEqual([]);
    expect(controller.signal.aborted).toBe(false);
  });
});

describe('the fake LAMB knowledge-base server', () => {
  let knowledgeBase: FakeLambKnowledgeServer;

  beforeAll(async () => {
    knowledgeBase = await startFakeLambKnowledgeServer({ apiKey: KB_KEY, collections: { '1': PASSAGES } });
  });

  afterAll(async () => {
    await possiblyUnset(knowledgeBase)?.close();
  });

  /** `key: null` sends no authorization header. */
  const post = (path: string, body: unknown, key: string | null = KB_KEY) =>
    fetch(`${knowledgeBase.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key !== null && { authorization: `Bearer ${key}` }) },
      body: JSON.stringify(body),
    });

  it("answers in LAMB's shape, letting plugin_params override top_k and the threshold", async () => {
    const response = await post('/collections/1/query', {
      query_text: 'light sugar',
      top_k: 1,
      threshold: 0,
      plugin_params: { top_k: 3, threshold: 0.5 },
    });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as any;
    expect(Object.keys(answer).sort()).toEqual(['count', 'embedding_info', 'query', 'results', 'timing']);
    expect(answer.query).toBe('light sugar');
    expect(answer.count).toBe(answer.results.length);
    expect(answer.timing).toEqual({ total_seconds: expect.any(Number), total_ms: expect.any(Number) });
    expect(answer.results.map((result: any) => result.data)).toEqual([PASSAGES[1]!.text, PASSAGES[0]!.text, PASSAGES[2]!.text]);
    expect(answer.results[0]).toEqual({ similarity: 1, data: PASSAGES[1]!.text, metadata: PASSAGES[1]!.metadata });
  });

  it("speaks FastAPI's errors: 403 without a key, 401 with a wrong one, 404, 422", async () => {
    expect((await post('/collections/1/query', { query_text: 'x' }, null)).status).toBe(403);
    expect((await post('/collections/1/query', { query_text: 'x' }, 'wrong')).status).toBe(401);
    const missing = await post('/collections/2/query', { query_text: 'x' });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ detail: 'Collection with ID 2 not found' });
    const invalid = await post('/collections/1/query', { top_k: 2 });
    expect(invalid.status).toBe(422);
    expect(((await invalid.json()) as any).detail[0].loc).toEqual(['body', 'query_text']);
    expect((await post('/collections/1/query?plugin_name=parent_child_query', { query_text: 'x' })).status).toBe(404);
  });
});
