/**
 * Migration 0094 on both dialects, over a store migrated to 0091 holding two knowledge bases whose
 * chunks were written under the old shared full-text index: right after the upgrade, with no
 * reindex job run, each answers full-text searches from its own chunks, its statistics count every
 * chunk (their title fields too, which migration 0096 measures), and nothing is left waiting for the reindex job.
 */
import type { Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { searchChunksFullText } from '../src/store/chunk-search-repository.js';
import { reindexNextBatch } from '../src/store/search-index-repository.js';
import { insertOrganizationWithOwner, storeMigratedTo, type StoreBeforeAMigration } from './support/store-before-a-migration.js';
import { TEST_DIALECTS } from './support/test-databases.js';

const BEFORE = '0091-entity-graph';
const AT = '2025-01-01T00:00:00.000Z';

const ASTRONOMY = [
  'The telescope observed a distant galaxy and its bright stars.',
  'Stars form in clouds of gas and dust inside a galaxy.',
  'A comet has a tail of gas that points away from the sun.',
];
const COOKING = ['Knead the dough and let the bread rise overnight.', 'Simmer the tomatoes with garlic for the sauce.'];

describe.each(TEST_DIALECTS)('migration 0094 on %s', (dialect) => {
  let store: StoreBeforeAMigration | undefined;

  afterEach(async () => {
    await store?.close();
    store = undefined;
  });

  it('leaves every existing knowledge base searchable at once, with its own statistics', async () => {
    store = await storeMigratedTo(dialect, BEFORE);
    const { db } = store;
    const { organizationId, ownerId } = await insertOrganizationWithOwner(db, 'a', 'creator');
    // Written as the code before 0094 wrote them: no search columns, no postings.
    const untyped = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
    const addKnowledgeBase = async (name: string, texts: readonly string[]) => {
      const base = await untyped
        .insertInto('knowledge_bases')
        .values({
          owner_id: ownerId,
          organization_id: organizationId,
          name,
          description: '',
          search_text: name,
          visibility: 'private',
          chunk_size: 1000,
          chunk_overlap: 200,
          created_at: AT,
          updated_at: AT,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const document = await untyped
        .insertInto('kb_documents')
        .values({
          knowledge_base_id: base.id,
          file_name: `${name}.md`,
          content_type: 'text/markdown',
          size_bytes: 100,
          status: 'completed',
          chunk_count: texts.length,
          metadata: '{}',
          created_at: AT,
          updated_at: AT,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      for (const [index, text] of texts.entries())
        await untyped
          .insertInto('kb_chunks')
          .values({ knowledge_base_id: base.id, document_id: document.id, chunk_index: index, text, metadata: '{"title":"Notes"}' })
          .execute();
      return base.id as number;
    };
    const astronomy = await addKnowledgeBase('astronomy', ASTRONOMY);
    const cooking = await addKnowledgeBase('cooking', COOKING);

    await store.migrateToLatest();

    const search = (knowledgeBaseId: number, query: string) =>
      searchChunksFullText(db, { dialect, knowledgeBaseIds: [knowledgeBaseId], query, limit: 10 });
    const galaxies = await search(astronomy, 'galaxies observed through telescopes');
    expect(galaxies[0]?.text).toBe(ASTRONOMY[0]);
    expect(galaxies.every((hit) => hit.knowledgeBaseId === astronomy)).toBe(true);
    expect((await search(cooking, 'bread dough'))[0]?.text).toBe(COOKING[0]);
    expect(await search(cooking, 'galaxy')).toEqual([]);

    const bases = await db
      .selectFrom('knowledge_bases')
      .select(['id', 'search_language', 'index_chunk_count', 'index_titled_chunk_count', 'index_title_length_total', 'reindex_cursor'])
      .orderBy('id')
      .execute();
    // Every chunk's title field is "Notes": one term.
    const titles = (chunks: number) => ({ index_titled_chunk_count: chunks, index_title_length_total: chunks });
    expect(bases).toEqual([
      { id: astronomy, search_language: 'english', index_chunk_count: ASTRONOMY.length, ...titles(ASTRONOMY.length), reindex_cursor: null },
      { id: cooking, search_language: 'english', index_chunk_count: COOKING.length, ...titles(COOKING.length), reindex_cursor: null },
    ]);
    expect(await reindexNextBatch(db)).toBeUndefined();
  });
});
