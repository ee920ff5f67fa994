/**
 * RM3 pseudo-relevance feedback for full-text search, as Anserini does it (Rm3Reranker, after
 * Lavrenko and Croft's relevance model and Abdul-Jaleel et al.'s RM3): the knowledge base's best
 * chunks for the query lend it their most telling terms, and the query is run again with those
 * terms added at lower weight. Anserini's defaults, not fitted to a data set: 10 feedback chunks,
 * 10 expansion terms, the original query keeping half the weight; terms under two characters or
 * in more than a tenth of the knowledge base's chunks are never drawn. Feedback comes from the
 * knowledge base's own chunks and statistics alone, so its ranking still depends on nothing else.
 */
import type { Kysely } from 'kysely';
import { inverseDocumentFrequencies, type IndexStatistics, type ScoredChunkHit } from '../store/chunk-search-repository.js';
import { analyseFields, titleFieldOf, type TextAnalyzer } from '../store/text-analysis.js';
import type { Database } from '../store/schema.js';

/** Anserini's RM3 defaults (fbDocs, fbTerms, originalQueryWeight). */
export const FEEDBACK_CHUNKS = 10;
export const FEEDBACK_TERMS = 10;
export const ORIGINAL_QUERY_WEIGHT = 0.5;
/** A term in more of the chunks than this says nothing about a topic (Anserini's filter). */
const COMMON_TERM_SHARE = 0.1;
const TERM_LENGTH_MINIMUM = 2;

export interface FeedbackQuery {
  analyzer: TextAnalyzer;
  statistics: IndexStatistics;
  /** The query's terms, each with how often it says it. */
  terms: ReadonlyMap<string, number>;
  /** The first BM25 ranking, best first. */
  ranking: readonly ScoredChunkHit[];
}

/** The `size` heaviest entries of a vector. */
function heaviest(vector: ReadonlyMap<string, number>, size: number): Map<string, number> {
  return new Map([...vector].sort((left, right) => right[1] - left[1] || (left[0] < right[0] ? -1 : 1)).slice(0, size));
}

function scaledToUnitSum(vector: ReadonlyMap<string, number>): Map<string, number> {
  const total = [...vector.values()].reduce((sum, value) => sum + value, 0);
  return new Map([...vector].map(([term, value]) => [term, total > 0 ? value / total : 0]));
}

/** The terms of a chunk that may expand a query, with their field-weighted counts. */
async function chunkVectors(db: Kysely<Database>, query: FeedbackQuery, chunks: readonly ScoredChunkHit[]): Promise<Map<string, number>[]> {
  const analysed = chunks.map(
    (chunk) => analyseFields(query.analyzer, chunk.text, titleFieldOf(chunk.metadata.title, chunk.metadata.heading)).frequencies,
  );
  const vocabulary = new Set(
    analysed.flatMap((frequencies) => [...frequencies.keys()]).filter((term) => term.length >= TERM_LENGTH_MINIMUM),
  );
  const idf = await inverseDocumentFrequencies(db, query.statistics, vocabulary);
  // A term's idf falls as its chunks grow: under this it is in more than COMMON_TERM_SHARE of them.
  const chunkCount = query.statistics.index_chunk_count;
  const commonShare = chunkCount * COMMON_TERM_SHARE;
  const idfFloor = Math.log(1 + (chunkCount - commonShare + 0.5) / (commonShare + 0.5));
  return analysed.map(
    (frequencies) => new Map([...frequencies].filter(([term]) => vocabulary.has(term) && (idf.get(term) ?? 0) >= idfFloor)),
  );
}

/**
 * The query with its expansion terms, weighted (original terms included), or the query as it was
 * when the knowledge base gave it nothing to learn from. Weights sum to the query's term count, so
 * they are on the scale of the query's own counts.
 */
export async function expandQuery(db: Kysely<Database>, query: FeedbackQuery): Promise<Map<string, number>> {
  const feedback = query.ranking.slice(0, FEEDBACK_CHUNKS).filter((chunk) => chunk.score > 0);
  if (feedback.length === 0) return new Map(query.terms);
  const vectors = (await chunkVectors(db, query, feedback)).map((vector) => scaledToUnitSum(heaviest(vector, FEEDBACK_TERMS)));
  const relevanceModel = new Map<string, number>();
  vectors.forEach((vector, index) => {
    for (const [term, value] of vector) relevanceModel.set(term, (relevanceModel.get(term) ?? 0) + value * feedback[index]!.score);
  });
  const expansion = scaledToUnitSum(heaviest(relevanceModel, FEEDBACK_TERMS));
  if (expansion.size === 0) return new Map(query.terms);
  const original = scaledToUnitSum(query.terms);
  const queryLength = [...query.terms.values()].reduce((sum, count) => sum + count, 0);
  const expanded = new Map<string, number>();
  for (const term of new Set([...original.keys(), ...expansion.keys()])) {
    const weight = ORIGINAL_QUERY_WEIGHT * (original.get(term) ?? 0) + (1 - ORIGINAL_QUERY_WEIGHT) * (expansion.get(term) ?? 0);
    expanded.set(term, weight * queryLength);
  }
  return expanded;
}
