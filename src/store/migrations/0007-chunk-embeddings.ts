/**
 * Migration 0007: an embedding vector per chunk, and the embedding model a knowledge base uses.
 * SQLite keeps a vector as a float32 little-endian blob (searched through sqlite-vec when it
 * loads). PostgreSQL uses pgvector's `vector` type, without a fixed dimension so that one column
 * serves every model, when the extension is installed or can be installed here; otherwise a
 * `bytea` with the same float32 bytes as SQLite, searched by a scan in the application.
 */
import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from '../dialect.js';

/** pgvector's extension and the type it adds share this name. */
const PGVECTOR_EXTENSION = 'vector';

async function addKnowledgeBaseColumns(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('knowledge_bases')
    .addColumn('embedding_connector', 'text', (column) => column.check(sql`embedding_connector in ('openai', 'ollama')`))
    .execute();
  await db.schema.alterTable('knowledge_bases').addColumn('embedding_model', 'text').execute();
  // Learned from the first vectors stored.
  await db.schema.alterTable('knowledge_bases').addColumn('embedding_dimensions', 'integer').execute();
}

async function vectorTypeResolves(db: Kysely<unknown>): Promise<boolean> {
  const result = await sql<{ found: boolean }>`select to_regtype(${PGVECTOR_EXTENSION}) is not null as found`.execute(db);
  return result.rows[0]?.found === true;
}

/**
 * Whether pgvector's type is usable here, installing the extension when the server offers it and
 * this role may. The migration runs inside a transaction, so a refused CREATE EXTENSION is confined
 * to a savepoint: rolling back to it keeps the transaction alive for the fallback.
 */
async function pgvectorIsUsable(db: Kysely<unknown>): Promise<boolean> {
  if (await vectorTypeResolves(db)) return true;
  const available = await sql`select 1 from pg_available_extensions where name = ${PGVECTOR_EXTENSION}`.execute(db);
  if (available.rows.length === 0) return false;
  await sql`savepoint merino_install_pgvector`.execute(db);
  try {
    await sql`create extension if not exists vector`.execute(db);
    await sql`release savepoint merino_install_pgvector`.execute(db);
  } catch {
    await sql`rollback to savepoint merino_install_pgvector`.execute(db);
    await sql`release savepoint merino_install_pgvector`.execute(db);
    return false;
  }
  // Installed before in a schema outside the search path, the type would still not resolve.
  return vectorTypeResolves(db);
}

async function embeddingColumnType(db: Kysely<unknown>, dialect: Dialect) {
  if (dialect === 'sqlite') return sql`blob`;
  return (await pgvectorIsUsable(db)) ? sql`vector` : sql`bytea`;
}

async function createEmbeddingsTable(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const embeddingType = await embeddingColumnType(db, dialect);
  await db.schema
    .createTable('kb_chunk_embeddings')
    .addColumn('chunk_id', 'integer', (column) => column.primaryKey().references('kb_chunks.id').onDelete('cascade'))
    .addColumn('knowledge_base_id', 'integer', (column) => column.notNull().references('knowledge_bases.id').onDelete('cascade'))
    .addColumn('dimensions', 'integer', (column) => column.notNull().check(sql`dimensions > 0`))
    .addColumn('embedding', embeddingType, (column) => column.notNull())
    .execute();
  await db.schema
    .createIndex('kb_chunk_embeddings_knowledge_base_index')
    .on('kb_chunk_embeddings')
    .columns(['knowledge_base_id', 'dimensions'])
    .execute();
}

export function chunkEmbeddingsMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await addKnowledgeBaseColumns(db);
      await createEmbeddingsTable(db, dialect);
    },
  };
}
