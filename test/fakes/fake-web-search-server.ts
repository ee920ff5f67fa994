// A stand-in for the three web search providers Merino's `web_search` tool speaks to, each on its
// own path prefix of one loopback server and in its real wire format:
//
//   SearXNG   GET  <origin>/searxng/search?q=…&format=json
//     → {query, number_of_results, results: [{url, title, content, engine, engines, score, category}],
//        answers: [], corrections: [], infoboxes: [], suggestions: [], unresponsive_engines: []}
//     (403 with an HTML body unless format=json, as an instance without the json format answers)
//   Brave     GET  <origin>/brave/res/v1/web/search?q=…&count=…   X-Subscription-Token: <key>
//     → {type: "search", query: {original, …}, mixed: {…}, web: {type: "search", results: [{type:
//        "search_result", title, url, description (matches in <strong>), is_source_local, …}]}}
//     (422 {type: "ErrorResponse", error: {code: "SUBSCRIPTION_TOKEN_INVALID", …}} for a wrong key;
//      no `web` member when nothing matched)
//   Tavily    POST <origin>/tavily/search   Authorization: Bearer <key>   {query, max_results, …}
//     → {query, follow_up_questions: null, answer: null, images: [], results: [{title, url, content,
//        score, raw_content: null}], response_time}
//     (401 {detail: {error: "Unauthorized: missing or invalid API key."}} for a wrong key)
//
// Every provider answers with the same scripted results, so one test can run against each.
import type http from 'node:http';
import { appendBounded, listenOnLoopback, readRequestBody, recordedBody, sendJson, type RecordedRequest } from './fake-http.js';

export interface FakeSearchResult {
  title: string;
  url: string;
  snippet: string;
}

export interface FakeWebSearchServer {
  searxngUrl: string;
  braveUrl: string;
  tavilyUrl: string;
  requests: RecordedRequest[];
  /** The results every provider gives next (as many as the request asks for). */
  setResults(results: FakeSearchResult[]): void;
  /** Every provider answers this HTTP status with its own error body from now on; undefined stops it. */
  failWith(status: number | undefined): void;
  reset(): void;
  close(): Promise<void>;
}

export interface FakeWebSearchOptions {
  braveKey: string;
  tavilyKey: string;
}

/** Brave marks the words that matched in <strong>, and escapes entities. */
function braveDescription(snippet: string): string {
  const [first = '', ...rest] = snippet.split(' ');
  return [`<strong>${first.replace(/&/g, '&amp;')}</strong>`, ...rest.map((word) => word.replace(/&/g, '&amp;'))].join(' ');
}

export async function startFakeWebSearchServer(options: FakeWebSearchOptions): Promise<FakeWebSearchServer> {
  let results: FakeSearchResult[] = [];
  let failure: number | undefined;
  const requests: RecordedRequest[] = [];

  const searxng = (url: URL, response: http.ServerResponse): void => {
    if (url.searchParams.get('format') !== 'json') {
      response.writeHead(403, { 'content-type': 'text/html; charset=utf-8' });
      response.end('<html><body><h1>403 Forbidden</h1></body></html>');
      return;
    }
    const query = url.searchParams.get('q') ?? '';
    sendJson(response, 200, {
      query,
      number_of_results: 0,
      results: results.map((result, index) => ({
        url: result.url,
        title: result.title,
        content: result.snippet,
        engine: 'duckduckgo',
        parsed_url: ['http', new URL(result.url).host, new URL(result.url).pathname, '', '', ''],
        template: 'default.html',
        engines: ['duckduckgo', 'wikipedia'],
        positions: [index + 1],
        score: 2 / (index + 1),
        category: 'general',
      })),
      answers: [],
      corrections: [],
      infoboxes: [],
      suggestions: [`${query} definition`],
      unresponsive_engines: [],
    });
  };

  const brave = (url: URL, request: http.IncomingMessage, response: http.ServerResponse): void => {
    if (request.headers['x-subscription-token'] !== options.braveKey) {
      sendJson(response, 422, {
        type: 'ErrorResponse',
        error: {
          id: 'c5a3f1e2',
          status: 422,
          code: 'SUBSCRIPTION_TOKEN_INVALID',
          detail: 'The provided subscription token is invalid.',
          meta: {},
        },
        time: Date.now(),
      });
      return;
    }
    const count = Number(url.searchParams.get('count') ?? '20');
    const query = url.searchParams.get('q') ?? '';
    const listed = results.slice(0, count);
    sendJson(response, 200, {
      type: 'search',
      query: {
        original: query,
        show_strict_warning: false,
        is_navigational: false,
        local_decision: 'drop',
        country: 'us',
        more_results_available: true,
      },
      mixed: { type: 'mixed', main: listed.map((_result, index) => ({ type: 'web', index, all: false })), top: [], side: [] },
      ...(listed.length > 0 && {
        web: {
          type: 'search',
          results: listed.map((result) => ({
            type: 'search_result',
            subtype: 'generic',
            title: result.title,
            url: result.url,
            description: braveDescription(result.snippet),
            is_source_local: false,
            is_source_both: false,
            language: 'en',
            family_friendly: true,
            meta_url: {
              scheme: 'https',
              netloc: new URL(result.url).host,
              hostname: new URL(result.url).hostname,
              path: new URL(result.url).pathname,
            },
          })),
          family_friendly: true,
        },
      }),
    });
  };

  const tavily = async (request: http.IncomingMessage, response: http.ServerResponse): Promise<void> => {
    const body = await readRequestBody(request);
    const value = recordedBody(body) as { query?: unknown; max_results?: unknown } | undefined;
    requests[requests.length - 1]!.body = value;
    if (request.headers.authorization !== `Bearer ${options.tavilyKey}`) {
      sendJson(response, 401, { detail: { error: 'Unauthorized: missing or invalid API key.' } });
      return;
    }
    if (request.method !== 'POST' || typeof value?.query !== 'string') {
      sendJson(response, 400, { detail: { error: 'Query is missing.' } });
      return;
    }
    const maximum = typeof value.max_results === 'number' ? value.max_results : 5;
    sendJson(response, 200, {
      query: value.query,
      follow_up_questions: null,
      answer: null,
      images: [],
      results: results.slice(0, maximum).map((result, index) => ({
        title: result.title,
        url: result.url,
        content: result.snippet,
        score: 0.9 - index * 0.1,
        raw_content: null,
      })),
      response_time: 0.42,
    });
  };

  const server = await listenOnLoopback(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://fake');
    appendBounded(requests, {
      method: request.method ?? 'GET',
      path: `${url.pathname}${url.search}`,
      headers: request.headers,
      body: undefined,
      receivedAt: Date.now(),
    });
    if (failure !== undefined) {
      sendJson(response, failure, { error: 'scripted failure', echo: url.search });
      return;
    }
    if (url.pathname === '/searxng/search' && request.method === 'GET') {
      searxng(url, response);
      return;
    }
    if (url.pathname === '/brave/res/v1/web/search' && request.method === 'GET') {
      brave(url, request, response);
      return;
    }
    if (url.pathname === '/tavily/search') return tavily(request, response);
    sendJson(response, 404, { error: 'not found' });
  });

  return {
    searxngUrl: `${server.origin}/searxng`,
    braveUrl: `${server.origin}/brave`,
    tavilyUrl: `${server.origin}/tavily`,
    requests,
    setResults: (next) => {
      results = next;
    },
    failWith: (status) => {
      failure = status;
    },
    reset: () => {
      requests.length = 0;
      results = [];
      failure = undefined;
    },
    close: () => server.close(),
  };
}
