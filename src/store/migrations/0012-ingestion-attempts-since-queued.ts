/**
 * Migration 0012: how many times an ingestion job was started since it was last queued (by its
 * upload or a retry). `attempts` keeps counting every start for the job's history; this count is
 * what the attempts cap (INGESTION_ATTEMPTS_MAX) compares, so a retry the creator asked for starts
 * afresh instead of failing at once for crashes that happened before it.
 */
import type { Kysely, Migration } from 'kysely';

export function ingestionAttemptsSinceQueuedMigration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('ingestion_jobs')
        .addColumn('attempts_since_queued', 'integer', (column) => column.notNull().defaultTo(0))
        .execute();
    },
  };
}
