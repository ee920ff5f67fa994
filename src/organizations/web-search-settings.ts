/**
 * An organization's web search provider as provider-settings-service.ts stores, shows and changes
 * it: the provider's name, its URL, and its key encrypted with the SecretBox. Kept apart from the
 * service so each of the organization's settings stays a short read.
 */
import type { ProviderSettingsPatch, ProviderSettingsView } from './provider-settings-schemas.js';
import { WEB_SEARCH_PROVIDERS } from './provider-settings-schemas.js';

export type WebSearchProvider = (typeof WEB_SEARCH_PROVIDERS)[number];

export interface StoredWebSearch {
  provider?: WebSearchProvider;
  url?: string;
  /** Encrypted with the SecretBox, like the OpenAI key. */
  api_key?: string;
}

/** The endpoints Brave's and Tavily's own APIs answer at; SearXNG is always self-hosted, so it has none. */
export const WEB_SEARCH_DEFAULT_URLS: Partial<Record<WebSearchProvider, string>> = {
  brave: 'https://api.search.brave.com',
  tavily: 'https://api.tavily.com',
};

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function storedWebSearch(stored: unknown): StoredWebSearch {
  if (typeof stored !== 'object' || stored === null) return {};
  const record = stored as Record<string, unknown>;
  const provider = WEB_SEARCH_PROVIDERS.find((known) => known === record.provider);
  const url = text(record.url);
  const apiKey = text(record.api_key);
  return {
    ...(provider !== undefined && { provider }),
    ...(url !== undefined && { url }),
    ...(apiKey !== undefined && { api_key: apiKey }),
  };
}

export function webSearchView(stored: unknown): ProviderSettingsView['web_search'] {
  const webSearch = storedWebSearch(stored);
  return { provider: webSearch.provider ?? null, url: webSearch.url ?? null, api_key_set: webSearch.api_key !== undefined };
}

/**
 * The stored setting after a patch (`seal` encrypts a key), or undefined when nothing is left. A
 * patch naming another provider forgets the URL and key it does not set: a Brave key must never
 * be sent to Tavily, nor a SearXNG instance's URL used as Brave's.
 */
export function patchedWebSearch(
  current: unknown,
  change: NonNullable<ProviderSettingsPatch['web_search']>,
  seal: (key: string) => string,
): StoredWebSearch | undefined {
  const before = storedWebSearch(current);
  const switched = change.provider !== undefined && change.provider !== before.provider;
  const kept: StoredWebSearch = switched ? {} : { ...before };
  const provider = change.provider ?? before.provider;
  const url = change.url === undefined ? kept.url : (change.url ?? undefined);
  const apiKey = change.api_key === undefined ? kept.api_key : change.api_key === null ? undefined : seal(change.api_key);
  const next: StoredWebSearch = {
    ...(provider !== undefined && { provider }),
    ...(url !== undefined && { url }),
    ...(apiKey !== undefined && { api_key: apiKey }),
  };
  return Object.keys(next).length === 0 ? undefined : next;
}

/** The provider, URL and key a search uses, or undefined until the provider has what it needs (SearXNG a URL, the others a key). */
export function usableWebSearch(
  stored: unknown,
  open: (sealed: string) => string,
): { provider: WebSearchProvider; url: string; apiKey?: string } | undefined {
  const webSearch = storedWebSearch(stored);
  if (webSearch.provider === undefined) return undefined;
  const url = webSearch.url ?? WEB_SEARCH_DEFAULT_URLS[webSearch.provider];
  if (url === undefined) return undefined;
  // SearXNG takes no key: one set for it is kept but never sent.
  if (webSearch.provider === 'searxng') return { provider: 'searxng', url };
  if (webSearch.api_key === undefined) return undefined;
  return { provider: webSearch.provider, url, apiKey: open(webSearch.api_key) };
}
