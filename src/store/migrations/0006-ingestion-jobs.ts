/**
 * Migration 0006: ingestion jobs, one per document upload or retry. A runner claims the oldest
 * pending job (or a processing one whose lease has expired) and works on it under its lease.
 */
import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { withIdColumn } from './id-column.js';

export function ingestionJobsMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await withIdColumn(db.schema.createTable('ingestion_jobs'), dialect)
        .addColumn('knowledge_base_id', 'integer', (column) => column.notNull().references('knowledge_bases.id').onDelete('cascade'))
        .addColumn('document_id', 'integer', (column) => column.notNull().references('kb_documents.id').onDelete('cascade'))
        .addColumn('status', 'text', (column) =>
          column
            .notNull()
            .defaultTo('pending')
            .check(sql`status in ('pending', 'processing', 'completed', 'failed', 'cancelled')`),
        )
        .addColumn('progress_current', 'integer', (column) => column.notNull().defaultTo(0))
        .addColumn('progress_total', 'integer', (column) => column.notNull().defaultTo(0))
        .addColumn('message', 'text')
        .addColumn('error', 'text')
        .addColumn('attempts', 'integer', (column) => column.notNull().defaultTo(0))
        .addColumn('lease_owner', 'text')
        .addColumn('lease_expires_at', 'text')
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('updated_at', 'text', (column) => column.notNull())
        .addColumn('finished_at', 'text')
        .execute();
      await db.schema.createIndex('ingestion_jobs_claim_index').on('ingestion_jobs').columns(['status', 'id']).execute();
      await db.schema.createIndex('ingestion_jobs_knowledge_base_index').on('ingestion_jobs').column('knowledge_base_id').execute();
      await db.schema.createIndex('ingestion_jobs_document_index').on('ingestion_jobs').column('document_id').execute();
    },
  };
}
