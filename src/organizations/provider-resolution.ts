/**
 * Where a connector reaches its provider for one organization, and with which key and fetch.
 * Chat completions, embeddings and query rewriting all get their providers from here (through
 * ProviderSettingsService.providersFor), so they agree, and the rule lives in one place:
 *
 * - An organization that sets its own base URL is served at that URL with its own key only, or
 *   with no key when it sets none (local vLLM and llama.cpp servers need none; a provider that
 *   does answers 401, reported as a missing key). The server's OPENAI_API_KEY never travels to
 *   a URL an organization chose: that URL could be a server the organization admin controls.
 * - Otherwise the server's URL is used, with the organization's key when it sets one, else the
 *   server's key: the server's URL is the operator's, so either key may go there.
 * - An organization's URL is reached through the outbound guard; the server's may go anywhere.
 */
import type { Settings } from '../config/settings.js';
import { type OutboundFetch } from '../pipeline/upstream/outbound-fetch.js';
import type { OutboundPost } from '../pipeline/upstream/outbound-post.js';
import type { ProviderSettings } from '../pipeline/plugin-contract/connector-definition.js';

export type ServerProviderDefaults = Pick<Settings, 'openaiApiKey' | 'openaiBaseUrl' | 'ollamaBaseUrl'>;

/** What an organization stored for its providers, decrypted; never handed to a connector as it is. */
export interface OrganizationProviders {
  openai?: { apiKey?: string; baseUrl?: string };
  ollama?: { baseUrl?: string };
}

/** How one URL is reached: a fetch, and the lean POST for provider calls, going the same way. */
export interface OutboundRoute {
  fetch: OutboundFetch;
  post: OutboundPost;
}

/** How URLs are reached: `server` for the environment's, `organization(field)` for the one an organization set in `field`. */
export interface OutboundRoutes {
  server: OutboundRoute;
  organization(field: string): OutboundRoute;
}

export function resolveProvider(
  connectorName: string,
  organization: OrganizationProviders,
  server: ServerProviderDefaults,
  routes: OutboundRoutes,
): ProviderSettings {
  if (connectorName === 'openai') {
    const own = organization.openai ?? {};
    if (own.baseUrl !== undefined) {
      return {
        baseUrl: own.baseUrl,
        ...(own.apiKey !== undefined && { apiKey: own.apiKey }),
        ...routes.organization('providers.openai.base_url'),
      };
    }
    const apiKey = own.apiKey ?? server.openaiApiKey;
    return {
      ...(server.openaiBaseUrl !== undefined && { baseUrl: server.openaiBaseUrl }),
      ...(apiKey !== undefined && { apiKey }),
      ...routes.server,
    };
  }
  if (connectorName === 'ollama') {
    const own = organization.ollama ?? {};
    if (own.baseUrl !== undefined) return { baseUrl: own.baseUrl, ...routes.organization('providers.ollama.base_url') };
    return { baseUrl: server.ollamaBaseUrl, ...routes.server };
  }
  // Connectors without provider settings (bypass, plugins) reach only what the server configured.
  return { ...routes.server };
}
