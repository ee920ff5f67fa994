/** Checks of the full-text index's bookkeeping that several tests share. */
import type { Kysely } from 'kysely';
import { expect } from 'vitest';
import type { Database } from '../../src/store/schema.js';

/** Expects every term's kept chunk count (`kb_terms`) to equal its postings in the knowledge base; answers how many terms it has. */
export async function expectTermCountsMatchPostings(db: Kysely<Database>, knowledgeBaseId: number): Promise<number> {
  const fromPostings = await db
    .selectFrom('kb_postings')
    .select((eb) => ['term', eb.fn.countAll<number | string>().as('chunks')])
    .where('knowledge_base_id', '=', knowledgeBaseId)
    .groupBy('term')
    .orderBy('term')
    .execute();
  const kept = await db
    .selectFrom('kb_terms')
    .select(['term', 'chunk_count'])
    .where('knowledge_base_id', '=', knowledgeBaseId)
    .where('chunk_count', '<>', 0)
    .orderBy('term')
    .execute();
  expect(kept.map((row) => [row.term, row.chunk_count])).toEqual(fromPostings.map((row) => [row.term, Number(row.chunks)]));
  return kept.length;
}
