/**
 * Migration 0096: the title field's own length, for BM25F with a length normalisation per field
 * (docs/knowledge-bases.md, src/retrieval/field-weighted-bm25.ts). Each indexed chunk keeps its
 * title field's length in terms (`kb_chunks.index_title_length`) and each knowledge base how many
 * of its chunks have a title field and their lengths' sum (`index_titled_chunk_count`,
 * `index_title_length_total`), so the title field's average is the knowledge base's own, like
 * the other BM25 statistics. Deleting chunks takes them off that sum by trigger too, on every path.
 * Chunks indexed before it get their title lengths here, before the server answers, so no
 * knowledge base is ranked with a partial average.
 */
import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import type { Database } from '../schema.js';
import { analyseChunk, textAnalyzer } from '../text-analysis.js';

/** Existing chunks read per batch: memory bounded whatever the store holds. */
const UPGRADE_BATCH = 500;

async function addColumns(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const real = dialect === 'postgres' ? 'double precision' : 'real';
  await db.schema
    .alterTable('knowledge_bases')
    .addColumn('index_titled_chunk_count', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('knowledge_bases')
    .addColumn('index_title_length_total', sql.raw(real), (column) => column.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('kb_chunks').addColumn('index_title_length', sql.raw(real)).execute();
}

/** Migration 0094's delete trigger, now also taking a deleted chunk's title length off its knowledge base's total. */
async function replaceTriggerSqlite(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger kb_chunks_unindex`.execute(db);
  await sql`create trigger kb_chunks_unindex after delete on kb_chunks begin
    update kb_terms set chunk_count = chunk_count - 1
      where knowledge_base_id = old.knowledge_base_id and term in (select term from kb_postings where chunk_id = old.id);
    delete from kb_postings where chunk_id = old.id;
    update knowledge_bases set index_chunk_count = index_chunk_count - 1, index_length_total = index_length_total - old.index_length,
        index_titled_chunk_count = index_titled_chunk_count - (coalesce(old.index_title_length, 0) > 0),
        index_title_length_total = index_title_length_total - coalesce(old.index_title_length, 0)
      where id = old.knowledge_base_id and old.index_length is not null;
  end`.execute(db);
}

async function replaceTriggerPostgres(db: Kysely<unknown>): Promise<void> {
  // The knowledge base's row is still updated first (see migration 0094: writers lock it before term rows).
  await sql`create or replace function kb_chunks_unindex() returns trigger language plpgsql as $$
    begin
      update knowledge_bases k set index_chunk_count = k.index_chunk_count - r.chunks, index_length_total = k.index_length_total - r.length,
          index_titled_chunk_count = k.index_titled_chunk_count - r.titled_chunks, index_title_length_total = k.index_title_length_total - r.title_length
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

/** Every indexed chunk's title length, in its knowledge base's language, added to its knowledge base's total; by ascending id. */
async function measureIndexedTitles(untyped: Kysely<unknown>): Promise<void> {
  const db = untyped as unknown as Kysely<Database>;
  const languages = new Map(
    (await db.selectFrom('knowledge_bases').select(['id', 'search_language']).execute()).map((row) => [row.id, row.search_language]),
  );
  let cursor = 0;
  for (;;) {
    const chunks = await db
      .selectFrom('kb_chunks')
      .select(['id', 'knowledge_base_id', 'metadata'])
      .where('id', '>', cursor)
      .where('index_length', 'is not', null)
      .orderBy('id')
      .limit(UPGRADE_BATCH)
      .execute();
    if (chunks.length === 0) return;
    // Only the title field is analysed: the chunk's text is left empty.
    const lengths = chunks.map(
      (chunk) => analyseChunk(textAnalyzer(languages.get(chunk.knowledge_base_id) ?? ''), '', chunk.metadata).titleLength,
    );
    const lengthOf = sql.join(
      chunks.map((chunk, index) => sql`when ${chunk.id} then cast(${lengths[index]!} as double precision)`),
      sql` `,
    );
    await sql`update kb_chunks set index_title_length = case id ${lengthOf} end
      where id in (${sql.join(chunks.map((chunk) => chunk.id))})`.execute(db);
    const totals = new Map<number, { chunks: number; length: number }>();
    chunks.forEach((chunk, index) => {
      const total = totals.get(chunk.knowledge_base_id) ?? { chunks: 0, length: 0 };
      const length = lengths[index]!;
      totals.set(chunk.knowledge_base_id, { chunks: total.chunks + (length > 0 ? 1 : 0), length: total.length + length });
    });
    for (const [knowledgeBaseId, total] of totals) {
      await db
        .updateTable('knowledge_bases')
        .set((eb) => ({
          index_titled_chunk_count: eb('index_titled_chunk_count', '+', total.chunks),
          index_title_length_total: eb('index_title_length_total', '+', total.length),
        }))
        .where('id', '=', knowledgeBaseId)
        .execute();
    }
    cursor = chunks[chunks.length - 1]!.id;
  }
}

export function titleFieldLengthsMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await addColumns(db, dialect);
      if (dialect === 'postgres') await replaceTriggerPostgres(db);
      else await replaceTriggerSqlite(db);
      await measureIndexedTitles(db);
    },
  };
}
