/**
 * Migration 0009: what an API key may claim and how long it lives. `trusted_front_end` marks the
 * keys a system admin gave to a front end (Open WebUI) whose forwarded-user header Merino may
 * believe; `expires_at` ends a key on its own. An organization may stop its learners from
 * creating keys (`learners_create_api_keys`), which it allows until told otherwise.
 */
import type { Kysely, Migration } from 'kysely';

export function apiKeyTrustAndExpiryMigration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('api_keys')
        .addColumn('trusted_front_end', 'integer', (column) => column.notNull().defaultTo(0))
        .execute();
      await db.schema.alterTable('api_keys').addColumn('expires_at', 'text').execute();
      await db.schema
        .alterTable('organizations')
        .addColumn('learners_create_api_keys', 'integer', (column) => column.notNull().defaultTo(1))
        .execute();
    },
  };
}
