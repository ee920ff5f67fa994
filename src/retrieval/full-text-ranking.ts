/**
 * What a knowledge-base query runs for full text: per knowledge base, BM25F over its postings
 * (src/store/chunk-search-repository.ts) for a bounded number of candidates, optionally RM3
 * feedback (a second BM25 pass with the expanded query), then a re-rank of those candidates by
 * BM25F normalised per field and term proximity; knowledge bases asked for together are merged by similarity, which means the same
 * in each. All re-scoring is JavaScript over stored text, identical on SQLite and PostgreSQL.
 */
import type { Kysely } from 'kysely';
import {
  indexStatisticsOf,
  queryTerms,
  searchKnowledgeBase,
  type ChunkHit,
  type IndexStatistics,
  type HeldSearchData,
  type ScoredChunkHit,
} from '../store/chunk-search-repository.js';
import { ChunkRowCache } from '../store/chunk-row-cache.js';
import { PostingListCache } from '../store/posting-list-cache.js';
import { textAnalyzer } from '../store/text-analysis.js';
import type { Database } from '../store/schema.js';
import { AnalysedTextCache } from './analysed-text-cache.js';
import { fieldAveragesOf } from './field-weighted-bm25.js';
import { expandQuery } from './pseudo-relevance-feedback.js';
import { rerankByProximity } from './proximity-rerank.js';

export interface FullTextRanking {
  /** Re-rank candidates by BM25F normalised per field and SDM term proximity (proximity-rerank.ts), one-term queries too. */
  proximity: boolean;
  /** Expand the query by RM3 from the knowledge base's own best chunks (pseudo-relevance-feedback.ts). */
  feedback: boolean;
  /** BM25 candidates each knowledge base hands to the re-ranking, at least (more when top_k asks for more). */
  candidates: number;
  /** The candidates' terms, remembered between queries (FULL_TEXT_RERANK_CACHE_CHARACTERS); one shared by callers without settings otherwise. */
  analysedTexts?: AnalysedTextCache;
  /** Posting lists and chunk rows read lately (FULL_TEXT_POSTINGS_CACHE, FULL_TEXT_CHUNK_CACHE_CHARACTERS), of one store only; one per database handle otherwise. */
  held?: HeldSearchData;
}

/** What FULL_TEXT_RERANK_CANDIDATES and FULL_TEXT_QUERY_EXPANSION default to, for callers without settings. */
export const DEFAULT_FULL_TEXT_RANKING: FullTextRanking = { proximity: true, feedback: false, candidates: 50 };

/** FULL_TEXT_RERANK_CACHE_CHARACTERS's default, for callers without settings. */
const DEFAULT_ANALYSED_TEXT_CHARACTERS = 4_000_000;
const sharedAnalysedTexts = new AnalysedTextCache(DEFAULT_ANALYSED_TEXT_CHARACTERS);
/** FULL_TEXT_POSTINGS_CACHE's and FULL_TEXT_CHUNK_CACHE_CHARACTERS's defaults, for callers without settings. */
const DEFAULT_POSTINGS_HELD = 500_000;
const DEFAULT_CHUNK_CHARACTERS_HELD = 4_000_000;
// Lists and rows are kept by id (and index version), which only one store gives meaning to:
// callers without settings get them kept per database handle, never shared between stores.
const heldByStore = new WeakMap<Kysely<Database>, HeldSearchData>();

function defaultHeldOf(db: Kysely<Database>): HeldSearchData {
  let held = heldByStore.get(db);
  if (held === undefined) {
    held = { postingLists: new PostingListCache(DEFAULT_POSTINGS_HELD), chunkRows: new ChunkRowCache(DEFAULT_CHUNK_CHARACTERS_HELD) };
    heldByStore.set(db, held);
  }
  return held;
}

function withoutScore(hit: ScoredChunkHit): ChunkHit {
  const { score: _score, ...rest } = hit;
  return rest;
}

