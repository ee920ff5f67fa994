/**
 * Migration 0051: one row per kind of periodic work (the chat-retention purge, …) naming who last
 * started it and when. A process claims a run with one atomic upsert that succeeds only when the
 * last run started at least one interval ago, so a fleet of processes runs each kind of work once
 * per interval, not once per process.
 */
import type { Kysely, Migration } from 'kysely';

export function periodicRunsMigration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('periodic_runs')
        .addColumn('name', 'text', (column) => column.primaryKey())
        .addColumn('runner', 'text', (column) => column.notNull())
        // Milliseconds since the epoch; bigint so PostgreSQL holds it, read back as a number.
        .addColumn('started_at', 'bigint', (column) => column.notNull())
        .addColumn('finished_at', 'bigint')
        .addColumn('run_count', 'integer', (column) => column.notNull())
        .execute();
    },
  };
}
