/**
 * Proves the pgvector path on a PostgreSQL that has the extension (PGlite with pgvector, reached
 * over a local socket, since the system cluster has none): migration 0007 installs the extension
 * and gives the embedding column the `vector` type, the store detects the pgvector backend, and
 * ranking in SQL with `<=>` matches the application's scan over the same vectors, zero vectors and
 * opposite directions included.
 */
import { sql } from 'kysely';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapAdmin } from '../src/auth/admin-bootstrap.js';
import {
  insertChunkEmbeddings,
  searchChunksByVector,
  VECTOR_SCAN_PAGE_SIZE,
  type VectorBackend,
} from '../src/store/chunk-vector-repository.js';
import { deleteDocumentChunks, findKnowledgeBase, insertChunks, insertKnowledgeBase } from '../src/store/knowledge-repository.js';
import { insertDocument } from '../src/store/knowledge-documents-repository.js';
import { migrateStore, openStore, type Store } from '../src/store/store.js';
import { startPgliteServer, type PgliteServer } from './support/pglite-server.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { seededRandom } from './support/seeded-random.js';
import { TEST_PASSWORD_HASH_COST } from './support/test-databases.js';

const VECTOR_COUNT = 300;
const DIMENSIONS = 24;
const QUERY_COUNT = 4;
const RESULT_LIMIT = 20;
const SIMILARITY_TOLERANCE = 1e-5;

