/**
 * Full-text retrieval over knowledge-base chunks: BM25F with each knowledge base's own statistics
 * (docs/knowledge-bases.md), the same on SQLite and PostgreSQL. The query is analysed like the
 * chunks (the knowledge base's `search_language`); its terms are bound parameters of the query
 * that reads their posting lists from `kb_postings` (or come from the lists held in memory,
 * posting-list-cache.ts), so no text a user types reaches any query syntax, and a knowledge base's
 * results and scores depend on its own chunks alone. Chunks are scored in JavaScript over those
 * lists. Scores are mapped into [0, 1) so that a similarity threshold keeps its meaning.
 */
import { sql, type Kysely } from 'kysely';
import { termFrequencies, textAnalyzer } from './text-analysis.js';
import { dialectOf, type Dialect } from './dialect.js';
import { heldChunkRowOf, type ChunkRowCache, type HeldChunkRow } from './chunk-row-cache.js';
import type { PostingList, PostingListCache } from './posting-list-cache.js';
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

/** What a knowledge base's BM25 needs of it: its language and the totals of its index. */
export interface IndexStatistics {
  id: number;
  search_language: string;
  index_chunk_count: number;
  index_length_total: number;
  /** Its chunks with a title field and the sum of their title-field lengths, unweighted: the title field's own average (field-weighted-bm25.ts). */
  index_titled_chunk_count: number;
  index_title_length_total: number;
  /** Raised by every change to its postings (migration 0097): the version its posting lists are cached under. */
  index_version: number;
}

/**
 * Inverse document frequency as Lucene's BM25 has it: never negative, however common the term.
 * A term's count is capped at the chunk count: the knowledge base's statistics and its posting
 * lists are read by separate statements, and on PostgreSQL an ingestion batch that commits between
 * them makes a list longer than the chunk count read just before, which would give the term a
 * negative weight (and every similarity with it a meaningless value) for that one search.
 */
function inverseDocumentFrequency(chunkCount: number, documentFrequency: number): number {
  const frequency = Math.min(documentFrequency, chunkCount);
  return Math.log(1 + (chunkCount - frequency + 0.5) / (frequency + 0.5));
}

/**
 * Each term's idf in this knowledge base, its chunk count counted from its postings (by their key,
 * from the index alone); terms it lacks are left out. For query expansion's few candidate terms,
 * whose posting lists a search does not otherwise read.
 */
