/**
 * Migration 0010: a rubric's public `rubric_id` is unique within its organization instead of
 * across the server. With one server-wide namespace, choosing an id that another organization had
 * taken answered 409 and so told anyone that a private rubric with that id existed elsewhere; per
 * organization, another organization's ids neither collide with nor reveal anything. Ids stay
 * unique forever within an organization, deleted rubrics included.
 *
 * SQLite cannot drop the unique index a column constraint made, so there the table is rebuilt
 * (nothing references rubrics by row id); PostgreSQL drops the constraint by its generated name.
 */
import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { withIdColumn } from './id-column.js';

const RUBRIC_COLUMNS = sql.raw(
  'id, rubric_id, owner_id, organization_id, title, description, visibility, rubric_data, search_text, created_at, updated_at, deleted_at',
);

async function rebuildForSqlite(db: Kysely<unknown>): Promise<void> {
  await withIdColumn(db.schema.createTable('rubrics_per_organization'), 'sqlite')
    .addColumn('rubric_id', 'text', (column) => column.notNull())
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
    .addColumn('search_text', 'text', (column) => column.notNull().defaultTo(''))
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .addColumn('deleted_at', 'text')
    .addUniqueConstraint('rubrics_organization_rubric_id_unique', ['organization_id', 'rubric_id'])
    .execute();
  await sql`insert into rubrics_per_organization (${RUBRIC_COLUMNS}) select ${RUBRIC_COLUMNS} from rubrics`.execute(db);
  await db.schema.dropTable('rubrics').execute();
  await db.schema.alterTable('rubrics_per_organization').renameTo('rubrics').execute();
  await db.schema.createIndex('rubrics_owner_index').on('rubrics').column('owner_id').execute();
  await db.schema.createIndex('rubrics_organization_index').on('rubrics').columns(['organization_id', 'visibility']).execute();
}

async function rescopeForPostgres(db: Kysely<unknown>): Promise<void> {
  await sql`alter table rubrics drop constraint rubrics_rubric_id_key`.execute(db);
  await db.schema
    .alterTable('rubrics')
    .addUniqueConstraint('rubrics_organization_rubric_id_unique', ['organization_id', 'rubric_id'])
    .execute();
}

export function rubricIdsPerOrganizationMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect === 'sqlite') await rebuildForSqlite(db);
      else await rescopeForPostgres(db);
    },
  };
}
