/**
 * Migration 0073: `users.must_change_password`. An admin who resets a password hands out a
 * one-time password; until its holder chooses a new one (POST /api/auth/password) every other API
 * call is refused (docs/organizations.md). Existing accounts need no change.
 */
import type { Kysely, Migration } from 'kysely';

export function oneTimePasswordsMigration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('users')
        .addColumn('must_change_password', 'integer', (column) => column.notNull().defaultTo(0))
        .execute();
    },
  };
}
