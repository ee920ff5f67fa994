/**
 * Migration 0098 on both dialects, over a store at 0097 whose chunks were indexed as the code of
 * that day indexed them (postings, no term lists): the migration gives each chunk the list of its
 * postings' terms, and afterwards deleting a chunk, reindexing the knowledge base and deleting a
 * document each keep every term's chunk count equal to its postings and leave no posting of a
 * removed chunk behind. On SQLite the postings have lost their index on `chunk_id`, so the delete
 * trigger finds them through those lists alone.
 */
import { sql, type Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { searchChunksFullText } from '../src/store/chunk-search-repository.js';
import { deleteDocumentChunks, insertKnowledgeBase } from '../src/store/knowledge-repository.js';
import type { Database } from '../src/store/schema.js';
import { indexStoredChunks, reindexNextBatch } from '../src/store/search-index-repository.js';
import { analyseChunk, textAnalyzer } from '../src/store/text-analysis.js';
import { expectIndexMatchesChunks } from './support/search-index-consistency.js';
import { insertOrganizationWithOwner, storeMigratedTo, type StoreBeforeAMigration } from './support/store-before-a-migration.js';
import { insertCompletedDocument } from './support/stored-documents.js';
import { TEST_DIALECTS } from './support/test-databases.js';

const TEXTS = [
  'The telescope observed a distant galaxy and its bright stars.',
  'Stars form in clouds of gas and dust inside a galaxy.',
  'A comet has a tail of gas that points away from the sun.',
  '',
];

async function postingTermsOf(db: Kysely<Database>, chunkId: number): Promise<string[]> {
  const rows = await db.selectFrom('kb_postings').select('term').where('chunk_id', '=', chunkId).orderBy('term').execute();
  return rows.map((row) => row.term);
}

describe.each(TEST_DIALECTS)('migration 0098 on %s', (dialect) => {
  let store: StoreBeforeAMigration | undefined;

  afterEach(async () => {
    await store?.close();
    store = undefined;
  });

  it('gives chunks indexed before it their term lists, so unindexing them later leaves no posting behind', async () => {
    store = await storeMigratedTo(dialect, '0097-index-version');
    const { db } = store;
    const { organizationId, ownerId } = await insertOrganizationWithOwner(db, 'a', 'creator');
    const knowledgeBaseId = await insertKnowledgeBase(db, {
      ownerId,
      organizationId,
      name: 'Sky',
      description: '',
      chunkSize: 1000,
      chunkOverlap: 200,
    });
    const documentId = await insertCompletedDocument(db, knowledgeBaseId);
    const chunks = await db
      .insertInto('kb_chunks')
      .values(
        TEXTS.map((text, index) => ({
          knowledge_base_id: knowledgeBaseId,
          document_id: documentId,
          chunk_index: index,
          text,
          metadata: '{}',
        })),
      )
      .returning('id')
      .execute();
    const ids = chunks.map((chunk) => chunk.id).sort((left, right) => left - right);
    const analyzer = textAnalyzer('english');
    await db.transaction().execute((transaction) =>
      indexStoredChunks(
        transaction,
        knowledgeBaseId,
        ids.map((id, index) => ({ id, analysed: analyseChunk(analyzer, TEXTS[index]!, '{}') })),
        { titleLengths: true, version: true, termLists: false },
      ),
    );

    await store.migrateToLatest();

    for (const id of ids) {
      const { index_terms: terms } = await db.selectFrom('kb_chunks').select('index_terms').where('id', '=', id).executeTakeFirstOrThrow();
      expect((JSON.parse(terms ?? 'null') as string[]).sort()).toEqual(await postingTermsOf(db, id));
    }
    expect(await postingTermsOf(db, ids[0]!)).toContain('galaxi');
    expect(await expectIndexMatchesChunks(db, knowledgeBaseId)).toBeGreaterThan(10);

    await db.deleteFrom('kb_chunks').where('id', '=', ids[0]!).execute();
    expect(await postingTermsOf(db, ids[0]!)).toEqual([]);
    await expectIndexMatchesChunks(db, knowledgeBaseId);
    const search = (query: string) => searchChunksFullText(db, { dialect, knowledgeBaseIds: [knowledgeBaseId], query, limit: 10 });
    expect((await search('galaxy')).map((hit) => hit.text)).toEqual([TEXTS[1]]);

    await db
      .updateTable('knowledge_bases')
      .set({ search_language: 'none', reindex_cursor: 0, reindex_done: 0 })
      .where('id', '=', knowledgeBaseId)
      .execute();
    while ((await reindexNextBatch(db, { batchSize: 2 })) !== undefined);
    expect(await postingTermsOf(db, ids[1]!)).toContain('galaxy');
    await expectIndexMatchesChunks(db, knowledgeBaseId);

    await db.transaction().execute((transaction) => deleteDocumentChunks(transaction, documentId));
    expect(await db.selectFrom('kb_postings').select('term').where('knowledge_base_id', '=', knowledgeBaseId).execute()).toEqual([]);
    expect(await expectIndexMatchesChunks(db, knowledgeBaseId)).toBe(0);
    const totals = await db
      .selectFrom('knowledge_bases')
      .select(['index_chunk_count', 'index_length_total'])
      .where('id', '=', knowledgeBaseId)
      .executeTakeFirstOrThrow();
    expect(totals).toEqual({ index_chunk_count: 0, index_length_total: 0 });
    if (dialect === 'sqlite') {
      const indexes = await sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = 'kb_postings'`.execute(
        db,
      );
      expect(indexes.rows.map((row) => row.name)).not.toContain('kb_postings_chunk_index');
    }
  });
});
