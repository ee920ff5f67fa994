/**
 * Migration 0094: full-text search with statistics per knowledge base (docs/knowledge-bases.md).
 * `kb_postings` holds, per knowledge base and analysed term, each chunk holding it with its
 * field-weighted frequency and the chunk's weighted length (repeated, so a search reads the index
 * alone). A knowledge base keeps its totals (`index_chunk_count`, `index_length_total`) and its
 * `search_language`; `reindex_cursor` (null when its index is whole) is the reindex job's place.
 * Deleting chunks removes their postings and takes them off the totals by trigger, on every path.
 *
 * The old shared index (FTS5 table on SQLite, tsvector column on PostgreSQL) is dropped: nothing
 * reads it any more and it slowed every insert. Existing knowledge bases keep English and are
 * queued for reindexing (cursor 0); the search-index job indexes their chunks in batches.
 */
import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from '../dialect.js';

async function addColumns(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const real = dialect === 'postgres' ? 'double precision' : 'real';
  await db.schema
    .alterTable('knowledge_bases')
    .addColumn('search_language', 'text', (column) => column.notNull().defaultTo('english'))
    .execute();
  await db.schema
    .alterTable('knowledge_bases')
    .addColumn('index_chunk_count', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('knowledge_bases')
    .addColumn('index_length_total', sql.raw(real), (column) => column.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('knowledge_bases').addColumn('reindex_cursor', 'integer').execute();
  await db.schema
    .alterTable('knowledge_bases')
    .addColumn('reindex_done', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('kb_chunks').addColumn('index_length', sql.raw(real)).execute();
}

async function createPostingsSqlite(db: Kysely<unknown>): Promise<void> {
  await sql`create table kb_postings (
    knowledge_base_id integer not null, term text not null, chunk_id integer not null,
    frequency real not null, length real not null,
    primary key (knowledge_base_id, term, chunk_id)) without rowid`.execute(db);
  await sql`create index kb_postings_chunk_index on kb_postings (chunk_id)`.execute(db);
  await sql`create trigger kb_chunks_unindex after delete on kb_chunks begin
    delete from kb_postings where chunk_id = old.id;
    update knowledge_bases set index_chunk_count = index_chunk_count - 1, index_length_total = index_length_total - old.index_length
      where id = old.knowledge_base_id and old.index_length is not null;
  end`.execute(db);
  await sql`drop trigger if exists kb_chunks_fts_insert`.execute(db);
  await sql`drop trigger if exists kb_chunks_fts_delete`.execute(db);
  await sql`drop trigger if exists kb_chunks_fts_update`.execute(db);
  await sql`drop table if exists kb_chunks_fts`.execute(db);
}

async function createPostingsPostgres(db: Kysely<unknown>): Promise<void> {
  // Terms compare byte-wise ("C"): the same order as SQLite's, and no locale work per comparison.
  await sql`create table kb_postings (
    knowledge_base_id integer not null, term text collate "C" not null, chunk_id integer not null,
    frequency double precision not null, length double precision not null,
    primary key (knowledge_base_id, term, chunk_id) include (frequency, length))`.execute(db);
  await sql`create index kb_postings_chunk_index on kb_postings (chunk_id)`.execute(db);
  // One statement-level trigger: deleting a whole knowledge base updates its row once, not once a chunk.
  await sql`create function kb_chunks_unindex() returns trigger language plpgsql as $$
    begin
      delete from kb_postings where chunk_id in (select id from removed);
      update knowledge_bases k set index_chunk_count = k.index_chunk_count - r.chunks, index_length_total = k.index_length_total - r.length
        from (select knowledge_base_id, count(index_length) as chunks, coalesce(sum(index_length), 0) as length
              from removed where index_length is not null group by knowledge_base_id) r
        where k.id = r.knowledge_base_id;
      return null;
    end $$`.execute(db);
  await sql`create trigger kb_chunks_unindex after delete on kb_chunks referencing old table as removed
    for each statement execute function kb_chunks_unindex()`.execute(db);
  await sql`drop index if exists kb_chunks_search_index`.execute(db);
  await sql`alter table kb_chunks drop column if exists search_vector`.execute(db);
}

export function perKnowledgeBaseSearchIndexMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await addColumns(db, dialect);
      if (dialect === 'postgres') await createPostingsPostgres(db);
      else await createPostingsSqlite(db);
      await sql`update knowledge_bases set reindex_cursor = 0
        where deleted_at is null and exists (select 1 from kb_chunks where kb_chunks.knowledge_base_id = knowledge_bases.id)`.execute(db);
    },
  };
}
