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

/**
 * The least similarity a knowledge-base tool keeps when its assistant names none. Similarities of
 * real matches differ by retrieval mode: a full-text match on PostgreSQL often scores under 0.1,
 * a cosine of unrelated text embeddings reaches 0.2. No fixed number above 0 means "related" in
 * every mode, so the default keeps every passage that shares anything with the query, and a
 * passage at 0 (nothing shared) is never kept (searchCollections); a teacher who knows the mode
 * raises it per tool.
 */
export const LEAST_SIMILARITY_DEFAULT = 0;

/** JSON Schema of `threshold` in a knowledge-base tool's config: the least similarity a passage needs to be used and listed. */
export const thresholdSchema = {
  type: 'number',
  minimum: 0,
  maximum: 1,
  default: LEAST_SIMILARITY_DEFAULT,
  description:
    'How close a passage must be to the question to be used and listed as a source: 0 keeps any passage that shares something with it, 1 only an identical one',
} as const;

/** Most characters of a passage a source keeps, so a stored answer stays small whatever a knowledge server sends. */
export const SOURCE_PASSAGE_CHARACTERS_MAXIMUM = 4_000;

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

/**
 * Queries every collection at once (each checked by the search port) and keeps the best `topK`
 * passages overall. A passage with similarity 0 shares nothing with the query, so it is never
 * kept, whatever the threshold.
 */
export async function searchCollections(context: ToolContext, search: CollectionsSearch): Promise<KnowledgeHit[]> {
  const { query, topK, threshold } = search;
  const perCollection = await Promise.all(
    search.collections.map((collectionId) =>
      context.knowledge.query({ collectionId, queryText: query, topK, threshold, signal: context.signal }),
    ),
  );
  return perCollection
    .flat()
    .filter((hit) => hit.similarity > 0 && hit.similarity >= threshold)
    .sort((a, b) => b.similarity - a.similarity)
    .slice(0, topK);
}

/** A retrieved passage as a source: its document, where in it (chunk, page, section), and its text, which the reader can expand. */
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
    ...(typeof metadata.heading === 'string' && metadata.heading.trim() !== '' && { section: metadata.heading }),
    // eslint-disable-next-line @typescript-eslint/no-base-to-string
    ...(metadata.knowledge_base_id !== undefined && { knowledge_base_id: String(metadata.knowledge_base_id) }),
    text: hit.text.slice(0, SOURCE_PASSAGE_CHARACTERS_MAXIMUM),
  };
}
