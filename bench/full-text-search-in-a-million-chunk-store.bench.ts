/**
 * Full-text query latency of one 10,000-chunk knowledge base, alone in its store and then inside a
 * store of about a million chunks (issue 36's target: p50 ≤ 5 ms and p99 ≤ 30 ms there), on SQLite
 * and PostgreSQL, with text from a real BEIR data set (DBpedia-Entity, 5,000 abstracts).
 *
 * The measured knowledge base and one template knowledge base of MILLION_TEMPLATE_CHUNKS other
 * chunks are written through `insertChunks` (chunks, postings and totals, as
 * ingestion writes them). The rest of the store is copies of the template as other knowledge
 * bases, each a document row plus `insert … select` of the template's chunks and postings under
 * new ids: the same rows ingestion would write for the same text, without analysing
 * a million chunks again (that would take hours here; ingestion speed has its own benchmarks).
 * PostgreSQL gets an untimed VACUUM ANALYZE after each build, as autovacuum soon would (migration
 * 0094 has it vacuum kb_postings after inserts of 1% of the table): that marks the postings' pages
 * all-visible, so a search reads them from the index alone.
 * Queries: the 50 BEIR queries plus the titles of 50 abstracts, top_k 5, through `rankChunks`
 * (what a knowledge-base query runs), a few untimed ones of its own first to warm up. Each series
 * runs them twice with fresh caches (FULL_TEXT_POSTINGS_CACHE and FULL_TEXT_CHUNK_CACHE_CHARACTERS
 * at their defaults): first with posting lists and rows read from the store (only what queries
 * share is held), then again with what the first pass left held. Prints figures only.
 *
 *   npm run bench -- bench/full-text-search-in-a-million-chunk-store.bench.ts
 *   (MILLION_MEASURED_CHUNKS=10000 MILLION_TEMPLATE_CHUNKS=10000 MILLION_STORE_CHUNKS=1000000
 *    MILLION_QUERIES=100 MILLION_DIALECTS=sqlite,postgres change the work)
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { bootstrapAdmin } from '../src/auth/admin-bootstrap.js';
import { rankChunks, type RankingStore } from '../src/retrieval/chunk-ranking.js';
import { DEFAULT_FULL_TEXT_RANKING } from '../src/retrieval/full-text-ranking.js';
import { insertChunks, insertKnowledgeBase } from '../src/store/knowledge-repository.js';
import { ChunkRowCache } from '../src/store/chunk-row-cache.js';
import { PostingListCache } from '../src/store/posting-list-cache.js';
import { openStore, type Store } from '../src/store/store.js';
import { insertCompletedDocument } from '../test/support/stored-documents.js';
import { createTestDatabase, TEST_DIALECTS, TEST_PASSWORD_HASH_COST, type Dialect } from '../test/support/test-databases.js';
import { queriesWithTitles, readJsonLines, type CorpusDocument } from './support/beir-data.js';
import { ascending, milliseconds, percentile, printTable, wholeNumberSetting } from './support/measure.js';
import { scaleTexts } from './support/scale-texts.js';

const MEASURED_CHUNKS = wholeNumberSetting('MILLION_MEASURED_CHUNKS', 10_000, 1);
const TEMPLATE_CHUNKS = wholeNumberSetting('MILLION_TEMPLATE_CHUNKS', 10_000, 1);
const STORE_CHUNKS = wholeNumberSetting('MILLION_STORE_CHUNKS', 1_000_000, 1);
const QUERY_COUNT = wholeNumberSetting('MILLION_QUERIES', 100, 1);
const DIALECTS: readonly Dialect[] = (process.env.MILLION_DIALECTS?.split(',') as Dialect[] | undefined) ?? TEST_DIALECTS;
const WRITE_BATCH = 1_000;
/** Untimed queries of the warm-up, not among the measured ones (V8 compiles the search path on them). */
const WARM_UP_TEXTS = ['history of a river', 'album by a band', 'a city and its people', 'football club founded', 'the first novel'];
/** FULL_TEXT_POSTINGS_CACHE's and FULL_TEXT_CHUNK_CACHE_CHARACTERS's defaults. */
const POSTINGS_HELD = 500_000;
const CHUNK_CHARACTERS_HELD = 4_000_000;
const TOP_K = 5;

interface Owner {
  userId: number;
  organizationId: number;
}

async function newKnowledgeBase(store: Store, owner: Owner, name: string): Promise<number> {
  return insertKnowledgeBase(store.db, {
    ownerId: owner.userId,
    organizationId: owner.organizationId,
    name,
    description: '',
    chunkSize: 1000,
    chunkOverlap: 200,
  });
}

