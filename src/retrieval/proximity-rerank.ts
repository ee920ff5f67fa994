/**
 * Term proximity for full-text search: Metzler and Croft's sequential dependence model (SDM, 2005)
 * over BM25, as Anserini builds it (`-bm25 -sdm`): each pair of query terms that follow each other
 * in the query is also looked for as an exact phrase (`#1`) and unordered within a window of 8
 * terms (`#uw8`), and a chunk scores 0.85 × its BM25 + 0.1 × the phrases' BM25 + 0.05 × the
 * windows' BM25. Postings hold no positions, so this re-scores a knowledge base's best BM25
 * candidates by re-analysing their stored text with the knowledge base's own analyzer (remembered
 * between queries, analysed-text-cache.ts); the result depends on the chunk and its knowledge
 * base's statistics alone, identically on both stores.
 * The weights and window are the paper's usual defaults, not fitted to any data set.
 */
import { TITLE_FIELD_WEIGHT, titleFieldOf } from '../store/text-analysis.js';
import type { ScoredChunkHit } from '../store/chunk-search-repository.js';

/** SDM's weights of the unigram, ordered-pair and unordered-pair parts (Metzler and Croft 2005). */
export const PROXIMITY_WEIGHTS = { terms: 0.85, phrases: 0.1, windows: 0.05 } as const;
/** SDM's unordered window for a pair: 4 terms per query term (Metzler and Croft 2005). */
export const PROXIMITY_WINDOW = 8;
/** Same saturation and length normalisation as the terms' BM25 (chunk-search-repository.ts). */
const BM25_K1 = 1.2;
const BM25_B = 0.75;

interface TermPair {
  first: string;
  second: string;
  /** As Lucene scores a span query: the sum of its terms' idf. */
  weight: number;
}

export interface ProximityRerank {
  /** The terms of a stored chunk's text (by its id) or of a title, by the knowledge base's own analyzer. */
  termsOf: (text: string, chunkId?: number) => readonly string[];
  /** The query's terms in order (repeats kept), as the analyzer gives them. */
  queryTerms: readonly string[];
  /** Each query term's idf in the knowledge base (terms it lacks are absent). */
  inverseDocumentFrequencies: ReadonlyMap<string, number>;
  /** The sum of the term weights the candidates' BM25 scores were computed with. */
  termWeightTotal: number;
  averageLength: number;
  candidates: readonly ScoredChunkHit[];
}

/** The pairs of adjacent query terms the knowledge base has both of (SDM's dependencies). */
function adjacentPairs(queryTerms: readonly string[], inverseDocumentFrequencies: ReadonlyMap<string, number>): TermPair[] {
  const pairs: TermPair[] = [];
  for (let index = 0; index + 1 < queryTerms.length; index += 1) {
    const first = queryTerms[index]!;
    const second = queryTerms[index + 1]!;
    const firstWeight = inverseDocumentFrequencies.get(first);
    const secondWeight = inverseDocumentFrequencies.get(second);
    if (firstWeight === undefined || secondWeight === undefined) continue;
    pairs.push({ first, second, weight: firstWeight + secondWeight });
  }
  return pairs;
}

const NOWHERE: readonly number[] = [];

/** Where each wanted term occurs in `terms`, ascending: one pass, so a pair's counts need only its terms' few positions. */
export function termPositions(terms: readonly string[], wanted: ReadonlySet<string>): Map<string, number[]> {
  const positions = new Map<string, number[]>();
  for (let index = 0; index < terms.length; index += 1) {
    const term = terms[index]!;
    if (!wanted.has(term)) continue;
    const list = positions.get(term);
    if (list === undefined) positions.set(term, [index]);
    else list.push(index);
  }
  return positions;
}

/** How often an occurrence of the first term is directly followed by one of the second (Indri's `#1`), from their positions. */
export function phraseCount(first: readonly number[], second: readonly number[]): number {
  let count = 0;
  let next = 0;
  for (const position of first) {
    while (next < second.length && second[next]! <= position) next += 1;
    if (next < second.length && second[next] === position + 1) count += 1;
  }
  return count;
}

/**
 * How many times both terms occur, in either order, within `window` consecutive terms (Indri's
 * `#uwN`), each occurrence used in one match at most: matches are taken left to right. The same
 * positions array for both means the pair is one term twice, whose occurrences match each other.
 */
export function windowCount(first: readonly number[], second: readonly number[], window: number): number {
  const sameTerm = first === second;
  const events = sameTerm
    ? first.map((position) => ({ position, isFirst: true }))
    : [...first.map((position) => ({ position, isFirst: true })), ...second.map((position) => ({ position, isFirst: false }))].sort(
        (left, right) => left.position - right.position,
      );
  const used = new Uint8Array(events.length);
  let count = 0;
  for (let start = 0; start < events.length; start += 1) {
    if (used[start] === 1) continue;
    const from = events[start]!;
    for (let next = start + 1; next < events.length && events[next]!.position < from.position + window; next += 1) {
      if (used[next] === 0 && (sameTerm || events[next]!.isFirst !== from.isFirst)) {
        used[start] = 1;
        used[next] = 1;
        count += 1;
        break;
      }
    }
  }
  return count;
}

/**
 * The candidates re-scored by SDM and sorted, best first. Similarity stays `s / (s + W)`, W now
 * being the weight of every feature (0.85 × the term weights + 0.15 × the pairs' weights): one half
 * for a chunk of average length holding each query term once and each adjacent pair once as a
 * phrase, always under 1. A query of one term keeps its BM25 order and similarities.
 */
export function rerankByProximity(rerank: ProximityRerank): ScoredChunkHit[] {
  const { termsOf, candidates, averageLength } = rerank;
  const pairs = adjacentPairs(rerank.queryTerms, rerank.inverseDocumentFrequencies);
  if (pairs.length === 0) return [...candidates];
  const pairWeightTotal = pairs.reduce((sum, pair) => sum + pair.weight, 0);
  const weightTotal =
    PROXIMITY_WEIGHTS.terms * rerank.termWeightTotal + (PROXIMITY_WEIGHTS.phrases + PROXIMITY_WEIGHTS.windows) * pairWeightTotal;
  const wanted = new Set(pairs.flatMap((pair) => [pair.first, pair.second]));
  const rescored = candidates.map((candidate) => {
    const terms = termsOf(candidate.text, candidate.id);
    const positions = termPositions(terms, wanted);
    const at = (term: string) => positions.get(term) ?? NOWHERE;
    // The BM25F length the terms' scores were normalised with (search-index-repository.ts).
    const titleField = titleFieldOf(candidate.metadata.title, candidate.metadata.heading);
    const length = terms.length + TITLE_FIELD_WEIGHT * termsOf(titleField).length;
    const normalisation = BM25_K1 * (1 - BM25_B + (BM25_B * length) / Math.max(averageLength, 1));
    const saturated = (frequency: number) => (frequency * (BM25_K1 + 1)) / (frequency + normalisation);
    let phrases = 0;
    let windows = 0;
    for (const pair of pairs) {
      phrases += pair.weight * saturated(phraseCount(at(pair.first), at(pair.second)));
      windows += pair.weight * saturated(windowCount(at(pair.first), at(pair.second), PROXIMITY_WINDOW));
    }
    const score = PROXIMITY_WEIGHTS.terms * candidate.score + PROXIMITY_WEIGHTS.phrases * phrases + PROXIMITY_WEIGHTS.windows * windows;
    return { ...candidate, score, similarity: score / (score + weightTotal) };
  });
  return rescored.sort((left, right) => right.score - left.score || left.id - right.id);
}
