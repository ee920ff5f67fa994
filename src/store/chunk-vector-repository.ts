/**
 * Embedding vectors of knowledge-base chunks: storing them, and finding the chunks nearest to a
 * query vector by exact cosine similarity. The store picks one of three backends when it opens:
 *
 * - `sqlite-vec`: SQLite with the sqlite-vec extension loaded; `vec_distance_cosine` over float32
 *   blobs ranks in SQL.
 * - `pgvector`: PostgreSQL whose embedding column has pgvector's `vector` type; `<=>` ranks in SQL.
 * - `scan`: anything else (a PostgreSQL without pgvector keeps the vectors as `bytea`). The
 *   application reads the vectors page by page and keeps the best ones in a bounded heap.
 *
 * All three rank alike: similarity is the cosine clamped to [0, 1] (an opposite or orthogonal
 * vector gives 0, and so does a zero vector, never NaN), ties go to the lower chunk id, and only
 * vectors of the query's dimension are compared: a knowledge base re-embedded with another model
 * never mixes the two models' vectors.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { sql, type Kysely } from 'kysely';
import { AppError } from '../errors/app-error.js';
import type { ChunkHit } from './chunk-search-repository.js';
import type { Dialect } from './dialect.js';
import type { Database } from './schema.js';

export type VectorBackend = 'sqlite-vec' | 'pgvector' | 'scan';

export interface NewChunkEmbedding {
  chunkId: number;
  knowledgeBaseId: number;
  embedding: Float32Array;
}

/** Rows per INSERT: a 4,096-dimension vector as pgvector text is about 50 kB, so a batch stays a few MB. */
const EMBEDDING_INSERT_BATCH = 100;
/** Vectors the scan backend reads per query while it looks for the best ones. */
export const VECTOR_SCAN_PAGE_SIZE = 256;
const FLOAT32_BYTES = 4;
const HOST_IS_LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** The float32 little-endian bytes of a vector: what SQLite's blob and PostgreSQL's bytea columns hold. */
export function float32ToBytes(vector: Float32Array): Buffer {
  const bytes = Buffer.alloc(vector.length * FLOAT32_BYTES);
  if (HOST_IS_LITTLE_ENDIAN) {
    bytes.set(new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength));
    return bytes;
  }
  vector.forEach((value, index) => bytes.writeFloatLE(value, index * FLOAT32_BYTES));
  return bytes;
}

/**
 * The vector in float32 little-endian bytes. A view on the same memory when the bytes sit at an
 * offset a Float32Array may start at (drivers often hand out Buffers inside a shared pool at any
 * offset), a copy otherwise.
 */
export function bytesToFloat32(bytes: Uint8Array): Float32Array {
  if (bytes.byteLength % FLOAT32_BYTES !== 0) {
    throw new AppError('internal_error', `A stored embedding of ${bytes.byteLength} bytes is not a whole number of float32 values.`);
  }
  const length = bytes.byteLength / FLOAT32_BYTES;
  if (HOST_IS_LITTLE_ENDIAN && bytes.byteOffset % FLOAT32_BYTES === 0) return new Float32Array(bytes.buffer, bytes.byteOffset, length);
  const vector = new Float32Array(length);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let index = 0; index < length; index += 1) vector[index] = view.getFloat32(index * FLOAT32_BYTES, true);
  return vector;
}

/** pgvector's text form, `[0.5,-1,…]`. Each float32 prints as the shortest decimal that reads back as itself. */
function toVectorText(vector: Float32Array): string {
  return `[${vector.join(',')}]`;
}

function fromVectorText(text: string): Float32Array {
  return Float32Array.from(text.slice(1, -1).split(','), Number);
}

/** A stored embedding as read back: bytes from a blob or bytea column, text from a pgvector column. */
function decodeEmbedding(stored: Uint8Array | string): Float32Array {
  return typeof stored === 'string' ? fromVectorText(stored) : bytesToFloat32(stored);
}

