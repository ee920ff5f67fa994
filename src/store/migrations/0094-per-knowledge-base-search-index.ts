/**
 * Migration 0094: full-text search with statistics per knowledge base (docs/knowledge-bases.md).
 * `kb_postings` holds, per knowledge base and analysed term, each chunk holding it with its
 * field-weighted frequency and the chunk's weighted length (repeated, so a search reads the index
 * alone). A knowledge base keeps its totals (`index_chunk_count`, `index_length_total`) and its
 * `search_language`; `reindex_cursor` (null when its index is whole) is the reindex job's place.
 * `kb_terms` keeps each term's document frequency per knowledge base, so a search reads the
 * postings of its terms once (for the scores) rather than twice (first counting them).
 * Deleting chunks removes their postings and takes them off the totals and the term counts by
 * trigger, on every path.
 *
 * The old shared index (FTS5 table on SQLite, tsvector column on PostgreSQL) is dropped: nothing
 * reads it any more and it slowed every insert. Existing knowledge bases keep English, and the
 * migration indexes every existing chunk itself, in batches, before the server answers: a search
 * is never made against a half-built index, so no knowledge base is unsearchable after the upgrade
 * (docs/knowledge-bases.md says why this rather than queuing them for the reindex job).
 */
import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import type { Database } from '../schema.js';
import { indexStoredChunks } from '../search-index-repository.js';
import { analyseChunk, DEFAULT_SEARCH_LANGUAGE, textAnalyzer } from '../text-analysis.js';

/** Existing chunks analysed per batch: one read and a few writes each, and memory bounded whatever the store holds. */
const UPGRADE_BATCH = 500;

/** Indexes every chunk already stored, in English (what every existing knowledge base keeps), by ascending id. */
async function indexExistingChunks(untyped: Kysely<unknown>): Promise<void> {
  const db = untyped as unknown as Kysely<Database>;
  const analyzer = textAnalyzer(DEFAULT_SEARCH_LANGUAGE);
  let cursor = 0;
  for (;;) {
    const chunks = await db
      .selectFrom('kb_chunks')
      .select(['id', 'knowledge_base_id', 'text', 'metadata'])
      .where('id', '>', cursor)
      .orderBy('id')
      .limit(UPGRADE_BATCH)
      .execute();
    if (chunks.length === 0) return;
    const byKnowledgeBase = new Map<number, Array<{ id: number; analysed: ReturnType<typeof analyseChunk> }>>();
    for (const chunk of chunks) {
      const group = byKnowledgeBase.get(chunk.knowledge_base_id) ?? [];
      group.push({ id: chunk.id, analysed: analyseChunk(analyzer, chunk.text, chunk.metadata) });
      byKnowledgeBase.set(chunk.knowledge_base_id, group);
    }
    // The title lengths' and term lists' columns come with migrations 0096 and 0098, which fill them in for these chunks.
    for (const [knowledgeBaseId, group] of byKnowledgeBase)
      await indexStoredChunks(db, knowledgeBaseId, group, { titleLengths: false, version: false, termLists: false });
    cursor = chunks[chunks.length - 1]!.id;
  }
}

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
  await sql`create table kb_terms (
    knowledge_base_id integer not null, term text not null, chunk_count integer not null,
    primary key (knowledge_base_id, term)) without rowid`.execute(db);
  await sql`create trigger kb_chunks_unindex after delete on kb_chunks begin
    update kb_terms set chunk_count = chunk_count - 1
      where knowledge_base_id = old.knowledge_base_id and term in (select term from kb_postings where chunk_id = old.id);
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
  // A search reads postings by index only while their pages are marked all-visible, which a
  // vacuum does. Autovacuum's default waits for inserts of 20% of the table: millions of rows in
  // a large store, whose new knowledge bases would be searched through the heap until then.
  await sql`alter table kb_postings set (autovacuum_vacuum_insert_scale_factor = 0.01)`.execute(db);
  await sql`create table kb_terms (
    knowledge_base_id integer not null, term text collate "C" not null, chunk_count integer not null,
    primary key (knowledge_base_id, term))`.execute(db);
  // One statement-level trigger: deleting a whole knowledge base updates its row once, not once a
  // chunk. The knowledge base's row is updated first: every writer of its index takes that row's
  // lock before any of its term rows (insertPostings does too), so two never deadlock on them.
  await sql`create function kb_chunks_unindex() returns trigger language plpgsql as $$
    begin
      update knowledge_bases k set index_chunk_count = k.index_chunk_count - r.chunks, index_length_total = k.index_length_total - r.length
        from (select knowledge_base_id, count(index_length) as chunks, coalesce(sum(index_length), 0) as length
              from removed where index_length is not null group by knowledge_base_id) r
        where k.id = r.knowledge_base_id;
      update kb_terms t set chunk_count = t.chunk_count - r.chunks
        from (select p.knowledge_base_id, p.term, count(*) as chunks from kb_postings p
              where p.chunk_id in (select id from removed) group by p.knowledge_base_id, p.term) r
        where t.knowledge_base_id = r.knowledge_base_id and t.term = r.term;
      delete from kb_postings where chunk_id in (select id from removed);
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
      await indexExistingChunks(db);
    },
  };
}
