/**
 * A search reads its knowledge base's statistics (chunk count, lengths, index version) and then
 * its posting lists, by separate statements. On PostgreSQL an ingestion batch can commit between
 * the two, so a list may hold more chunks than the count read just before. Proven on both stores,
 * by searching with statistics read before more chunks were inserted: every term keeps a positive
 * weight, every score stays a real number, and the chunk holding the rare words still comes first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapAdmin } from '../src/auth/admin-bootstrap.js';
import { indexStatisticsOf, queryTerms, searchKnowledgeBase } from '../src/store/chunk-search-repository.js';
import { openStore, type Store } from '../src/store/store.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { insertDocumentOfChunks, insertTestKnowledgeBase } from './support/stored-documents.js';
import { createTestDatabase, TEST_DIALECTS, TEST_PASSWORD_HASH_COST, type TestDatabase } from './support/test-databases.js';

describe.each(TEST_DIALECTS)('full-text weights while a batch commits between a search’s reads, on %s', (dialect) => {
  let database: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    store = await openStore({ databaseUrl: database.databaseUrl, dataDirectory: database.dataDirectory, poolSize: 2 });
    await bootstrapAdmin(store.db, 'weights-admin@merino.test', 'weights-admin-password', TEST_PASSWORD_HASH_COST);
  });

  afterAll(async () => {
    await possiblyUnset(store)?.close();
    await possiblyUnset(database)?.drop();
  });

  it('keeps every term weight positive when the posting lists hold more chunks than the statistics read before them', async () => {
    const knowledgeBaseId = await insertTestKnowledgeBase(store.db, 'Earth science');
    await insertDocumentOfChunks(store.db, knowledgeBaseId, [
      'Mid-ocean ridges push the plates apart.',
      'Coral reefs cover less than one percent of the ocean floor.',
      'Volcanoes form where one plate sinks under another.',
    ]);
    const [before] = await indexStatisticsOf(store.db, [knowledgeBaseId]);
    expect(before!.index_chunk_count).toBe(3);
    // A batch committed after the statistics were read: "plate" and "ocean" are now in more chunks than they count.
    await insertDocumentOfChunks(
      store.db,
      knowledgeBaseId,
      Array.from({ length: 12 }, (_, index) => `Lesson ${index}: the plates of the ocean floor move slowly.`),
    );

    const terms = queryTerms('What do mid-ocean ridges do to the plates?', before!.search_language);
    const { hits, weights } = await searchKnowledgeBase(store.db, { statistics: before!, terms, limit: 5 });

    expect([...weights.keys()].sort()).toEqual(['mid', 'ocean', 'plate', 'ridg']);
    for (const [term, weight] of weights) expect(Number.isFinite(weight) && weight > 0, `${term}: ${weight}`).toBe(true);
    expect(hits.length).toBe(5);
    for (const hit of hits) expect(Number.isFinite(hit.score) && hit.score > 0 && hit.similarity > 0 && hit.similarity < 1).toBe(true);
    expect(hits[0]!.text).toBe('Mid-ocean ridges push the plates apart.');
  });
});
