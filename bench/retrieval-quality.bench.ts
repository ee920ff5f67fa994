/**
 * Retrieval quality and speed of full-text search on a real BEIR data set (DBpedia-Entity, 5,000
 * abstracts, 50 queries with graded judgements), on SQLite and PostgreSQL: nDCG@10 and recall@10,
 * indexing throughput and query latency. Prints figures; it checks only that every query ran.
 *
 * It also ranks by vectors alone and by hybrid retrieval (full text and vectors fused by reciprocal
 * rank, through `rankChunks` as a knowledge-base query does). No real
 * embedding model is available offline, so the vectors are the test suite's hashed bag-of-words
 * embeddings (`deterministicEmbedding`, 64 dimensions): those figures show that the vector and
 * hybrid paths work end to end and what they cost, not the quality a real model would give.
 *
 * Full text is ranked as a knowledge-base query ranks it (`rankChunks`: BM25F, then the term-proximity
 * re-rank); FULL_TEXT_RANKING=bm25|proximity|feedback|proximity,feedback and
 * FULL_TEXT_RERANK_CANDIDATES=… measure each step on its own (docs/knowledge-bases.md).
 *
 *   npm run bench -- bench/retrieval-quality.bench.ts      (BEIR_DIRECTORY=… for another set)
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bootstrapAdmin } from '../src/auth/admin-bootstrap.js';
import { rankChunks } from '../src/retrieval/chunk-ranking.js';
import { DEFAULT_FULL_TEXT_RANKING, type FullTextRanking } from '../src/retrieval/full-text-ranking.js';
import { insertChunkEmbeddings } from '../src/store/chunk-vector-repository.js';
import { insertChunks, insertKnowledgeBase } from '../src/store/knowledge-repository.js';
import { insertDocument } from '../src/store/knowledge-documents-repository.js';
import { openStore } from '../src/store/store.js';
import { deterministicEmbedding, EMBEDDING_DIMENSIONS } from '../test/fakes/fake-http.js';
import { createTestDatabase, TEST_DIALECTS, TEST_PASSWORD_HASH_COST, type Dialect } from '../test/support/test-databases.js';
import { BEIR_DIRECTORY, readJsonLines, type BeirQuery, type CorpusDocument } from './support/beir-data.js';
import { ascending, milliseconds, percentile, printTable } from './support/measure.js';

const CUTOFF = 10;
/** Documents per ingestion transaction, like a large upload's chunks. */
const INDEX_BATCH = 500;
const EMBEDDINGS_LABEL = `hashed bag-of-words test embeddings (no real model available offline), ${EMBEDDING_DIMENSIONS} dimensions`;

type RankingMode = 'vector' | 'hybrid';
const RANKING_MODES: readonly RankingMode[] = ['vector', 'hybrid'];

function embed(text: string): Float32Array {
  return Float32Array.from(deterministicEmbedding(text));
}

/** query id → (document id → graded relevance), from BEIR's `query-id corpus-id score` file. */
function readJudgements(): Map<string, Map<string, number>> {
  const judgements = new Map<string, Map<string, number>>();
  for (const line of readFileSync(`${BEIR_DIRECTORY}qrels/test.tsv`, 'utf8').split('\n').slice(1)) {
    const [queryId, documentId, score] = line.split('\t');
    if (!queryId || !documentId || score === undefined) continue;
    if (!judgements.has(queryId)) judgements.set(queryId, new Map());
    judgements.get(queryId)!.set(documentId, Number(score));
  }
  return judgements;
}

/** nDCG@k with linear gains, as trec_eval and BEIR compute it. */
function ndcgAt(ranked: readonly string[], relevance: ReadonlyMap<string, number>, cutoff: number): number {
  const discounted = (gains: readonly number[]) =>
    gains.slice(0, cutoff).reduce((sum, gain, index) => sum + gain / Math.log2(index + 2), 0);
  const ideal = discounted([...relevance.values()].sort((a, b) => b - a));
  return ideal === 0 ? 0 : discounted(ranked.map((id) => relevance.get(id) ?? 0)) / ideal;
}

function recallAt(ranked: readonly string[], relevance: ReadonlyMap<string, number>, cutoff: number): number {
  const relevant = [...relevance.entries()].filter(([, grade]) => grade > 0).map(([id]) => id);
  if (relevant.length === 0) return 0;
  const found = new Set(ranked.slice(0, cutoff));
  return relevant.filter((id) => found.has(id)).length / relevant.length;
}

interface ModeFigures {
  mode: RankingMode;
  ndcg: number;
  recall: number;
  /** Ascending; each includes embedding the query in-process. */
  queryLatencies: number[];
  queriesRun: number;
}

