/**
 * Proves vector retrieval over knowledge-base chunks on SQLite (sqlite-vec) and on a PostgreSQL
 * without pgvector (bytea and a scan in the application): chunks rank by cosine similarity, which
 * stays in [0, 1] (an opposite or zero vector gives 0, never NaN), only the asked knowledge bases
 * and only vectors of the query's dimension are searched, deleting chunks, documents or a knowledge
 * base's contents deletes their vectors, and the scan backend ranks exactly as sqlite-vec does.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapAdmin } from '../src/auth/admin-bootstrap.js';
import { AppError } from '../src/errors/app-error.js';
import type { ChunkHit } from '../src/store/chunk-search-repository.js';
import {
  bytesToFloat32,
  float32ToBytes,
  insertChunkEmbeddings,
  searchChunksByVector,
  VECTOR_SCAN_PAGE_SIZE,
  type VectorBackend,
} from '../src/store/chunk-vector-repository.js';
import { deleteDocument } from '../src/store/knowledge-documents-repository.js';
import {
  deleteDocumentChunks,
  deleteKnowledgeBaseContents,
  findKnowledgeBase,
  insertChunks,
  insertKnowledgeBase,
} from '../src/store/knowledge-repository.js';
import { openStore, type Store } from '../src/store/store.js';
import { insertCompletedDocument } from './support/stored-documents.js';
import { createTestDatabase, TEST_DIALECTS, TEST_PASSWORD_HASH_COST, type TestDatabase } from './support/test-databases.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { seededRandom } from './support/seeded-random.js';

/** Hand-made directions in three dimensions, in insertion order. */
const COMPASS: ReadonlyArray<{ text: string; vector: number[] }> = [
  { text: 'east', vector: [1, 0, 0] },
  { text: 'north-east', vector: [1, 1, 0] },
  { text: 'north', vector: [0, 1, 0] },
  { text: 'west', vector: [-1, 0, 0] },
  { text: 'nowhere', vector: [0, 0, 0] },
];
const RANDOM_VECTOR_COUNT = 600;
const RANDOM_VECTOR_DIMENSIONS = 32;
const RANDOM_QUERY_COUNT = 5;
const RANDOM_RESULT_LIMIT = 25;
const SIMILARITY_TOLERANCE = 1e-5;

function cosine(left: readonly number[], right: readonly number[]): number {
  const dot = left.reduce((sum, value, index) => sum + value * right[index]!, 0);
  const norms = Math.hypot(...left) * Math.hypot(...right);
  return norms === 0 ? 0 : dot / norms;
}

function idsAndSimilarities(hits: ChunkHit[]) {
  return hits.map((hit) => ({ id: hit.id, similarity: hit.similarity }));
}

