/**
 * Migration 0099: the full-text index no longer keeps each term's chunk count (`kb_terms`).
 *
 * A search takes a term's document frequency from the length of its posting list, which it reads
 * anyway, so only query expansion (RM3, off by default) read the counts; it now counts the postings
 * of its few expansion terms instead (chunk-search-repository.ts). Every ingestion batch upserted a
 * row per distinct term, and every deleted chunk took its terms off again: measured with
 * bench/ingestion-throughput.bench.ts in alternating pairs, leaving that out ingests JSON documents
 * about a sixth faster on SQLite and Markdown about a sixth faster on both stores
 * (docs/knowledge-bases.md, seventh pass).
 *
 * The delete trigger loses its term-count update. On SQLite it skipped a chunk's postings when its
 * knowledge base had no term rows left (deleting a knowledge base removes its postings by range
 * first); it now asks whether the knowledge base has any postings left, the same answer by the
 * postings' own key.
 */
import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from '../dialect.js';

async function dropTermCountsSqlite(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger kb_chunks_unindex`.execute(db);
  await sql`create trigger kb_chunks_unindex after delete on kb_chunks begin
    delete from kb_postings
      where knowledge_base_id = old.knowledge_base_id and term in (select value from json_each(old.index_terms)) and chunk_id = old.id
        and exists (select 1 from kb_postings where knowledge_base_id = old.knowledge_base_id);
    update knowledge_bases set index_chunk_count = index_chunk_count - 1, index_length_total = index_length_total - old.index_length,
        index_titled_chunk_count = index_titled_chunk_count - (coalesce(old.index_title_length, 0) > 0),
        index_title_length_total = index_title_length_total - coalesce(old.index_title_length, 0),
        index_version = index_version + 1
      where id = old.knowledge_base_id and old.index_length is not null;
  end`.execute(db);
  await sql`drop table kb_terms`.execute(db);
}

async function dropTermCountsPostgres(db: Kysely<unknown>): Promise<void> {
  // Migration 0097's function without the term counts; the knowledge base's row is still updated first.
  await sql`create or replace function kb_chunks_unindex() returns trigger language plpgsql as $$
    begin
      update knowledge_bases k set index_chunk_count = k.index_chunk_count - r.chunks, index_length_total = k.index_length_total - r.length,
          index_titled_chunk_count = k.index_titled_chunk_count - r.titled_chunks, index_title_length_total = k.index_title_length_total - r.title_length,
          index_version = k.index_version + 1
        from (select knowledge_base_id, count(index_length) as chunks, coalesce(sum(index_length), 0) as length,
                     count(*) filter (where index_title_length > 0) as titled_chunks, coalesce(sum(index_title_length), 0) as title_length
              from removed where index_length is not null group by knowledge_base_id) r
        where k.id = r.knowledge_base_id;
      delete from kb_postings where chunk_id in (select id from removed);
      return null;
    end $$`.execute(db);
  await sql`drop table kb_terms`.execute(db);
}

export function noTermCountsMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect === 'postgres') await dropTermCountsPostgres(db);
      else await dropTermCountsSqlite(db);
    },
  };
}