describe('vector chunk search on PostgreSQL with pgvector (PGlite)', () => {
  let server: PgliteServer;
  let dataDirectory: string;
  let store: Store;
  let knowledgeBaseId: number;
  let documentId: number;
  let chunkIds: number[];

  const search = (query: Float32Array, backend: VectorBackend, limit = RESULT_LIMIT) =>
    searchChunksByVector(store.db, { dialect: store.dialect, backend, knowledgeBaseIds: [knowledgeBaseId], queryEmbedding: query, limit });

  beforeAll(async () => {
    server = await startPgliteServer();
    dataDirectory = await mkdtemp(path.join(os.tmpdir(), 'merino-test-pglite-'));
    // PGlite serves one connection at a time.
    store = await openStore({ databaseUrl: server.databaseUrl, dataDirectory, poolSize: 1 });
    await bootstrapAdmin(store.db, 'pgvector-admin@merino.test', 'pgvector-admin-password', TEST_PASSWORD_HASH_COST);
    const admin = await store.db.selectFrom('users').select(['id', 'organization_id']).executeTakeFirstOrThrow();
    knowledgeBaseId = await insertKnowledgeBase(store.db, {
      ownerId: admin.id,
      organizationId: admin.organization_id,
      name: 'Random',
      description: '',
      chunkSize: 1000,
      chunkOverlap: 200,
    });
    documentId = await insertDocument(store.db, {
      knowledgeBaseId,
      fileName: 'random.md',
      contentType: 'text/markdown',
      sizeBytes: 100,
      sourceUrl: null,
      status: 'completed',
      metadata: {},
    });

    const random = seededRandom(7_654_321).next;
    const vectors = Array.from({ length: VECTOR_COUNT }, () => Float32Array.from({ length: DIMENSIONS }, () => random() * 2 - 1));
    vectors[10] = new Float32Array(DIMENSIONS);
    vectors[11] = vectors[12]!.map((value) => -value);
    await store.db.transaction().execute(async (transaction) => {
      chunkIds = await insertChunks(
        transaction,
        documentId,
        vectors.map((_, index) => ({ knowledge_base_id: knowledgeBaseId, chunk_index: index, text: `random ${index}`, metadata: '{}' })),
      );
      await insertChunkEmbeddings(
        transaction,
        chunkIds.map((chunkId, index) => ({ chunkId, knowledgeBaseId, embedding: vectors[index]! })),
        store.vectorBackend,
      );
    });
  });

  afterAll(async () => {
    await possiblyUnset(store)?.close();
    await possiblyUnset(server)?.stop();
    if (possiblyUnset(dataDirectory) !== undefined) await rm(dataDirectory, { recursive: true, force: true });
  });

  it('installs pgvector, gives the embedding column the vector type and detects the pgvector backend', async () => {
    expect(store.vectorBackend).toBe('pgvector');
    const extension = await sql<{ extname: string }>`select extname from pg_extension where extname = 'vector'`.execute(store.db);
    expect(extension.rows).toHaveLength(1);
    const column = await sql<{ udt_name: string }>`
      select udt_name from information_schema.columns where table_name = 'kb_chunk_embeddings' and column_name = 'embedding'`.execute(
      store.db,
    );
    expect(column.rows).toEqual([{ udt_name: 'vector' }]);
    expect(await migrateStore(store.db, store.dialect)).toEqual([]);
    expect((await findKnowledgeBase(store.db, knowledgeBaseId))?.embedding_dimensions).toBe(DIMENSIONS);
  });

  it('ranks in SQL exactly as the scan does, with similarities in [0, 1]', async () => {
    const random = seededRandom(1_234_567).next;
    expect(VECTOR_COUNT).toBeGreaterThan(VECTOR_SCAN_PAGE_SIZE);
    for (let round = 0; round < QUERY_COUNT; round += 1) {
      const query = Float32Array.from({ length: DIMENSIONS }, () => random() * 2 - 1);
      const inSql = await search(query, 'pgvector');
      const scanned = await search(query, 'scan');
      expect(inSql).toHaveLength(RESULT_LIMIT);
      expect(inSql.map((hit) => hit.id)).toEqual(scanned.map((hit) => hit.id));
      inSql.forEach((hit, index) => {
        expect(Math.abs(hit.similarity - scanned[index]!.similarity)).toBeLessThan(SIMILARITY_TOLERANCE);
        expect(hit.similarity >= 0 && hit.similarity <= 1).toBe(true);
      });
      expect(inSql.map((hit) => hit.text)).toEqual(scanned.map((hit) => hit.text));
    }
  });

  it('gives an opposite vector and a zero vector similarity 0, never NaN', async () => {
    const twelve = await embeddingOf(chunkIds[12]!);
    const [nearest] = await search(twelve, 'pgvector', 1);
    expect(nearest?.id).toBe(chunkIds[12]);
    expect(nearest?.similarity).toBeCloseTo(1, 6);
    const everything = await search(twelve, 'pgvector', VECTOR_COUNT);
    expect(everything.find((hit) => hit.id === chunkIds[11])?.similarity).toBe(0);
    expect(everything.find((hit) => hit.id === chunkIds[10])?.similarity).toBe(0);
    const fromZero = await search(new Float32Array(DIMENSIONS), 'pgvector', 3);
    expect(fromZero.map((hit) => [hit.id, hit.similarity])).toEqual(chunkIds.slice(0, 3).map((id) => [id, 0]));
    expect(await search(new Float32Array(DIMENSIONS + 1).fill(1), 'pgvector')).toEqual([]);
  });

  it('deletes the vectors of deleted chunks', async () => {
    await deleteDocumentChunks(store.db, documentId);
    expect(await store.db.selectFrom('kb_chunk_embeddings').select('chunk_id').execute()).toEqual([]);
    expect(await search(new Float32Array(DIMENSIONS).fill(1), 'pgvector')).toEqual([]);
  });

  async function embeddingOf(chunkId: number): Promise<Float32Array> {
    const row = await store.db
      .selectFrom('kb_chunk_embeddings')
      .select('embedding')
      .where('chunk_id', '=', chunkId)
      .executeTakeFirstOrThrow();
    // pg reads pgvector's type as its text form, `[0.1,-0.2,…]`.
    return Float32Array.from(String(row.embedding).slice(1, -1).split(','), Number);
  }
});