export async function inverseDocumentFrequencies(
  db: Kysely<Database>,
  statistics: IndexStatistics,
  terms: Iterable<string>,
): Promise<Map<string, number>> {
  const wanted = [...terms];
  if (wanted.length === 0) return new Map();
  const rows = await db
    .selectFrom('kb_postings')
    .select((eb) => ['term', eb.fn.countAll<number | string>().as('chunk_count')])
    .where('knowledge_base_id', '=', statistics.id)
    .where('term', 'in', wanted)
    .groupBy('term')
    .execute();
  return new Map(rows.map((row) => [row.term, inverseDocumentFrequency(statistics.index_chunk_count, Number(row.chunk_count))]));
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

interface PostingListRow {
  term: string;
  chunk_ids: string | number[];
  frequencies: string | number[];
  lengths: string | number[];
}

/** A JSON array as the driver hands it: PostgreSQL's driver parses `json`, SQLite's gives its text. */
function numbersOf(value: string | number[]): number[] {
  return typeof value === 'string' ? (JSON.parse(value) as number[]) : value;
}

/** What a cache holds of `keys`, and the keys it lacks (to be read from the store), in their order. */
function heldAndMissing<Key, Value>(
  keys: readonly Key[],
  held: (key: Key) => Value | undefined,
): { found: Map<Key, Value>; missing: Key[] } {
  const found = new Map<Key, Value>();
  const missing: Key[] = [];
  for (const key of keys) {
    const value = held(key);
    if (value === undefined) missing.push(key);
    else found.set(key, value);
  }
  return { found, missing };
}

/**
 * The posting lists of `terms` in a knowledge base (an empty one for a term it lacks): from
 * `cache` where held at the statistics' index version, the others in one query, each term's
 * postings as JSON arrays so the driver hands over a few values rather than a row per posting.
 */
async function postingListsOf(
  db: Kysely<Database>,
  statistics: IndexStatistics,
  terms: readonly string[],
  cache: PostingListCache | undefined,
): Promise<Map<string, PostingList>> {
  const { found: lists, missing } = heldAndMissing(terms, (term) => cache?.get(statistics.id, statistics.index_version, term));
  if (missing.length === 0) return lists;
  const postgres = dialectOf(db) === 'postgres';
  const arrayOf = sql.raw(postgres ? 'json_agg' : 'json_group_array');
  // SQLite writes a real number into JSON by a slow general format, and these are whole numbers
  // but for fractional field weights: written as integers whenever they are whole, the query takes
  // a fifth less (docs/knowledge-bases.md has the figures).
  const whole = (column: string) =>
    postgres
      ? sql.ref(column)
      : sql`iif(${sql.ref(column)} = cast(${sql.ref(column)} as integer), cast(${sql.ref(column)} as integer), ${sql.ref(column)})`;
  const rows = await sql<PostingListRow>`
    select term, ${arrayOf}(chunk_id) as chunk_ids, ${arrayOf}(${whole('frequency')}) as frequencies, ${arrayOf}(${whole('length')}) as lengths
    from kb_postings where knowledge_base_id = ${statistics.id} and term in (${sql.join(missing)})
    group by term`.execute(db);
  const read = new Map(
    rows.rows.map((row) => [
      row.term,
      {
        chunkIds: Int32Array.from(numbersOf(row.chunk_ids)),
        frequencies: Float64Array.from(numbersOf(row.frequencies)),
        lengths: Float64Array.from(numbersOf(row.lengths)),
      },
    ]),
  );
  for (const term of missing) {
    const list = read.get(term) ?? { chunkIds: new Int32Array(0), frequencies: new Float64Array(0), lengths: new Float64Array(0) };
    cache?.set(statistics.id, statistics.index_version, term, list);
    lists.set(term, list);
  }
  return lists;
}

/** Each scored chunk's id and, at the same index, its score. */
interface ChunkScores {
  chunkIds: number[];
  scores: Float64Array;
}

// The sums go into a typed array rather than a map's values, where every sum would be a number
// allocated on the heap: scoring allocated more than anything else in a search. bm25Scores never
// yields, and its one caller reads the scores before it yields either, so one array serves all.
let scoreSums = new Float64Array(1024);

/** Each chunk's BM25 over weighted terms' posting lists (the formula of searchKnowledgeBase); valid until the next call. */
function bm25Scores(lists: Map<string, PostingList>, weights: Map<string, number>, averageLength: number): ChunkScores {
  let postings = 0;
  for (const term of weights.keys()) postings += lists.get(term)!.chunkIds.length;
  if (scoreSums.length < postings) scoreSums = new Float64Array(Math.max(postings, scoreSums.length * 2));
  const scores = scoreSums;
  const slots = new Map<number, number>();
  const chunkIds: number[] = [];
  const saturation = BM25_K1 + 1;
  for (const [term, weight] of weights) {
    const { chunkIds: listed, frequencies, lengths } = lists.get(term)!;
    for (let index = 0; index < listed.length; index += 1) {
      const frequency = frequencies[index]!;
      const normalisation = BM25_K1 * (1 - BM25_B + (BM25_B * lengths[index]!) / averageLength);
      const chunkId = listed[index]!;
      let slot = slots.get(chunkId);
      if (slot === undefined) {
        slot = chunkIds.length;
        slots.set(chunkId, slot);
        chunkIds.push(chunkId);
        scores[slot] = 0;
      }
      scores[slot]! += (weight * frequency * saturation) / (frequency + normalisation);
    }
  }
  return { chunkIds, scores };
}

/** The `limit` best of `scores`, best first, lower chunk id first among equals: a bounded selection, never a sort of every chunk. */
function bestOf({ chunkIds, scores }: ChunkScores, limit: number): Array<[number, number]> {
  const better = (left: [number, number], right: [number, number]) => right[1] - left[1] || left[0] - right[0];
  const best: Array<[number, number]> = [];
  for (let slot = 0; slot < chunkIds.length; slot += 1) {
    const chunkId = chunkIds[slot]!;
    const score = scores[slot]!;
    const worst = best[limit - 1];
    if (worst !== undefined && (worst[1] > score || (worst[1] === score && worst[0] < chunkId))) continue;
    const entry: [number, number] = [chunkId, score];
    let position = best.length;
    while (position > 0 && better(entry, best[position - 1]!) < 0) position -= 1;
    best.splice(position, 0, entry);
    if (best.length > limit) best.pop();
  }
  return best;
}

/** What a process keeps between searches of one store (FULL_TEXT_POSTINGS_CACHE, FULL_TEXT_CHUNK_CACHE_CHARACTERS). */
export interface HeldSearchData {
  postingLists: PostingListCache;
  chunkRows: ChunkRowCache;
}

/** The rows of chunks by id: from `held` where kept, the others in one query (and kept then). */
async function chunkRowsOf(
  db: Kysely<Database>,
  chunkIds: readonly number[],
  held: ChunkRowCache | undefined,
): Promise<Map<number, HeldChunkRow>> {
  const { found: rows, missing } = heldAndMissing(chunkIds, (chunkId) => held?.get(chunkId));
  if (missing.length === 0) return rows;
  const read = await db
    .selectFrom('kb_chunks')
    .select(['id', 'knowledge_base_id', 'document_id', 'chunk_index', 'text', 'metadata'])
    .where('id', 'in', missing)
    .execute();
  for (const stored of read) {
    const row = heldChunkRowOf(stored);
    held?.set(stored.id, row);
    rows.set(stored.id, row);
  }
  return rows;
}

/** One search of one knowledge base: its statistics, the query's weighted terms, how many chunks, and what the process keeps. */
export interface KnowledgeBaseSearch {
  statistics: IndexStatistics;
  terms: Map<string, number>;
  limit: number;
  /** Without it, every posting list and chunk row is read from the store. */
  held?: HeldSearchData;
}

/**
 * One knowledge base's best chunks. BM25 of a chunk: the sum over query terms it holds of
 * weight × f (k1 + 1) / (f + k1 (1 − b + b · length / average length)), f and length being the
 * field-weighted ones. Similarity: score / (score + the sum of the weights), which is one half
 * for a chunk of average length holding every query term (the knowledge base has) once. Scored
 * in JavaScript over the terms' posting lists, the same on both stores. A hit's metadata is
 * frozen: hits of one chunk share it.
 */
export async function searchKnowledgeBase(db: Kysely<Database>, search: KnowledgeBaseSearch): Promise<ScoredChunks> {
  const { statistics, terms, limit, held } = search;
  if (terms.size === 0 || limit < 1 || statistics.index_chunk_count === 0) return { hits: [], weights: new Map() };
  const lists = await postingListsOf(db, statistics, [...terms.keys()], held?.postingLists);
  // A term's chunk count, its document frequency, is its list's length.
  const weights = new Map<string, number>();
  for (const [term, count] of terms) {
    const chunkCount = lists.get(term)!.chunkIds.length;
    if (chunkCount > 0) weights.set(term, inverseDocumentFrequency(statistics.index_chunk_count, chunkCount) * count);
  }
  if (weights.size === 0) return { hits: [], weights };
  const averageLength = Math.max(statistics.index_length_total / statistics.index_chunk_count, 1);
  const best = bestOf(bm25Scores(lists, weights, averageLength), limit);
  const rows = await chunkRowsOf(
    db,
    best.map(([chunkId]) => chunkId),
    held?.chunkRows,
  );
  const weightTotal = [...weights.values()].reduce((sum, weight) => sum + weight, 0);
  const hits: ScoredChunkHit[] = [];
  for (const [chunkId, rawScore] of best) {
    const row = rows.get(chunkId);
    // A chunk deleted since its list was read is left out.
    if (row === undefined) continue;
    const score = Math.max(0, rawScore);
    hits.push({
      score,
      id: chunkId,
      knowledgeBaseId: row.knowledgeBaseId,
      documentId: row.documentId,
      chunkIndex: row.chunkIndex,
      text: row.text,
      metadata: row.metadata,
      similarity: score / (score + weightTotal),
    });
  }
  return { hits, weights };
}

async function searchOne(db: Kysely<Database>, statistics: IndexStatistics, query: string, limit: number): Promise<ChunkHit[]> {
  const { hits } = await searchKnowledgeBase(db, { statistics, terms: queryTerms(query, statistics.search_language), limit });
  return hits.map(({ score: _score, ...hit }) => hit);
}

/** The BM25 statistics of the knowledge bases asked for (each once). */
export async function indexStatisticsOf(db: Kysely<Database>, knowledgeBaseIds: readonly number[]): Promise<IndexStatistics[]> {
  if (knowledgeBaseIds.length === 0) return [];
  return db
    .selectFrom('knowledge_bases')
    .select([
      'id',
      'search_language',
      'index_chunk_count',
      'index_length_total',
      'index_titled_chunk_count',
      'index_title_length_total',
      'index_version',
    ])
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
