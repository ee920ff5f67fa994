/**
 * What the knowledge-base tools share: the config field naming their collections, searching them
 * all at once, and how a retrieved passage becomes a source (title, URL, similarity, document,
 * chunk, page).
 */
import type { Source } from '../conversation/events.js';
import type { KnowledgeHit } from './ports.js';
import type { ToolContext } from './tool-definition.js';

/** Most knowledge bases one tool entry may search. */
export const COLLECTIONS_MAXIMUM = 20;

/** JSON Schema of `collections` in a knowledge-base tool's config: LAMB's collection ids, as strings. */
export const collectionsSchema = {
  type: 'array',
  minItems: 1,
  maxItems: COLLECTIONS_MAXIMUM,
  items: { type: 'string', minLength: 1, maxLength: 200 },
} as const;

/** One search over several collections: the text to look for, the passages to keep, the least similarity to keep one. */
export interface CollectionsSearch {
  collections: readonly string[];
  query: string;
  topK: number;
  threshold: number;
}

/** Queries every collection at once (each checked by the search port) and keeps the best `topK` passages overall. */
export async function searchCollections(context: ToolContext, search: CollectionsSearch): Promise<KnowledgeHit[]> {
  const { query, topK, threshold } = search;
  const perCollection = await Promise.all(
    search.collections.map((collectionId) =>
      context.knowledge.query({ collectionId, queryText: query, topK, threshold, signal: context.signal }),
    ),
  );
  return perCollection
    .flat()
    .sort((a, b) => b.similarity - a.similarity)
    .slice(0, topK);
}

export function sourceOfHit(hit: KnowledgeHit): Source {
  const metadata = hit.metadata;
  return {
    title: typeof metadata.filename === 'string' ? metadata.filename : `knowledge base ${String(metadata.knowledge_base_id)}`,
    ...(typeof metadata.source_url === 'string' && { url: metadata.source_url }),
    similarity: hit.similarity,
    // A document id is stored as a number or a string; either reads the same as text.
    // eslint-disable-next-line @typescript-eslint/no-base-to-string
    ...(metadata.document_id !== undefined && { document_id: String(metadata.document_id) }),
    ...(typeof metadata.chunk_index === 'number' && { chunk_index: metadata.chunk_index }),
    ...(typeof metadata.page === 'number' && { page: metadata.page }),
  };
}
