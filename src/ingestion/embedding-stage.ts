/**
 * The embedding stage of ingestion: one vector per chunk, a batch per request to the knowledge
 * base's embedding model, progress recorded before each batch. A provider's failure fails the job
 * with the model named in its message.
 */
import type { Selectable } from 'kysely';
import { AppError, isAppError } from '../errors/app-error.js';
import { embeddingChoiceOf, type Embedder } from '../retrieval/organization-embedder.js';
import type { KnowledgeBasesTable } from '../store/schema.js';

export interface EmbeddingStageRequest {
  embedder: Embedder | undefined;
  batchSize: number;
  knowledgeBase: Selectable<KnowledgeBasesTable>;
  /** Whom the calls are counted to: the uploader, with no assistant. */
  userId: number;
  texts: readonly string[];
  /** Records that the batch starting at chunk `start` begins; rejects when the job is no longer ours. */
  progress(start: number): Promise<void>;
}

/** The chunks' vectors in order; none when the knowledge base has no embedding model. */
export async function embedChunks(request: EmbeddingStageRequest): Promise<Float32Array[]> {
  const { embedder, batchSize, knowledgeBase, texts } = request;
  const choice = embeddingChoiceOf(knowledgeBase);
  if (choice === undefined || texts.length === 0) return [];
  if (embedder === undefined) throw new AppError('upstream_error', 'This server cannot compute embeddings.');
  const vectors: Float32Array[] = [];
  for (let start = 0; start < texts.length; start += batchSize) {
    await request.progress(start);
    try {
      vectors.push(
        ...(await embedder({
          organizationId: knowledgeBase.organization_id,
          choice,
          texts: texts.slice(start, start + batchSize),
          attribution: { userId: request.userId, assistantId: 0, requestId: null },
        })),
      );
    } catch (error) {
      if (isAppError(error))
        throw new AppError(
          error.code,
          `Computing the embeddings with ${choice.connector} model "${choice.model}" failed: ${error.message}`,
        );
      throw error;
    }
  }
  return vectors;
}