describe.each(TEST_DIALECTS)('vector chunk search on %s', (dialect) => {
  let database: TestDatabase;
  let store: Store;
  let adminId: number;
  let organizationId: number;
  let geometry: number;
  let other: number;
  let geometryDocument: number;
  let compassIds: number[];
  let otherEastId: number;
  let fourDimensionalId: number;

  const newBase = (name: string) =>
    insertKnowledgeBase(store.db, { ownerId: adminId, organizationId, name, description: '', chunkSize: 1000, chunkOverlap: 200 });
  /** Adds a document with one chunk per text and stores their vectors; returns the document and chunk ids. */
  const addDocument = async (knowledgeBaseId: number, chunks: ReadonlyArray<{ text: string; vector: readonly number[] }>) => {
    const documentId = await insertCompletedDocument(store.db, knowledgeBaseId);
    const chunkIds = await insertChunks(
      store.db,
      documentId,
      chunks.map((chunk, index) => ({
        knowledge_base_id: knowledgeBaseId,
        chunk_index: index,
        text: chunk.text,
        metadata: JSON.stringify({ chunk_index: index }),
      })),
    );
    await insertChunkEmbeddings(
      store.db,
      chunkIds.map((chunkId, index) => ({ chunkId, knowledgeBaseId, embedding: Float32Array.from(chunks[index]!.vector) })),
      store.vectorBackend,
    );
    return { documentId, chunkIds };
  };
  const search = (knowledgeBaseIds: number[], query: readonly number[], limit = 10, backend: VectorBackend = store.vectorBackend) =>
    searchChunksByVector(store.db, { dialect: store.dialect, backend, knowledgeBaseIds, queryEmbedding: Float32Array.from(query), limit });
  const embeddingCount = async () =>
    Number(
      (
        await store.db
          .selectFrom('kb_chunk_embeddings')
          .select((eb) => eb.fn.countAll().as('count'))
          .executeTakeFirstOrThrow()
      ).count,
    );

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    store = await openStore({ databaseUrl: database.databaseUrl, dataDirectory: database.dataDirectory, poolSize: 2 });
    await bootstrapAdmin(store.db, 'vector-admin@merino.test', 'vector-admin-password', TEST_PASSWORD_HASH_COST);
    const admin = await store.db.selectFrom('users').select(['id', 'organization_id']).executeTakeFirstOrThrow();
    adminId = admin.id;
    organizationId = admin.organization_id;
    geometry = await newBase('Geometry');
    other = await newBase('Other');
    ({ documentId: geometryDocument, chunkIds: compassIds } = await addDocument(geometry, COMPASS));
    [otherEastId] = (await addDocument(other, [{ text: 'other east', vector: [1, 0, 0] }])).chunkIds as [number];
    [fourDimensionalId] = (await addDocument(geometry, [{ text: 'four dimensions', vector: [1, 0, 0, 0] }])).chunkIds as [number];
  });

  afterAll(async () => {
    await possiblyUnset(store)?.close();
    await possiblyUnset(database)?.drop();
  });

  it(`detects the ${dialect === 'sqlite' ? 'sqlite-vec' : 'scan'} backend, and PostgreSQL without pgvector keeps float32 bytes`, async () => {
    expect(store.vectorBackend).toBe(dialect === 'sqlite' ? 'sqlite-vec' : 'scan');
    if (dialect === 'postgres') {
      const { rows } = await sql<{ data_type: string }>`
        select data_type from information_schema.columns where table_name = 'kb_chunk_embeddings' and column_name = 'embedding'`.execute(
        store.db,
      );
      expect(rows).toEqual([{ data_type: 'bytea' }]);
    }
    const stored = await store.db
      .selectFrom('kb_chunk_embeddings')
      .select(['embedding', 'dimensions'])
      .where('chunk_id', '=', compassIds[1]!)
      .executeTakeFirstOrThrow();
    expect(stored.dimensions).toBe(3);
    expect(Array.from(bytesToFloat32(stored.embedding as Uint8Array))).toEqual([1, 1, 0]);
  });

  it('returns chunk ids in input order from insertChunks and learns the dimension from the first vectors', async () => {
    const chunks = await store.db
      .selectFrom('kb_chunks')
      .select(['id', 'chunk_index', 'text'])
      .where('document_id', '=', geometryDocument)
      .execute();
    const byId = new Map(chunks.map((chunk) => [chunk.id, chunk]));
    expect(compassIds.map((id) => byId.get(id)?.text)).toEqual(COMPASS.map((entry) => entry.text));
    // The later four-dimensional vector did not overwrite what the first vectors taught.
    expect((await findKnowledgeBase(store.db, geometry))?.embedding_dimensions).toBe(3);
    expect((await findKnowledgeBase(store.db, other))?.embedding_dimensions).toBe(3);
  });

  it('ranks chunks by cosine similarity, which stays in [0, 1]: an opposite or zero vector gives 0', async () => {
    const query = [1, 0.1, 0];
    const hits = await search([geometry], query);
    expect(hits.map((hit) => hit.text)).toEqual(['east', 'north-east', 'north', 'west', 'nowhere']);
    hits.forEach((hit, index) => {
      expect(hit.similarity).toBeCloseTo(Math.max(0, cosine(query, COMPASS[index]!.vector)), 6);
      expect(hit.similarity >= 0 && hit.similarity <= 1).toBe(true);
    });
    expect(hits[3]!.similarity).toBe(0);
    expect(hits[4]!.similarity).toBe(0);
    expect(hits[0]).toMatchObject({
      id: compassIds[0],
      knowledgeBaseId: geometry,
      documentId: geometryDocument,
      chunkIndex: 0,
      metadata: { chunk_index: 0 },
    });
    expect((await search([geometry], [5, 0, 0], 1))[0]).toMatchObject({ text: 'east', similarity: 1 });
    expect(await search([geometry], query, 2)).toEqual(hits.slice(0, 2));
  });

  it('searches only the knowledge bases asked for', async () => {
    expect((await search([other], [1, 0, 0])).map((hit) => hit.id)).toEqual([otherEastId]);
    const both = await search([geometry, other], [1, 0, 0], 2);
    expect(both.map((hit) => hit.id)).toEqual([compassIds[0], otherEastId]);
    expect(await search([], [1, 0, 0])).toEqual([]);
    expect(await search([other + 1000], [1, 0, 0])).toEqual([]);
  });

  it('compares only vectors of the query dimension and refuses mixed dimensions in one insert', async () => {
    expect((await search([geometry], [1, 0, 0, 0])).map((hit) => hit.id)).toEqual([fourDimensionalId]);
    expect(await search([geometry], [1, 0])).toEqual([]);
    const before = await embeddingCount();
    const mixed = insertChunkEmbeddings(
      store.db,
      [
        { chunkId: compassIds[0]!, knowledgeBaseId: geometry, embedding: Float32Array.from([0, 0, 1]) },
        { chunkId: compassIds[1]!, knowledgeBaseId: geometry, embedding: Float32Array.from([0, 0, 1, 0]) },
      ],
      store.vectorBackend,
    );
    await expect(mixed).rejects.toBeInstanceOf(AppError);
    await expect(mixed).rejects.toThrow(/one dimension.*has 4.*has 3/);
    await expect(
      insertChunkEmbeddings(
        store.db,
        [{ chunkId: compassIds[0]!, knowledgeBaseId: geometry, embedding: Float32Array.from([Number.NaN, 0, 0]) }],
        store.vectorBackend,
      ),
    ).rejects.toThrow(/finite/);
    expect(await embeddingCount()).toBe(before);
    expect((await search([geometry], [1, 0, 0], 1))[0]?.text).toBe('east');
  });

  it('answers a zero query vector with similarity 0 everywhere, in chunk id order', async () => {
    const hits = await search([geometry], [0, 0, 0]);
    expect(hits.map((hit) => hit.id)).toEqual([...compassIds].sort((left, right) => left - right));
    for (const hit of hits) expect(hit.similarity).toBe(0);
  });

  it('replaces a chunk vector stored again', async () => {
    const north = compassIds[2]!;
    await insertChunkEmbeddings(
      store.db,
      [{ chunkId: north, knowledgeBaseId: geometry, embedding: Float32Array.from([0, 0, 1]) }],
      store.vectorBackend,
    );
    expect((await search([geometry], [0, 0, 1], 1))[0]).toMatchObject({ id: north, similarity: 1 });
    await insertChunkEmbeddings(
      store.db,
      [{ chunkId: north, knowledgeBaseId: geometry, embedding: Float32Array.from([0, 1, 0]) }],
      store.vectorBackend,
    );
    expect((await search([geometry], [0, 1, 0], 1))[0]).toMatchObject({ id: north, similarity: 1 });
  });

  it('ranks a few hundred random vectors alike with the scan backend and the detected one, as exact cosine does', async () => {
    const random = seededRandom(20_240_607).next;
    const randomVector = () => Array.from({ length: RANDOM_VECTOR_DIMENSIONS }, () => random() * 2 - 1);
    const knowledgeBaseId = await newBase('Random');
    const vectors = Array.from({ length: RANDOM_VECTOR_COUNT }, randomVector).map((vector) => Array.from(Float32Array.from(vector)));
    const { chunkIds } = await addDocument(
      knowledgeBaseId,
      vectors.map((vector, index) => ({ text: `random ${index}`, vector })),
    );
    expect(RANDOM_VECTOR_COUNT).toBeGreaterThan(2 * VECTOR_SCAN_PAGE_SIZE);
    for (let round = 0; round < RANDOM_QUERY_COUNT; round += 1) {
      const query = Array.from(Float32Array.from(randomVector()));
      const scanned = await search([knowledgeBaseId], query, RANDOM_RESULT_LIMIT, 'scan');
      const detected = await search([knowledgeBaseId], query, RANDOM_RESULT_LIMIT);
      const expected = chunkIds
        .map((id, index) => ({ id, similarity: Math.max(0, cosine(query, vectors[index]!)) }))
        .sort((left, right) => right.similarity - left.similarity || left.id - right.id)
        .slice(0, RANDOM_RESULT_LIMIT);
      for (const hits of [scanned, detected]) {
        expect(hits.map((hit) => hit.id)).toEqual(expected.map((hit) => hit.id));
        idsAndSimilarities(hits).forEach((hit, index) =>
          expect(Math.abs(hit.similarity - expected[index]!.similarity)).toBeLessThan(SIMILARITY_TOLERANCE),
        );
      }
      expect(scanned.map((hit) => hit.text)).toEqual(detected.map((hit) => hit.text));
    }
  });

  it('deletes the vectors of deleted chunks, documents and knowledge-base contents', async () => {
    if (dialect === 'sqlite') {
      const { rows } = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(store.db);
      expect(rows).toEqual([{ foreign_keys: 1 }]);
    }
    const vectorsOf = async (knowledgeBaseId: number) =>
      (await store.db.selectFrom('kb_chunk_embeddings').select('chunk_id').where('knowledge_base_id', '=', knowledgeBaseId).execute()).map(
        (row) => row.chunk_id,
      );

    const extra = await addDocument(geometry, [{ text: 'up', vector: [0, 0, 1] }]);
    await deleteDocumentChunks(store.db, extra.documentId);
    expect(await vectorsOf(geometry)).not.toContain(extra.chunkIds[0]);

    await store.db.transaction().execute((transaction) => deleteDocument(transaction, geometryDocument));
    expect((await vectorsOf(geometry)).sort((left, right) => left - right)).toEqual([fourDimensionalId]);
    expect(await search([geometry], [1, 0, 0])).toEqual([]);

    const otherBase = (await findKnowledgeBase(store.db, other))!;
    await deleteKnowledgeBaseContents(store.db, otherBase);
    expect(await vectorsOf(other)).toEqual([]);
    expect(await search([other], [1, 0, 0])).toEqual([]);
  });
});

describe('float32 bytes', () => {
  it('round-trip little-endian whatever the offset of the bytes', () => {
    const vector = Float32Array.from([1.5, -2.25, 0, 3.4028234663852886e38, 1e-7]);
    const bytes = float32ToBytes(vector);
    expect([...bytes.subarray(0, 4)]).toEqual([0x00, 0x00, 0xc0, 0x3f]);
    expect(bytesToFloat32(bytes)).toEqual(vector);
    const shifted = new Uint8Array(bytes.length + 1);
    shifted.set(bytes, 1);
    expect(bytesToFloat32(shifted.subarray(1))).toEqual(vector);
    expect(() => bytesToFloat32(new Uint8Array(6))).toThrow(AppError);
  });
});
