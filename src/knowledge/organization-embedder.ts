/**
 * Embeds texts for a knowledge base with the model it was created with, reaching the provider
 * through its organization's settings (or the server's defaults), under the embeddings timeout.
 */
import type { ProviderSettings } from '../pipeline/connector-definition.js';
import { resolveProvider, type ProviderDefaults } from '../organizations/provider-resolution.js';
import { embedTexts, type EmbeddingConnector } from './embedding-client.js';

export interface EmbeddingChoice {
  connector: EmbeddingConnector;
  model: string;
}

/** The embedding model a knowledge base was created with, if any. */
export function embeddingChoiceOf(knowledgeBase: { embedding_connector: EmbeddingConnector | null; embedding_model: string | null }): EmbeddingChoice | undefined {
  const { embedding_connector: connector, embedding_model: model } = knowledgeBase;
  return connector !== null && model !== null ? { connector, model } : undefined;
}

export type Embedder = (organizationId: number, choice: EmbeddingChoice, texts: readonly string[], signal?: AbortSignal) => Promise<Float32Array[]>;

export function organizationEmbedder(
  providersFor: (organizationId: number) => Promise<Record<string, ProviderSettings>>,
  defaults: ProviderDefaults,
  timeoutMilliseconds: number,
): Embedder {
  return async (organizationId, choice, texts, signal) => {
    const provider = resolveProvider(choice.connector, await providersFor(organizationId), defaults);
    return embedTexts({ connector: choice.connector, model: choice.model, provider }, texts, { timeoutMilliseconds, ...(signal !== undefined && { signal }) });
  };
}
