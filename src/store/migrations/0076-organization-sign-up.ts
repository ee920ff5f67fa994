/**
 * Migration 0076: `organization_sign_ups`, an organization's self sign-up (docs/sign-up.md). One
 * row per organization that ever configured it; no row means sign-up is off. The key is kept as
 * its SHA-256 only, unique across organizations because the key alone decides where a new person
 * lands. The row goes with its organization (foreign key cascade).
 */
import type { Kysely, Migration } from 'kysely';

export function organizationSignUpMigration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('organization_sign_ups')
        .addColumn('organization_id', 'integer', (column) => column.primaryKey().references('organizations.id').onDelete('cascade'))
        .addColumn('enabled', 'integer', (column) => column.notNull().defaultTo(0))
        .addColumn('key_hash', 'text', (column) => column.unique())
        .addColumn('key_created_at', 'text')
        .addColumn('allowed_email_domain', 'text')
        .addColumn('role', 'text', (column) => column.notNull().defaultTo('learner'))
        .addColumn('updated_at', 'text', (column) => column.notNull())
        .execute();
    },
  };
}
