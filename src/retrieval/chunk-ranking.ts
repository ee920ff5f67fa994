/**
 * Ranks the chunks of knowledge bases in one retrieval mode: full text, vector, or hybrid (both,
 * fused by reciprocal rank). The knowledge-base service decides the mode and embeds the query;
 * the benchmarks call this too, so they measure exactly what a query runs.
 */
import type { ChunkHit } from '../store/chunk-search-repository.js';
import { searchChunksByVector, type VectorBackend } from '../store/chunk-vector-repository.js';
import type { Dialect } from '../store/dialect.js';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import { knowledgeBaseIdOf, rankFullText, type FullTextRanking, type KnowledgeBasesToRank } from './full-text-ranking.js';
import { fuseByReciprocalRank } from './reciprocal-rank-fusion.js';

export const RETRIEVAL_MODES = ['full_text', 'vector', 'hybrid'] as const;
export type RetrievalMode = (typeof RETRIEVAL_MODES)[number];

/** How many candidates each ranking hands to the fusion, at least: more than top_k, so fusion can reorder. */
export const HYBRID_CANDIDATES_MINIMUM = 50;

export interface RankingStore {
  db: Kysely<Database>;
  dialect: Dialect;
  vectorBackend: VectorBackend;
  /** How full text re-ranks its BM25 candidates; DEFAULT_FULL_TEXT_RANKING unless given. */
  fullTextRanking?: FullTextRanking;
}

export type RankedQuery = { mode: 'full_text'; text: string } | { mode: 'vector' | 'hybrid'; text: string; embedding: Float32Array };

export async function rankChunks(
  store: RankingStore,
  knowledgeBases: KnowledgeBasesToRank,
  query: RankedQuery,
  topK: number,
): Promise<ChunkHit[]> {
  const { db, dialect, vectorBackend, fullTextRanking: ranking } = store;
  const knowledgeBaseIds = knowledgeBases.map(knowledgeBaseIdOf);
  const fullText = (limit: number) => rankFullText(db, { knowledgeBases, text: query.text, limit, ranking });
  if (query.mode === 'full_text') return fullText(topK);
  const vectorSearch = { dialect, backend: vectorBackend, knowledgeBaseIds, queryEmbedding: query.embedding };
  if (query.mode === 'vector') return searchChunksByVector(db, { ...vectorSearch, limit: topK });
  const candidates = Math.max(topK, HYBRID_CANDIDATES_MINIMUM);
  const rankings = await Promise.all([fullText(candidates), searchChunksByVector(db, { ...vectorSearch, limit: candidates })]);
  return fuseByReciprocalRank(rankings, topK);
}
