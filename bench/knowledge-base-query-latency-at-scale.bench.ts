/**
 * Query latency of knowledge bases at scale, on SQLite and PostgreSQL, with text from a real BEIR
 * data set (DBpedia-Entity, 5,000 abstracts), at SCALE_CHUNKS_SMALL and SCALE_CHUNKS_LARGE chunks.
 * One knowledge base is filled straight through `insertChunks` + `insertChunkEmbeddings`
 * (SCALE_BATCH chunks per document and transaction, precomputed 64-dimension vectors): first up to
 * the small size, measured, then grown to the large one and measured again; the build time of each
 * step is printed as insertion throughput at scale. Chunk texts are the 5,000 abstracts, then
 * varied copies of them (sentences rotated, one sentence of another abstract added) so no two
 * chunks are equal. Queries: the 50 BEIR queries plus the titles of 50 abstracts (SCALE_QUERIES in
 * all), top_k 5, full text, vector only (with the store's backend) and hybrid, each through
 * `rankChunks`, which is what a knowledge-base query runs; vector and hybrid latencies include
 * embedding the query in-process. On PostgreSQL without pgvector the vectors are searched by the
 * 'scan' backend, which reads every vector of the knowledge base into the application; at the large
 * size its queries are capped at SCALE_SCAN_QUERY_CAP, and the output says so. After each build
 * PostgreSQL gets an (untimed) VACUUM ANALYZE, as autovacuum would soon give it (a vacuum lets a
 * search read the postings from the index alone); a few untimed queries warm up each series.
 * Ingestion at scale is knowledge-base-ingestion-at-scale.bench.ts; one knowledge base inside a
 * million-chunk store is full-text-search-in-a-million-chunk-store.bench.ts.
 *
 *   npm run bench -- bench/knowledge-base-query-latency-at-scale.bench.ts
 *   (BEIR_DIRECTORY=… SCALE_CHUNKS_SMALL=10000 SCALE_CHUNKS_LARGE=100000 SCALE_BATCH=1000
 *    SCALE_QUERIES=100 SCALE_SCAN_QUERY_CAP=30 change the work)
 *
 * MB are 2^20 bytes of UTF-8 text. The throw-away PostgreSQL cluster runs with fsync and
 * synchronous_commit off, and SQLite runs in WAL mode with synchronous=NORMAL on a temp folder, so
 * write figures are those of a server that does not wait for the disk. Prints figures; it checks
 * only that every vector and hybrid query found chunks.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { HYBRID_CANDIDATES_MINIMUM, rankChunks } from '../src/retrieval/chunk-ranking.js';
import type { ChunkHit } from '../src/store/chunk-search-repository.js';
import { insertChunkEmbeddings } from '../src/store/chunk-vector-repository.js';
import { insertChunks, insertKnowledgeBase } from '../src/store/knowledge-repository.js';
import { insertDocument } from '../src/store/knowledge-documents-repository.js';
import { openStore, type Store } from '../src/store/store.js';
import { EMBEDDING_DIMENSIONS } from '../test/fakes/fake-http.js';
import { createTestDatabase, TEST_DIALECTS, type Dialect } from '../test/support/test-databases.js';
import { queriesWithTitles, readJsonLines, type BeirQuery, type CorpusDocument } from './support/beir-data.js';
import { ascending, milliseconds, percentile, printTable, wholeNumberSetting } from './support/measure.js';
import {
  CHUNK_OVERLAP,
  CHUNK_SIZE,
  createOwner,
  embed,
  EMBEDDING_CHOICE,
  EMBEDDINGS_LABEL,
  megabytesOf,
  seconds,
} from './support/scale-knowledge-base.js';
import { scaleTexts } from './support/scale-texts.js';

const SMALL_CHUNKS = wholeNumberSetting('SCALE_CHUNKS_SMALL', 10_000, 1);
const LARGE_CHUNKS = wholeNumberSetting('SCALE_CHUNKS_LARGE', 100_000, 1);
/** Chunks per document and transaction while building the large sets. */
const BUILD_BATCH = wholeNumberSetting('SCALE_BATCH', 1_000, 1);
const QUERY_COUNT = wholeNumberSetting('SCALE_QUERIES', 100, 1);
/** At the large size, the 'scan' vector backend runs at most this many vector and hybrid queries. */
const SCAN_QUERY_CAP = wholeNumberSetting('SCALE_SCAN_QUERY_CAP', 30, 1);
const WARM_UP_QUERIES = 5;
const TOP_K = 5;

interface BuildFigures {
  label: string;
  rows: number;
  megabytes: number;
  seconds: number;
}

