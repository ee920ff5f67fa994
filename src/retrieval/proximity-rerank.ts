/**
 * Term proximity for full-text search: Metzler and Croft's sequential dependence model (SDM, 2005)
 * over BM25, as Anserini builds it (`-bm25 -sdm`): each pair of query terms that follow each other
 * in the query is also looked for as an exact phrase (`#1`) and unordered within a window of 8
 * terms (`#uw8`), and a chunk scores 0.85 × its BM25 + 0.1 × the phrases' BM25 + 0.05 × the
 * windows' BM25. Every part is BM25F with each field normalised by its own length
 * (field-weighted-bm25.ts), its counts taken in the text and in the title field apart, as the
 * fielded SDM does (Zhiltsov, Kotov and Nikolaev 2015). Postings hold no positions and no field
 * lengths, so this re-scores a knowledge base's best BM25 candidates by re-analysing their stored
 * text and title with the knowledge base's own analyzer (each term's positions remembered between
 * queries, analysed-text-cache.ts); the result depends on the chunk and its knowledge base's statistics
 * alone, identically on both stores.
 * The weights and window are the paper's usual defaults, not fitted to any data set.
 */
import type { ScoredChunkHit } from '../store/chunk-search-repository.js';
import { termIndexOf, type AnalysedText } from './analysed-text.js';
import { fieldNormalisations, saturation, type FieldAverages } from './field-weighted-bm25.js';

/** SDM's weights of the unigram, ordered-pair and unordered-pair parts (Metzler and Croft 2005). */
export const PROXIMITY_WEIGHTS = { terms: 0.85, phrases: 0.1, windows: 0.05 } as const;
/** SDM's unordered window for a pair: 4 terms per query term (Metzler and Croft 2005). */
export const PROXIMITY_WINDOW = 8;

interface TermPair {
  first: string;
  second: string;
  /** As Lucene scores a span query: the sum of its terms' idf. */
  weight: number;
}

