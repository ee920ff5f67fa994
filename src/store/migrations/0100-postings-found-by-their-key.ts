/**
 * Migration 0100: on PostgreSQL the postings lose their index on `chunk_id`, as SQLite's did with
 * migration 0098. Every posting written went into that index as well as into the postings' own key
 * and their heap: writing the DBpedia abstracts' index (bench/full-text-index-writes.bench.ts, 256
 * a transaction) took a median of 0.32 ms a chunk without it against 0.40 ms with it, in five
 * alternating pairs, four of them faster (docs/knowledge-bases.md, ninth pass).
 *
 * A deleted chunk's postings are found instead by their key (knowledge base, term, chunk) through
 * the chunk's term list (`index_terms`, migration 0098), one index scan a chunk: the delete
 * trigger walks the removed chunks rather than joining them to the postings in one statement,
 * whose plan PostgreSQL would choose without statistics for the removed rows (a scan of every
 * posting, at worst). A knowledge base with no postings left (deleting a knowledge base removes
 * them by range first) is skipped whole, as SQLite's trigger does.
 */
import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from '../dialect.js';

async function findPostingsByKeyPostgres(db: Kysely<unknown>): Promise<void> {
  // Migration 0099's function, the knowledge base's row still updated first (it serialises the
  // writers of one index), then each removed chunk's postings by their key.
  await sql`create or replace function kb_chunks_unindex() returns trigger language plpgsql as $$
    declare
      base record;
      chunk record;
    begin
      update knowledge_bases k set index_chunk_count = k.index_chunk_count - r.chunks, index_length_total = k.index_length_total - r.length,
          index_titled_chunk_count = k.index_titled_chunk_count - r.titled_chunks, index_title_length_total = k.index_title_length_total - r.title_length,
          index_version = k.index_version + 1
        from (select knowledge_base_id, count(index_length) as chunks, coalesce(sum(index_length), 0) as length,
                     count(*) filter (where index_title_length > 0) as titled_chunks, coalesce(sum(index_title_length), 0) as title_length
              from removed where index_length is not null group by knowledge_base_id) r
        where k.id = r.knowledge_base_id;
      for base in select distinct knowledge_base_id from removed where index_terms is not null loop
        continue when not exists (select 1 from kb_postings where knowledge_base_id = base.knowledge_base_id);
        for chunk in select id, index_terms from removed where knowledge_base_id = base.knowledge_base_id and index_terms is not null loop
          delete from kb_postings
            where knowledge_base_id = base.knowledge_base_id and chunk_id = chunk.id
              and term = any (array(select json_array_elements_text(chunk.index_terms::json)));
        end loop;
      end loop;
      return null;
    end $$`.execute(db);
  await sql`drop index kb_postings_chunk_index`.execute(db);
}

export function postingsFoundByTheirKeyMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // SQLite's postings have been found by their key since migration 0098.
      if (dialect === 'postgres') await findPostingsByKeyPostgres(db);
    },
  };
}