interface QualityFigures {
  dialect: Dialect;
  ndcg: number;
  recall: number;
  megabytesPerSecond: number;
  queryLatencies: number[];
  queriesRun: number;
  vectorBackend: string;
  /** Storing the vectors only (computed beforehand), in the same batches as the chunks. */
  vectorRowsPerSecond: number;
  modes: ModeFigures[];
}

/**
 * Full-text ranking to measure: the default unless FULL_TEXT_RANKING lists the steps (`bm25`,
 * `proximity`, `feedback`, comma-separated) and FULL_TEXT_RERANK_CANDIDATES the candidates.
 */
function benchRanking(): FullTextRanking {
  const steps = process.env.FULL_TEXT_RANKING?.split(',');
  const candidates = Number(process.env.FULL_TEXT_RERANK_CANDIDATES ?? DEFAULT_FULL_TEXT_RANKING.candidates);
  if (steps === undefined) return { ...DEFAULT_FULL_TEXT_RANKING, candidates };
  return { proximity: steps.includes('proximity'), feedback: steps.includes('feedback'), candidates };
}

async function evaluate(dialect: Dialect): Promise<QualityFigures> {
  const corpus = readJsonLines<CorpusDocument>('corpus.jsonl');
  const queries = readJsonLines<BeirQuery>('queries.jsonl');
  const judgements = readJudgements();
  const database = await createTestDatabase(dialect);
  const store = await openStore({ databaseUrl: database.databaseUrl, dataDirectory: database.dataDirectory, poolSize: 4 });
  try {
    await bootstrapAdmin(store.db, 'bench@merino.test', 'bench-password', TEST_PASSWORD_HASH_COST);
    const admin = await store.db.selectFrom('users').select(['id', 'organization_id']).executeTakeFirstOrThrow();
    const knowledgeBaseId = await insertKnowledgeBase(store.db, {
      ownerId: admin.id,
      organizationId: admin.organization_id,
      name: 'DBpedia',
      description: '',
      chunkSize: 1000,
      chunkOverlap: 200,
    });
    const texts = corpus.map((document) => `${document.title}\n${document.text}`);
    const started = performance.now();
    for (let start = 0; start < corpus.length; start += INDEX_BATCH) {
      const batch = corpus.slice(start, start + INDEX_BATCH);
      await store.db.transaction().execute(async (transaction) => {
        const documentId = await insertDocument(transaction, {
          knowledgeBaseId,
          fileName: `batch-${start}.jsonl`,
          contentType: 'application/json',
          sizeBytes: 0,
          sourceUrl: null,
          status: 'completed',
          metadata: {},
        });
        await insertChunks(
          transaction,
          documentId,
          batch.map((document, index) => ({
            knowledge_base_id: knowledgeBaseId,
            chunk_index: index,
            text: texts[start + index]!,
            // The title also reaches the chunk's metadata, as a JSON document's `metadata.title` does
            // through the API: the title field of BM25F (search-index-repository.ts).
            metadata: JSON.stringify({ beir_id: document._id, title: document.title }),
          })),
        );
      });
    }
    const indexSeconds = (performance.now() - started) / 1000;
    const megabytes = texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0) / 1_048_576;

    // The vectors go in after the full-text timing, so the index MB/s above stays full text only.
    const chunkRows = await store.db
      .selectFrom('kb_chunks')
      .select(['id', 'text'])
      .where('knowledge_base_id', '=', knowledgeBaseId)
      .orderBy('id')
      .execute();
    const vectors = chunkRows.map((row) => embed(row.text));
    const vectorsStarted = performance.now();
    for (let start = 0; start < chunkRows.length; start += INDEX_BATCH) {
      const batch = chunkRows.slice(start, start + INDEX_BATCH);
      await store.db.transaction().execute((transaction) =>
        insertChunkEmbeddings(
          transaction,
          batch.map((row, index) => ({ chunkId: row.id, knowledgeBaseId, embedding: vectors[start + index]! })),
          store.vectorBackend,
        ),
      );
    }
    const vectorRowsPerSecond = chunkRows.length / ((performance.now() - vectorsStarted) / 1000);

    const ranking = { ...store, fullTextRanking: benchRanking() };
    let ndcgSum = 0;
    let recallSum = 0;
    const latencies: number[] = [];
    for (const query of queries) {
      const begin = performance.now();
      const hits = await rankChunks(ranking, [knowledgeBaseId], { mode: 'full_text', text: query.text }, CUTOFF);
      latencies.push(performance.now() - begin);
      const ranked = hits.map((hit) => String(hit.metadata.beir_id));
      const relevance = judgements.get(query._id) ?? new Map<string, number>();
      ndcgSum += ndcgAt(ranked, relevance, CUTOFF);
      recallSum += recallAt(ranked, relevance, CUTOFF);
    }

    const modes: ModeFigures[] = [];
    for (const mode of RANKING_MODES) {
      let modeNdcg = 0;
      let modeRecall = 0;
      const modeLatencies: number[] = [];
      for (const query of queries) {
        const begin = performance.now();
        const hits = await rankChunks(ranking, [knowledgeBaseId], { mode, text: query.text, embedding: embed(query.text) }, CUTOFF);
        modeLatencies.push(performance.now() - begin);
        const ranked = hits.map((hit) => String(hit.metadata.beir_id));
        const relevance = judgements.get(query._id) ?? new Map<string, number>();
        modeNdcg += ndcgAt(ranked, relevance, CUTOFF);
        modeRecall += recallAt(ranked, relevance, CUTOFF);
      }
      modes.push({
        mode,
        ndcg: modeNdcg / queries.length,
        recall: modeRecall / queries.length,
        queryLatencies: ascending(modeLatencies),
        queriesRun: modeLatencies.length,
      });
    }
    return {
      dialect,
      ndcg: ndcgSum / queries.length,
      recall: recallSum / queries.length,
      megabytesPerSecond: megabytes / indexSeconds,
      queryLatencies: ascending(latencies),
      queriesRun: latencies.length,
      vectorBackend: store.vectorBackend,
      vectorRowsPerSecond,
      modes,
    };
  } finally {
    await store.close();
    await database.drop();
  }
}

