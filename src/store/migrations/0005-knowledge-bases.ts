/**
 * Migration 0005: knowledge bases, their documents and chunks, with a full-text index on the
 * chunks: SQLite FTS5 kept in step by triggers, PostgreSQL a generated tsvector with a GIN index.
 */
import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { withIdColumn } from './id-column.js';

async function createTables(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await withIdColumn(db.schema.createTable('knowledge_bases'), dialect)
    .addColumn('owner_id', 'integer', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('organization_id', 'integer', (column) => column.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('description', 'text', (column) => column.notNull().defaultTo(''))
    // Name and description lower-cased by the application, as for assistants (see search-pattern.ts).
    .addColumn('search_text', 'text', (column) => column.notNull().defaultTo(''))
    .addColumn('visibility', 'text', (column) =>
      column
        .notNull()
        .defaultTo('private')
        .check(sql`visibility in ('private', 'organization')`),
    )
    .addColumn('chunk_size', 'integer', (column) => column.notNull().defaultTo(1000))
    .addColumn('chunk_overlap', 'integer', (column) => column.notNull().defaultTo(200))
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .addColumn('deleted_at', 'text')
    .execute();
  await db.schema.createIndex('knowledge_bases_organization_index').on('knowledge_bases').column('organization_id').execute();

  await withIdColumn(db.schema.createTable('kb_documents'), dialect)
    .addColumn('knowledge_base_id', 'integer', (column) => column.notNull().references('knowledge_bases.id').onDelete('cascade'))
    .addColumn('file_name', 'text', (column) => column.notNull())
    .addColumn('content_type', 'text', (column) => column.notNull())
    .addColumn('size_bytes', 'integer', (column) => column.notNull())
    .addColumn('source_url', 'text')
    .addColumn('status', 'text', (column) => column.notNull().defaultTo('pending'))
    .addColumn('error', 'text')
    .addColumn('chunk_count', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('metadata', 'text', (column) => column.notNull().defaultTo('{}'))
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('kb_documents_knowledge_base_index').on('kb_documents').column('knowledge_base_id').execute();

  await withIdColumn(db.schema.createTable('kb_chunks'), dialect)
    .addColumn('knowledge_base_id', 'integer', (column) => column.notNull().references('knowledge_bases.id').onDelete('cascade'))
    .addColumn('document_id', 'integer', (column) => column.notNull().references('kb_documents.id').onDelete('cascade'))
    .addColumn('chunk_index', 'integer', (column) => column.notNull())
    .addColumn('text', 'text', (column) => column.notNull())
    .addColumn('metadata', 'text', (column) => column.notNull().defaultTo('{}'))
    .execute();
  await db.schema.createIndex('kb_chunks_knowledge_base_index').on('kb_chunks').column('knowledge_base_id').execute();
  await db.schema.createIndex('kb_chunks_document_index').on('kb_chunks').columns(['document_id', 'chunk_index']).execute();
}

/** English stemming (porter / 'english') on both sides, so the two dialects match the same words. */
async function createFullTextIndex(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect === 'postgres') {
    await sql`alter table kb_chunks add column search_vector tsvector generated always as (to_tsvector('english', text)) stored`.execute(
      db,
    );
    await sql`create index kb_chunks_search_index on kb_chunks using gin (search_vector)`.execute(db);
    return;
  }
  await sql`create virtual table kb_chunks_fts using fts5(text, content='kb_chunks', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')`.execute(
    db,
  );
  await sql`create trigger kb_chunks_fts_insert after insert on kb_chunks begin insert into kb_chunks_fts(rowid, text) values (new.id, new.text); end`.execute(
    db,
  );
  await sql`create trigger kb_chunks_fts_delete after delete on kb_chunks begin insert into kb_chunks_fts(kb_chunks_fts, rowid, text) values ('delete', old.id, old.text); end`.execute(
    db,
  );
  await sql`create trigger kb_chunks_fts_update after update of text on kb_chunks begin insert into kb_chunks_fts(kb_chunks_fts, rowid, text) values ('delete', old.id, old.text); insert into kb_chunks_fts(rowid, text) values (new.id, new.text); end`.execute(
    db,
  );
}

export function knowledgeBasesMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await createTables(db, dialect);
      await createFullTextIndex(db, dialect);
    },
  };
}