export interface ProximityRerank {
  /** A candidate's text, by the knowledge base's own analyzer. */
  textOf: (candidate: ScoredChunkHit) => AnalysedText;
  /** A candidate's title field (titleFieldOf), by the same analyzer. */
  titleOf: (candidate: ScoredChunkHit) => AnalysedText;
  /** The query's terms in order (repeats kept), as the analyzer gives them. */
  queryTerms: readonly string[];
  /** Each query term's idf in the knowledge base (terms it lacks are absent). */
  inverseDocumentFrequencies: ReadonlyMap<string, number>;
  /** The terms the candidates were found by, each with its weight (idf × its weight in the query; RM3's terms included). */
  termWeights: ReadonlyMap<string, number>;
  /** The knowledge base's average field lengths. */
  fieldAverages: FieldAverages;
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

/** Where one term occurs in one field: `length` positions from `start` in `positions`, ascending. */
export interface TermPositions {
  positions: Int32Array;
  start: number;
  length: number;
}

const NO_POSITIONS = new Int32Array(0);

/** Empty lists, one per wanted term, for positionsOf to point at a text's positions again and again. */
export function termPositionLists(count: number): TermPositions[] {
  return Array.from({ length: count }, () => ({ positions: NO_POSITIONS, start: 0, length: 0 }));
}

/**
 * Where each wanted term occurs in `text`: each list of `into` (one per wanted term, in order) is
 * pointed at the text's own positions, never copied, so a candidate costs no allocation. Two
 * absent terms both point at nothing, which counts nothing however it is paired.
 */
export function positionsOf(text: AnalysedText, wanted: readonly string[], into: TermPositions[]): TermPositions[] {
  for (let slot = 0; slot < wanted.length; slot += 1) {
    const list = into[slot]!;
    const index = termIndexOf(text, wanted[slot]!);
    list.positions = index < 0 ? NO_POSITIONS : text.positions;
    list.start = index < 0 ? 0 : text.starts[index]!;
    list.length = index < 0 ? 0 : text.starts[index + 1]! - list.start;
  }
  return into;
}

/** How often an occurrence of the first term is directly followed by one of the second (Indri's `#1`), from their positions. */
export function phraseCount(first: TermPositions, second: TermPositions): number {
  const { positions: following, start: from } = second;
  let count = 0;
  let next = 0;
  for (let index = 0; index < first.length; index += 1) {
    const position = first.positions[first.start + index]!;
    while (next < second.length && following[from + next]! <= position) next += 1;
    if (next < second.length && following[from + next] === position + 1) count += 1;
  }
  return count;
}

interface WindowScratch {
  positions: Int32Array;
  isFirst: Uint8Array;
  used: Uint8Array;
}

// windowCount runs for every pair, field and candidate of every query, and allocating its arrays each
// time was most of its cost. It never yields, so one set of arrays serves every call.
let scratch: WindowScratch = { positions: new Int32Array(64), isFirst: new Uint8Array(64), used: new Uint8Array(64) };

function scratchFor(count: number): WindowScratch {
  if (scratch.positions.length < count) {
    const size = Math.max(count, scratch.positions.length * 2);
    scratch = { positions: new Int32Array(size), isFirst: new Uint8Array(size), used: new Uint8Array(size) };
  }
  return scratch;
}

/**
 * How many times both terms occur, in either order, within `window` consecutive terms (Indri's
 * `#uwN`), each occurrence used in one match at most: matches are taken left to right. The same
 * list for both means the pair is one term twice, whose occurrences match each other.
 */
export function windowCount(firstList: TermPositions, secondList: TermPositions, window: number): number {
  const sameTerm = firstList.positions === secondList.positions && firstList.start === secondList.start;
  const { positions: firstPositions, start: firstStart, length: firstLength } = firstList;
  const { positions: secondPositions, start: secondStart, length: secondLength } = secondList;
  if (!sameTerm && (firstLength === 0 || secondLength === 0)) return 0;
  // Both lists ascend and two terms never share a position: merged, not concatenated and sorted.
  const count = sameTerm ? firstLength : firstLength + secondLength;
  const { positions, isFirst, used } = scratchFor(count);
  for (let index = 0, left = 0, right = 0; index < count; index += 1) {
    const takeFirst =
      sameTerm ||
      right >= secondLength ||
      (left < firstLength && firstPositions[firstStart + left]! < secondPositions[secondStart + right]!);
    positions[index] = takeFirst ? firstPositions[firstStart + left++]! : secondPositions[secondStart + right++]!;
    isFirst[index] = takeFirst ? 1 : 0;
    used[index] = 0;
  }
  let matches = 0;
  for (let start = 0; start < count; start += 1) {
    if (used[start] === 1) continue;
    const end = positions[start]! + window;
    for (let next = start + 1; next < count && positions[next]! < end; next += 1) {
      if (used[next] === 0 && (sameTerm || isFirst[next] !== isFirst[start])) {
        used[start] = 1;
        used[next] = 1;
        matches += 1;
        break;
      }
    }
  }
  return matches;
}

/**
 * The candidates re-scored by SDM over BM25F with each field normalised by its own length
 * (field-weighted-bm25.ts), and sorted, best first: the terms' part, and each pair's phrases and
 * windows, are counted in the text and in the title field apart, as Zhiltsov, Kotov and Nikolaev's
 * fielded SDM (2015) does for entity search. Similarity stays `s / (s + W)`, W being the weight of
 * every feature (0.85 × the term weights + 0.15 × the pairs' weights): one half for a chunk of
 * average lengths holding each query term once in its text and each adjacent pair once as a
 * phrase, always under 1. A query of one term is scored by its BM25F alone.
 */
export function rerankByProximity(rerank: ProximityRerank): ScoredChunkHit[] {
  const { textOf, titleOf, candidates, termWeights, fieldAverages } = rerank;
  const pairs = adjacentPairs(rerank.queryTerms, rerank.inverseDocumentFrequencies);
  const termWeightTotal = [...termWeights.values()].reduce((sum, weight) => sum + weight, 0);
  const pairWeightTotal = pairs.reduce((sum, pair) => sum + pair.weight, 0);
  const weightTotal = PROXIMITY_WEIGHTS.terms * termWeightTotal + (PROXIMITY_WEIGHTS.phrases + PROXIMITY_WEIGHTS.windows) * pairWeightTotal;
  // Each term the scores need gets a slot, and each field one reused list of positions per slot.
  const wanted = [...new Set([...termWeights.keys(), ...pairs.flatMap((pair) => [pair.first, pair.second])])];
  const slotOf = new Map(wanted.map((term, slot) => [term, slot]));
  const weightedSlots = [...termWeights].map(([term, weight]) => ({ slot: slotOf.get(term)!, weight }));
  // A pair of one term twice gets the same list twice, which is how windowCount knows it.
  const pairSlots = pairs.map(({ first, second, weight }) => ({ first: slotOf.get(first)!, second: slotOf.get(second)!, weight }));
  const inText = termPositionLists(wanted.length);
  const inTitle = termPositionLists(wanted.length);
  const rescored = candidates.map((candidate) => {
    const text = textOf(candidate);
    const title = titleOf(candidate);
    positionsOf(text, wanted, inText);
    positionsOf(title, wanted, inTitle);
    const normalised = fieldNormalisations(fieldAverages, { text: text.length, title: title.length });
    let terms = 0;
    for (const { slot, weight } of weightedSlots) terms += weight * saturation(normalised, inText[slot]!.length, inTitle[slot]!.length);
    let phrases = 0;
    let windows = 0;
    for (const { first, second, weight } of pairSlots) {
      phrases +=
        weight * saturation(normalised, phraseCount(inText[first]!, inText[second]!), phraseCount(inTitle[first]!, inTitle[second]!));
      windows +=
        weight *
        saturation(
          normalised,
          windowCount(inText[first]!, inText[second]!, PROXIMITY_WINDOW),
          windowCount(inTitle[first]!, inTitle[second]!, PROXIMITY_WINDOW),
        );
    }
    const score = PROXIMITY_WEIGHTS.terms * terms + PROXIMITY_WEIGHTS.phrases * phrases + PROXIMITY_WEIGHTS.windows * windows;
    return { ...candidate, score, similarity: score / (score + weightTotal) };
  });
  return rescored.sort((left, right) => right.score - left.score || left.id - right.id);
}
