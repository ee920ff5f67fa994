/**
 * Migration 0050: the tables of the `postgres` blob driver. A blob is a row of `blobs` (its key,
 * size, SHA-256 and chunk size) and its bytes are rows of `blob_chunks`, so a large file is
 * written and read a chunk at a time and never held whole in memory. A blob being written has no
 * key yet; it gets one in the transaction that finishes it. The tables exist on SQLite too (where
 * the default driver is `local`), so that the copy command and the tests can use them anywhere.
 */
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { withIdColumn } from './id-column.js';

export function blobsMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await withIdColumn(db.schema.createTable('blobs'), dialect)
        .addColumn('key', 'text', (column) => column.unique())
        .addColumn('size_bytes', 'bigint', (column) => column.notNull())
        .addColumn('sha256', 'text', (column) => column.notNull())
        .addColumn('chunk_bytes', 'integer', (column) => column.notNull())
        .addColumn('created_at', 'bigint', (column) => column.notNull())
        .execute();
      await db.schema
        .createTable('blob_chunks')
        .addColumn('blob_id', 'integer', (column) => column.notNull().references('blobs.id').onDelete('cascade'))
        .addColumn('chunk_index', 'integer', (column) => column.notNull())
        .addColumn('bytes', dialect === 'postgres' ? 'bytea' : 'blob', (column) => column.notNull())
        .addPrimaryKeyConstraint('blob_chunks_primary_key', ['blob_id', 'chunk_index'])
        .execute();
    },
  };
}
