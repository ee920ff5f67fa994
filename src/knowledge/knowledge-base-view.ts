/**
 * How the API shows a knowledge base (knowledgeBaseViewSchema), and the checks of what names one:
 * a language tag in canonical case, a collection id as LAMB configs write it.
 */
import { AppError } from '../errors/app-error.js';
import { embeddingChoiceOf } from '../retrieval/organization-embedder.js';
import type { KnowledgeBaseRecord } from '../store/knowledge-repository.js';
import type { KnowledgeBaseView } from './knowledge-base-schemas.js';

/** Why no entity graph can be built in an organization without a small fast model: what the view and the studio say. */
export const GRAPH_UNAVAILABLE_REASON =
  "The organization names no small fast model, which reads the entities of each passage; an admin can choose one in the organization's provider settings.";

/** The knowledge base as the API answers with it; `graphAvailable` says whether its organization has a small fast model. */
export function knowledgeBaseView(record: KnowledgeBaseRecord, graphAvailable: boolean): KnowledgeBaseView {
  return {
    id: record.id,
    name: record.name,
    description: record.description,
    owner: record.owner_email,
    organization_id: record.organization_id,
    visibility: record.visibility,
    language: record.language,
    chunk_size: record.chunk_size,
    chunk_overlap: record.chunk_overlap,
    embeddings:
      embeddingChoiceOf(record) === undefined
        ? null
        : { connector: record.embedding_connector, model: record.embedding_model, dimensions: record.embedding_dimensions },
    graph: {
      enabled: record.graph_enabled === 1,
      available: graphAvailable,
      unavailable_reason: graphAvailable ? null : GRAPH_UNAVAILABLE_REASON,
    },
    document_count: record.document_count,
    chunk_count: record.chunk_count,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

/**
 * A language tag in canonical case (`PT-br` → `pt-BR`), or null for none; the schema's pattern has
 * let it through, and Intl refuses what is still not a well-formed tag.
 */
export function canonicalLanguage(tag: string | null | undefined): string | null {
  if (tag === undefined || tag === null) return null;
  try {
    return Intl.getCanonicalLocales(tag)[0] ?? null;
  } catch {
    throw new AppError('invalid_body', 'The language must be a BCP-47 language tag such as "en", "es", "ca" or "eu".', {
      param: 'language',
    });
  }
}

/** Collection ids are strings in LAMB's configs (`"12"`); ours are positive integers. */
export function knowledgeBaseIdOf(collectionId: string): number | undefined {
  if (!/^\d{1,10}$/.test(collectionId)) return undefined;
  const id = Number(collectionId);
  return id >= 1 && id <= 2_147_483_647 ? id : undefined;
}
