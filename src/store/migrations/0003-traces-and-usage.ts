/**
 * Migration 0003: redacted traces of verbose assistants' runs, and one usage row per completion
 * request (tokens summed over every model call of the request).
 */
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { withIdColumn } from './id-column.js';

export function tracesAndUsageMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('traces')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('assistant_id', 'integer', (column) => column.notNull().references('assistants.id').onDelete('cascade'))
        .addColumn('owner_id', 'integer', (column) => column.notNull())
        .addColumn('organization_id', 'integer', (column) => column.notNull())
        .addColumn('caller_user_id', 'integer', (column) => column.notNull())
        .addColumn('request_id', 'text')
        .addColumn('trace', 'text', (column) => column.notNull())
        .execute();
      await db.schema.createIndex('traces_assistant_index').on('traces').column('assistant_id').execute();

      await withIdColumn(db.schema.createTable('usage_logs'), dialect)
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('organization_id', 'integer', (column) => column.notNull())
        .addColumn('user_id', 'integer', (column) => column.notNull())
        .addColumn('assistant_id', 'integer', (column) => column.notNull())
        .addColumn('connector', 'text', (column) => column.notNull())
        .addColumn('model', 'text', (column) => column.notNull())
        .addColumn('prompt_tokens', 'integer', (column) => column.notNull())
        .addColumn('completion_tokens', 'integer', (column) => column.notNull())
        .addColumn('total_tokens', 'integer', (column) => column.notNull())
        .addColumn('duration_ms', 'integer', (column) => column.notNull())
        .addColumn('outcome', 'text', (column) => column.notNull())
        .addColumn('request_id', 'text')
        .execute();
      await db.schema.createIndex('usage_logs_assistant_index').on('usage_logs').columns(['assistant_id', 'created_at']).execute();
    },
  };
}
