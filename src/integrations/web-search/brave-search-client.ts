/**
 * The Brave Search API: `GET <base>/res/v1/web/search?q=…&count=…` with the key in the
 * `X-Subscription-Token` header answers `{type: "search", query, web: {results: [{title, url,
 * description, …}]}, …}`; descriptions mark matches with `<strong>`, removed here.
 */
import { AppError } from '../../errors/app-error.js';
import { requestIntegrationJson } from '../integration-request.js';
import { searchResults, type WebSearchResult } from './web-search-results.js';
import type { WebSearchRequest } from './web-search-request.js';

/** Brave answers at most 20 results a request. */
const BRAVE_COUNT_MAXIMUM = 20;

export async function searchWithBrave(request: WebSearchRequest): Promise<WebSearchResult[]> {
  const { connection } = request;
  if (connection.apiKey === undefined) throw new AppError('assistant_misconfigured', "The organization's Brave Search API key is not set.");
  const url = new URL('res/v1/web/search', connection.url.endsWith('/') ? connection.url : `${connection.url}/`);
  url.searchParams.set('q', request.query);
  url.searchParams.set('count', String(Math.min(request.count, BRAVE_COUNT_MAXIMUM)));
  const answer = await requestIntegrationJson({
    service: 'Brave Search',
    url,
    headers: { 'x-subscription-token': connection.apiKey },
    timeoutMilliseconds: connection.timeoutMilliseconds,
    responseBytesMaximum: connection.responseBytesMaximum,
    signal: request.signal,
    fetch: connection.fetch,
  });
  if (typeof answer !== 'object' || answer === null) throw new AppError('upstream_error', `Brave Search at ${url.host} sent no results.`);
  // A query with no web results has no `web` member at all.
  const web = (answer as { web?: { results?: unknown } }).web;
  return searchResults(web?.results, { title: 'title', url: 'url', snippet: 'description' }, request.count);
}
