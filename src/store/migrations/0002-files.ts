/**
 * Migration 0002: the files users upload for the single-file tool. The bytes live on disk under
 * `<DATA_DIR>/files/<owner_id>/<stored_name>`; this table is the only way to find them.
 */
import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { withIdColumn } from './id-column.js';

export function filesMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await withIdColumn(db.schema.createTable('files'), dialect)
        .addColumn('owner_id', 'integer', (column) => column.notNull().references('users.id').onDelete('cascade'))
        .addColumn('organization_id', 'integer', (column) => column.notNull().references('organizations.id').onDelete('cascade'))
        .addColumn('file_path', 'text', (column) => column.notNull())
        .addColumn('stored_name', 'text', (column) => column.notNull())
        .addColumn('original_name', 'text', (column) => column.notNull())
        .addColumn('content_type', 'text', (column) => column.notNull())
        .addColumn('size_bytes', 'integer', (column) => column.notNull())
        .addColumn('sha256', 'text', (column) => column.notNull())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('deleted_at', 'text')
        .execute();
      // file_path is unique among live files only: a deleted file gives its name back, so the
      // owner can upload "notes.txt" again and an assistant configured with it finds the new one.
      await db.schema
        .createIndex('files_live_path_unique')
        .on('files')
        .column('file_path')
        .unique()
        .where(sql.ref('deleted_at'), 'is', null)
        .execute();
      await db.schema.createIndex('files_owner_index').on('files').column('owner_id').execute();
      await db.schema.createIndex('files_organization_index').on('files').column('organization_id').execute();
    },
  };
}
