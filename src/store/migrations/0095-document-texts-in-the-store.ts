/**
 * Migration 0095: the texts of small JSON documents kept in the store (docs/knowledge-bases.md
 * "JSON documents"). `kb_document_texts` holds, per document, the text it was added with when that
 * text is at most KB_JSON_STORED_TEXT_BYTES_MAX bytes: written in the transaction that writes the
 * document's row, it costs no file write, sync and read-back per document, and a row can never
 * exist without its text. Larger texts and uploads stay files in blob storage.
 */
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../dialect.js';

export function documentTextsInTheStoreMigration(_dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('kb_document_texts')
        .addColumn('document_id', 'integer', (column) => column.primaryKey().references('kb_documents.id').onDelete('cascade'))
        .addColumn('text', 'text', (column) => column.notNull())
        .execute();
    },
  };
}
