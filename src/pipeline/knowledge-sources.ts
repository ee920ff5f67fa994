/**
 * What the knowledge-base tools share: the config field naming their collections, and how a
 * retrieved passage becomes a source (title, URL, similarity, document, chunk, page).
 */
import type { Source } from './events.js';
import type { KnowledgeHit } from './ports.js';

/** Most knowledge bases one tool entry may search. */
export const COLLECTIONS_MAXIMUM = 20;

/** JSON Schema of `collections` in a knowledge-base tool's config: LAMB's collection ids, as strings. */
export const collectionsSchema = {
  type: 'array',
  minItems: 1,
  maxItems: COLLECTIONS_MAXIMUM,
  items: { type: 'string', minLength: 1, maxLength: 200 },
} as const;

export function sourceOfHit(hit: KnowledgeHit): Source {
  const metadata = hit.metadata;
  return {
    title: typeof metadata.filename === 'string' ? metadata.filename : `knowledge base ${String(metadata.knowledge_base_id)}`,
    ...(typeof metadata.source_url === 'string' && { url: metadata.source_url }),
    similarity: hit.similarity,
    ...(metadata.document_id !== undefined && { document_id: String(metadata.document_id) }),
    ...(typeof metadata.chunk_index === 'number' && { chunk_index: metadata.chunk_index }),
    ...(typeof metadata.page === 'number' && { page: metadata.page }),
  };
}
