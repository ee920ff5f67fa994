/**
 * Full-text retrieval over knowledge-base chunks: BM25F with each knowledge base's own statistics
 * (docs/knowledge-bases.md), the same SQL on SQLite and PostgreSQL. The query is analysed like the
 * chunks (the knowledge base's `search_language`); its terms are bound parameters of one aggregate
 * over `kb_postings`, so no text a user types reaches any query syntax, and a knowledge base's
 * results and scores depend on its own chunks alone. Scores are mapped into [0, 1) so that a
 * similarity threshold keeps its meaning.
 */
import { sql, type Kysely } from 'kysely';
import { termFrequencies, textAnalyzer } from './text-analysis.js';
import type { Dialect } from './dialect.js';
import type { Database } from './schema.js';

export interface ChunkHit {
  id: number;
  knowledgeBaseId: number;
  documentId: number;
  chunkIndex: number;
  text: string;
  metadata: Record<string, unknown>;
  /** In [0, 1): higher is more relevant. */
  similarity: number;
}

/** A query longer than this many distinct terms keeps only the first ones. */
export const QUERY_TERMS_MAXIMUM = 64;
/** BM25's term-frequency saturation and length normalisation: Robertson's usual values, not fitted here. */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/** The distinct terms of a query in a language, first ones first, each with how often the query says it. */
export function queryTerms(query: string, language: string): Map<string, number> {
  const counts = termFrequencies(textAnalyzer(language).terms(query));
  return new Map([...counts].slice(0, QUERY_TERMS_MAXIMUM));
}

interface HitRow {
  id: number;
  knowledge_base_id: number;
  document_id: number;
  chunk_index: number;
  text: string;
  metadata: string;
  score: number | string;
}

/** What a knowledge base's BM25 needs of it: its language and the totals of its index. */
export interface IndexStatistics {
  id: number;
  search_language: string;
  index_chunk_count: number;
  index_length_total: number;
  /** Its chunks with a title field and the sum of their title-field lengths, unweighted: the title field's own average (field-weighted-bm25.ts). */
  index_titled_chunk_count: number;
  index_title_length_total: number;
}

/** Inverse document frequency as Lucene's BM25 has it: never negative, however common the term. */
function inverseDocumentFrequency(chunkCount: number, documentFrequency: number): number {
  return Math.log(1 + (chunkCount - documentFrequency + 0.5) / (documentFrequency + 0.5));
}

/** Each query term's weight in this knowledge base (its idf times its count in the query); terms it lacks are left out. */
async function termWeights(db: Kysely<Database>, statistics: IndexStatistics, terms: Map<string, number>): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('kb_terms')
    .select(['term', 'chunk_count'])
    .where('knowledge_base_id', '=', statistics.id)
    .where('term', 'in', [...terms.keys()])
    .where('chunk_count', '>', 0)
    .execute();
  const chunkCount = statistics.index_chunk_count;
  return new Map(rows.map((row) => [row.term, inverseDocumentFrequency(chunkCount, row.chunk_count) * terms.get(row.term)!]));
}

/** Each term's idf in this knowledge base (as termWeights has it); terms it lacks are left out. */
export function inverseDocumentFrequencies(
  db: Kysely<Database>,
  statistics: IndexStatistics,
  terms: Iterable<string>,
): Promise<Map<string, number>> {
  return termWeights(db, statistics, new Map([...terms].map((term) => [term, 1])));
}

/** A hit with its raw BM25 score, for rankings that re-score candidates (src/retrieval/full-text-ranking.ts). */
export interface ScoredChunkHit extends ChunkHit {
  score: number;
}

/** One knowledge base's best chunks for weighted terms, and each term's weight there (its idf times its weight in the query). */
export interface ScoredChunks {
  hits: ScoredChunkHit[];
  weights: Map<string, number>;
}

/**
 * One knowledge base's best chunks. BM25 of a chunk: the sum over query terms it holds of
 * weight × f (k1 + 1) / (f + k1 (1 − b + b · length / average length)), f and length being the
 * field-weighted ones. Similarity: score / (score + the sum of the weights), which is one half
 * for a chunk of average length holding every query term (the knowledge base has) once.
 */
