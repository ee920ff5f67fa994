/**
 * Migration 0098: each indexed chunk keeps the list of its distinct terms
 * (`kb_chunks.index_terms`, a JSON array; filled in here from the postings of chunks already
 * indexed), so its postings can be found by their own key (knowledge base, term, chunk) when it
 * is unindexed or deleted.
 *
 * On SQLite that lets the postings lose their second index, on `chunk_id`: every posting written
 * went into it as well as into the postings' own key, and the index writes are 13 to 19% faster
 * without it (docs/knowledge-bases.md has the figures). The delete trigger
 * now finds a chunk's postings and term counts through its list. PostgreSQL keeps that index: its
 * statement-level trigger deletes a whole document's postings in one set-based statement through it.
 */
import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from '../dialect.js';

async function addTermListsSqlite(db: Kysely<unknown>): Promise<void> {
  await sql`alter table kb_chunks add column index_terms text`.execute(db);
  await sql`update kb_chunks set index_terms = (select json_group_array(term) from kb_postings p where p.chunk_id = kb_chunks.id)
    where index_length is not null`.execute(db);
  // Migration 0097's trigger, finding the chunk's postings and term rows by their keys. The
  // `exists` skips both when the knowledge base has no terms left: deleting a knowledge base
  // removes its postings and terms by range first, then its chunks.
  await sql`drop trigger kb_chunks_unindex`.execute(db);
  await sql`create trigger kb_chunks_unindex after delete on kb_chunks begin
    update kb_terms set chunk_count = chunk_count - 1
      where knowledge_base_id = old.knowledge_base_id and term in (select value from json_each(old.index_terms))
        and exists (select 1 from kb_terms where knowledge_base_id = old.knowledge_base_id);
    delete from kb_postings
      where knowledge_base_id = old.knowledge_base_id and term in (select value from json_each(old.index_terms)) and chunk_id = old.id
        and exists (select 1 from kb_terms where knowledge_base_id = old.knowledge_base_id);
    update knowledge_bases set index_chunk_count = index_chunk_count - 1, index_length_total = index_length_total - old.index_length,
        index_titled_chunk_count = index_titled_chunk_count - (coalesce(old.index_title_length, 0) > 0),
        index_title_length_total = index_title_length_total - coalesce(old.index_title_length, 0),
        index_version = index_version + 1
      where id = old.knowledge_base_id and old.index_length is not null;
  end`.execute(db);
  await sql`drop index kb_postings_chunk_index`.execute(db);
}

async function addTermListsPostgres(db: Kysely<unknown>): Promise<void> {
  await sql`alter table kb_chunks add column index_terms text`.execute(db);
  await sql`update kb_chunks c set index_terms = p.terms
    from (select chunk_id, json_agg(term order by term)::text as terms from kb_postings group by chunk_id) p
    where c.id = p.chunk_id`.execute(db);
  // Indexed chunks without a term (an empty text) have no postings to aggregate.
  await sql`update kb_chunks set index_terms = '[]' where index_length is not null and index_terms is null`.execute(db);
}

export function chunkTermListsMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect === 'postgres') await addTermListsPostgres(db);
      else await addTermListsSqlite(db);
    },
  };
}
