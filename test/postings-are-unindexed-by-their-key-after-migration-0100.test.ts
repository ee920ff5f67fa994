/**
 * Migration 0100 on both dialects, over a store at 0099 whose chunks were indexed before it: the
 * postings keep no index on `chunk_id` on either store afterwards, and every way a chunk leaves
 * the index still takes exactly its postings with it, found through its term list: deleting one
 * chunk, replacing a document's chunks, reindexing the knowledge base and deleting it. Another
 * knowledge base's postings of the same terms are never touched.
 */
import { sql, type Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { Dialect } from '../src/store/dialect.js';
import {
  deleteDocumentsChunks,
  deleteKnowledgeBaseContents,
  findKnowledgeBaseRow,
  insertKnowledgeBase,
} from '../src/store/knowledge-repository.js';
import type { Database } from '../src/store/schema.js';
import { reindexNextBatch } from '../src/store/search-index-repository.js';
import { expectIndexMatchesChunks } from './support/search-index-consistency.js';
import { insertOrganizationWithOwner, storeMigratedTo, type StoreBeforeAMigration } from './support/store-before-a-migration.js';
import { insertDocumentOfChunks } from './support/stored-documents.js';
import { TEST_DIALECTS } from './support/test-databases.js';

const TEXTS = [
  'The telescope observed a distant galaxy and its bright stars.',
  'Stars form in clouds of gas and dust inside a galaxy.',
  'A comet has a tail of gas that points away from the sun.',
  'Galaxies hold billions of stars, gas and dust.',
];

async function postingIndexes(db: Kysely<Database>, dialect: Dialect): Promise<string[]> {
  const rows =
    dialect === 'sqlite'
      ? await sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = 'kb_postings'`.execute(db)
      : await sql<{ name: string }>`select indexname as name from pg_indexes where tablename = 'kb_postings'`.execute(db);
  return rows.rows.map((row) => row.name);
}

async function postingCount(db: Kysely<Database>, knowledgeBaseId: number): Promise<number> {
  const row = await db
    .selectFrom('kb_postings')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('knowledge_base_id', '=', knowledgeBaseId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

async function chunkIdsOf(db: Kysely<Database>, documentId: number): Promise<number[]> {
  const rows = await db.selectFrom('kb_chunks').select('id').where('document_id', '=', documentId).orderBy('id').execute();
  return rows.map((row) => row.id);
}

describe.each(TEST_DIALECTS)('migration 0100 on %s', (dialect) => {
  let store: StoreBeforeAMigration | undefined;

  afterEach(async () => {
    await store?.close();
    store = undefined;
  });

  it('drops the postings index on chunks, and every unindexing still takes exactly the chunk’s own postings', async () => {
    store = await storeMigratedTo(dialect, '0099-no-term-counts');
    const { db } = store;
    const { organizationId, ownerId } = await insertOrganizationWithOwner(db, 'a', 'creator');
    const newKnowledgeBase = (name: string) =>
      insertKnowledgeBase(db, { ownerId, organizationId, name, description: '', chunkSize: 1000, chunkOverlap: 200 });
    const sky = await newKnowledgeBase('Sky');
    const other = await newKnowledgeBase('Other');
    const first = await insertDocumentOfChunks(db, sky, TEXTS.slice(0, 2));
    const second = await insertDocumentOfChunks(db, sky, TEXTS.slice(2));
    await insertDocumentOfChunks(db, other, TEXTS);
    const otherPostings = await postingCount(db, other);
    expect(otherPostings).toBeGreaterThan(20);

    await store.migrateToLatest();
    expect(await postingIndexes(db, dialect)).not.toContain('kb_postings_chunk_index');

    const [gone, kept] = await chunkIdsOf(db, first);
    await db.deleteFrom('kb_chunks').where('id', '=', gone!).execute();
    expect(await db.selectFrom('kb_postings').select('term').where('chunk_id', '=', gone!).execute()).toEqual([]);
    expect(await db.selectFrom('kb_postings').select('term').where('chunk_id', '=', kept!).execute()).not.toEqual([]);
    await expectIndexMatchesChunks(db, sky);

    await db.transaction().execute((transaction) => deleteDocumentsChunks(transaction, [second]));
    await expectIndexMatchesChunks(db, sky);
    expect(await postingCount(db, sky)).toBeGreaterThan(0);

    await db
      .updateTable('knowledge_bases')
      .set({ search_language: 'none', reindex_cursor: 0, reindex_done: 0 })
      .where('id', '=', sky)
      .execute();
    while ((await reindexNextBatch(db, { batchSize: 1 })) !== undefined);
    expect(await db.selectFrom('kb_postings').select('term').where('chunk_id', '=', kept!).execute()).toContainEqual({ term: 'galaxy' });
    await expectIndexMatchesChunks(db, sky);

    const row = await findKnowledgeBaseRow(db, sky);
    await db.transaction().execute((transaction) => deleteKnowledgeBaseContents(transaction, row!));
    expect(await postingCount(db, sky)).toBe(0);
    expect(await postingCount(db, other)).toBe(otherPostings);
    await expectIndexMatchesChunks(db, other);
  });
});