interface OneKnowledgeBase {
  statistics: IndexStatistics;
  text: string;
  limit: number;
  ranking: FullTextRanking;
}

async function rankOne(db: Kysely<Database>, { statistics, text, limit, ranking }: OneKnowledgeBase): Promise<ScoredChunkHit[]> {
  const analyzer = textAnalyzer(statistics.search_language);
  const terms = queryTerms(text, statistics.search_language);
  const queryTermSequence = analyzer.terms(text).filter((term) => terms.has(term));
  const reranked = ranking.proximity || ranking.feedback;
  const candidates = reranked ? Math.max(limit, ranking.candidates) : limit;
  const held = ranking.held ?? defaultHeldOf(db);
  const first = await searchKnowledgeBase(db, { statistics, terms, limit: candidates, held });
  let { hits, weights } = first;
  if (ranking.feedback && hits.length > 0) {
    const expanded = await expandQuery(db, { analyzer, statistics, terms, ranking: hits });
    ({ hits, weights } = await searchKnowledgeBase(db, { statistics, terms: expanded, limit: candidates, held }));
  }
  if (ranking.proximity && hits.length > 0) {
    const inverseDocumentFrequencies = new Map([...first.weights].map(([term, weight]) => [term, weight / terms.get(term)!]));
    const analysedTexts = ranking.analysedTexts ?? sharedAnalysedTexts;
    hits = rerankByProximity({
      textOf: (candidate) => analysedTexts.text(analyzer, candidate.id, candidate.text),
      titleOf: (candidate) => analysedTexts.title(analyzer, candidate.metadata),
      queryTerms: queryTermSequence,
      inverseDocumentFrequencies,
      termWeights: weights,
      fieldAverages: fieldAveragesOf(statistics),
      candidates: hits,
    });
  }
  return hits.slice(0, limit);
}

/** The knowledge bases to search, each by its id or by its row when the caller has just read it (a search then reads it no more). */
export type KnowledgeBasesToRank = ReadonlyArray<number | IndexStatistics>;

export function knowledgeBaseIdOf(knowledgeBase: number | IndexStatistics): number {
  return typeof knowledgeBase === 'number' ? knowledgeBase : knowledgeBase.id;
}

export interface FullTextRankingQuery {
  knowledgeBases: KnowledgeBasesToRank;
  text: string;
  limit: number;
  ranking?: FullTextRanking;
}

/** The statistics of the knowledge bases asked for, each once: from the rows given, the others read. */
async function statisticsOf(db: Kysely<Database>, knowledgeBases: KnowledgeBasesToRank): Promise<IndexStatistics[]> {
  const given = new Map<number, IndexStatistics>();
  for (const knowledgeBase of knowledgeBases) if (typeof knowledgeBase !== 'number') given.set(knowledgeBase.id, knowledgeBase);
  const ids = [...new Set(knowledgeBases.map(knowledgeBaseIdOf))];
  const missing = ids.filter((id) => !given.has(id));
  const read = missing.length === 0 ? [] : await indexStatisticsOf(db, missing);
  return [...ids.flatMap((id) => given.get(id) ?? []), ...read];
}

/** The best chunks of the knowledge bases asked for, by full text, best first. */
export async function rankFullText(db: Kysely<Database>, query: FullTextRankingQuery): Promise<ChunkHit[]> {
  const { knowledgeBases, text, limit, ranking = DEFAULT_FULL_TEXT_RANKING } = query;
  if (knowledgeBases.length === 0 || limit < 1 || text.trim() === '') return [];
  const bases = await statisticsOf(db, knowledgeBases);
  const rankings = await Promise.all(bases.map((statistics) => rankOne(db, { statistics, text, limit, ranking })));
  return rankings
    .flat()
    .sort((left, right) => right.similarity - left.similarity || left.id - right.id)
    .slice(0, limit)
    .map(withoutScore);
}
