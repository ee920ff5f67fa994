/**
 * Tavily's search API: `POST <base>/search` with `Authorization: Bearer <key>` and a JSON body
 * `{query, max_results, search_depth}` answers `{query, answer, results: [{title, url, content,
 * score}], response_time}`.
 */
import { AppError } from '../../errors/app-error.js';
import { requestIntegrationJson } from '../integration-request.js';
import { searchResults, type WebSearchResult } from './web-search-results.js';
import type { WebSearchRequest } from './web-search-request.js';

export async function searchWithTavily(request: WebSearchRequest): Promise<WebSearchResult[]> {
  const { connection } = request;
  if (connection.apiKey === undefined) throw new AppError('assistant_misconfigured', "The organization's Tavily API key is not set.");
  const url = new URL('search', connection.url.endsWith('/') ? connection.url : `${connection.url}/`);
  const answer = await requestIntegrationJson({
    service: 'Tavily',
    url,
    json: { query: request.query, max_results: request.count, search_depth: 'basic' },
    headers: { authorization: `Bearer ${connection.apiKey}` },
    timeoutMilliseconds: connection.timeoutMilliseconds,
    responseBytesMaximum: connection.responseBytesMaximum,
    signal: request.signal,
    fetch: connection.fetch,
  });
  if (typeof answer !== 'object' || answer === null || !Array.isArray((answer as { results?: unknown }).results))
    throw new AppError('upstream_error', `Tavily at ${url.host} sent an answer without results.`);
  return searchResults((answer as { results: unknown }).results, { title: 'title', url: 'url', snippet: 'content' }, request.count);
}
