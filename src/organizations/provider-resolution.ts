/**
 * Where a connector reaches its provider for one organization: each field from the
 * organization's settings when it sets one, else from the server's environment. Chat
 * completions, embeddings and query rewriting all resolve providers here, so they agree.
 */
import type { Settings } from '../config/settings.js';
import type { ProviderSettings } from '../pipeline/connector-definition.js';

export type ProviderDefaults = Pick<Settings, 'openaiApiKey' | 'openaiBaseUrl' | 'ollamaBaseUrl'>;

export function resolveProvider(connectorName: string, organizationProviders: Record<string, ProviderSettings>, defaults: ProviderDefaults): ProviderSettings {
  const own = organizationProviders[connectorName] ?? {};
  if (connectorName === 'openai') return { apiKey: own.apiKey ?? defaults.openaiApiKey, baseUrl: own.baseUrl ?? defaults.openaiBaseUrl };
  if (connectorName === 'ollama') return { baseUrl: own.baseUrl ?? defaults.ollamaBaseUrl };
  return own;
}