describe('retrieval quality on BEIR DBpedia-Entity (5k)', () => {
  it('runs every query on both stores and prints nDCG@10, recall@10 and speed', { timeout: 600_000 }, async () => {
    const results: QualityFigures[] = [];
    for (const dialect of TEST_DIALECTS) results.push(await evaluate(dialect));
    printTable(
      `full-text retrieval, ${results[0]?.queriesRun ?? 0} queries, cut-off ${CUTOFF}`,
      [
        { label: 'store', width: 10 },
        { label: 'nDCG@10', width: 8 },
        { label: 'recall@10', width: 10 },
        { label: 'index MB/s', width: 11 },
        { label: 'query p50 ms', width: 13 },
        { label: 'query p99 ms', width: 13 },
      ],
      results.map((result) => [
        result.dialect,
        result.ndcg.toFixed(3),
        result.recall.toFixed(3),
        result.megabytesPerSecond.toFixed(2),
        milliseconds(percentile(result.queryLatencies, 0.5)),
        milliseconds(percentile(result.queryLatencies, 0.99)),
      ]),
    );
    printTable(
      `vector-only and hybrid (full text + vector, reciprocal rank fusion) retrieval, cut-off ${CUTOFF}; vectors: ${EMBEDDINGS_LABEL}`,
      [
        { label: 'store', width: 10 },
        { label: 'backend', width: 11, align: 'left' },
        { label: 'ranking', width: 9, align: 'left' },
        { label: 'nDCG@10', width: 8 },
        { label: 'recall@10', width: 10 },
        { label: 'vectors/s', width: 10 },
        { label: 'query p50 ms', width: 13 },
        { label: 'query p99 ms', width: 13 },
      ],
      results.flatMap((result) => [
        [
          result.dialect,
          result.vectorBackend,
          'full text',
          result.ndcg.toFixed(3),
          result.recall.toFixed(3),
          '',
          milliseconds(percentile(result.queryLatencies, 0.5)),
          milliseconds(percentile(result.queryLatencies, 0.99)),
        ],
        ...result.modes.map((mode) => [
          result.dialect,
          result.vectorBackend,
          mode.mode,
          mode.ndcg.toFixed(3),
          mode.recall.toFixed(3),
          mode.mode === 'vector' ? result.vectorRowsPerSecond.toFixed(0) : '',
          milliseconds(percentile(mode.queryLatencies, 0.5)),
          milliseconds(percentile(mode.queryLatencies, 0.99)),
        ]),
      ]),
    );
    process.stdout.write(
      `  vectors/s: storing precomputed vectors (insertChunkEmbeddings, ${INDEX_BATCH} per transaction); vector and hybrid latencies include embedding the query in-process.\n`,
    );
    expect(results.map((result) => result.queriesRun)).toEqual(TEST_DIALECTS.map(() => 50));
    expect(results.flatMap((result) => result.modes.map((mode) => mode.queriesRun))).toEqual(
      results.flatMap(() => RANKING_MODES.map(() => 50)),
    );
  });
});
