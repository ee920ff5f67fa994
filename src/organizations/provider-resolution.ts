/**
 * Where a connector reaches its provider for one organization, and with which key and fetch.
 * Chat completions, embeddings and query rewriting all get their providers from here (through
 * ProviderSettingsService.providersFor), so they agree, and the rule lives in one place. For each
 * keyed provider (`openai`, `anthropic`, `gemini`):
 *
 * - An organization that sets its own base URL is served at that URL with its own key only, or
 *   with no key when it sets none (local vLLM and llama.cpp servers need none; a provider that
 *   does answers 401, reported as a missing key). The server's key (OPENAI_API_KEY,
 *   ANTHROPIC_API_KEY, GEMINI_API_KEY) never travels to a URL an organization chose: that URL
 *   could be a server the organization admin controls.
 * - Otherwise the server's URL is used, with the organization's key when it sets one, else the
 *   server's key: the server's URL is the operator's, so either key may go there.
 * - An organization's URL is reached through the outbound guard; the server's may go anywhere.
 */
import type { Settings } from '../config/settings.js';
import { type OutboundFetch } from '../pipeline/upstream/outbound-fetch.js';
import type { OutboundPost } from '../pipeline/upstream/outbound-post.js';
import type { ProviderSettings } from '../pipeline/plugin-contract/connector-definition.js';

export type ServerProviderDefaults = Pick<
  Settings,
  | 'openaiApiKey'
  | 'openaiBaseUrl'
  | 'ollamaBaseUrl'
  | 'anthropicApiKey'
  | 'anthropicBaseUrl'
  | 'geminiApiKey'
  | 'geminiBaseUrl'
  | 'imageProvider'
>;

/** The connector that generates images through the provider IMAGE_PROVIDER names (docs/image-generation.md). */
export const IMAGE_CONNECTOR = 'banana_img';

/** A provider reached with a key: the OpenAI-compatible one, Anthropic and Gemini. */
export const KEYED_PROVIDERS = ['openai', 'anthropic', 'gemini'] as const;
export type KeyedProvider = (typeof KEYED_PROVIDERS)[number];

interface KeyedProviderSettings {
  apiKey?: string;
  baseUrl?: string;
}

/** What an organization stored for its providers, decrypted; never handed to a connector as it is. */
export type OrganizationProviders = Partial<Record<KeyedProvider, KeyedProviderSettings>> & {
  ollama?: { baseUrl?: string };
};

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

function serverDefaults(provider: KeyedProvider, server: ServerProviderDefaults): KeyedProviderSettings {
  if (provider === 'anthropic') return { apiKey: server.anthropicApiKey, baseUrl: server.anthropicBaseUrl };
  if (provider === 'gemini') return { apiKey: server.geminiApiKey, baseUrl: server.geminiBaseUrl };
  return { apiKey: server.openaiApiKey, baseUrl: server.openaiBaseUrl };
}

function isKeyedProvider(connectorName: string): connectorName is KeyedProvider {
  return (KEYED_PROVIDERS as readonly string[]).includes(connectorName);
}

/** The same rule for every keyed provider: the organization's URL with its key only, or the server's URL with either key. */
function resolveKeyedProvider(
  provider: KeyedProvider,
  organization: OrganizationProviders,
  server: ServerProviderDefaults,
  routes: OutboundRoutes,
): ProviderSettings {
  const own = organization[provider] ?? {};
  if (own.baseUrl !== undefined) {
    return {
      baseUrl: own.baseUrl,
      ...(own.apiKey !== undefined && { apiKey: own.apiKey }),
      ...routes.organization(`providers.${provider}.base_url`),
    };
  }
  const defaults = serverDefaults(provider, server);
  const apiKey = own.apiKey ?? defaults.apiKey;
  return {
    ...(defaults.baseUrl !== undefined && { baseUrl: defaults.baseUrl }),
    ...(apiKey !== undefined && { apiKey }),
    ...routes.server,
  };
}

export function resolveProvider(
  connectorName: string,
  organization: OrganizationProviders,
  server: ServerProviderDefaults,
  routes: OutboundRoutes,
): ProviderSettings {
  if (isKeyedProvider(connectorName)) return resolveKeyedProvider(connectorName, organization, server, routes);
  // Images go to the image provider with that provider's own URL and key, under the same rule.
  if (connectorName === IMAGE_CONNECTOR)
    return { ...resolveKeyedProvider(server.imageProvider, organization, server, routes), imageProvider: server.imageProvider };
  if (connectorName === 'ollama') {
    const own = organization.ollama ?? {};
    if (own.baseUrl !== undefined) return { baseUrl: own.baseUrl, ...routes.organization('providers.ollama.base_url') };
    return { baseUrl: server.ollamaBaseUrl, ...routes.server };
  }
  // Connectors without provider settings (bypass, plugins) reach only what the server configured.
  return { ...routes.server };
}