/** Writes texts as one document's chunks through insertChunks (chunks, postings, totals), WRITE_BATCH per transaction. */
async function writeThroughRepository(store: Store, knowledgeBaseId: number, texts: readonly string[]): Promise<void> {
  const documentId = await insertCompletedDocument(store.db, knowledgeBaseId, 'chunks.md');
  for (let start = 0; start < texts.length; start += WRITE_BATCH) {
    const part = texts.slice(start, start + WRITE_BATCH);
    await store.db.transaction().execute((transaction) =>
      insertChunks(
        transaction,
        documentId,
        part.map((text, index) => ({
          knowledge_base_id: knowledgeBaseId,
          chunk_index: start + index,
          text,
          metadata: JSON.stringify({ filename: 'chunks.md', document_id: documentId, chunk_index: start + index, source_url: null }),
        })),
      ),
    );
  }
}

/** A copy of the template knowledge base's index as another knowledge base: its chunks and postings under new ids. */
async function copyTemplate(store: Store, owner: Owner, template: number, copy: number): Promise<void> {
  const knowledgeBaseId = await newKnowledgeBase(store, owner, `filler ${copy}`);
  await store.db.transaction().execute(async (transaction) => {
    const documentId = await insertCompletedDocument(transaction, knowledgeBaseId, `filler-${copy}.md`);
    const { highest } = await transaction
      .selectFrom('kb_chunks')
      .select((eb) => eb.fn.max('id').as('highest'))
      .executeTakeFirstOrThrow();
    const { lowest } = await transaction
      .selectFrom('kb_chunks')
      .select((eb) => eb.fn.min('id').as('lowest'))
      .where('knowledge_base_id', '=', template)
      .executeTakeFirstOrThrow();
    const offset = highest - lowest + 1;
    await sql`insert into kb_chunks (id, knowledge_base_id, document_id, chunk_index, text, metadata, index_length, index_title_length, index_terms)
      select id + ${offset}, ${knowledgeBaseId}, ${documentId}, chunk_index, text, metadata, index_length, index_title_length, index_terms
      from kb_chunks where knowledge_base_id = ${template}`.execute(transaction);
    await sql`insert into kb_postings (knowledge_base_id, term, chunk_id, frequency, length)
      select ${knowledgeBaseId}, term, chunk_id + ${offset}, frequency, length
      from kb_postings where knowledge_base_id = ${template}`.execute(transaction);
    await sql`update knowledge_bases set
        index_chunk_count = (select index_chunk_count from knowledge_bases where id = ${template}),
        index_length_total = (select index_length_total from knowledge_bases where id = ${template}),
        index_titled_chunk_count = (select index_titled_chunk_count from knowledge_bases where id = ${template}),
        index_title_length_total = (select index_title_length_total from knowledge_bases where id = ${template})
      where id = ${knowledgeBaseId}`.execute(transaction);
  });
}

async function chunkTotal(store: Store): Promise<number> {
  const { chunks } = await store.db
    .selectFrom('kb_chunks')
    .select((eb) => eb.fn.countAll<number | string>().as('chunks'))
    .executeTakeFirstOrThrow();
  return Number(chunks);
}

interface Series {
  dialect: Dialect;
  storeChunks: number;
  /** Whether the posting lists were read from the store (a first pass) or held from that pass. */
  lists: 'read' | 'held';
  latencies: number[];
  empty: number;
}

/** One pass of the queries; a pass after the first finds its terms' posting lists held in memory. */
async function pass(
  store: RankingStore,
  knowledgeBaseId: number,
  queries: readonly string[],
): Promise<{ latencies: number[]; empty: number }> {
  const latencies: number[] = [];
  let empty = 0;
  for (const query of queries) {
    const begin = performance.now();
    const hits = await rankChunks(store, [knowledgeBaseId], { mode: 'full_text', text: query }, TOP_K);
    latencies.push(performance.now() - begin);
    if (hits.length === 0) empty += 1;
  }
  return { latencies: ascending(latencies), empty };
}

/**
 * The queries once with empty caches (FULL_TEXT_POSTINGS_CACHE, FULL_TEXT_CHUNK_CACHE_CHARACTERS at
 * their defaults), which only what queries share helps, then once more with what they left held.
 */