function encodeEmbedding(vector: Float32Array, backend: VectorBackend) {
  return backend === 'pgvector' ? sql<string>`cast(${toVectorText(vector)} as vector)` : float32ToBytes(vector);
}

/** Refuses what no backend could store or compare alike: an empty vector, NaN or an infinity. */
function checkVector(vector: Float32Array): void {
  if (vector.length === 0) throw new AppError('internal_error', 'An embedding must have at least one dimension.');
  if (!vector.every(Number.isFinite)) throw new AppError('internal_error', 'An embedding holds a value that is not a finite number.');
}

function checkBackend(dialect: Dialect, backend: VectorBackend): void {
  const fits = backend === 'scan' || (backend === 'sqlite-vec' ? dialect === 'sqlite' : dialect === 'postgres');
  if (!fits) throw new AppError('internal_error', `The ${backend} vector backend does not exist on ${dialect}.`);
}

/**
 * Stores (or replaces) chunks' embeddings, in batches; call it inside a transaction. One call
 * stores vectors of one dimension only. A knowledge base that has no `embedding_dimensions` yet
 * learns it from these vectors. Use the store's `vectorBackend`, which matches the column type.
 */
export async function insertChunkEmbeddings(
  db: Kysely<Database>,
  rows: ReadonlyArray<NewChunkEmbedding>,
  backend: VectorBackend,
): Promise<void> {
  const first = rows[0];
  if (first === undefined) return;
  const dimensions = first.embedding.length;
  for (const row of rows) {
    if (row.embedding.length !== dimensions) {
      throw new AppError(
        'internal_error',
        `Embeddings stored together must have one dimension, but chunk ${row.chunkId} has ${row.embedding.length} and chunk ${first.chunkId} has ${dimensions}.`,
      );
    }
    checkVector(row.embedding);
  }
  for (let start = 0; start < rows.length; start += EMBEDDING_INSERT_BATCH) {
    // Synchronous statements on SQLite: let the event loop turn between batches (see insertChunks).
    if (start > 0) await yieldToEventLoop();
    const batch = rows.slice(start, start + EMBEDDING_INSERT_BATCH).map((row) => ({
      chunk_id: row.chunkId,
      knowledge_base_id: row.knowledgeBaseId,
      dimensions,
      embedding: encodeEmbedding(row.embedding, backend),
    }));
    await db
      .insertInto('kb_chunk_embeddings')
      .values(batch)
      .onConflict((conflict) =>
        conflict.column('chunk_id').doUpdateSet((update) => ({
          knowledge_base_id: update.ref('excluded.knowledge_base_id'),
          dimensions: update.ref('excluded.dimensions'),
          embedding: update.ref('excluded.embedding'),
        })),
      )
      .execute();
  }
  const knowledgeBaseIds = [...new Set(rows.map((row) => row.knowledgeBaseId))];
  await db
    .updateTable('knowledge_bases')
    .set({ embedding_dimensions: dimensions })
    .where('id', 'in', knowledgeBaseIds)
    .where('embedding_dimensions', 'is', null)
    .execute();
}

interface ScoredChunk {
  chunkId: number;
  similarity: number;
}

/** Whether `left` ranks below `right`: lower similarity, or equal similarity and a higher id. */
function ranksBelow(left: ScoredChunk, right: ScoredChunk): boolean {
  return left.similarity < right.similarity || (left.similarity === right.similarity && left.chunkId > right.chunkId);
}

/** The best `capacity` chunks offered so far: a min-heap whose root is the worst one kept. */
class BestChunks {
  private readonly heap: ScoredChunk[] = [];

  constructor(private readonly capacity: number) {}

  offer(candidate: ScoredChunk): void {
    if (this.heap.length < this.capacity) {
      this.heap.push(candidate);
      this.siftUp(this.heap.length - 1);
    } else if (ranksBelow(this.heap[0]!, candidate)) {
      this.heap[0] = candidate;
      this.siftDown(0);
    }
  }

