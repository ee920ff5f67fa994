/**
 * What the two knowledge-base scale benchmarks share: the chunking they ingest and build with, the
 * in-process hashed embedder (the test suite's fake vectors; no network, no model), the benchmark
 * owner, and the units they print in.
 */
import { bootstrapAdmin } from '../../src/auth/admin-bootstrap.js';
import type { Store } from '../../src/store/store.js';
import { deterministicEmbedding, EMBEDDING_DIMENSIONS } from '../../test/fakes/fake-http.js';
import { TEST_PASSWORD_HASH_COST } from '../../test/support/test-databases.js';

export const CHUNK_SIZE = 1000;
export const CHUNK_OVERLAP = 200;
export const MEGABYTE = 1_048_576;
export const EMBEDDINGS_LABEL = `in-process hashed bag-of-words embedder (deterministicEmbedding, ${EMBEDDING_DIMENSIONS} dims; no network, no model)`;
export const EMBEDDING_CHOICE = { connector: 'openai', model: `hashed-bag-of-words-${EMBEDDING_DIMENSIONS}` } as const;

export function embed(text: string): Float32Array {
  return Float32Array.from(deterministicEmbedding(text));
}

export function seconds(since: number): number {
  return (performance.now() - since) / 1000;
}

export function megabytesOf(texts: Iterable<string>): number {
  let bytes = 0;
  for (const text of texts) bytes += Buffer.byteLength(text);
  return bytes / MEGABYTE;
}

export interface Owner {
  userId: number;
  organizationId: number;
}

/** The benchmark's administrator, who owns every knowledge base it makes. */
export async function createOwner(store: Store): Promise<Owner> {
  await bootstrapAdmin(store.db, 'bench@merino.test', 'bench-password', TEST_PASSWORD_HASH_COST);
  const admin = await store.db.selectFrom('users').select(['id', 'organization_id']).executeTakeFirstOrThrow();
  return { userId: admin.id, organizationId: admin.organization_id };
}
