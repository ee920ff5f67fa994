/**
 * Migration 0004: rubrics in LAMB's JSON ("evaluaitor" rubric_data). `rubric_id` is the public
 * string id clients and assistants name a rubric by; it stays unique even after a soft delete, so
 * an assistant that names a deleted rubric never silently reads a new one under the same id.
 */
import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { withIdColumn } from './id-column.js';

export function rubricsMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await withIdColumn(db.schema.createTable('rubrics'), dialect)
        .addColumn('rubric_id', 'text', (column) => column.notNull().unique())
        .addColumn('owner_id', 'integer', (column) => column.notNull().references('users.id').onDelete('cascade'))
        .addColumn('organization_id', 'integer', (column) => column.notNull().references('organizations.id').onDelete('cascade'))
        .addColumn('title', 'text', (column) => column.notNull())
        .addColumn('description', 'text', (column) => column.notNull().defaultTo(''))
        .addColumn('visibility', 'text', (column) =>
          column
            .notNull()
            .defaultTo('private')
            .check(sql`visibility in ('private', 'organization')`),
        )
        .addColumn('rubric_data', 'text', (column) => column.notNull())
        // Title and description lower-cased by the application, for searches that fold case beyond ASCII.
        .addColumn('search_text', 'text', (column) => column.notNull().defaultTo(''))
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('updated_at', 'text', (column) => column.notNull())
        .addColumn('deleted_at', 'text')
        .execute();
      await db.schema.createIndex('rubrics_owner_index').on('rubrics').column('owner_id').execute();
      await db.schema.createIndex('rubrics_organization_index').on('rubrics').columns(['organization_id', 'visibility']).execute();
    },
  };
}
