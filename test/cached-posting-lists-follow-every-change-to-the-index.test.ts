/**
 * Proves, on both stores, that full-text search served from posting lists and chunk rows held in
 * memory (FULL_TEXT_POSTINGS_CACHE, FULL_TEXT_CHUNK_CACHE_CHARACTERS) answers exactly what a search
 * reading every list and row from the store answers, after every kind of change another connection
 * makes to the index: chunks added, chunks deleted (by trigger), and a language change reindexing
 * the knowledge base batch by batch. Each change raises the knowledge base's index version, and the
 * version is what keeps a held list from being used: a list changed behind the version's back is
 * still served from memory (so the lists really are used) until the version moves. Lists of two
 * stores never mix, and a held row's metadata cannot be changed by whoever receives a hit.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapAdmin } from '../src/auth/admin-bootstrap.js';
import { DEFAULT_FULL_TEXT_RANKING, rankFullText } from '../src/retrieval/full-text-ranking.js';
import { deleteDocumentChunks, insertChunks } from '../src/store/knowledge-repository.js';
import type { HeldSearchData } from '../src/store/chunk-search-repository.js';
import { ChunkRowCache } from '../src/store/chunk-row-cache.js';
import { PostingListCache } from '../src/store/posting-list-cache.js';
import { reindexNextBatch } from '../src/store/search-index-repository.js';
import { openStore, type Store } from '../src/store/store.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { insertCompletedDocument, insertDocumentOfChunks, insertTestKnowledgeBase } from './support/stored-documents.js';
import { createTestDatabase, TEST_DIALECTS, TEST_PASSWORD_HASH_COST, type TestDatabase } from './support/test-databases.js';

const ASTRONOMY = [
  'The telescope observed a distant galaxy and its bright stars.',
  'Stars form in clouds of gas and dust inside a galaxy.',
  'A comet has a tail of gas that points away from the sun.',
  'Planets orbit stars; the telescope measured their orbits.',
];
const QUERIES = ['telescope stars', 'gas in a galaxy', 'comet tail sun', 'orbits of planets'];

/** Posting lists and chunk rows kept between searches, as a server keeps them. */
const keptHere = (): HeldSearchData => ({ postingLists: new PostingListCache(10_000), chunkRows: new ChunkRowCache(100_000) });
/** Nothing kept: every list and row read from the store. */
const keptNone = (): HeldSearchData => ({ postingLists: new PostingListCache(0), chunkRows: new ChunkRowCache(0) });