async function measure(store: Store, knowledgeBaseId: number, queries: readonly string[]): Promise<Array<Omit<Series, 'dialect'>>> {
  if (store.dialect === 'postgres') await sql`vacuum analyze`.execute(store.db);
  const ranking = {
    ...DEFAULT_FULL_TEXT_RANKING,
    held: { postingLists: new PostingListCache(POSTINGS_HELD), chunkRows: new ChunkRowCache(CHUNK_CHARACTERS_HELD) },
  };
  const searcher: RankingStore = { db: store.db, dialect: store.dialect, vectorBackend: store.vectorBackend, fullTextRanking: ranking };
  // The warm-up uses queries of a sample of its own, which are not measured, so it fills no list a measured query needs alone.
  for (const query of WARM_UP_TEXTS) await rankChunks(searcher, [knowledgeBaseId], { mode: 'full_text', text: query }, TOP_K);
  const storeChunks = await chunkTotal(store);
  const first = await pass(searcher, knowledgeBaseId, queries);
  const again = await pass(searcher, knowledgeBaseId, queries);
  return [
    { storeChunks, lists: 'read', ...first },
    { storeChunks, lists: 'held', ...again },
  ];
}

async function runDialect(dialect: Dialect, texts: readonly string[], queries: readonly string[]): Promise<Series[]> {
  const database = await createTestDatabase(dialect);
  const store = await openStore({ databaseUrl: database.databaseUrl, dataDirectory: database.dataDirectory, poolSize: 4 });
  try {
    await bootstrapAdmin(store.db, 'bench@merino.test', 'bench-password', TEST_PASSWORD_HASH_COST);
    const admin = await store.db.selectFrom('users').select(['id', 'organization_id']).executeTakeFirstOrThrow();
    const owner = { userId: admin.id, organizationId: admin.organization_id };
    const measured = await newKnowledgeBase(store, owner, 'measured');
    await writeThroughRepository(store, measured, texts.slice(0, MEASURED_CHUNKS));
    const series: Series[] = (await measure(store, measured, queries)).map((figures) => ({ dialect, ...figures }));
    const template = await newKnowledgeBase(store, owner, 'template');
    await writeThroughRepository(store, template, texts.slice(MEASURED_CHUNKS));
    const started = performance.now();
    const copies = Math.max(0, Math.ceil((STORE_CHUNKS - MEASURED_CHUNKS) / TEMPLATE_CHUNKS) - 1);
    for (let copy = 1; copy <= copies; copy += 1) await copyTemplate(store, owner, template, copy);
    if (dialect === 'postgres')
      await sql`select setval(pg_get_serial_sequence('kb_chunks', 'id'), (select max(id) from kb_chunks))`.execute(store.db);
    process.stdout.write(
      `  ${dialect}: ${copies} copies of the template written in ${((performance.now() - started) / 1000).toFixed(0)} s\n`,
    );
    series.push(...(await measure(store, measured, queries)).map((figures) => ({ dialect, ...figures })));
    return series;
  } finally {
    await store.close();
    await database.drop();
  }
}

describe('full-text search of a 10k-chunk knowledge base inside a million-chunk store', () => {
  it('prints query latency alone and among a million chunks', { timeout: 7_200_000 }, async () => {
    const corpus = readJsonLines<CorpusDocument>('corpus.jsonl');
    const queries = queriesWithTitles(corpus, QUERY_COUNT);
    const texts = scaleTexts(corpus, MEASURED_CHUNKS + TEMPLATE_CHUNKS);
    const results: Series[] = [];
    for (const dialect of DIALECTS) results.push(...(await runDialect(dialect, texts, queries)));
    printTable(
      `full-text query latency of one ${MEASURED_CHUNKS.toLocaleString('en-US')}-chunk knowledge base, top ${TOP_K}, ${queries.length} queries (50 BEIR + abstract titles), through rankChunks`,
      [
        { label: 'store', width: 9 },
        { label: 'chunks in store', width: 16 },
        { label: 'lists', width: 6 },
        { label: 'p50', width: 9 },
        { label: 'p90', width: 9 },
        { label: 'p99', width: 9 },
        { label: 'max', width: 9 },
        { label: 'empty', width: 6 },
      ],
      results.map((series) => [
        series.dialect,
        series.storeChunks.toLocaleString('en-US'),
        series.lists,
        milliseconds(percentile(series.latencies, 0.5)),
        milliseconds(percentile(series.latencies, 0.9)),
        milliseconds(percentile(series.latencies, 0.99)),
        milliseconds(series.latencies[series.latencies.length - 1] ?? 0),
        String(series.empty),
      ]),
    );
    expect(results.every((series) => series.empty < series.latencies.length)).toBe(true);
  });
});
