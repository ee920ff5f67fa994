/**
 * Embeds texts for a knowledge base with the model it was created with, reaching the provider
 * through its organization's settings (or the server's defaults), resolved as chat's are (one
 * rule for keys and URLs, provider-resolution.ts), under the embeddings timeout.
 */
import type { ProviderSettings } from '../pipeline/plugin-contract/connector-definition.js';
import { embedTexts, type EmbeddingConnector } from './embedding-client.js';

export interface EmbeddingChoice {
  connector: EmbeddingConnector;
  model: string;
}

/** The embedding model a knowledge base was created with, if any. */
export function embeddingChoiceOf(knowledgeBase: {
  embedding_connector: EmbeddingConnector | null;
  embedding_model: string | null;
}): EmbeddingChoice | undefined {
  const { embedding_connector: connector, embedding_model: model } = knowledgeBase;
  return connector !== null && model !== null ? { connector, model } : undefined;
}

export type Embedder = (
  organizationId: number,
  choice: EmbeddingChoice,
  texts: readonly string[],
  signal?: AbortSignal,
) => Promise<Float32Array[]>;

export function organizationEmbedder(
  providersFor: (organizationId: number) => Promise<(connectorName: string) => ProviderSettings>,
  timeoutMilliseconds: number,
): Embedder {
  return async (organizationId, choice, texts, signal) => {
    const provider = (await providersFor(organizationId))(choice.connector);
    return embedTexts({ connector: choice.connector, model: choice.model, provider }, texts, {
      timeoutMilliseconds,
      ...(signal !== undefined && { signal }),
    });
  };
}
