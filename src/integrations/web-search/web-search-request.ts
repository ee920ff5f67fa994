/**
 * One web search through the organization's provider: which provider, and the dispatch to its
 * client. The connection comes from the organization's settings (src/pipeline/plugin-contract/ports.ts,
 * `Integrations.webSearch`), the key decrypted only for the request.
 */
import type { Integrations } from '../../pipeline/plugin-api.js';
import { searchWithBrave } from './brave-search-client.js';
import { searchWithSearxng } from './searxng-client.js';
import { searchWithTavily } from './tavily-client.js';
import type { WebSearchResult } from './web-search-results.js';

export type WebSearchConnection = NonNullable<Integrations['webSearch']>;

export interface WebSearchRequest {
  connection: WebSearchConnection;
  query: string;
  /** How many results to keep. */
  count: number;
  signal: AbortSignal;
}

/** The service's name as people know it, for status lines and sources. */
export const WEB_SEARCH_PROVIDER_NAMES: Record<WebSearchConnection['provider'], string> = {
  searxng: 'SearXNG',
  brave: 'Brave Search',
  tavily: 'Tavily',
};

export function searchTheWeb(request: WebSearchRequest): Promise<WebSearchResult[]> {
  switch (request.connection.provider) {
    case 'searxng':
      return searchWithSearxng(request);
    case 'brave':
      return searchWithBrave(request);
    case 'tavily':
      return searchWithTavily(request);
  }
}
