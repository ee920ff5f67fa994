/**
 * SearXNG, the self-hosted metasearch engine, through its JSON API:
 * `GET <instance>/search?q=…&format=json` answers `{query, results: [{url, title, content, …}], …}`.
 * The instance must have `json` among its `search.formats`; without it SearXNG answers 403, which
 * is reported as a rejected request.
 */
import { AppError } from '../../errors/app-error.js';
import { requestIntegrationJson } from '../integration-request.js';
import { searchResults, type WebSearchResult } from './web-search-results.js';
import type { WebSearchRequest } from './web-search-request.js';

export async function searchWithSearxng(request: WebSearchRequest): Promise<WebSearchResult[]> {
  const url = new URL('search', request.connection.url.endsWith('/') ? request.connection.url : `${request.connection.url}/`);
  url.searchParams.set('q', request.query);
  url.searchParams.set('format', 'json');
  const answer = await requestIntegrationJson({
    service: 'SearXNG',
    url,
    timeoutMilliseconds: request.connection.timeoutMilliseconds,
    responseBytesMaximum: request.connection.responseBytesMaximum,
    signal: request.signal,
    fetch: request.connection.fetch,
  });
  if (typeof answer !== 'object' || answer === null || !Array.isArray((answer as { results?: unknown }).results))
    throw new AppError('upstream_error', `SearXNG at ${url.host} sent an answer without results.`);
  return searchResults((answer as { results: unknown }).results, { title: 'title', url: 'url', snippet: 'content' }, request.count);
}