  /** Best first. */
  ranked(): ScoredChunk[] {
    return [...this.heap].sort((left, right) => (ranksBelow(left, right) ? 1 : ranksBelow(right, left) ? -1 : 0));
  }

  private siftUp(index: number): void {
    let child = index;
    while (child > 0) {
      const parent = (child - 1) >> 1;
      if (!ranksBelow(this.heap[child]!, this.heap[parent]!)) return;
      this.swap(child, parent);
      child = parent;
    }
  }

  private siftDown(index: number): void {
    let parent = index;
    for (;;) {
      const left = 2 * parent + 1;
      const right = left + 1;
      let lowest = parent;
      if (left < this.heap.length && ranksBelow(this.heap[left]!, this.heap[lowest]!)) lowest = left;
      if (right < this.heap.length && ranksBelow(this.heap[right]!, this.heap[lowest]!)) lowest = right;
      if (lowest === parent) return;
      this.swap(parent, lowest);
      parent = lowest;
    }
  }

  private swap(first: number, second: number): void {
    const held = this.heap[first]!;
    this.heap[first] = this.heap[second]!;
    this.heap[second] = held;
  }
}

function euclideanNorm(vector: Float32Array): number {
  let squares = 0;
  for (const value of vector) squares += value * value;
  return Math.sqrt(squares);
}

function clampSimilarity(cosine: number): number {
  return Number.isNaN(cosine) ? 0 : Math.min(1, Math.max(0, cosine));
}

/** Cosine similarity clamped to [0, 1]; 0 when either vector is zero. */
function cosineSimilarity(query: Float32Array, queryNorm: number, candidate: Float32Array): number {
  let dot = 0;
  let squares = 0;
  for (let index = 0; index < candidate.length; index += 1) {
    const value = candidate[index]!;
    dot += query[index]! * value;
    squares += value * value;
  }
  if (queryNorm === 0 || squares === 0) return 0;
  return clampSimilarity(dot / (queryNorm * Math.sqrt(squares)));
}

interface ChunkRow {
  id: number;
  knowledge_base_id: number;
  document_id: number;
  chunk_index: number;
  text: string;
  metadata: string;
}

function toHit(row: ChunkRow, similarity: number): ChunkHit {
  return {
    id: row.id,
    knowledgeBaseId: row.knowledge_base_id,
    documentId: row.document_id,
    chunkIndex: row.chunk_index,
    text: row.text,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    similarity: clampSimilarity(similarity),
  };
}

async function searchWithSqliteVec(
  db: Kysely<Database>,
  knowledgeBaseIds: readonly number[],
  query: Float32Array,
  limit: number,
): Promise<ChunkHit[]> {
  // vec_distance_cosine gives NULL when either vector is zero.
  const result = await sql<ChunkRow & { similarity: number }>`
    with best as (
      select chunk_id, min(1.0, max(0.0, coalesce(1.0 - vec_distance_cosine(embedding, ${float32ToBytes(query)}), 0.0))) as similarity
      from kb_chunk_embeddings
      where knowledge_base_id in (${sql.join(knowledgeBaseIds)}) and dimensions = ${query.length}
      order by similarity desc, chunk_id limit ${limit})
    select c.id, c.knowledge_base_id, c.document_id, c.chunk_index, c.text, c.metadata, best.similarity
    from best join kb_chunks c on c.id = best.chunk_id
    order by best.similarity desc, c.id`.execute(db);
  return result.rows.map((row) => toHit(row, row.similarity));
}