/** Adds chunks `from` … `to - 1` with their vectors, BUILD_BATCH per document and transaction. */
async function buildChunks(
  store: Store,
  knowledgeBaseId: number,
  texts: readonly string[],
  vectors: readonly Float32Array[],
  from: number,
  to: number,
): Promise<BuildFigures> {
  const started = performance.now();
  for (let start = from; start < to; start += BUILD_BATCH) {
    const end = Math.min(to, start + BUILD_BATCH);
    await store.db.transaction().execute(async (transaction) => {
      const documentId = await insertDocument(transaction, {
        knowledgeBaseId,
        fileName: `chunks-${start}.md`,
        contentType: 'text/markdown',
        sizeBytes: 0,
        sourceUrl: null,
        status: 'completed',
        metadata: {},
      });
      const chunkIds = await insertChunks(
        transaction,
        documentId,
        texts.slice(start, end).map((text, index) => ({
          knowledge_base_id: knowledgeBaseId,
          chunk_index: index,
          text,
          metadata: JSON.stringify({
            filename: `chunks-${start}.md`,
            document_id: documentId,
            chunk_index: index,
            chunk_count: end - start,
            source_url: null,
          }),
        })),
      );
      await insertChunkEmbeddings(
        transaction,
        chunkIds.map((chunkId, index) => ({ chunkId, knowledgeBaseId, embedding: vectors[start + index]! })),
        store.vectorBackend,
      );
    });
  }
  const elapsed = seconds(started);
  if (store.dialect === 'postgres') await sql`vacuum analyze kb_chunks, kb_chunk_embeddings, kb_postings`.execute(store.db);
  return {
    label: `${from.toLocaleString('en-US')} → ${to.toLocaleString('en-US')}`,
    rows: to - from,
    megabytes: megabytesOf(texts.slice(from, to)),
    seconds: elapsed,
  };
}

type Ranking = 'full text' | 'vector' | 'hybrid';
const RANKINGS: readonly Ranking[] = ['full text', 'vector', 'hybrid'];

interface LatencyFigures {
  chunks: number;
  ranking: Ranking;
  queries: number;
  /** Ascending, milliseconds. */
  latencies: number[];
  /** Queries that found no chunk at all. */
  empty: number;
  capped: boolean;
}

/** What a knowledge-base query runs (rankChunks), with the query embedded in-process for vector and hybrid. */
async function rank(store: Store, knowledgeBaseId: number, ranking: Ranking, query: string): Promise<ChunkHit[]> {
  if (ranking === 'full text') return rankChunks(store, [knowledgeBaseId], { mode: 'full_text', text: query }, TOP_K);
  return rankChunks(store, [knowledgeBaseId], { mode: ranking, text: query, embedding: embed(query) }, TOP_K);
}

async function measureQueries(
  store: Store,
  knowledgeBaseId: number,
  chunks: number,
  queries: readonly string[],
): Promise<LatencyFigures[]> {
  const figures: LatencyFigures[] = [];
  for (const ranking of RANKINGS) {
    const capped = ranking !== 'full text' && store.vectorBackend === 'scan' && chunks >= LARGE_CHUNKS && queries.length > SCAN_QUERY_CAP;
    const series = capped ? queries.slice(0, SCAN_QUERY_CAP) : queries;
    for (const query of queries.slice(-WARM_UP_QUERIES)) await rank(store, knowledgeBaseId, ranking, query);
    const latencies: number[] = [];
    let empty = 0;
    for (const query of series) {
      const begin = performance.now();
      const hits = await rank(store, knowledgeBaseId, ranking, query);
      latencies.push(performance.now() - begin);
      if (hits.length === 0) empty += 1;
    }
    figures.push({ chunks, ranking, queries: series.length, latencies: ascending(latencies), empty, capped });
  }
  return figures;
}

interface DialectFigures {
  dialect: Dialect;
  vectorBackend: string;
  builds: BuildFigures[];
  latencies: LatencyFigures[];
}

async function runDialect(
  dialect: Dialect,
  texts: readonly string[],
  vectors: readonly Float32Array[],
  queries: readonly string[],
): Promise<DialectFigures> {
  const builds: BuildFigures[] = [];
  const latencies: LatencyFigures[] = [];
  const database = await createTestDatabase(dialect);
  const store = await openStore({ databaseUrl: database.databaseUrl, dataDirectory: database.dataDirectory, poolSize: 4 });
  const vectorBackend: string = store.vectorBackend;
  try {
    const owner = await createOwner(store);
    const knowledgeBaseId = await insertKnowledgeBase(store.db, {
      ownerId: owner.userId,
      organizationId: owner.organizationId,
      name: 'scale',
      description: '',
      chunkSize: CHUNK_SIZE,
      chunkOverlap: CHUNK_OVERLAP,
      embedding: EMBEDDING_CHOICE,
    });
    let built = 0;
    for (const size of [SMALL_CHUNKS, LARGE_CHUNKS]) {
      if (size <= built) continue;
      builds.push(await buildChunks(store, knowledgeBaseId, texts, vectors, built, size));
      built = size;
      latencies.push(...(await measureQueries(store, knowledgeBaseId, size, queries)));
    }
  } finally {
    await store.close();
    await database.drop();
  }
  return { dialect, vectorBackend, builds, latencies };
}