export async function searchKnowledgeBase(
  db: Kysely<Database>,
  statistics: IndexStatistics,
  terms: Map<string, number>,
  limit: number,
): Promise<ScoredChunks> {
  if (terms.size === 0 || statistics.index_chunk_count === 0) return { hits: [], weights: new Map() };
  const weights = await termWeights(db, statistics, terms);
  if (weights.size === 0) return { hits: [], weights };
  const averageLength = Math.max(statistics.index_length_total / statistics.index_chunk_count, 1);
  const real = (value: number) => sql`cast(${value} as double precision)`;
  const weightOf = sql.join(
    [...weights].map(([term, weight]) => sql`when ${term} then ${real(weight)}`),
    sql` `,
  );
  const lengthNormalisation = sql`${real(BM25_K1)} * (${real(1 - BM25_B)} + ${real(BM25_B / averageLength)} * p.length)`;
  const result = await sql<HitRow>`
    select c.id, c.knowledge_base_id, c.document_id, c.chunk_index, c.text, c.metadata, ranked.score
    from (
      select p.chunk_id, sum((case p.term ${weightOf} end) * p.frequency * ${real(BM25_K1 + 1)} / (p.frequency + ${lengthNormalisation})) as score
      from kb_postings p
      where p.knowledge_base_id = ${statistics.id} and p.term in (${sql.join([...weights.keys()])})
      group by p.chunk_id
      order by score desc, p.chunk_id
      limit ${limit}
    ) ranked
    join kb_chunks c on c.id = ranked.chunk_id
    order by ranked.score desc, c.id`.execute(db);
  const weightTotal = [...weights.values()].reduce((sum, weight) => sum + weight, 0);
  const hits = result.rows.map((row) => {
    const score = Math.max(0, Number(row.score));
    return {
      score,
      id: row.id,
      knowledgeBaseId: row.knowledge_base_id,
      documentId: row.document_id,
      chunkIndex: row.chunk_index,
      text: row.text,
      metadata: JSON.parse(row.metadata) as Record<string, unknown>,
      similarity: score / (score + weightTotal),
    };
  });
  return { hits, weights };
}

async function searchOne(db: Kysely<Database>, statistics: IndexStatistics, query: string, limit: number): Promise<ChunkHit[]> {
  const { hits } = await searchKnowledgeBase(db, statistics, queryTerms(query, statistics.search_language), limit);
  return hits.map(({ score: _score, ...hit }) => hit);
}

/** The BM25 statistics of the knowledge bases asked for (each once). */
export async function indexStatisticsOf(db: Kysely<Database>, knowledgeBaseIds: readonly number[]): Promise<IndexStatistics[]> {
  if (knowledgeBaseIds.length === 0) return [];
  return db
    .selectFrom('knowledge_bases')
    .select(['id', 'search_language', 'index_chunk_count', 'index_length_total', 'index_titled_chunk_count', 'index_title_length_total'])
    .where('id', 'in', [...new Set(knowledgeBaseIds)])
    .execute();
}

export interface FullTextChunkSearch {
  dialect: Dialect;
  knowledgeBaseIds: readonly number[];
  /** Text as a user typed it: only its words are used. */
  query: string;
  limit: number;
}

/**
 * The best chunks of the knowledge bases asked for. Each is searched with its own language and
 * statistics; their hits are merged by similarity, which already means the same in each.
 */
export async function searchChunksFullText(db: Kysely<Database>, search: FullTextChunkSearch): Promise<ChunkHit[]> {
  const { knowledgeBaseIds, query, limit } = search;
  if (knowledgeBaseIds.length === 0 || limit < 1 || query.trim() === '') return [];
  const bases = await indexStatisticsOf(db, knowledgeBaseIds);
  const rankings = await Promise.all(bases.map((statistics) => searchOne(db, statistics, query, limit)));
  if (rankings.length === 1) return rankings[0]!;
  return rankings
    .flat()
    .sort((left, right) => right.similarity - left.similarity || left.id - right.id)
    .slice(0, limit);
}
