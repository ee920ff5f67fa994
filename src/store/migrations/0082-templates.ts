/**
 * Migration 0082: the template library (docs/templates.md). A template is a prompt template (a
 * system prompt and a prompt template) or a rubric template (a rubric's content), kept personal,
 * shared with its organization, or system-wide. Its tags sit in their own table, one row a tag,
 * so filtering by a tag is an indexed lookup rather than a search through JSON text.
 */
import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { withIdColumn } from './id-column.js';

export function templatesMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await withIdColumn(db.schema.createTable('templates'), dialect)
        .addColumn('kind', 'text', (column) => column.notNull().check(sql`kind in ('prompt', 'rubric')`))
        .addColumn('visibility', 'text', (column) => column.notNull().check(sql`visibility in ('personal', 'organization', 'system')`))
        .addColumn('owner_id', 'integer', (column) => column.notNull().references('users.id').onDelete('cascade'))
        .addColumn('organization_id', 'integer', (column) => column.notNull().references('organizations.id').onDelete('cascade'))
        .addColumn('name', 'text', (column) => column.notNull())
        .addColumn('description', 'text', (column) => column.notNull().defaultTo(''))
        .addColumn('language', 'text')
        .addColumn('content', 'text', (column) => column.notNull())
        // Name, description and tags lower-cased by the application (search-pattern.ts).
        .addColumn('search_text', 'text', (column) => column.notNull().defaultTo(''))
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('updated_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema.createIndex('templates_owner_index').on('templates').column('owner_id').execute();
      await db.schema.createIndex('templates_organization_index').on('templates').columns(['organization_id', 'visibility']).execute();
      await db.schema.createIndex('templates_visibility_index').on('templates').column('visibility').execute();
      await db.schema
        .createTable('template_tags')
        .addColumn('template_id', 'integer', (column) => column.notNull().references('templates.id').onDelete('cascade'))
        .addColumn('tag', 'text', (column) => column.notNull())
        .addPrimaryKeyConstraint('template_tags_primary_key', ['template_id', 'tag'])
        .execute();
      await db.schema.createIndex('template_tags_tag_index').on('template_tags').columns(['tag', 'template_id']).execute();
    },
  };
}
