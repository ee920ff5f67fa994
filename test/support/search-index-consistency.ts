/** Checks of the full-text index's bookkeeping that several tests share. */
import { sql, type Kysely } from 'kysely';
import { expect } from 'vitest';
import type { Database } from '../../src/store/schema.js';

/**
 * Expects the knowledge base's index to be exactly its chunks': its postings those its indexed
 * chunks' term lists (`kb_chunks.index_terms`, by which a chunk's postings are found when it is
 * unindexed or deleted) name (no chunk with a posting its list lacks or a listed term without its
 * posting, and no posting of a chunk that is gone or not indexed), and its totals (chunk count,
 * lengths, titled chunks) its chunks' own, every chunk indexed: a search's statistics and the
 * knowledge base's shown chunk count both read them. Answers how many distinct terms the postings hold.
 */
export async function expectIndexMatchesChunks(db: Kysely<Database>, knowledgeBaseId: number): Promise<number> {
  await expectTotalsMatchChunks(db, knowledgeBaseId);
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

async function expectTotalsMatchChunks(db: Kysely<Database>, knowledgeBaseId: number): Promise<void> {
  const totals = await db
    .selectFrom('knowledge_bases')
    .select(['index_chunk_count', 'index_length_total', 'index_titled_chunk_count', 'index_title_length_total'])
    .where('id', '=', knowledgeBaseId)
    .executeTakeFirstOrThrow();
  const chunks = await db
    .selectFrom('kb_chunks')
    .select([
      sql<number | string>`count(*)`.as('chunks'),
      sql<number | string>`count(index_length)`.as('indexed'),
      sql<number | string | null>`sum(index_length)`.as('length'),
      sql<number | string | null>`sum(case when index_title_length > 0 then 1 else 0 end)`.as('titled'),
      sql<number | string | null>`sum(index_title_length)`.as('title_length'),
    ])
    .where('knowledge_base_id', '=', knowledgeBaseId)
    .executeTakeFirstOrThrow();
  expect({
    chunks: totals.index_chunk_count,
    indexed: totals.index_chunk_count,
    length: totals.index_length_total,
    titled: totals.index_titled_chunk_count,
    titleLength: totals.index_title_length_total,
  }).toEqual({
    chunks: Number(chunks.chunks),
    indexed: Number(chunks.indexed),
    length: Number(chunks.length ?? 0),
    titled: Number(chunks.titled ?? 0),
    titleLength: Number(chunks.title_length ?? 0),
  });
}
