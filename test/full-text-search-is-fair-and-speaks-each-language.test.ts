/**
 * Proves, on both stores, that a knowledge base's full-text ranking and similarities come from its
 * own chunks alone (adding an unrelated knowledge base with the same words changes nothing), that
 * its search language stems inflected forms (Spanish, Catalan, Basque; English as before), and
 * that changing the language reindexes it through the reindex job, with progress, and keeps the
 * totals true when chunks are deleted (the title field's too); and that the postings stay exactly what the
 * indexed chunks' term lists say through every kind of change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapAdmin } from '../src/auth/admin-bootstrap.js';
import { searchChunksFullText } from '../src/store/chunk-search-repository.js';
import { deleteDocumentChunks, deleteKnowledgeBaseContents, insertChunks } from '../src/store/knowledge-repository.js';
import { reindexNextBatch } from '../src/store/search-index-repository.js';
import { openStore, type Store } from '../src/store/store.js';
import { insertCompletedDocument, insertDocumentOfChunks, insertTestKnowledgeBase } from './support/stored-documents.js';
import { createTestDatabase, TEST_DIALECTS, TEST_PASSWORD_HASH_COST, type TestDatabase } from './support/test-databases.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { expectIndexMatchesChunks } from './support/search-index-consistency.js';

const ASTRONOMY = [
  'The telescope observed a distant galaxy and its bright stars.',
  'Stars form in clouds of gas and dust inside a galaxy.',
  'A comet has a tail of gas that points away from the sun.',
  'Planets orbit stars; the telescope measured their orbits.',
];

describe.each(TEST_DIALECTS)('full-text search on %s', (dialect) => {
  let database: TestDatabase;
  let store: Store;

  const newBase = (name: string, searchLanguage?: string) => insertTestKnowledgeBase(store.db, name, searchLanguage);
  const addDocument = (knowledgeBaseId: number, texts: readonly string[]) => insertDocumentOfChunks(store.db, knowledgeBaseId, texts);
  const search = (knowledgeBaseId: number, query: string) =>
    searchChunksFullText(store.db, { dialect, knowledgeBaseIds: [knowledgeBaseId], query, limit: 10 });

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    store = await openStore({ databaseUrl: database.databaseUrl, dataDirectory: database.dataDirectory, poolSize: 2 });
    await bootstrapAdmin(store.db, 'fts-admin@merino.test', 'fts-admin-password', TEST_PASSWORD_HASH_COST);
  });

  afterAll(async () => {
    await possiblyUnset(store)?.close();
    await possiblyUnset(database)?.drop();
  });

  it('gives a knowledge base the same results and similarities whatever other knowledge bases hold', async () => {
    const astronomy = await newBase('Astronomy');
    await addDocument(astronomy, ASTRONOMY);
    const queries = ['telescope stars', 'gas in a galaxy', 'comet tail sun'];
    const before = await Promise.all(queries.map((query) => search(astronomy, query)));
    const crowd = await newBase('Crowd');
    await addDocument(
      crowd,
      Array.from({ length: 60 }, (_, index) => `stars and gas, ${index} telescope stars galaxy galaxy, sun sun sun`),
    );
    const after = await Promise.all(queries.map((query) => search(astronomy, query)));
    expect(after).toEqual(before);
    expect(before[0]!.length).toBeGreaterThan(0);
    for (const hit of before.flat()) expect(hit.similarity > 0 && hit.similarity < 1).toBe(true);
  });

  it('matches inflected forms in Spanish, Catalan and Basque, and keeps English stemming', async () => {
    const cases = [
      { language: 'spanish', text: 'Las universidades públicas organizan cursos de programación.', query: 'universidad programar' },
      { language: 'catalan', text: 'Les escoles de la ciutat ofereixen classes de música.', query: 'escola' },
      { language: 'basque', text: 'Etxeetan liburu asko daude.', query: 'etxe liburua' },
      { language: 'english', text: 'Cells divide by mitosis, producing two identical daughter cells.', query: 'dividing cell' },
    ];
    for (const { language, text, query } of cases) {
      const knowledgeBaseId = await newBase(`In ${language}`, language);
      await addDocument(knowledgeBaseId, [text, 'Unrelated words here.']);
      expect((await search(knowledgeBaseId, query))[0]?.text, language).toBe(text);
    }
    const plain = await newBase('No language', 'none');
    await addDocument(plain, ['Las universidades públicas.']);
    expect(await search(plain, 'universidad')).toEqual([]);
    expect((await search(plain, 'universidades'))[0]?.text).toBe('Las universidades públicas.');
  });

  it('reindexes a knowledge base in its new language batch by batch, with progress, and keeps its totals true', async () => {
    const knowledgeBaseId = await newBase('Relabelled');
    const texts = Array.from({ length: 7 }, (_, index) => `Las universidades ${index} enseñan cursos.`);
    const documentId = await addDocument(knowledgeBaseId, texts);
    expect(await search(knowledgeBaseId, 'enseñar')).toEqual([]);
    await store.db
      .updateTable('knowledge_bases')
      .set({ search_language: 'spanish', reindex_cursor: 0, reindex_done: 0 })
      .where('id', '=', knowledgeBaseId)
      .execute();
    const progress: number[] = [];
    for (;;) {
      const step = await reindexNextBatch(store.db, { batchSize: 3 });
      if (step === undefined) break;
      const row = await store.db
        .selectFrom('knowledge_bases')
        .select('reindex_done')
        .where('id', '=', knowledgeBaseId)
        .executeTakeFirstOrThrow();
      progress.push(row.reindex_done);
    }
    expect(progress).toEqual([3, 6, 0]);
    expect(await search(knowledgeBaseId, 'enseñar')).toHaveLength(7);
    const totals = () =>
      store.db
        .selectFrom('knowledge_bases')
        .select(['index_chunk_count', 'index_length_total'])
        .where('id', '=', knowledgeBaseId)
        .executeTakeFirstOrThrow();
    expect((await totals()).index_chunk_count).toBe(7);
    await store.db.transaction().execute((transaction) => deleteDocumentChunks(transaction, documentId));
    expect(await totals()).toEqual({ index_chunk_count: 0, index_length_total: 0 });
    expect(await store.db.selectFrom('kb_postings').select('term').where('knowledge_base_id', '=', knowledgeBaseId).execute()).toEqual([]);
  });

  it("keeps the title field's totals true through inserts, reindexing and deletes", async () => {
    const knowledgeBaseId = await newBase('Titled');
    const documentId = await insertCompletedDocument(store.db, knowledgeBaseId);
    const metadata = ['{"title":"Solar panels"}', '{}', '{"title":"Roofs","heading":"Tiles, slates"}'];
    await store.db.transaction().execute((transaction) =>
      insertChunks(
        transaction,
        documentId,
        metadata.map((value, index) => ({
          knowledge_base_id: knowledgeBaseId,
          chunk_index: index,
          text: `Text ${index}.`,
          metadata: value,
        })),
      ),
    );
    const titleTotals = () =>
      store.db
        .selectFrom('knowledge_bases')
        .select(['index_titled_chunk_count', 'index_title_length_total'])
        .where('id', '=', knowledgeBaseId)
        .executeTakeFirstOrThrow();
    // Two chunks with a title field, of 2 and 3 terms (in English and in Spanish alike).
    expect(await titleTotals()).toEqual({ index_titled_chunk_count: 2, index_title_length_total: 5 });
    await store.db
      .updateTable('knowledge_bases')
      .set({ search_language: 'spanish', reindex_cursor: 0, reindex_done: 0 })
      .where('id', '=', knowledgeBaseId)
      .execute();
    while ((await reindexNextBatch(store.db, { batchSize: 2 })) !== undefined);
    expect(await titleTotals()).toEqual({ index_titled_chunk_count: 2, index_title_length_total: 5 });
    await store.db.deleteFrom('kb_chunks').where('document_id', '=', documentId).where('chunk_index', '=', 0).execute();
    expect(await titleTotals()).toEqual({ index_titled_chunk_count: 1, index_title_length_total: 3 });
    await store.db.transaction().execute((transaction) => deleteDocumentChunks(transaction, documentId));
    expect(await titleTotals()).toEqual({ index_titled_chunk_count: 0, index_title_length_total: 0 });
  });

  it("keeps the postings exactly what the indexed chunks' term lists say through inserts, reindexing, deletes and deleting the knowledge base", async () => {
    const counted = (knowledgeBaseId: number) => expectIndexMatchesChunks(store.db, knowledgeBaseId);
    const knowledgeBaseId = await newBase('Counted');
    const first = await addDocument(knowledgeBaseId, ['Las universidades enseñan.', 'Los cursos de las universidades.']);
    await addDocument(knowledgeBaseId, ['Universidades y escuelas.', 'Escuelas pequeñas.', 'Cursos largos.']);
    expect(await counted(knowledgeBaseId)).toBeGreaterThan(3);
    await store.db.transaction().execute((transaction) => deleteDocumentChunks(transaction, first));
    await counted(knowledgeBaseId);
    await store.db
      .updateTable('knowledge_bases')
      .set({ search_language: 'spanish', reindex_cursor: 0, reindex_done: 0 })
      .where('id', '=', knowledgeBaseId)
      .execute();
    while ((await reindexNextBatch(store.db, { batchSize: 2 })) !== undefined);
    expect(await counted(knowledgeBaseId)).toBeGreaterThan(2);
    expect((await search(knowledgeBaseId, 'escuela')).length).toBe(2);
    // A chunk indexed anew by the reindex is deleted by its new terms.
    await store.db
      .deleteFrom('kb_chunks')
      .where('knowledge_base_id', '=', knowledgeBaseId)
      .where('text', '=', 'Escuelas pequeñas.')
      .execute();
    expect(await counted(knowledgeBaseId)).toBeGreaterThan(2);
    expect((await search(knowledgeBaseId, 'escuela')).length).toBe(1);
    await store.db
      .transaction()
      .execute((transaction) => deleteKnowledgeBaseContents(transaction, { id: knowledgeBaseId, name: 'Counted', description: '' }));
    expect(await store.db.selectFrom('kb_postings').select('term').where('knowledge_base_id', '=', knowledgeBaseId).execute()).toEqual([]);
  });
});
