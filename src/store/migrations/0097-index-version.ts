/**
 * Migration 0097: a knowledge base's index version (`knowledge_bases.index_version`), raised by
 * every change to its postings: chunks indexed or unindexed (search-index-repository.ts) and
 * chunks deleted (the delete trigger, now raising it too). A process keeps posting lists in
 * memory under the version they were read at (src/store/posting-list-cache.ts) and reads the
 * version with the knowledge base's other BM25 statistics on every search, so a list another
 * process changed is never used.
 */
import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from '../dialect.js';

/** Migration 0096's delete trigger, now also raising the knowledge base's index version. */
async function replaceTriggerSqlite(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger kb_chunks_unindex`.execute(db);
  await sql`create trigger kb_chunks_unindex after delete on kb_chunks begin
    update kb_terms set chunk_count = chunk_count - 1
      where knowledge_base_id = old.knowledge_base_id and term in (select term from kb_postings where chunk_id = old.id);
    delete from kb_postings where chunk_id = old.id;
    update knowledge_bases set index_chunk_count = index_chunk_count - 1, index_length_total = index_length_total - old.index_length,
        index_titled_chunk_count = index_titled_chunk_count - (coalesce(old.index_title_length, 0) > 0),
        index_title_length_total = index_title_length_total - coalesce(old.index_title_length, 0),
        index_version = index_version + 1
      where id = old.knowledge_base_id and old.index_length is not null;
  end`.execute(db);
}

async function replaceTriggerPostgres(db: Kysely<unknown>): Promise<void> {
  // The knowledge base's row is still updated first (see migration 0094: writers lock it before term rows).
  await sql`create or replace function kb_chunks_unindex() returns trigger language plpgsql as $$
    begin
      update knowledge_bases k set index_chunk_count = k.index_chunk_count - r.chunks, index_length_total = k.index_length_total - r.length,
          index_titled_chunk_count = k.index_titled_chunk_count - r.titled_chunks, index_title_length_total = k.index_title_length_total - r.title_length,
          index_version = k.index_version + 1
        from (select knowledge_base_id, count(index_length) as chunks, coalesce(sum(index_length), 0) as length,
                     count(*) filter (where index_title_length > 0) as titled_chunks, coalesce(sum(index_title_length), 0) as title_length
              from removed where index_length is not null group by knowledge_base_id) r
        where k.id = r.knowledge_base_id;
      update kb_terms t set chunk_count = t.chunk_count - r.chunks
        from (select p.knowledge_base_id, p.term, count(*) as chunks from kb_postings p
              where p.chunk_id in (select id from removed) group by p.knowledge_base_id, p.term) r
        where t.knowledge_base_id = r.knowledge_base_id and t.term = r.term;
      delete from kb_postings where chunk_id in (select id from removed);
      return null;
    end $$`.execute(db);
}

export function indexVersionMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('knowledge_bases')
        .addColumn('index_version', 'integer', (column) => column.notNull().defaultTo(0))
        .execute();
      if (dialect === 'postgres') await replaceTriggerPostgres(db);
      else await replaceTriggerSqlite(db);
    },
  };
}