describe.each(TEST_DIALECTS)('posting lists held in memory on %s', (dialect) => {
  let database: TestDatabase;
  /** The searching process's connection, and another process's, which changes the index. */
  let searcher: Store;
  let writer: Store;

  const newBase = (name: string) => insertTestKnowledgeBase(writer.db, name);
  const addDocument = (knowledgeBaseId: number, texts: readonly string[]) => insertDocumentOfChunks(writer.db, knowledgeBaseId, texts);
  const searchWith = (cache: HeldSearchData, knowledgeBaseId: number, text: string) =>
    rankFullText(searcher.db, {
      knowledgeBases: [knowledgeBaseId],
      text,
      limit: 10,
      ranking: { ...DEFAULT_FULL_TEXT_RANKING, held: cache },
    });
  /** Every query, through `cache` and read whole from the store (a cache that keeps nothing): the two must agree. */
  const bothWays = async (cache: HeldSearchData, knowledgeBaseId: number) => {
    const held = await Promise.all(QUERIES.map((query) => searchWith(cache, knowledgeBaseId, query)));
    const read = await Promise.all(QUERIES.map((query) => searchWith(keptNone(), knowledgeBaseId, query)));
    return { held, read };
  };
  const versionOf = async (knowledgeBaseId: number) =>
    (await searcher.db.selectFrom('knowledge_bases').select('index_version').where('id', '=', knowledgeBaseId).executeTakeFirstOrThrow())
      .index_version;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    const options = { databaseUrl: database.databaseUrl, dataDirectory: database.dataDirectory, poolSize: 2 };
    writer = await openStore(options);
    searcher = await openStore(options);
    await bootstrapAdmin(writer.db, 'postings-admin@merino.test', 'postings-admin-password', TEST_PASSWORD_HASH_COST);
  });

  afterAll(async () => {
    await possiblyUnset(searcher)?.close();
    await possiblyUnset(writer)?.close();
    await possiblyUnset(database)?.drop();
  });

  it('answers as the store does after chunks are added, deleted and reindexed in another language by another connection', async () => {
    const knowledgeBase = await newBase('Astronomy');
    const first = await addDocument(knowledgeBase, ASTRONOMY);
    const cache = keptHere();
    const versions = [await versionOf(knowledgeBase)];

    const before = await bothWays(cache, knowledgeBase);
    expect(before.held).toEqual(before.read);
    expect(before.held.flat().length).toBeGreaterThan(0);
    expect(cache.postingLists.heldPostings).toBeGreaterThan(0);
    expect(cache.chunkRows.heldCharacters).toBeGreaterThan(0);
    // Hits of one chunk share its held metadata: nobody receiving one can change it for the others.
    expect(Object.isFrozen(before.held[0]![0]!.metadata)).toBe(true);

    const added = await addDocument(knowledgeBase, ['The telescope found a galaxy of stars; telescope and galaxy again.']);
    versions.push(await versionOf(knowledgeBase));
    const afterAdding = await bothWays(cache, knowledgeBase);
    expect(afterAdding.held).toEqual(afterAdding.read);
    expect(afterAdding.held[0]!.some((hit) => hit.documentId === added)).toBe(true);

    await deleteDocumentChunks(writer.db, first);
    versions.push(await versionOf(knowledgeBase));
    const afterDeleting = await bothWays(cache, knowledgeBase);
    expect(afterDeleting.held).toEqual(afterDeleting.read);
    expect(afterDeleting.held.flat().every((hit) => hit.documentId === added)).toBe(true);

    await addDocument(knowledgeBase, [
      'Las estrellas y las galaxias se observan con telescopios.',
      'Los planetas giran alrededor del sol.',
    ]);
    await bothWays(cache, knowledgeBase);
    const beforeReindexing = await versionOf(knowledgeBase);
    await writer.db
      .updateTable('knowledge_bases')
      .set({ search_language: 'spanish', reindex_cursor: 0, reindex_done: 0 })
      .where('id', '=', knowledgeBase)
      .execute();
    while ((await reindexNextBatch(writer.db, { batchSize: 1 })) !== undefined) {
      const midway = await bothWays(cache, knowledgeBase);
      expect(midway.held).toEqual(midway.read);
    }
    const spanish = await searchWith(cache, knowledgeBase, 'estrella galaxia');
    expect(spanish.length).toBeGreaterThan(0);
    expect(spanish).toEqual(await searchWith(keptNone(), knowledgeBase, 'estrella galaxia'));
    versions.push(beforeReindexing, await versionOf(knowledgeBase));
    // Every change raised the version: adding, deleting, and reindexing.
    for (let index = 1; index < versions.length; index += 1) expect(versions[index]!).toBeGreaterThan(versions[index - 1]!);
  });

  it('serves a held list until the version moves, and reads the store again once it has', async () => {
    const knowledgeBase = await newBase('Comets');
    await addDocument(knowledgeBase, ASTRONOMY);
    const cache = keptHere();
    const held = await searchWith(cache, knowledgeBase, 'comet tail');
    expect(held.length).toBe(1);
    // The postings of 'comet' taken away behind the version's back: the held list still answers.
    await sql`delete from kb_postings where knowledge_base_id = ${knowledgeBase} and term = 'comet'`.execute(writer.db);
    expect(await searchWith(cache, knowledgeBase, 'comet tail')).toEqual(held);
    expect(await searchWith(keptNone(), knowledgeBase, 'comet')).toEqual([]);
    await sql`update knowledge_bases set index_version = index_version + 1 where id = ${knowledgeBase}`.execute(writer.db);
    expect(await searchWith(cache, knowledgeBase, 'comet')).toEqual([]);
  });

  it('keeps the lists of two stores apart when callers give no cache, even at the same knowledge-base id and version', async () => {
    const knowledgeBase = await newBase('Here');
    await addDocument(knowledgeBase, ASTRONOMY);
    const elsewhere = await createTestDatabase(dialect);
    const other = await openStore({ databaseUrl: elsewhere.databaseUrl, dataDirectory: elsewhere.dataDirectory, poolSize: 2 });
    try {
      await bootstrapAdmin(other.db, 'postings-admin@merino.test', 'postings-admin-password', TEST_PASSWORD_HASH_COST);
      const owner = await other.db.selectFrom('users').select(['id', 'organization_id']).executeTakeFirstOrThrow();
      // The other store's knowledge base gets the same id and version, and other chunks with the same words.
      await sql`insert into knowledge_bases (id, owner_id, organization_id, name, description, chunk_size, chunk_overlap, created_at, updated_at)
        values (${knowledgeBase}, ${owner.id}, ${owner.organization_id}, 'There', '', 1000, 200, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`.execute(
        other.db,
      );
      const documentId = await insertCompletedDocument(other.db, knowledgeBase);
      await other.db
        .transaction()
        .execute((transaction) =>
          insertChunks(transaction, documentId, [
            { knowledge_base_id: knowledgeBase, chunk_index: 0, text: 'Stars, stars and a telescope: telescope stars.', metadata: '{}' },
          ]),
        );
      const version = await versionOf(knowledgeBase);
      await other.db.updateTable('knowledge_bases').set({ index_version: version }).where('id', '=', knowledgeBase).execute();
      const search = (db: Store['db']) => rankFullText(db, { knowledgeBases: [knowledgeBase], text: 'telescope stars', limit: 10 });
      const here = await search(searcher.db);
      const there = await search(other.db);
      expect(there.map((hit) => hit.text)).toEqual(['Stars, stars and a telescope: telescope stars.']);
      expect(here.map((hit) => hit.text)).not.toContain('Stars, stars and a telescope: telescope stars.');
      expect(await search(searcher.db)).toEqual(here);
    } finally {
      await other.close();
      await elsewhere.drop();
    }
  });

  it('gives 50 searches at once through one cache the answers of the store', async () => {
    const knowledgeBase = await newBase('Crowd');
    await addDocument(
      knowledgeBase,
      Array.from({ length: 40 }, (_, index) => `${ASTRONOMY[index % ASTRONOMY.length]} Note ${index} on stars.`),
    );
    const cache = keptHere();
    const queries = Array.from({ length: 50 }, (_, index) => QUERIES[index % QUERIES.length]!);
    const [together, alone] = await Promise.all([
      Promise.all(queries.map((query) => searchWith(cache, knowledgeBase, query))),
      Promise.all(QUERIES.map((query) => searchWith(keptNone(), knowledgeBase, query))),
    ]);
    together.forEach((hits, index) => expect(hits).toEqual(alone[index % QUERIES.length]));
    expect(together[0]!.length).toBeGreaterThan(0);
  });
});