async function searchWithPgvector(
  db: Kysely<Database>,
  knowledgeBaseIds: readonly number[],
  query: Float32Array,
  limit: number,
): Promise<ChunkHit[]> {
  // <=> gives NaN when either vector is zero; PostgreSQL's NaN equals NaN, so nullif catches it.
  const result = await sql<ChunkRow & { similarity: number | string }>`
    with query as (select cast(${toVectorText(query)} as vector) as embedding),
    best as (
      select e.chunk_id, least(1, greatest(0, coalesce(nullif(1 - (e.embedding <=> query.embedding), 'NaN'), 0))) as similarity
      from kb_chunk_embeddings e, query
      where e.knowledge_base_id in (${sql.join(knowledgeBaseIds)}) and e.dimensions = ${query.length}
      order by similarity desc, e.chunk_id limit ${limit})
    select c.id, c.knowledge_base_id, c.document_id, c.chunk_index, c.text, c.metadata, best.similarity
    from best join kb_chunks c on c.id = best.chunk_id
    order by best.similarity desc, c.id`.execute(db);
  return result.rows.map((row) => toHit(row, Number(row.similarity)));
}

async function searchByScan(
  db: Kysely<Database>,
  knowledgeBaseIds: readonly number[],
  query: Float32Array,
  limit: number,
): Promise<ChunkHit[]> {
  const queryNorm = euclideanNorm(query);
  const best = new BestChunks(limit);
  let lastChunkId: number | undefined;
  for (;;) {
    let page = db
      .selectFrom('kb_chunk_embeddings')
      .select(['chunk_id', 'embedding'])
      .where('knowledge_base_id', 'in', knowledgeBaseIds)
      .where('dimensions', '=', query.length);
    if (lastChunkId !== undefined) page = page.where('chunk_id', '>', lastChunkId);
    const rows = await page.orderBy('chunk_id').limit(VECTOR_SCAN_PAGE_SIZE).execute();
    for (const row of rows) {
      const candidate = decodeEmbedding(row.embedding);
      if (candidate.length === query.length)
        best.offer({ chunkId: row.chunk_id, similarity: cosineSimilarity(query, queryNorm, candidate) });
    }
    if (rows.length < VECTOR_SCAN_PAGE_SIZE) break;
    lastChunkId = rows[rows.length - 1]!.chunk_id;
  }
  const ranked = best.ranked();
  if (ranked.length === 0) return [];
  const chunks = await db
    .selectFrom('kb_chunks')
    .select(['id', 'knowledge_base_id', 'document_id', 'chunk_index', 'text', 'metadata'])
    .where(
      'id',
      'in',
      ranked.map((scored) => scored.chunkId),
    )
    .execute();
  const chunksById = new Map(chunks.map((chunk) => [chunk.id, chunk]));
  // A chunk deleted since its vector was read is left out.
  return ranked.flatMap((scored) => {
    const chunk = chunksById.get(scored.chunkId);
    return chunk === undefined ? [] : [toHit(chunk, scored.similarity)];
  });
}

export interface VectorChunkSearch {
  dialect: Dialect;
  /** The store's `vectorBackend`. */
  backend: VectorBackend;
  knowledgeBaseIds: readonly number[];
  queryEmbedding: Float32Array;
  limit: number;
}

/**
 * The `limit` chunks of the given knowledge bases whose embeddings are nearest to the query's
 * direction, best first, with similarity in [0, 1]. Embeddings of another dimension than the
 * query's are never compared; a query with no matching embeddings finds nothing.
 */
export async function searchChunksByVector(db: Kysely<Database>, search: VectorChunkSearch): Promise<ChunkHit[]> {
  const { dialect, backend, knowledgeBaseIds, queryEmbedding, limit } = search;
  checkBackend(dialect, backend);
  if (knowledgeBaseIds.length === 0 || limit < 1) return [];
  checkVector(queryEmbedding);
  const count = Math.floor(limit);
  if (backend === 'sqlite-vec') return searchWithSqliteVec(db, knowledgeBaseIds, queryEmbedding, count);
  if (backend === 'pgvector') return searchWithPgvector(db, knowledgeBaseIds, queryEmbedding, count);
  return searchByScan(db, knowledgeBaseIds, queryEmbedding, count);
}