describe('knowledge bases at scale: query latency (BEIR DBpedia-Entity text)', () => {
  it('prints build throughput and query latency at 10k and 100k chunks', { timeout: 1_200_000 }, async () => {
    const benchStarted = performance.now();
    const corpus = readJsonLines<CorpusDocument>('corpus.jsonl');
    const queries = queriesWithTitles(corpus, QUERY_COUNT);
    const beirQueriesUsed = Math.min(readJsonLines<BeirQuery>('queries.jsonl').length, queries.length);
    const texts = scaleTexts(corpus, Math.max(SMALL_CHUNKS, LARGE_CHUNKS));
    const embeddingStarted = performance.now();
    const vectors = texts.map(embed);
    const embeddingSeconds = seconds(embeddingStarted);

    const results: DialectFigures[] = [];
    for (const dialect of TEST_DIALECTS) results.push(await runDialect(dialect, texts, vectors, queries));

    printTable(
      `building the chunk sets: insertChunks + insertChunkEmbeddings (precomputed ${EMBEDDING_DIMENSIONS}-dim vectors), ${BUILD_BATCH} chunks per document and transaction`,
      [
        { label: 'store', width: 9 },
        { label: 'backend', width: 11, align: 'left' },
        { label: 'chunks', width: 18, align: 'left' },
        { label: 'rows', width: 7 },
        { label: 'seconds', width: 8 },
        { label: 'rows/s', width: 7 },
        { label: 'text MB/s', width: 10 },
      ],
      results.flatMap((result) =>
        result.builds.map((build) => [
          result.dialect,
          result.vectorBackend,
          build.label,
          String(build.rows),
          build.seconds.toFixed(2),
          (build.rows / build.seconds).toFixed(0),
          (build.megabytes / build.seconds).toFixed(2),
        ]),
      ),
    );
    process.stdout.write(
      `  (computing the ${texts.length.toLocaleString('en-US')} chunk vectors in-process beforehand took ${embeddingSeconds.toFixed(1)} s, not counted above)\n`,
    );

    printTable(
      `query latency, top_k ${TOP_K}, ${queries.length} queries (${beirQueriesUsed} BEIR queries + ${queries.length - beirQueriesUsed} abstract titles); hybrid = full text + vector, ${Math.max(TOP_K, HYBRID_CANDIDATES_MINIMUM)} candidates each, reciprocal rank fusion; query vectors from the ${EMBEDDINGS_LABEL}`,
      [
        { label: 'store', width: 9 },
        { label: 'backend', width: 11, align: 'left' },
        { label: 'chunks', width: 8 },
        { label: 'ranking', width: 9, align: 'left' },
        { label: 'queries', width: 8 },
        { label: 'p50 ms', width: 8 },
        { label: 'p99 ms', width: 8 },
        { label: 'max ms', width: 8 },
        { label: 'empty', width: 6 },
      ],
      results.flatMap((result) =>
        result.latencies.map((figures) => [
          result.dialect,
          result.vectorBackend,
          String(figures.chunks),
          figures.ranking,
          `${figures.queries}${figures.capped ? '*' : ''}`,
          milliseconds(percentile(figures.latencies, 0.5)),
          milliseconds(percentile(figures.latencies, 0.99)),
          milliseconds(figures.latencies[figures.latencies.length - 1] ?? 0),
          String(figures.empty),
        ]),
      ),
    );
    if (results.some((result) => result.latencies.some((figures) => figures.capped))) {
      process.stdout.write(
        `  * capped at ${SCAN_QUERY_CAP} queries (SCALE_SCAN_QUERY_CAP): the 'scan' backend (PostgreSQL without pgvector) reads every vector of the knowledge base into the application for each query; with so few queries p99 is the slowest one.\n`,
      );
    }
    process.stdout.write(`  empty: queries that found no chunk. Total time of this benchmark: ${seconds(benchStarted).toFixed(0)} s.\n`);

    for (const result of results)
      for (const figures of result.latencies) {
        if (figures.ranking !== 'full text') expect(figures.empty, `${result.dialect} ${figures.chunks} ${figures.ranking}`).toBe(0);
      }
  });
});
