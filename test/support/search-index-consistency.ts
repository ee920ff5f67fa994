/** Checks of the full-text index's bookkeeping that several tests share. */
import type { Kysely } from 'kysely';
import { expect } from 'vitest';
import type { Database } from '../../src/store/schema.js';

/**
 * Expects the knowledge base's postings to be exactly those its indexed chunks' term lists
 * (`kb_chunks.index_terms`, by which a chunk's postings are found when it is unindexed or deleted)
 * name: no chunk with a posting its list lacks or a listed term without its posting, and no
 * posting of a chunk that is gone or not indexed. Answers how many distinct terms the postings hold.
 */
export async function expectTermListsMatchPostings(db: Kysely<Database>, knowledgeBaseId: number): Promise<number> {
  const postings = await db
    .selectFrom('kb_postings')
    .select(['chunk_id', 'term'])
    .where('knowledge_base_id', '=', knowledgeBaseId)
    .orderBy('chunk_id')
    .execute();
  const fromPostings = new Map<number, string[]>();
  for (const { chunk_id: chunkId, term } of postings) {
    const terms = fromPostings.get(chunkId) ?? [];
    terms.push(term);
    fromPostings.set(chunkId, terms);
  }
  const chunks = await db
    .selectFrom('kb_chunks')
    .select(['id', 'index_terms'])
    .where('knowledge_base_id', '=', knowledgeBaseId)
    .where('index_length', 'is not', null)
    .orderBy('id')
    .execute();
  const fromLists = new Map<number, string[]>();
  for (const { id, index_terms: terms } of chunks) {
    const listed = JSON.parse(terms ?? '[]') as string[];
    if (listed.length > 0) fromLists.set(id, listed);
  }
  // Sorted by the same comparison on both sides: the stores' collations need not agree with JavaScript's.
  const sorted = (byChunk: Map<number, string[]>) => [...byChunk].map(([chunkId, terms]) => [chunkId, [...terms].sort()]);
  expect(sorted(fromPostings)).toEqual(sorted(fromLists));
  return new Set(postings.map((posting) => posting.term)).size;
}
